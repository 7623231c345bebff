package nn

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/internal/workers"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Input features of citation and co-purchase graphs are bag-of-words
// matrices that are mostly zeros (Cora: 1.3% nonzero). Kipf & Welling's
// reference code keeps them sparse: dropout draws a mask for the nonzeros
// only and the first layer's product is a sparse-dense product. Layers here
// do the same when their input is a large, mostly-zero matrix that needs no
// gradient: the nonzeros become a row-major adjacency (row -> column) with
// the values as edge weights, feature dropout applies to the values, and
// x W is tensor.SpMM(rows, W, values, "sum"), whose gradient with respect
// to W is the sparse x^T g. The result equals the dense computation (up to
// float32 summation order) and the dropout mask has the same distribution.

// sparseMinElems and the densities decide when a matrix is kept sparse.
// Per element of a dense input, dropout costs about as much as the sparse
// product costs per nonzero, so with dropout the sparse form pays off up to
// a quarter of nonzeros (PubMed's TF-IDF features have 10%); without it,
// the dense product (BLAS) wins unless the matrix is very sparse (Cora
// 1.3%, CiteSeer 0.9%).
const (
	sparseMinElems      = 1 << 15
	sparseMaxDensity    = 0.25 // with feature dropout
	sparseMaxDensityDet = 0.02 // without
)

// features is a layer's input after feature dropout: a dense tensor, or the
// nonzeros of a sparse one.
type features struct {
	x     *tensor.Tensor // dense values (materialised on demand when sp is set)
	sp    *tensor.Adj    // rows: NumDst = rows, NumSrc = columns, positions index vals
	vals  *tensor.Tensor // (nnz) float32 values, in row-major order
	nrows int
	ncols int
}

