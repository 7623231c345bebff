package optim

import (
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// benchStep measures one optimizer step over 1M float32 parameters in 4
// tensors.
func benchStep(b *testing.B, mk func([]*tensor.Tensor) Optimizer) {
	var ps []*tensor.Tensor
	for i := 0; i < 4; i++ {
		p := tensor.Rand(tensor.NewGenerator(int64(i)), -1, 1, 512, 512).SetRequiresGrad(true)
		p.SetGrad(tensor.Rand(tensor.NewGenerator(int64(10+i)), -1, 1, 512, 512))
		ps = append(ps, p)
	}
	opt := mk(ps)
	b.SetBytes(4 * 512 * 512 * 4)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		opt.Step()
	}
}

func BenchmarkSGDMomentumStep(b *testing.B) {
	benchStep(b, func(ps []*tensor.Tensor) Optimizer {
		return NewSGD(ps, SGDOptions{LR: 0.01, Momentum: 0.9, WeightDecay: 5e-4})
	})
}

func BenchmarkAdamStep(b *testing.B) {
	benchStep(b, func(ps []*tensor.Tensor) Optimizer { return NewAdam(ps, AdamOptions{WeightDecay: 5e-4}) })
}

func BenchmarkAdamWStep(b *testing.B) {
	benchStep(b, func(ps []*tensor.Tensor) Optimizer { return NewAdamW(ps, AdamOptions{}) })
}
