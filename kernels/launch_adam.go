package kernels

import "math"

// AdamParams are the hyper-parameters of one AdamStep, named as in
// torch.optim.Adam / AdamW.
type AdamParams struct {
	LR          float64 // learning rate, lr
	Beta1       float64 // betas[0], e.g. 0.9
	Beta2       float64 // betas[1], e.g. 0.999
	Eps         float64 // eps, e.g. 1e-8
	WeightDecay float64 // weight_decay
	Step        int     // the step number t, 1 for the first step
	Decoupled   bool    // AdamW's decoupled weight decay instead of Adam's L2 term
}

// AdamStep applies one fused Adam (or AdamW) update to n float32
// parameters p with gradient g and moment buffers m and v (zeroed before
// step 1), all on the device, as torch.optim.Adam / AdamW with
// amsgrad=False:
//
//	Adam:  g += weight_decay * p;  AdamW: p *= 1 - lr*weight_decay
//	m = beta1*m + (1-beta1)*g;  v = beta2*v + (1-beta2)*g^2
//	p -= lr/(1-beta1^t) * m / (sqrt(v)/sqrt(1-beta2^t) + eps)
//
// The scalars (1-beta1, 1-beta2, the bias corrections, the AdamW decay)
// are computed in float64 and rounded once, as PyTorch does.
//
// Panics if s is nil, n < 0 or Step < 1.
func AdamStep(s *Stream, p, g, m, v DevicePtr, n int, hp AdamParams) error {
	mustStream("AdamStep", s)
	mustCount("AdamStep", "n", n)
	if hp.Step < 1 {
		argPanic("AdamStep", "Step = %d, want >= 1", hp.Step)
	}
	if n == 0 {
		return nil
	}
	bc1 := 1 - math.Pow(hp.Beta1, float64(hp.Step))
	bc2 := 1 - math.Pow(hp.Beta2, float64(hp.Step))
	var adamw int32
	decay := 1.0
	if hp.Decoupled {
		adamw = 1
		decay = 1 - hp.LR*hp.WeightDecay
	}
	return launch(s, "adam", "gk_adam_f32", gridFor(int64(n), blockThreads), flat, 0,
		p, g, m, v, int64(n), float32(hp.Beta1), float32(hp.Beta2), float32(1-hp.Beta1), float32(1-hp.Beta2),
		float32(hp.Eps), float32(hp.WeightDecay), float32(decay), float32(hp.LR/bc1), float32(math.Sqrt(bc2)), adamw)
}

// UnscaleF32 multiplies n float32 gradients g by invScale in place and sets
// the float32 at foundInf to 1 if any result is Inf or NaN (it is not
// cleared first), as torch.amp.GradScaler.unscale_
// (_amp_foreach_non_finite_check_and_unscale_).
func UnscaleF32(s *Stream, g DevicePtr, n int, invScale float32, foundInf DevicePtr) error {
	mustStream("UnscaleF32", s)
	mustCount("UnscaleF32", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "adam", "gk_unscale_f32", gridFor(int64(n), blockThreads), flat, 0, g, int64(n), invScale, foundInf)
}
