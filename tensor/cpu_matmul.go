package tensor

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// The CPU's dense products. Every product goes through one float32 GEMM
// (sgemm: gonum, or OpenBLAS opened at run time, openblas.go); gemmRef is
// its plain reference loop. Float32 operands are handed to it whole.
// Float16 and bfloat16 operands take the same path one block of rows at a
// time: the rows are widened to float32 (floats.load), multiplied with
// float32 accumulation, and rounded once into the result (floats.store).
// The weight-sized operand is widened whole; the row blocks keep the
// float32 scratch at 64 KiB per operand (at least 32 rows) whatever the
// number of rows, so the transient float32 copies do not rival the
// activations that autocast halves. The scratch is allocated by the op
// (GemmWorkspace, AddMMWorkspace), so the meta device counts it too.

// Gemm is the single-precision GEMM every dense product on the CPU goes
// through: C = alpha*op(A)*op(B) + beta*C for row-major A, B, C with
// leading dimensions lda, ldb, ldc, where op transposes when tA / tB is
// set. op(A) is (m, k), op(B) is (k, n), C is (m, n). With beta == 0, C is
// not read.
type Gemm func(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

var (
	sgemm    Gemm = gonumGemm
	blasName      = "gonum (pure Go)"
)

// SetBLAS replaces the CPU's GEMM implementation (for instance with
// OpenBLAS opened at run time) and names it for BLASName. A nil gemm
// restores gonum. It is plumbing of the CPU backend.
func SetBLAS(name string, gemm Gemm) {
	if gemm == nil {
		sgemm, blasName = gonumGemm, "gonum (pure Go)"
		return
	}
	sgemm, blasName = gemm, name
}

// BLASName names the BLAS that dense products on the CPU use now.
func BLASName() string { return blasName }

func gonumGemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	ar, ac := m, k
	if tA {
		ta, ar, ac = blas.Trans, k, m
	}
	br, bc := k, n
	if tB {
		tb, br, bc = blas.Trans, n, k
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row) // C is not read
				continue
			}
			for j := range row {
				row[j] *= beta
			}
		}
		return
	}
	blas32.Gemm(ta, tb, alpha,
		blas32.General{Rows: ar, Cols: ac, Stride: lda, Data: a},
		blas32.General{Rows: br, Cols: bc, Stride: ldb, Data: b},
		beta,
		blas32.General{Rows: m, Cols: n, Stride: ldc, Data: c})
}

// gemmRef is the reference of Gemm: for each element of C, the float32
// sum over l in order of op(A)[i, l] * op(B)[l, j], then alpha*sum +
// beta*C[i, j] (C not read when beta == 0). The BLAS agrees with it to
// float32 rounding.
func gemmRef(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float32
			for l := 0; l < k; l++ {
				x, y := a[i*lda+l], b[l*ldb+j]
				if tA {
					x = a[l*lda+i]
				}
				if tB {
					y = b[j*ldb+l]
				}
				s += x * y
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
			}
		}
	}
}

// lowRowBlock returns the rows per block of a float16 / bfloat16 product
// for rows of width w: 64 KiB of float32, at least 32 rows.
func lowRowBlock(w int) int { return max(32, (1<<14)/max(w, 1)) }

// loadPar is floats.load of elements [lo, hi) with the widening split over
// goroutines: s's own slice for float32, else buf[:hi-lo] widened.
func loadPar(s floats, lo, hi int, buf []float32) []float32 {
	if s.dt == Float32 {
		return s.f32[lo:hi:hi]
	}
	b := buf[: hi-lo : hi-lo]
	parallelFor(hi-lo, 1<<15, func(l, h int) { s.load(lo+l, lo+h, b[l:h]) })
	return b
}

// storePar is floats.store of b into elements [lo, hi), rounding in
// parallel (nothing to do for float32, whose slot is the tensor itself).
func storePar(s floats, lo, hi int, b []float32) {
	if s.dt == Float32 {
		return
	}
	parallelFor(hi-lo, 1<<15, func(l, h int) { s.store(lo+l, lo+h, b[l:h]) })
}

// scratchData returns the float32 elements of ws[i], nil when ws has no
// such tensor (float32 operands need no scratch).
func scratchData(ws []*Tensor, i int) []float32 {
	if i >= len(ws) {
		return nil
	}
	return hostView[float32](ws[i])
}

// gemmDims returns op(a) @ op(b)'s (M, N) and inner K.
func gemmDims(tA bool, a, c *Tensor) (m, n, k int) {
	k = a.shape[1]
	if tA {
		k = a.shape[0]
	}
	return c.shape[0], c.shape[1], k
}

