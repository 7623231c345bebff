package tensor

import (
	"math"

	"github.com/gnnrepl/gnnrepl/kernels"
)

// The CUDA device's index kernels (IndexKernels, index.go): gathers move
// rows as bytes (every dtype), the scatter-add is float32 atomics, strided
// copies move 4-byte words (kernels.Copy2D) and transposes are float32
// (kernels.Transpose). The kernels are queued on the device's stream; none
// reads device memory back.

// noKernel panics with ErrNotImplemented: op has no CUDA kernel for what.
func (d *cudaDevice) noKernel(op, what string) {
	panicf(ErrNotImplemented, op, "no CUDA kernel for %s: not implemented on %s; compute on the CPU (To(\"cpu\"))", what, d.name)
}

// GatherRows copies out[i] = x[idx[i]] with kernels.GatherRows, rows as
// bytes; bool and int8 rows of odd length have no kernel.
func (d *cudaDevice) GatherRows(out, x, idx *Tensor) {
	const op = "IndexSelect"
	m, rowBytes := idx.shape[0], rowSize(x)*x.dtype.Size()
	if rowBytes%2 != 0 {
		d.noKernel(op, "rows of an odd number of bytes ("+x.dtype.String()+")")
	}
	if m > 0 && rowBytes > 0 {
		d.must(op, kernels.GatherRows(d.s, ptr(x), ptr(idx), kernels.DTypeInt64, ptr(out), m, rowBytes))
	}
}

// ScatterAddRows adds src's rows into out's rows idx[i] with
// kernels.ScatterAddRowsF32 (float32 atomics).
func (d *cudaDevice) ScatterAddRows(out, idx, src *Tensor) {
	const op = "IndexAdd"
	if src.dtype != Float32 {
		d.noKernel(op, "a scatter-add of "+src.dtype.String())
	}
	if m, f := src.Size(0), rowSize(src); m > 0 && f > 0 {
		d.must(op, kernels.ScatterAddRowsF32(d.s, ptr(src), ptr(idx), kernels.DTypeInt64, ptr(out), m, f))
	}
}

// CopyRows copies strided rows: one device copy when both layouts are
// contiguous, else kernels.Copy2D over 4-byte words (any dtype whose
// offsets, strides and widths are whole words).
func (d *cudaDevice) CopyRows(dst *Tensor, do, ds int, src *Tensor, so, ss, rows, w int) {
	const op = "CopyRows"
	if rows == 0 || w == 0 {
		return
	}
	sz := dst.dtype.Size()
	if rows == 1 || (ds == w && ss == w) {
		d.must(op, d.dev.CopyDtoD(ptr(dst).Add(do*sz), ptr(src).Add(so*sz), rows*w*sz))
		return
	}
	sp, dp := ptr(src).Add(so*sz), ptr(dst).Add(do*sz)
	if sp%4 != 0 || dp%4 != 0 || ss*sz%4 != 0 || ds*sz%4 != 0 || w*sz%4 != 0 {
		d.noKernel(op, "strided rows of "+dst.dtype.String()+" that are not whole 4-byte words")
	}
	d.copy2d(op, sp, ss*sz/4, dp, ds*sz/4, rows, w*sz/4)
}

// copy2d copies rows of w 4-byte words between strided layouts (strides in
// words).
func (d *cudaDevice) copy2d(op string, src kernels.DevicePtr, sstride int, dst kernels.DevicePtr, dstride, rows, w int) {
	d.must(op, kernels.Copy2D(d.s, 4, src, sstride, dst, dstride, rows, w))
}

// Transpose writes x's transpose into out with kernels.Transpose (32x32
// tiles through shared memory); other dtypes have no kernel.
func (d *cudaDevice) Transpose(out, x *Tensor) {
	const op = "Transpose"
	if x.dtype != Float32 {
		d.noKernel(op, "a transpose of "+x.dtype.String())
	}
	m, n := x.shape[0], x.shape[1]
	if m == 0 || n == 0 {
		return
	}
	if m > math.MaxInt32 || (n+31)/32 > 65535 {
		d.noKernel(op, "more than 2^31 rows or 2M columns")
	}
	d.must(op, kernels.Transpose(d.s, 4, ptr(x), ptr(out), m, n))
}
