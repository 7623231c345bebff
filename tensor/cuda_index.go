package tensor

import (
	"math"

	"github.com/gnnrepl/gnnrepl/kernels"
)

func cudaIndexSelect(x, idx *Tensor) *Tensor {
	const op = "IndexSelect"
	n := x.Size(0)
	checkDevIndex(op, idx, n)
	f := rowSize(x)
	m := idx.shape[0]
	d := cudaOf(op, x)
	shape := append([]int{m}, x.shape[1:]...)
	out := d.empty(op, x.dtype, shape)
	rowBytes := f * x.dtype.Size()
	if rowBytes%2 != 0 {
		notOnDevice(op+" of bool rows of odd length", d.name)
	}
	if m > 0 && rowBytes > 0 {
		d.must(op, kernels.GatherRows(d.s, ptr(x), ptr(idx), kernels.DTypeInt64, ptr(out), m, rowBytes))
	}
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{scatterAddDev(op, n, idx, g)}
	})
}

// scatterAddDev returns zeros (n, ...) with out[idx[i]] += src[i].
func scatterAddDev(op string, n int, idx, src *Tensor) *Tensor {
	d := cudaOf(op, src)
	f := rowSize(src)
	out := d.zeros(op, Float32, append([]int{n}, src.shape[1:]...))
	if m := src.Size(0); m > 0 && f > 0 {
		d.must(op, kernels.ScatterAddRowsF32(d.s, ptr(src), ptr(idx), kernels.DTypeInt64, ptr(out), m, f))
	}
	return out
}

func cudaIndexAdd(n int, idx, src *Tensor) *Tensor {
	const op = "IndexAdd"
	checkFloat(op, src)
	checkDevIndex(op, idx, n)
	if idx.shape[0] != src.Size(0) {
		panicf(ErrShape, op, "index has %d entries but src has %d rows (shape %v)", idx.shape[0], src.Size(0), src.shape)
	}
	out := scatterAddDev(op, n, idx, src)
	return record(out, op, []*Tensor{src}, func(g *Tensor) []*Tensor {
		return []*Tensor{IndexSelect(g, idx)}
	})
}

func cudaNarrow(x *Tensor, start, length int) *Tensor {
	n := x.Size(0)
	if start < 0 || length < 0 || start+length > n {
		panicf(ErrIndex, "Narrow", "rows [%d, %d) outside a tensor of shape %v", start, start+length, x.shape)
	}
	f := rowSize(x)
	shape := append([]int{length}, x.shape[1:]...)
	out := &Tensor{shape: shape, dtype: x.dtype, st: x.st, off: x.off + start*f, n: length * f}
	return record(out, "Narrow", []*Tensor{x}, func(g *Tensor) []*Tensor {
		d := cudaOf("Narrow", g)
		gx := d.zeros("Narrow", Float32, x.shape)
		if g.n > 0 {
			d.must("Narrow", d.dev.CopyDtoD(ptr(gx).Add(start*f*4), ptr(g), g.n*4))
		}
		return []*Tensor{gx}
	})
}

// transposeDev returns the (n, m) transpose of a float32 (m, n) tensor.
func transposeDev(op string, x *Tensor) *Tensor {
	m, n := x.shape[0], x.shape[1]
	d := cudaOf(op, x)
	out := d.empty(op, Float32, []int{n, m})
	if m == 0 || n == 0 {
		return out
	}
	if m > math.MaxInt32 || (n+31)/32 > 65535 {
		notOnDevice(op+" of more than 2^31 rows or 2M columns", d.name)
	}
	d.must(op, kernels.Launch(d.s, d.fn(op, "gt_transpose_f32"), kernels.Dim3{X: (m + 31) / 32, Y: (n + 31) / 32, Z: 1},
		kernels.Dim3{X: 32, Y: 8, Z: 1}, 0, ptr(x), ptr(out), int32(m), int32(n)))
	return out
}

func cudaTranspose(x *Tensor) *Tensor {
	if x.Dim() != 2 {
		panicf(ErrShape, "Transpose", "needs a 2-D tensor, got shape %v", x.shape)
	}
	if x.dtype != Float32 {
		notOnDevice("Transpose of "+x.dtype.String(), x.st.device)
	}
	out := transposeDev("Transpose", x)
	return record(out, "Transpose", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{transposeDev("Transpose", g)}
	})
}

// copy2d copies rows of w float32 elements between strided layouts.
func (d *cudaDevice) copy2d(op string, src kernels.DevicePtr, sstride int, dst kernels.DevicePtr, dstride, rows, w int) {
	n := int64(rows) * int64(w)
	d.launch1D(op, "gt_copy2d_f32", n, src, int64(sstride), dst, int64(dstride), int64(rows), int64(w))
}

func cudaConcat(ts []*Tensor, dim int) *Tensor {
	const op = "Concat"
	checkFloat(op, ts...)
	rank := ts[0].Dim()
	if dim < 0 {
		dim += rank
	}
	if dim < 0 || dim >= rank {
		panicf(ErrShape, op, "dimension %d out of range for shape %v", dim, ts[0].shape)
	}
	shape := append([]int(nil), ts[0].shape...)
	shape[dim] = 0
	for _, t := range ts {
		if t.Dim() != rank {
			panicf(ErrShape, op, "shapes %v and %v differ in rank", ts[0].shape, t.shape)
		}
		for i := range shape {
			if i != dim && t.shape[i] != ts[0].shape[i] {
				panicf(ErrShape, op, "shapes %v and %v differ outside dimension %d", ts[0].shape, t.shape, dim)
			}
		}
		shape[dim] += t.shape[dim]
	}
	outer, total, inner := splitAt(shape, dim)
	d := cudaOf(op, ts[0])
	out := d.empty(op, Float32, shape)
	offs := make([]int, len(ts))
	at := 0
	for k, t := range ts {
		offs[k] = at
		if w := t.shape[dim] * inner; w > 0 && outer > 0 {
			d.copy2d(op, ptr(t), w, ptr(out).Add(at*inner*4), total*inner, outer, w)
		}
		at += t.shape[dim]
	}
	return record(out, op, ts, func(g *Tensor) []*Tensor {
		gs := make([]*Tensor, len(ts))
		for k, t := range ts {
			if !t.requiresGrad {
				continue
			}
			gt := d.empty(op, Float32, t.shape)
			if w := t.shape[dim] * inner; w > 0 && outer > 0 {
				d.copy2d(op, ptr(g).Add(offs[k]*inner*4), total*inner, ptr(gt), w, outer, w)
			}
			gs[k] = gt
		}
		return gs
	})
}
