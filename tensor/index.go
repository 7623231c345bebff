package tensor

// Gathers, scatters, views and copies of rows: IndexSelect, IndexAdd,
// Narrow, Reshape, Transpose, Concat. Each op is written once for every
// device and dtype; the arithmetic is the IndexKernels of the tensors'
// Backend (cpu_index.go, cuda_index.go, meta.go) and the gradients are in
// grad_rules.go.

// IndexKernels are the primitive kernels of this file's ops: row gathers
// and scatter-adds by an int64 index, strided row copies and transposes.
// Every Backend implements them (cpu_index.go, cuda_index.go, meta.go).
// The tensors are on the backend's device, their shapes and dtypes were
// checked by the op, indices were checked against the rows they address,
// and outputs were allocated by the op.
type IndexKernels interface {
	// GatherRows copies rows: out[i] = x[idx[i]] for x (N, ...) of any
	// dtype, idx (M) int64 in [0, N), out (M, ...) of x's dtype
	// (torch.index_select along dim 0).
	GatherRows(out, x, idx *Tensor)
	// ScatterAddRows accumulates rows: out[idx[i]] += src[i] for src
	// (M, ...) float32, idx (M) int64 in [0, N), out (N, ...) float32
	// holding what is added to (zeros from the op). Repeated indices add in
	// increasing i on the CPU (float32 atomics, in any order, on a GPU).
	ScatterAddRows(out, idx, src *Tensor)
	// CopyRows copies rows rows of w elements between strided layouts: row
	// r is src's elements [so + r*ss, so + r*ss + w) into dst's elements
	// [do + r*ds, do + r*ds + w), counted from each tensor's first element;
	// dst and src have one dtype and do not overlap. Nothing happens when
	// rows or w is 0.
	CopyRows(dst *Tensor, do, ds int, src *Tensor, so, ss, rows, w int)
	// Transpose writes the transpose of the 2-D x (M, N) into out (N, M),
	// of x's dtype.
	Transpose(out, x *Tensor)
}

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

// rowsShape is shape with its first dimension replaced by rows.
func rowsShape(rows int, shape []int) []int { return append([]int{rows}, shape[1:]...) }

// IndexSelect gathers rows: out[i] = x[idx[i]], (N, ...) x (M) int64 -> (M,
// ...), any dtype (torch.index_select along dim 0), on any device: x and
// idx on one device (a GPU gathers rows as bytes; bool and int8 rows of odd
// length panic with ErrNotImplemented there). Float results carry
// gradients: a scatter-add back into x's rows, accumulated in float32 and
// rounded once for float16 and bfloat16. Panics with ErrIndex naming the
// first index outside [0, N), ErrDType for an index that is not 1-D int64,
// ErrDevice for tensors on two devices.
// Kernels: cpu_index.go (GatherRows), cuda_index.go (kernels.GatherRows).
func IndexSelect(x, idx *Tensor) *Tensor {
	defer hookOp("IndexSelect")()
	notNil("IndexSelect", "x", x, "idx", idx)
	be := backendOf("IndexSelect", x, idx)
	n := x.Size(0)
	checkDevIndex("IndexSelect", idx, n)
	out := emptyOn("IndexSelect", be, x.dtype, false, rowsShape(idx.shape[0], x.shape)...) // every row is copied
	be.GatherRows(out, x, idx)
	return record(out, "IndexSelect", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{gradIndexSelect(g, idx, n)}
	})
}

// IndexAdd scatters rows with addition into n zero rows: out[idx[i]] +=
// src[i], (M, ...) float with idx (M) int64 -> (n, ...) of src's dtype
// (torch.Tensor.index_add_ on zeros, PyG's scatter(reduce="sum")), on any
// device. Float16 and bfloat16 rows are accumulated in float32 and rounded
// once. Panics with ErrDType for a non-float src or an index that is not
// 1-D int64, ErrIndex naming the first index outside [0, n), ErrShape when
// idx and src disagree on M, ErrDevice for tensors on two devices.
// Kernels: cpu_index.go (ScatterAddRows: scatterAddFast beside scatterAddRef),
// cuda_index.go (kernels.ScatterAddRowsF32).
func IndexAdd(n int, idx, src *Tensor) *Tensor {
	defer hookOp("IndexAdd")()
	notNil("IndexAdd", "idx", idx, "src", src)
	backendOf("IndexAdd", idx, src)
	checkFloats("IndexAdd", src)
	checkDevIndex("IndexAdd", idx, n)
	if idx.shape[0] != src.Size(0) {
		panicf(ErrShape, "IndexAdd", "index has %d entries but src has %d rows (shape %v)", idx.shape[0], src.Size(0), src.shape)
	}
	out := scatterAdd(n, idx, src)
	return record(out, "IndexAdd", []*Tensor{src}, func(g *Tensor) []*Tensor {
		return []*Tensor{gradIndexAdd(g, idx)}
	})
}

// scatterAdd is IndexAdd without checks or history (idx is valid for n
// rows): the rows are added in float32 (a float16 or bfloat16 src through a
// float32 copy, the result rounded once into src's dtype).
func scatterAdd(n int, idx, src *Tensor) *Tensor {
	be := backendOf("IndexAdd", idx, src)
	s := castData(src, Float32)
	out := emptyOn("IndexAdd", be, Float32, true, rowsShape(n, src.shape)...)
	be.ScatterAddRows(out, idx, s)
	return castData(out, src.dtype)
}

