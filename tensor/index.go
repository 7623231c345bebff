package tensor

// IndexKernels are the primitive kernels of this file's ops: row gathers and scatter-adds by an int64 index, strided row copies and transposes.
// Every Backend implements them (cpu_*.go, cuda_*.go, meta.go).
type IndexKernels interface{}

// rowSize returns the elements per row along dimension 0.
func rowSize(t *Tensor) int {
	if t.Dim() == 0 {
		panicf(ErrShape, "rows", "a 0-dimensional tensor has no rows")
	}
	r := 1
	for _, d := range t.shape[1:] {
		r *= d
	}
	return r
}

func checkIndex(op string, idx *Tensor, n int) []int64 {
	if idx.dtype != Int64 || idx.Dim() != 1 {
		panicf(ErrDType, op, "index must be a 1-D int64 tensor, got %s of shape %v", idx.dtype, idx.shape)
	}
	ids := idx.Int64s()
	for i, v := range ids {
		if v < 0 || v >= int64(n) {
			panicf(ErrIndex, op, "index %d at position %d is outside [0, %d)", v, i, n)
		}
	}
	return ids
}

// IndexSelect gathers rows: out[i] = x[idx[i]], (N, ...) x (M) int64 -> (M,
// ...), any dtype (torch.index_select along dim 0). Float32 results carry
// gradients (a scatter-add back into x). Panics with ErrIndex naming the
// first index outside [0, N).
func IndexSelect(x, idx *Tensor) *Tensor {
	defer hookOp("IndexSelect")()
	if d := deviceOf("IndexSelect", x, idx); d != "cpu" {
		return cudaIndexSelect(x, idx)
	}
	n := x.Size(0)
	ids := checkIndex("IndexSelect", idx, n)
	f := rowSize(x)
	shape := append([]int{len(ids)}, x.shape[1:]...)
	out := Empty(x.dtype, shape...) // every row is copied
	switch x.dtype {
	case Float32:
		od, xd := out.Float32s(), x.Float32s()
		parallelFor(len(ids), 1+(1<<14)/(f+1), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				copy(od[i*f:(i+1)*f], xd[int(ids[i])*f:int(ids[i]+1)*f])
			}
		})
	case Int64:
		od, xd := out.Int64s(), x.Int64s()
		for i, v := range ids {
			copy(od[i*f:(i+1)*f], xd[int(v)*f:int(v+1)*f])
		}
	case Bool:
		od, xd := out.Bools(), x.Bools()
		for i, v := range ids {
			copy(od[i*f:(i+1)*f], xd[int(v)*f:int(v+1)*f])
		}
	case Float16, BFloat16:
		od, xd := out.Uint16s(), x.Uint16s()
		parallelFor(len(ids), 1+(1<<14)/(f+1), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				copy(od[i*f:(i+1)*f], xd[int(ids[i])*f:int(ids[i]+1)*f])
			}
		})
	case Int8:
		od, xd := out.Int8s(), x.Int8s()
		for i, v := range ids {
			copy(od[i*f:(i+1)*f], xd[int(v)*f:int(v+1)*f])
		}
	}
	return record(out, "IndexSelect", []*Tensor{x}, func(g *Tensor) []*Tensor {
		if g.dtype != Float32 { // accumulate in float32, round once
			return []*Tensor{castRaw(indexAdd(n, ids, castRaw(g, Float32)), g.dtype)}
		}
		return []*Tensor{indexAdd(n, ids, g)}
	})
}

// indexAdd is out[ids[i]] += src[i] into n zero rows (parallel over
// destination rows: indexAddFast in sparse_fast.go).
func indexAdd(n int, ids []int64, src *Tensor) *Tensor { return indexAddFast(n, ids, src) }

// IndexAdd scatters rows with addition into n zero rows: out[idx[i]] +=
// src[i], (M, ...) float32 with idx (M) int64 -> (n, ...)
// (torch.Tensor.index_add_ on zeros, PyG's scatter(reduce="sum")).
func IndexAdd(n int, idx, src *Tensor) *Tensor {
	defer hookOp("IndexAdd")()
	if d := deviceOf("IndexAdd", idx, src); d != "cpu" {
		return cudaIndexAdd(n, idx, src)
	}
	checkFloats("IndexAdd", src)
	ids := checkIndex("IndexAdd", idx, n)
	if len(ids) != src.Size(0) {
		panicf(ErrShape, "IndexAdd", "index has %d entries but src has %d rows (shape %v)", len(ids), src.Size(0), src.shape)
	}
	var out *Tensor
	if src.dtype == Float32 {
		out = indexAdd(n, ids, src)
	} else { // accumulated in float32, rounded once into src's dtype
		out = castRaw(indexAdd(n, ids, castRaw(src, Float32)), src.dtype)
	}
	return record(out, "IndexAdd", []*Tensor{src}, func(g *Tensor) []*Tensor {
		return []*Tensor{IndexSelect(g, idx)}
	})
}

// Narrow returns rows [start, start+length) of x as a view sharing its
// storage: (N, ...) -> (length, ...). DGL blocks use it to take the
// destination nodes' rows, which come first among the source nodes.
func Narrow(x *Tensor, start, length int) *Tensor {
	defer hookOp("Narrow")()
	if d := deviceOf("Narrow", x); d != "cpu" {
		return cudaNarrow(x, start, length)
	}
	n := x.Size(0)
	if start < 0 || length < 0 || start+length > n {
		panicf(ErrIndex, "Narrow", "rows [%d, %d) outside a tensor of shape %v", start, start+length, x.shape)
	}
	f := rowSize(x)
	shape := append([]int{length}, x.shape[1:]...)
	out := &Tensor{shape: shape, dtype: x.dtype, st: x.st, off: x.off + start*f, n: length * f}
	return record(out, "Narrow", []*Tensor{x}, func(g *Tensor) []*Tensor {
		gx := New(g.dtype, x.shape...)
		copyElems(gx, start*f, g, 0, g.n)
		return []*Tensor{gx}
	})
}

