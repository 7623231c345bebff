package optim

import (
	"math"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestDevicePathMatchesHost runs the device path (tensor's in-place
// kernels, state as tensors) on CPU tensors and compares it with the host
// loops: SGD in every variant and Adam / AdamW, over a few steps.
func TestDevicePathMatchesHost(t *testing.T) {
	mk := func() []*tensor.Tensor {
		g := tensor.NewGenerator(7)
		p := tensor.Randn(g, 4, 5)
		p.SetRequiresGrad(true)
		return []*tensor.Tensor{p}
	}
	opts := []func(ps []*tensor.Tensor) Optimizer{
		func(ps []*tensor.Tensor) Optimizer { return NewSGD(ps, SGDOptions{LR: 0.1}) },
		func(ps []*tensor.Tensor) Optimizer {
			return NewSGD(ps, SGDOptions{LR: 0.1, WeightDecay: 0.01, Maximize: true})
		},
		func(ps []*tensor.Tensor) Optimizer {
			return NewSGD(ps, SGDOptions{LR: 0.1, Momentum: 0.9, Dampening: 0.1, WeightDecay: 0.01})
		},
		func(ps []*tensor.Tensor) Optimizer {
			return NewSGD(ps, SGDOptions{LR: 0.1, Momentum: 0.9, Nesterov: true, WeightDecay: 0.01})
		},
		func(ps []*tensor.Tensor) Optimizer {
			return NewAdam(ps, AdamOptions{LR: 0.01, WeightDecay: 0.01})
		},
		func(ps []*tensor.Tensor) Optimizer {
			return NewAdamW(ps, AdamOptions{LR: 0.01, WeightDecay: 0.01})
		},
	}
	run := func(make func([]*tensor.Tensor) Optimizer, device bool) []float32 {
		defer func(f func(*tensor.Tensor) bool) { onHost = f }(onHost)
		if device {
			onHost = func(*tensor.Tensor) bool { return false }
		}
		ps := mk()
		o := make(ps)
		g := tensor.NewGenerator(9)
		for step := 0; step < 4; step++ {
			o.ZeroGrad()
			gr := tensor.Randn(g, 4, 5)
			ps[0].SetGrad(gr)
			o.Step()
		}
		return ps[0].Float32s()
	}
	for i, make := range opts {
		host, dev := run(make, false), run(make, true)
		for j := range host {
			if d := math.Abs(float64(host[j] - dev[j])); d > 1e-5*math.Max(1, math.Abs(float64(host[j]))) {
				t.Fatalf("optimizer %d: element %d host %g device path %g", i, j, host[j], dev[j])
			}
		}
	}
}
