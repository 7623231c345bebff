package tensor

import (
	"github.com/gnnrepl/gnnrepl/kernels"
)

// The CUDA ReduceKernels (reduce.go, softmax.go): the kernels package's
// reductions and log-softmax, and the dense kernels' fill, broadcast, arg-max
// and NLL kernels. They queue work on the device's stream and read nothing
// back, except CountEqual. Only float32 has kernels (the ops reduce
// float16 and bfloat16 in float32); ArgMax of another dtype panics with
// ErrNotImplemented.

func (d *cudaDevice) Sum(out, x *Tensor) {
	if x.n == 0 {
		d.must("Sum", kernels.FillF32(d.s, ptr(out), 0, 1))
		return
	}
	d.must("Sum", kernels.SumF32(d.s, ptr(x), x.n, ptr(out), 1))
}

func (d *cudaDevice) SumDim(out, x *Tensor, outer, dd, inner int) {
	const op = "SumDim"
	switch {
	case out.n == 0:
	case dd == 0:
		d.must(op, d.dev.Memset8(ptr(out), 0, out.n*4))
	case outer == 1:
		d.must(op, kernels.SumDim0F32(d.s, ptr(x), ptr(out), dd, inner, 1))
	case inner == 1:
		d.must(op, kernels.SumDim1F32(d.s, ptr(x), ptr(out), outer, dd, 1))
	default:
		// x as (1, outer, dd, inner) summed to (1, outer, 1, inner), in
		// index order along dd (kernels.SumTo, the broadcast gradient's
		// kernel).
		d.must(op, kernels.SumTo(d.s, kernels.DTypeFloat32, ptr(x), ptr(out), out.n,
			kernels.Shape4{1, int64(outer), int64(dd), int64(inner)}, kernels.Shape4{1, int64(outer), 1, int64(inner)}))
	}
}

func (d *cudaDevice) ExpandDim(out, g *Tensor, outer, dd, inner int) {
	const op = "ExpandDim"
	if out.n == 0 {
		return
	}
	if outer == 1 && inner == 1 { // a scalar filled into out (Sum's gradient)
		d.must(op, kernels.FillFrom(d.s, kernels.DTypeFloat32, ptr(g), 1, ptr(out), out.n))
		return
	}
	// out (outer, dd, inner) copies g (outer, 1, inner): strides (inner, 0, 1).
	pg := ptr(g)
	d.must(op, kernels.BroadcastBinary(d.s, kernels.BinaryCopyA, kernels.DTypeFloat32, pg, pg, ptr(out), out.n,
		kernels.Shape4{1, int64(outer), int64(dd), int64(inner)}, kernels.Shape4{0, int64(inner), 0, 1}, kernels.Shape4{}))
}

func (d *cudaDevice) ArgMax(out, x *Tensor) {
	if x.dtype != Float32 {
		panicf(ErrNotImplemented, "ArgMax", "no CUDA kernel for %s on %s", x.dtype, d.name)
	}
	n, c := x.shape[0], x.shape[1]
	d.must("ArgMax", kernels.ArgMaxRowsF32(d.s, ptr(x), ptr(out), n, c))
}

func (d *cudaDevice) LogSoftmax(out, x *Tensor) {
	if c, rows := lastDim(x); rows > 0 {
		d.must("LogSoftmax", kernels.LogSoftmaxForward(d.s, ptr(x), ptr(out), rows, c))
	}
}

func (d *cudaDevice) LogSoftmaxBackward(gx, out, g *Tensor) {
	if c, rows := lastDim(out); rows > 0 {
		d.must("LogSoftmax", kernels.LogSoftmaxBackward(d.s, ptr(out), ptr(g), ptr(gx), rows, c))
	}
}

// NLLLoss writes the per-row losses into N floats of scratch, sums them
// deterministically and returns the scratch to the cache at once (later
// kernels reuse it only after the sum has read it).
func (d *cudaDevice) NLLLoss(out, logp, targets *Tensor) {
	const op = "NLLLoss"
	n, c := logp.shape[0], logp.shape[1]
	loss := d.newRaw(op, int64(n)*4)
	d.must(op, kernels.NLLForwardF32(d.s, ptr(logp), ptr(targets), cudaBufOf(loss).ptr, n, c))
	d.must(op, kernels.SumF32(d.s, cudaBufOf(loss).ptr, n, ptr(out), 1/float32(n)))
	freeNow(loss)
}

func (d *cudaDevice) NLLLossBackward(gl, g, targets *Tensor) {
	n, c := gl.shape[0], gl.shape[1]
	d.must("NLLLoss", kernels.NLLBackwardF32(d.s, ptr(targets), ptr(g), ptr(gl), n, c, 1/float32(n)))
}

// CountEqual reads a and b back (a synchronization) and compares them on
// the host.
func (d *cudaDevice) CountEqual(a, b *Tensor) int {
	return countEqual(download(a).Int64s(), download(b).Int64s())
}