// GemmWorkspace: none for float32. For float16 / bfloat16 without tA:
// op(b) widened (K*N) and blocks of rows of a (blk*K) and c (blk*N); with
// tA, where the rows of a and b run along the inner dimension: the float32
// accumulator (M*N), blocks of rows of a (blk*M), and of b (blk*N), or b
// widened whole (K*N) when tB.
func (*cpuBackend) GemmWorkspace(tA, tB bool, a, b, c *Tensor) (DType, []int) {
	if a.dtype == Float32 {
		return Float32, nil
	}
	m, n, k := gemmDims(tA, a, c)
	if !tA {
		blk := min(lowRowBlock(max(k, n)), max(m, 1))
		return Float32, []int{k * n, blk * k, blk * n}
	}
	blk := min(lowRowBlock(max(m, n)), max(k, 1))
	bw := blk * n
	if tB {
		bw = k * n
	}
	return Float32, []int{m * n, blk * m, bw}
}

// Gemm computes c = alpha*op(a)@op(b) + beta*c by sgemm: in one call for
// float32; for float16 / bfloat16 by blocks of rows widened into ws, rows
// of c without tA (each block rounded once into c), rows along the inner
// dimension with tA (accumulated in a float32 (M, N) and rounded once at
// the end).
func (*cpuBackend) Gemm(tA, tB bool, alpha float32, a, b *Tensor, beta float32, c *Tensor, ws []*Tensor) {
	m, n, k := gemmDims(tA, a, c)
	as, bs, cs := floatsOf(a), floatsOf(b), floatsOf(c)
	ldb := b.shape[1]
	if !tA {
		// a (M, K): blocks of rows of a and c (all rows for float32).
		blk := max(m, 1)
		if cs.dt != Float32 {
			blk = min(lowRowBlock(max(k, n)), max(m, 1))
		}
		bw := loadPar(bs, 0, b.n, scratchData(ws, 0))
		xb, cb := scratchData(ws, 1), scratchData(ws, 2)
		for r0 := 0; r0 < m; r0 += blk {
			r1 := min(r0+blk, m)
			x := loadPar(as, r0*k, r1*k, xb)
			y := cs.slot(r0*n, r1*n, cb)
			if beta != 0 {
				y = loadPar(cs, r0*n, r1*n, y)
			}
			sgemm(false, tB, r1-r0, n, k, alpha, x, k, bw, ldb, beta, y, n)
			storePar(cs, r0*n, r1*n, y)
		}
		return
	}
	// a (K, M): blocks of the K rows of a and b (all of them for float32),
	// accumulated into c, or into float32 scratch rounded into c at the end.
	blk := max(k, 1)
	acc, bt := cs.slot(0, m*n, scratchData(ws, 0)), beta
	if cs.dt != Float32 {
		blk = min(lowRowBlock(max(m, n)), max(k, 1))
		if beta == 0 {
			clear(acc)
			bt = 1
		} else {
			acc = loadPar(cs, 0, m*n, acc)
		}
	}
	var bw []float32 // b (N, K) widened whole, when tB
	if tB {
		bw = loadPar(bs, 0, b.n, scratchData(ws, 2))
	}
	if k == 0 {
		scaleBy(acc, bt)
	}
	xb, yb := scratchData(ws, 1), scratchData(ws, 2)
	for r0 := 0; r0 < k; r0 += blk {
		r1 := min(r0+blk, k)
		x := loadPar(as, r0*m, r1*m, xb)
		y, ldy := bw, k
		if tB {
			y = bw[r0:]
		} else {
			y, ldy = loadPar(bs, r0*n, r1*n, yb), n
		}
		sgemm(true, tB, m, n, r1-r0, alpha, x, m, y, ldy, bt, acc, n)
		bt = 1
	}
	storePar(cs, 0, m*n, acc)
}

// scaleBy multiplies x by beta (clears it for beta == 0, so x is not read).
func scaleBy(x []float32, beta float32) {
	switch beta {
	case 1:
	case 0:
		clear(x)
	default:
		for i := range x {
			x[i] *= beta
		}
	}
}

// AddMMWorkspace: none for float32. For float16 / bfloat16: each pair's
// b widened (K_i*N), then blocks of rows of the output (blk*N) and of the
// widest a (blk*max K_i).
func (*cpuBackend) AddMMWorkspace(out, c *Tensor, pairs []*Tensor) (DType, []int) {
	if out.dtype == Float32 {
		return Float32, nil
	}
	m, n := out.shape[0], out.shape[1]
	var sizes []int
	kmax := 0
	for i := 0; i < len(pairs); i += 2 {
		sizes = append(sizes, pairs[i+1].n)
		kmax = max(kmax, pairs[i].shape[1])
	}
	blk := min(lowRowBlock(max(n, kmax)), max(m, 1))
	return Float32, append(sizes, blk*n, blk*kmax)
}

