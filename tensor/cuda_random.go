package tensor

import (
	"github.com/gnnrepl/gnnrepl/kernels"
)

func cudaDropoutAt(x *Tensor, p float32, seed, base uint64) *Tensor {
	const op = "Dropout"
	checkFloat(op, x)
	d := cudaOf(op, x)
	out := d.empty(op, Float32, x.shape)
	d.must(op, kernels.DropoutForward(d.s, ptr(x), ptr(out), 0, x.n, p, seed, base))
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		gx := d.empty(op, Float32, x.shape)
		d.must(op, kernels.DropoutBackward(d.s, ptr(g), ptr(gx), x.n, p, seed, base))
		return []*Tensor{gx}
	})
}