// Reshape returns a view of x with a new shape holding the same number of
// elements; one dimension may be -1 and is inferred.
func Reshape(x *Tensor, shape ...int) *Tensor {
	defer hookOp("Reshape")()
	shape = append([]int(nil), shape...)
	infer, known := -1, 1
	for i, d := range shape {
		if d == -1 {
			if infer >= 0 {
				panicf(ErrShape, "Reshape", "more than one -1 in %v", shape)
			}
			infer = i
		} else {
			known *= d
		}
	}
	if infer >= 0 && known > 0 {
		shape[infer] = x.n / known
	}
	if numel(shape) != x.n {
		panicf(ErrShape, "Reshape", "cannot view shape %v (%d elements) as %v", x.shape, x.n, shape)
	}
	out := &Tensor{shape: shape, dtype: x.dtype, st: x.st, off: x.off, n: x.n}
	return record(out, "Reshape", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{Reshape(g, x.shape...)}
	})
}

// Transpose returns the transpose of a 2-D tensor: (M, N) -> (N, M), copied.
func Transpose(x *Tensor) *Tensor {
	defer hookOp("Transpose")()
	if d := deviceOf("Transpose", x); d != "cpu" {
		return cudaTranspose(x)
	}
	if x.Dim() != 2 {
		panicf(ErrShape, "Transpose", "needs a 2-D tensor, got shape %v", x.shape)
	}
	out := transpose2(x)
	return record(out, "Transpose", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{transpose2(g)}
	})
}

func transpose2(x *Tensor) *Tensor {
	m, n := x.shape[0], x.shape[1]
	out := New(x.dtype, n, m)
	switch x.dtype {
	case Float32:
		od, xd := out.Float32s(), x.Float32s()
		const bs = 32
		for i0 := 0; i0 < m; i0 += bs {
			for j0 := 0; j0 < n; j0 += bs {
				for i := i0; i < i0+bs && i < m; i++ {
					for j := j0; j < j0+bs && j < n; j++ {
						od[j*m+i] = xd[i*n+j]
					}
				}
			}
		}
	case Int64:
		od, xd := out.Int64s(), x.Int64s()
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				od[j*m+i] = xd[i*n+j]
			}
		}
	case Bool:
		od, xd := out.Bools(), x.Bools()
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				od[j*m+i] = xd[i*n+j]
			}
		}
	case Float16, BFloat16:
		od, xd := out.Uint16s(), x.Uint16s()
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				od[j*m+i] = xd[i*n+j]
			}
		}
	case Int8:
		od, xd := out.Int8s(), x.Int8s()
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				od[j*m+i] = xd[i*n+j]
			}
		}
	}
	return out
}

// Concat joins float tensors along dimension dim; every other dimension
// must agree: e.g. dim 1 of (N, A) and (N, B) -> (N, A+B). Tensors of
// different float dtypes are first cast to their promoted dtype
// (PromoteTypes; torch.cat under autocast).
func Concat(ts []*Tensor, dim int) *Tensor {
	defer hookOp("Concat")()
	if len(ts) == 0 {
		panicf(ErrShape, "Concat", "no tensors to concatenate")
	}
	if d := deviceOf("Concat", ts...); d != "cpu" {
		return cudaConcat(ts, dim)
	}
	checkFloats("Concat", ts...)
	pd := ts[0].dtype
	for _, t := range ts[1:] {
		pd = PromoteTypes(pd, t.dtype)
	}
	copied := false
	for k, t := range ts {
		if t.dtype != pd {
			if !copied { // never change the caller's slice
				ts, copied = append([]*Tensor(nil), ts...), true
			}
			ts[k] = t.Cast(pd)
		}
	}
	rank := ts[0].Dim()
	if dim < 0 {
		dim += rank
	}
	if dim < 0 || dim >= rank {
		panicf(ErrShape, "Concat", "dimension %d out of range for shape %v", dim, ts[0].shape)
	}
	shape := append([]int(nil), ts[0].shape...)
	shape[dim] = 0
	for _, t := range ts {
		if t.Dim() != rank {
			panicf(ErrShape, "Concat", "shapes %v and %v differ in rank", ts[0].shape, t.shape)
		}
		for i := range shape {
			if i != dim && t.shape[i] != ts[0].shape[i] {
				panicf(ErrShape, "Concat", "shapes %v and %v differ outside dimension %d", ts[0].shape, t.shape, dim)
			}
		}
		shape[dim] += t.shape[dim]
	}
	outer, total, inner := splitAt(shape, dim)
	out := New(pd, shape...)
	offs := make([]int, len(ts))
	at := 0
	for k, t := range ts {
		offs[k] = at
		w := t.shape[dim] * inner
		for o := 0; o < outer; o++ {
			copyElems(out, o*total*inner+at*inner, t, o*w, w)
		}
		at += t.shape[dim]
	}
	return record(out, "Concat", ts, func(g *Tensor) []*Tensor {
		gs := make([]*Tensor, len(ts))
		for k, t := range ts {
			if !t.requiresGrad {
				continue
			}
			gt := New(g.dtype, t.shape...)
			w := t.shape[dim] * inner
			for o := 0; o < outer; o++ {
				copyElems(gt, o*w, g, o*total*inner+offs[k]*inner, w)
			}
			gs[k] = gt
		}
		return gs
	})
}
