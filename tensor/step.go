package tensor

// StepKernels are the primitive kernels of the optimizer updates, in place
// and outside autograd. Every Backend implements them: cpu_step.go (Go
// loops), cuda_step.go (kernels.AdamStep, kernels.AxpyF32), meta.go. The
// tensors are float32 and of one element count.
type StepKernels interface {
	// AdamStep applies one Adam / AdamW update to param, m and v in
	// place (see the function AdamStep for the arithmetic).
	AdamStep(param, grad, m, v *Tensor, cfg AdamConfig)
	// Axpy does y += alpha * x in place.
	Axpy(y, x *Tensor, alpha float32)
	// Scale does x *= alpha in place.
	Scale(x *Tensor, alpha float32)
}

// Parameter updates on any device, outside autograd. An optimizer that
// keeps flat []float32 views of CPU parameters can keep doing so on the
// CPU; for parameters on a GPU (whose Float32s panics) it calls these, which
// run one fused kernel per tensor there and the same arithmetic in Go on
// the CPU.

// AdamConfig holds the hyper-parameters of one AdamStep, named as in
// torch.optim.Adam / AdamW.
type AdamConfig struct {
	LR          float64 // lr
	Beta1       float64 // betas[0], e.g. 0.9
	Beta2       float64 // betas[1], e.g. 0.999
	Eps         float64 // eps, e.g. 1e-8
	WeightDecay float64 // weight_decay
	Step        int     // the step number t, 1 for the first step
	Decoupled   bool    // AdamW's decoupled weight decay instead of Adam's L2 term
}

// AdamStep applies one Adam (or AdamW, with Decoupled) update in place to
// the float32 parameter param with gradient grad and moment buffers m and
// v (same shape, zeroed before step 1, e.g. by ZerosLike), as
// torch.optim.Adam / AdamW with amsgrad=False:
//
//	Adam:  g += weight_decay * p;   AdamW: p *= 1 - lr*weight_decay
//	m = beta1*m + (1-beta1)*g;      v = beta2*v + (1-beta2)*g^2
//	p -= lr/(1-beta1^t) * m / (sqrt(v)/sqrt(1-beta2^t) + eps)
//
// The scalars are computed in float64 and rounded once, as PyTorch does. On
// a GPU it is one fused kernel (kernels.AdamStep); on the CPU the same
// float32 arithmetic in Go (results agree to rounding). It records no
// gradient. Panics with ErrShape, ErrDType or ErrDevice when the four
// tensors differ in element count, dtype or device, and with ErrShape when
// Step < 1. Kernels: cpu_step.go, cuda_step.go (kernels.AdamStep).
func AdamStep(param, grad, m, v *Tensor, cfg AdamConfig) {
	defer hookOp("AdamStep")()
	const op = "AdamStep"
	be := backendOf(op, param, grad, m, v)
	checkFloat(op, param, grad, m, v)
	for _, t := range []*Tensor{grad, m, v} {
		if t.n != param.n {
			panicf(ErrShape, op, "tensors of shapes %v and %v differ in size", param.shape, t.shape)
		}
	}
	if cfg.Step < 1 {
		panicf(ErrArgument, op, "Step = %d, want >= 1", cfg.Step)
	}
	be.AdamStep(param, grad, m, v, cfg)
}

// AddScaledInPlace does t += alpha * x in place, outside autograd
// (torch.Tensor.add_(x, alpha=alpha)): the SGD update p.AddScaledInPlace(g,
// -lr) and gradient accumulation, on t's device. Float32; panics with
// ErrShape when the element counts differ and with ErrDevice when the
// devices do. Kernels: cpu_step.go, cuda_step.go (kernels.AxpyF32).
func (t *Tensor) AddScaledInPlace(x *Tensor, alpha float32) {
	defer hookOp("AddScaledInPlace")()
	const op = "AddScaledInPlace"
	be := backendOf(op, t, x)
	checkFloat(op, t, x)
	if t.n != x.n {
		panicf(ErrShape, op, "tensors of shapes %v and %v differ in size", t.shape, x.shape)
	}
	be.Axpy(t, x, alpha)
}
