package tensor

import (
	"github.com/gnnrepl/gnnrepl/kernels"
)

// The GPU's dropout: kernels.DropoutForward draws the Philox mask of
// (seed, base) as it scales, and kernels.DropoutBackward draws it again
// instead of reading a kept mask. Float32.

// DropoutMaskWords is 0: the mask is regenerated in backward.
func (d *cudaDevice) DropoutMaskWords(int) int { return 0 }

func (d *cudaDevice) DropoutForward(out, x, mask *Tensor, reuse bool, p float32, seed, base uint64) {
	const op = "Dropout"
	if x.dtype != Float32 {
		panicf(ErrNotImplemented, op, "no CUDA kernel for %s on %s", x.dtype, d.name)
	}
	d.must(op, kernels.DropoutForward(d.s, ptr(x), ptr(out), 0, x.n, p, seed, base))
}

func (d *cudaDevice) DropoutBackward(gx, g, mask *Tensor, p float32, seed, base uint64) {
	const op = "Dropout"
	if g.dtype != Float32 {
		panicf(ErrNotImplemented, op, "no CUDA kernel for %s on %s", g.dtype, d.name)
	}
	d.must(op, kernels.DropoutBackward(d.s, ptr(g), ptr(gx), g.n, p, seed, base))
}