// castData is t.Cast(dt) without history: t itself when it has dtype dt,
// else a new tensor (an op's float32 working copy).
func castData(t *Tensor, dt DType) *Tensor {
	if t.dtype == dt {
		return t
	}
	return t.Detach().Cast(dt)
}

// Narrow returns rows [start, start+length) of x as a view sharing its
// storage: (N, ...) -> (length, ...), any dtype and device (no copy).
// DGL blocks use it to take the destination nodes' rows, which come first
// among the source nodes. The gradient is the output gradient padded with
// zero rows. Panics with ErrIndex for rows outside [0, N).
// Kernels: none forward; the gradient copies rows (CopyRows).
func Narrow(x *Tensor, start, length int) *Tensor {
	defer hookOp("Narrow")()
	n := x.Size(0)
	if start < 0 || length < 0 || start+length > n {
		panicf(ErrIndex, "Narrow", "rows [%d, %d) outside a tensor of shape %v", start, start+length, x.shape)
	}
	f := rowSize(x)
	out := &Tensor{shape: rowsShape(length, x.shape), dtype: x.dtype, st: x.st, off: x.off + start*f, n: length * f}
	return record(out, "Narrow", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{gradNarrow(g, n, start)}
	})
}

// padRows returns zeros of g's dtype with rows [start, start+g.Size(0)) of
// n set to g: (M, ...) -> (n, ...), without history.
func padRows(g *Tensor, n, start int) *Tensor {
	be := backendOf("Narrow", g)
	out := emptyOn("Narrow", be, g.dtype, true, rowsShape(n, g.shape)...)
	be.CopyRows(out, start*rowSize(g), 0, g, 0, 0, 1, g.n)
	return out
}

// Reshape returns a view of x with a new shape holding the same number of
// elements; one dimension may be -1 and is inferred. Any dtype and device
// (no copy); the gradient is the output gradient viewed in x's shape.
// Panics with ErrShape for more than one -1 or a different element count.
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
		return []*Tensor{gradReshape(g, x.shape)}
	})
}

// Transpose returns the transpose of a 2-D tensor: (M, N) -> (N, M),
// copied, any dtype on the CPU and float32 on a GPU (other dtypes panic
// with ErrNotImplemented there). The gradient is the output gradient
// transposed. Panics with ErrShape for a tensor that is not 2-D.
// Kernels: cpu_index.go (a blocked loop for float32), cuda_index.go
// (kernels.Transpose).
func Transpose(x *Tensor) *Tensor {
	defer hookOp("Transpose")()
	backendOf("Transpose", x)
	if x.Dim() != 2 {
		panicf(ErrShape, "Transpose", "needs a 2-D tensor, got shape %v", x.shape)
	}
	out := transpose(x)
	return record(out, "Transpose", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{gradTranspose(g)}
	})
}

// transpose is Transpose of a 2-D x without checks or history.
func transpose(x *Tensor) *Tensor {
	be := backendOf("Transpose", x)
	out := emptyOn("Transpose", be, x.dtype, false, x.shape[1], x.shape[0]) // every element is written
	be.Transpose(out, x)
	return out
}

// Concat joins float tensors along dimension dim (negative counts from the
// end); every other dimension must agree: e.g. dim 1 of (N, A) and (N, B)
// -> (N, A+B). Tensors of different float dtypes are first cast to their
// promoted dtype (PromoteTypes; torch.cat under autocast). Any device, the
// tensors on one (a GPU copies strided rows in 4-byte words: float16 and
// bfloat16 pieces of odd row width panic with ErrNotImplemented there);
// each input's gradient is its slice of the output gradient. Panics with
// ErrShape for no tensors, a dimension out of range or shapes that differ
// elsewhere, ErrDType for a non-float tensor, ErrDevice for tensors on two
// devices.
// Kernels: CopyRows (cpu_index.go: copyElems; cuda_index.go:
// kernels.Copy2D).
func Concat(ts []*Tensor, dim int) *Tensor {
	defer hookOp("Concat")()
	if len(ts) == 0 {
		panicf(ErrShape, "Concat", "no tensors to concatenate")
	}
	be := backendOf("Concat", ts...)
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
	out := emptyOn("Concat", be, pd, false, shape...) // every element is copied
	at := 0
	for _, t := range ts {
		w := t.shape[dim] * inner
		be.CopyRows(out, at*inner, total*inner, t, 0, w, outer, w)
		at += t.shape[dim]
	}
	return record(out, "Concat", ts, func(g *Tensor) []*Tensor {
		return gradConcat(g, ts, dim)
	})
}

// sliceDim returns elements [start, start+width) of g along dimension dim,
// copied, without history (the gradient of one Concat input).
func sliceDim(g *Tensor, dim, start, width int) *Tensor {
	be := backendOf("Concat", g)
	outer, total, inner := splitAt(g.shape, dim)
	shape := append([]int(nil), g.shape...)
	shape[dim] = width
	out := emptyOn("Concat", be, g.dtype, false, shape...) // every element is copied
	w := width * inner
	be.CopyRows(out, 0, w, g, start*inner, total*inner, outer, w)
	return out
}