// sparsify returns x's nonzeros as (rows, values) when x is a 2-D float32
// matrix of at least sparseMinElems elements, at most sparseMaxDensity of
// them nonzero, that does not require grad; otherwise nil. Rows are scanned
// in parallel chunks, two elements per 64-bit load.
func sparsify(x *tensor.Tensor) (*tensor.Adj, *tensor.Tensor) {
	if x.Dim() != 2 || x.DType() != tensor.Float32 || x.RequiresGrad() || x.Numel() < sparseMinElems || x.Device() != "cpu" {
		return nil, nil // the nonzeros are found in host memory; other devices take the dense path
	}
	n, f := x.Size(0), x.Size(1)
	d := x.Float32s()
	nw := min(runtime.GOMAXPROCS(0), max(1, n/64))
	type part struct {
		lo, hi  int
		counts  []int64 // nonzeros per row
		indices []int64
		vals    []float32
		dense   bool
	}
	parts := make([]part, nw)
	var wg workers.Group
	var abort atomic.Bool
	chunk := (n + nw - 1) / nw
	for w := range parts {
		p := &parts[w]
		p.lo, p.hi = min(w*chunk, n), min((w+1)*chunk, n)
		wg.Go(func() {
			budget := int(float64((p.hi-p.lo)*f)*sparseMaxDensity) + 1
			p.counts = make([]int64, p.hi-p.lo)
			for r := p.lo; r < p.hi; r++ {
				if abort.Load() {
					return
				}
				before := len(p.vals)
				p.indices, p.vals = appendNonzeros(d[r*f:(r+1)*f], p.indices, p.vals)
				p.counts[r-p.lo] = int64(len(p.vals) - before)
				if len(p.vals) > budget {
					p.dense = true
					abort.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	nnz := 0
	for _, p := range parts {
		if p.dense || abort.Load() {
			return nil, nil
		}
		nnz += len(p.vals)
	}
	adj := &tensor.Adj{NumSrc: f, NumDst: n, Indptr: make([]int64, n+1), Indices: make([]int64, 0, nnz)}
	vals := make([]float32, 0, nnz)
	for _, p := range parts {
		for i, c := range p.counts {
			adj.Indptr[p.lo+i+1] = adj.Indptr[p.lo+i] + c
		}
		adj.Indices = append(adj.Indices, p.indices...)
		vals = append(vals, p.vals...)
	}
	return adj, tensor.FromFloat32(vals, len(vals))
}

// appendNonzeros appends the column and value of every nonzero of row
// (negative zero counts as zero), testing two elements per 64-bit load.
func appendNonzeros(row []float32, idx []int64, vals []float32) ([]int64, []float32) {
	pairs := len(row) / 2
	var words []uint64
	if pairs > 0 {
		words = unsafe.Slice((*uint64)(unsafe.Pointer(&row[0])), pairs)
	}
	for k, w := range words {
		if w&0x7fffffff7fffffff == 0 {
			continue
		}
		for c := 2 * k; c < 2*k+2; c++ {
			if row[c] != 0 {
				idx, vals = append(idx, int64(c)), append(vals, row[c])
			}
		}
	}
	for c := 2 * pairs; c < len(row); c++ {
		if row[c] != 0 {
			idx, vals = append(idx, int64(c)), append(vals, row[c])
		}
	}
	return idx, vals
}

// sparseCache remembers the sparse form of the last input of a layer:
// full-graph training feeds the same feature matrix every epoch. A hit is
// verified exactly against the matrix's current values (one read of it),
// so changing the features in place is safe. Dense inputs are remembered
// as such, without verification (they take the dense path, which is
// always correct).
type sparseCache struct {
	mu    sync.Mutex
	x     *tensor.Tensor
	dense bool
	adj   *tensor.Adj
	vals  *tensor.Tensor
}

// get returns the nonzeros of x when at most maxDensity of its elements
// are nonzero (and sparsify accepts it), otherwise nil.
func (c *sparseCache) get(x *tensor.Tensor, maxDensity float64) (*tensor.Adj, *tensor.Tensor) {
	if x.Dim() != 2 || x.DType() != tensor.Float32 || x.RequiresGrad() || x.Numel() < sparseMinElems {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if x.IsMeta() {
		return c.getMeta(x, maxDensity)
	}
	sparseEnough := func() bool { return float64(c.vals.Numel()) <= maxDensity*float64(x.Numel()) }
	if c.x == x {
		if c.dense || !sparseEnough() {
			return nil, nil // the dense path is right whatever x holds now
		}
		if sameNonzeros(x, c.adj, c.vals.Float32s()) {
			return c.adj, c.vals
		}
	}
	adj, vals := sparsify(x)
	c.x, c.dense, c.adj, c.vals = x, adj == nil, adj, vals
	if c.dense || !sparseEnough() {
		return nil, nil
	}
	return adj, vals
}

// getMeta is get for a meta x: the values are not there to scan, so the
// density x stands for (tensor.SetMetaDensity, e.g. memplan's reading of
// the real features) decides, and the nonzeros are spread evenly over the
// rows: the same tensors, of the same sizes, as the sparse path on the
// real matrix allocates. c.mu is held.
func (c *sparseCache) getMeta(x *tensor.Tensor, maxDensity float64) (*tensor.Adj, *tensor.Tensor) {
	d := x.MetaDensity()
	if d == 0 || d > maxDensity || d > sparseMaxDensity {
		return nil, nil
	}
	if c.x == x && c.adj != nil {
		return c.adj, c.vals
	}
	n, f := x.Size(0), x.Size(1)
	nnz := int(math.Round(d * float64(n) * float64(f)))
	adj := &tensor.Adj{NumSrc: f, NumDst: n, Indptr: make([]int64, n+1), Indices: make([]int64, nnz)}
	for r := range adj.Indptr {
		adj.Indptr[r] = int64(r) * int64(nnz) / int64(n)
	}
	c.x, c.dense, c.adj, c.vals = x, false, adj, tensor.EmptyOn(x.Device(), tensor.Float32, nnz)
	return c.adj, c.vals
}

// sameNonzeros reports whether the nonzeros of x are exactly (adj, vals),
// scanning rows in parallel chunks.
func sameNonzeros(x *tensor.Tensor, adj *tensor.Adj, vals []float32) bool {
	n, f := x.Size(0), x.Size(1)
	if adj.NumDst != n || adj.NumSrc != f {
		return false
	}
	d := x.Float32s()
	nw := min(runtime.GOMAXPROCS(0), max(1, n/64))
	chunk := (n + nw - 1) / nw
	var wg workers.Group
	var differ atomic.Bool
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Go(func() {
			for r := lo; r < hi && !differ.Load(); r++ {
				if !rowMatches(d[r*f:(r+1)*f], adj.Indices[adj.Indptr[r]:adj.Indptr[r+1]], vals[adj.Indptr[r]:adj.Indptr[r+1]]) {
					differ.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return !differ.Load()
}

// rowMatches reports whether the nonzeros of row are exactly the columns
// idx with the (nonzero) values vals: every listed value matches and the
// row has no other nonzero, which a branch-free count settles.
func rowMatches(row []float32, idx []int64, vals []float32) bool {
	for p, c := range idx {
		if row[c] != vals[p] {
			return false
		}
	}
	bits := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(row))), len(row))
	n := 0
	for _, b := range bits {
		n += int((b&0x7fffffff + 0x7fffffff) >> 31) // 1 unless ±0
	}
	return n == len(idx)
}

// input applies feature dropout with probability p (in training mode) to x
// and returns it in the form the layer's first product runs fastest on.
func (c *core) input(x *tensor.Tensor, p float32, gen *tensor.Generator) *features {
	maxDensity := sparseMaxDensityDet
	if p > 0 && !c.eval {
		maxDensity = sparseMaxDensity
	}
	// Under autocast the features are cast to the low dtype once, before
	// dropout, rather than by each product that reads them.
	lowOf := func(t *tensor.Tensor) *tensor.Tensor {
		if on, dt := tensor.AutocastState(); on && t.DType() == tensor.Float32 {
			return t.Cast(dt)
		}
		return t
	}
	if adj, vals := c.sparse.get(x, maxDensity); adj != nil {
		return &features{sp: adj, vals: c.dropout(lowOf(vals), p, gen), nrows: x.Size(0), ncols: x.Size(1)}
	}
	x = c.dropout(lowOf(x), p, gen)
	return &features{x: x, nrows: x.Size(0), ncols: x.Size(1)}
}

// mm returns the features times w: (rows, cols) x (cols, out) -> (rows, out).
func (f *features) mm(w *tensor.Tensor) *tensor.Tensor {
	if f.sp != nil {
		return tensor.SpMM(f.sp, w, f.vals, "sum")
	}
	return tensor.MatMul(f.x, w)
}

// linear applies l: (rows, InFeats) -> (rows, OutFeats).
func (f *features) linear(l *Linear) *tensor.Tensor {
	if f.sp == nil {
		return l.Forward(f.x)
	}
	y := f.mm(l.Weight)
	if l.Bias != nil {
		y = addBias(y, l.Bias)
	}
	return y
}

// rows returns the first n rows (a block's destination nodes).
func (f *features) rows(n int) *features {
	if n == f.nrows {
		return f
	}
	if f.sp == nil {
		return &features{x: tensor.Narrow(f.x, 0, n), nrows: n, ncols: f.ncols}
	}
	end := f.sp.Indptr[n]
	adj := &tensor.Adj{NumSrc: f.ncols, NumDst: n, Indptr: f.sp.Indptr[:n+1], Indices: f.sp.Indices[:end]}
	return &features{sp: adj, vals: tensor.Narrow(f.vals, 0, int(end)), nrows: n, ncols: f.ncols}
}

// dense returns the features as a dense (rows, cols) tensor.
func (f *features) dense() *tensor.Tensor {
	if f.x == nil && f.vals.IsMeta() {
		f.x = tensor.ZerosOn(f.vals.Device(), tensor.Float32, f.nrows, f.ncols).Cast(f.vals.DType())
	}
	if f.x == nil {
		x := tensor.Zeros(f.nrows, f.ncols)
		d, v := x.Float32s(), f.vals.Float().Float32s()
		for r := 0; r < f.nrows; r++ {
			for p := f.sp.Indptr[r]; p < f.sp.Indptr[r+1]; p++ {
				d[r*f.ncols+int(f.sp.Indices[p])] = v[p]
			}
		}
		f.x = x.Cast(f.vals.DType()) // the values' dtype (low under autocast)
	}
	return f.x
}