// AddMM writes c's rows (broadcast) into the output, then accumulates
// every pair's product into it with sgemm (beta 1) and applies the ReLU in
// place: over the whole output for float32; for float16 / bfloat16 per
// block of rows in float32 scratch, the pairs' rows widened, each block
// rounded once into out.
func (*cpuBackend) AddMM(out, c *Tensor, pairs []*Tensor, relu bool, ws []*Tensor) {
	m, n := out.shape[0], out.shape[1]
	np := len(pairs) / 2
	os := floatsOf(out)
	fill := cRows(c, m, n)
	blk := max(m, 1)
	if os.dt != Float32 {
		kmax := 0
		for i := 0; i < np; i++ {
			kmax = max(kmax, pairs[2*i].shape[1])
		}
		blk = min(lowRowBlock(max(n, kmax)), max(m, 1))
	}
	wts := make([][]float32, np) // the pairs' b as float32
	for i := range wts {
		w := pairs[2*i+1]
		wts[i] = loadPar(floatsOf(w), 0, w.n, scratchData(ws, i))
	}
	cb, xb := scratchData(ws, np), scratchData(ws, np+1)
	for r0 := 0; r0 < m; r0 += blk {
		r1 := min(r0+blk, m)
		y := os.slot(r0*n, r1*n, cb)
		parallelFor(r1-r0, max(1, (1<<15)/max(n, 1)), func(lo, hi int) {
			for r := lo; r < hi; r++ {
				fill(r0+r, y[r*n:(r+1)*n])
			}
		})
		for i, w := range wts {
			x := pairs[2*i]
			k := x.shape[1]
			sgemm(false, false, r1-r0, n, k, 1, loadPar(floatsOf(x), r0*k, r1*k, xb), k, w, n, 1, y, n)
		}
		if relu {
			parallelFor(len(y), 1<<15, func(lo, hi int) {
				o := y[lo:hi]
				for i, v := range o {
					o[i] = max(v, 0) // branch-free; NaN stays NaN, as in torch
				}
			})
		}
		storePar(os, r0*n, r1*n, y)
	}
}

// cRows returns a function writing row r of c broadcast to (m, n) into
// dst (float32, length n): c is (M, N), (N), (1, N), (M, 1), (1, 1), (1)
// or a scalar, of any float dtype.
func cRows(c *Tensor, m, n int) func(r int, dst []float32) {
	cs := floatsOf(c)
	rows, cols := 1, 1
	switch len(c.shape) {
	case 1:
		cols = c.shape[0]
	case 2:
		rows, cols = c.shape[0], c.shape[1]
	}
	if rows == m && cols == n && m > 1 {
		return func(r int, dst []float32) { copy(dst, cs.load(r*n, (r+1)*n, dst)) }
	}
	var row []float32 // the one row every output row gets (cols == n) or nil
	if rows == 1 {
		row = make([]float32, n)
		v := cs.load(0, cols, make([]float32, cols))
		for j := range row {
			row[j] = v[j%cols]
		}
		return func(_ int, dst []float32) { copy(dst, row) }
	}
	col := cs.load(0, rows, make([]float32, rows)) // (M, 1): one value per row
	return func(r int, dst []float32) {
		for j := range dst[:n] {
			dst[j] = col[r]
		}
	}
}

// AddMMReLUBackward keeps g's elements (their bits) where y > 0 and
// writes +0 elsewhere, without a branch: float32 directly, float16 /
// bfloat16 with y widened in blocks.
func (*cpuBackend) AddMMReLUBackward(gx, g, y *Tensor) {
	ys := floatsOf(y)
	if g.dtype == Float32 {
		keepPositive(hostView[uint32](gx), hostView[uint32](g), ys)
		return
	}
	keepPositive(hostView[uint16](gx), hostView[uint16](g), ys)
}

// keepPositive sets dst[i] = src[i] where y[i] > 0 and 0 elsewhere (NaN
// is not positive).
func keepPositive[T uint16 | uint32](dst, src []T, y floats) {
	if y.dt == Float32 {
		parallelFor(len(dst), 1<<15, func(lo, hi int) { keepWhere(dst[lo:hi], src[lo:hi], y.f32[lo:hi]) })
		return
	}
	lowBlocks(len(dst), func(lo, hi int, s *scratch) { keepWhere(dst[lo:hi], src[lo:hi], y.load(lo, hi, s.a[:])) })
}

func keepWhere[T uint16 | uint32](dst, src []T, y []float32) {
	dst, src = dst[:len(y)], src[:len(y)]
	for i, v := range y {
		// Keep g where y > 0 without a branch (the signs are random).
		dst[i] = src[i] & -T(b2u32(v > 0))
	}
}
