package tensor

import "math"

// The CPU's optimizer updates: the float32 arithmetic of the GPU's fused
// kernels, in Go, split over goroutines.

// AdamStep is kernels.AdamStep's arithmetic: the scalars in float64
// rounded once, the per-element update in float32 with fused multiply-adds.
func (*cpuBackend) AdamStep(param, grad, m, v *Tensor, cfg AdamConfig) {
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
	pd, gd, md, vd := hostView[float32](param), hostView[float32](grad), hostView[float32](m), hostView[float32](v)
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

// Axpy does y += alpha*x (axpy).
func (*cpuBackend) Axpy(y, x *Tensor, alpha float32) {
	axpy(alpha, hostView[float32](x), hostView[float32](y))
}

// Scale does x *= alpha.
func (*cpuBackend) Scale(x *Tensor, alpha float32) {
	d := hostView[float32](x)
	parallelFor(len(d), 1<<15, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d[i] *= alpha
		}
	})
}
