package optim

import (
	"math"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestCUDAMatchesHost runs every optimizer on parameters on the GPU and on
// the CPU from the same values and gradients, and compares them
// (scripts/gpu-check.sh runs it; it skips without CUDA).
func TestCUDAMatchesHost(t *testing.T) {
	if ok, why := tensor.CUDAStatus(); !ok {
		t.Skip("no CUDA: " + why)
	}
	makers := []func([]*tensor.Tensor) Optimizer{
		func(ps []*tensor.Tensor) Optimizer { return NewSGD(ps, SGDOptions{LR: 0.1, WeightDecay: 0.01}) },
		func(ps []*tensor.Tensor) Optimizer {
			return NewSGD(ps, SGDOptions{LR: 0.1, Momentum: 0.9, Nesterov: true, WeightDecay: 0.01})
		},
		func(ps []*tensor.Tensor) Optimizer { return NewAdam(ps, AdamOptions{LR: 0.01, WeightDecay: 0.01}) },
		func(ps []*tensor.Tensor) Optimizer { return NewAdamW(ps, AdamOptions{LR: 0.01, WeightDecay: 0.01}) },
	}
	for i, mk := range makers {
		var out [2][]float32
		for k, dev := range []string{"cpu", "cuda"} {
			p := tensor.Randn(tensor.NewGenerator(7), 64, 33)
			p.SetRequiresGrad(true)
			if err := p.MoveTo(dev); err != nil {
				t.Fatal(err)
			}
			o := mk([]*tensor.Tensor{p})
			g := tensor.NewGenerator(9)
			for step := 0; step < 5; step++ {
				o.ZeroGrad()
				gr, err := tensor.Randn(g, 64, 33).To(dev)
				if err != nil {
					t.Fatal(err)
				}
				p.SetGrad(gr)
				o.Step()
			}
			out[k] = p.ToCPU().Float32s()
		}
		for j := range out[0] {
			if d := math.Abs(float64(out[0][j] - out[1][j])); d > 1e-5*math.Max(1, math.Abs(float64(out[0][j]))) {
				t.Fatalf("optimizer %d: element %d cpu %g cuda %g", i, j, out[0][j], out[1][j])
			}
		}
	}
}
