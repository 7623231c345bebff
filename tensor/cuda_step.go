package tensor

import (
	"github.com/gnnrepl/gnnrepl/kernels"
)

// The GPU's optimizer updates: one fused kernel per tensor. Float32.

func (d *cudaDevice) AdamStep(param, grad, m, v *Tensor, cfg AdamConfig) {
	d.must("AdamStep", kernels.AdamStep(d.s, ptr(param), ptr(grad), ptr(m), ptr(v), param.n, kernels.AdamParams{
		LR: cfg.LR, Beta1: cfg.Beta1, Beta2: cfg.Beta2, Eps: cfg.Eps,
		WeightDecay: cfg.WeightDecay, Step: cfg.Step, Decoupled: cfg.Decoupled}))
}

func (d *cudaDevice) Axpy(y, x *Tensor, alpha float32) {
	d.must("AddScaledInPlace", kernels.AxpyF32(d.s, ptr(x), alpha, ptr(y), y.n))
}

func (d *cudaDevice) Scale(x *Tensor, alpha float32) {
	d.must("ScaleInPlace", kernels.ScaleF32(d.s, ptr(x), alpha, ptr(x), x.n))
}
