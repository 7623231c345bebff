package tensor

import (
	"math"

	"github.com/gnnrepl/gnnrepl/kernels"
)

// StepKernels are the primitive kernels of this file's ops: optimizer updates in place (Adam, axpy).
// Every Backend implements them (cpu_*.go, cuda_*.go, meta.go).
type StepKernels interface{}

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
// Step < 1.
func AdamStep(param, grad, m, v *Tensor, cfg AdamConfig) {
	defer hookOp("AdamStep")()
	const op = "AdamStep"
	checkFloat(op, param, grad, m, v)
	for _, t := range []*Tensor{grad, m, v} {
		if t.n != param.n {
			panicf(ErrShape, op, "tensors of shapes %v and %v differ in size", param.shape, t.shape)
		}
	}
	if cfg.Step < 1 {
		panicf(ErrShape, op, "Step = %d, want >= 1", cfg.Step)
	}
	if dev := deviceOf(op, param, grad, m, v); dev != "cpu" {
		d := cudaOf(op, param)
		d.must(op, kernels.AdamStep(d.s, ptr(param), ptr(grad), ptr(m), ptr(v), param.n, kernels.AdamParams{
			LR: cfg.LR, Beta1: cfg.Beta1, Beta2: cfg.Beta2, Eps: cfg.Eps,
			WeightDecay: cfg.WeightDecay, Step: cfg.Step, Decoupled: cfg.Decoupled}))
		return
	}
	bc1 := 1 - math.Pow(cfg.Beta1, float64(cfg.Step))
	bc2 := 1 - math.Pow(cfg.Beta2, float64(cfg.Step))
	decay := float32(1)
	if cfg.Decoupled {
		decay = float32(1 - cfg.LR*cfg.WeightDecay)
	}
	beta1, beta2 := float32(cfg.Beta1), float32(cfg.Beta2)
	omb1, omb2 := float32(1-cfg.Beta1), float32(1-cfg.Beta2)
	eps, wd := float32(cfg.Eps), float32(cfg.WeightDecay)
	stepSize, bc2s := float32(cfg.LR/bc1), float32(math.Sqrt(bc2))
	pd, gd, md, vd := param.Float32s(), grad.Float32s(), m.Float32s(), v.Float32s()
	fma := func(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }
	parallelFor(len(pd), 1<<14, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p, g := pd[i], gd[i]
			if cfg.Decoupled {
				p *= decay
			} else if wd != 0 {
				g = fma(wd, p, g)
			}
			mi := fma(beta1, md[i], omb1*g)
			vi := fma(beta2, vd[i], omb2*g*g)
			md[i], vd[i] = mi, vi
			pd[i] = p - stepSize*mi/(float32(math.Sqrt(float64(vi)))/bc2s+eps)
		}
	})
}

// AddScaledInPlace does t += alpha * x in place, outside autograd
// (torch.Tensor.add_(x, alpha=alpha)): the SGD update p.AddScaledInPlace(g,
// -lr) and gradient accumulation, on t's device. Float32; panics with
// ErrShape when the element counts differ and with ErrDevice when the
// devices do.
func (t *Tensor) AddScaledInPlace(x *Tensor, alpha float32) {
	defer hookOp("AddScaledInPlace")()
	const op = "AddScaledInPlace"
	checkFloat(op, t, x)
	if t.n != x.n {
		panicf(ErrShape, op, "tensors of shapes %v and %v differ in size", t.shape, x.shape)
	}
	if dev := deviceOf(op, t, x); dev != "cpu" {
		d := cudaOf(op, t)
		d.must(op, kernels.AxpyF32(d.s, ptr(x), alpha, ptr(t), t.n))
		return
	}
	axpy(alpha, x.Float32s(), t.Float32s())
}
