package tensor

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// MatMulKernels are the primitive kernels of this file's ops: dense products: GEMM and AddMM.
// Every Backend implements them (cpu_*.go, cuda_*.go, meta.go).
type MatMulKernels interface{}

// Gemm is the single-precision GEMM every dense product goes through:
// C = alpha*op(A)*op(B) + beta*C for row-major A, B, C with leading
// dimensions lda, ldb, ldc, where op transposes when tA / tB is set. op(A) is
// (m, k), op(B) is (k, n), C is (m, n).
type Gemm func(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

var (
	sgemm    Gemm = gonumGemm
	blasName      = "gonum (pure Go)"
)

// SetBLAS replaces the GEMM implementation (for instance with OpenBLAS
// opened at run time) and names it for BLASName. A nil gemm restores gonum.
func SetBLAS(name string, gemm Gemm) {
	if gemm == nil {
		sgemm, blasName = gonumGemm, "gonum (pure Go)"
		return
	}
	sgemm, blasName = gemm, name
}

// BLASName names the BLAS that dense products use now.
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

// MatMul returns the matrix product a @ b: (M, K) x (K, N) -> (M, N),
// computed by the BLAS (BLASName). It panics with ErrShape when the inner
// dimensions differ or an operand is not 2-D, and with ErrDType for
// non-float operands.
//
// MatMul is on autocast's lower-precision list (torch's mm, matmul,
// linear): inside an autocast region its float operands are cast to the
// autocast dtype and the product is float16 or bfloat16, accumulated in
// float32 (rows are widened in blocks and the BLAS runs in float32).
// Outside autocast, two float16 or two bfloat16 operands give a result of
// their dtype the same way, and operands of different float dtypes are
// promoted (PromoteTypes).
func MatMul(a, b *Tensor) *Tensor {
	defer hookOp("MatMul")()
	a, b = lowerPrecision2("MatMul", a, b)
	if d := deviceOf("MatMul", a, b); d != "cpu" {
		return cudaMatMul(a, b)
	}
	if a.dtype != Float32 || b.dtype != Float32 {
		checkFloats("MatMul", a, b)
	}
	checkMatMulShapes(a, b)
	if a.dtype != Float32 {
		return matmulLow(a, b)
	}
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	out := Zeros(m, n)
	sgemm(false, false, m, n, k, 1, a.Float32s(), k, b.Float32s(), n, 0, out.Float32s(), n)
	return record(out, "MatMul", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad { // (M,N) x (N,K)^T... = g @ b^T : (M, K)
			ga = Zeros(m, k)
			sgemm(false, true, m, k, n, 1, g.Float32s(), n, b.Float32s(), n, 0, ga.Float32s(), k)
		}
		if b.requiresGrad { // a^T @ g : (K, N)
			gb = Zeros(k, n)
			sgemm(true, false, k, n, m, 1, a.Float32s(), k, g.Float32s(), n, 0, gb.Float32s(), n)
		}
		return []*Tensor{ga, gb}
	})
}

// checkMatMulShapes panics with ErrShape unless a is (M, K) and b is
// (K, N), saying which dimension is wrong.
func checkMatMulShapes(a, b *Tensor) {
	switch {
	case a.Dim() != 2 || b.Dim() != 2:
		panicf(ErrShape, "MatMul", "wants two 2-D tensors (M, K) and (K, N), got shapes %v and %v", a.shape, b.shape)
	case a.shape[1] != b.shape[0]:
		panicf(ErrShape, "MatMul", "cannot multiply %v by %v: the inner dimensions differ (a has %d columns, b has %d rows)",
			a.shape, b.shape, a.shape[1], b.shape[0])
	}
}

// AddMM returns c + a @ b (torch.addmm with beta = alpha = 1): a (M, K) and
// b (K, N) as in MatMul, c of a shape that broadcasts to (M, N) ((N) for a
// bias row added to every row, (M, N), (1, N), (M, 1) or a scalar, as
// torch.addmm's input), -> (M, N). more holds further (a, b) pairs, each (M, K_i) and (K_i, N),
// whose products are added too: c + a@b + more[0]@more[1] + ... (GraphSAGE's
// self and neighbour terms plus bias in one output).
//
// For float32 operands on the CPU it copies c into the output and runs one
// accumulating GEMM per pair, which saves the passes and the (M, N)
// temporaries of separate Adds; nn.Linear and nn.SAGEConv use it. AddMM is
// on autocast's lower-precision list (torch's addmm): inside a region the
// pairs are cast to the autocast dtype and the result has that dtype
// whatever c's float dtype (a float32 bias is added in float32); with
// float16 or bfloat16 pairs and c of the same dtype outside autocast the
// result has it too. Low-precision products are accumulated in float32
// per block of rows and rounded once. Other mixes of dtypes, and GPU
// tensors, compute Add(c, MatMul(a, b)) + ... with those ops' dtype rules.
// Gradients: c gets
// g (summed to c's shape), each a gets g @ b^T, each b a^T @ g.
// Panics with ErrShape naming the argument when one is nil, a pair does not
// multiply, a pair's product is not (M, N), c does not broadcast to it or
// more has odd length, and with ErrDType for a non-float operand.
func AddMM(c, a, b *Tensor, more ...*Tensor) *Tensor {
	defer hookOp("AddMM")()
	return addMM("AddMM", false, c, a, b, more)
}

// AddMMReLU returns ReLU(AddMM(c, a, b, more...)) (torch's
// _addmm_activation, which fuses the bias, the products and the ReLU): in
// the fused case the ReLU is applied to the output in place and its
// gradient mask is taken from it, saving the (M, N) temporary and pass of
// a separate ReLU. Shapes, dtypes and panics as AddMM.
func AddMMReLU(c, a, b *Tensor, more ...*Tensor) *Tensor {
	defer hookOp("AddMMReLU")()
	return addMM("AddMMReLU", true, c, a, b, more)
}

// addMMShapes checks AddMM's operands (none nil, every pair's product
// (M, N), c broadcastable to it) and returns M, N and c's row filler.
func addMMShapes(op string, c *Tensor, pairs []*Tensor) (m, n int, fill func(r int, dst []float32)) {
	name := func(i int) string { // the argument pairs[i] came in
		if i < 2 {
			return string(rune('a' + i))
		}
		return fmt.Sprintf("more[%d]", i-2)
	}
	if c == nil {
		panicf(ErrShape, op, "c is nil")
	}
	for i, t := range pairs {
		if t == nil {
			panicf(ErrShape, op, "%s is nil", name(i))
		}
	}
	for i := 0; i < len(pairs); i += 2 {
		x, w := pairs[i], pairs[i+1]
		switch {
		case x.Dim() != 2 || w.Dim() != 2:
			panicf(ErrShape, op, "%s and %s must be 2-D (M, K) and (K, N), got shapes %v and %v", name(i), name(i+1), x.shape, w.shape)
		case x.shape[1] != w.shape[0]:
			panicf(ErrShape, op, "cannot multiply %s %v by %s %v: %s has %d columns, %s has %d rows",
				name(i), x.shape, name(i+1), w.shape, name(i), x.shape[1], name(i+1), w.shape[0])
		case i == 0:
			m, n = x.shape[0], w.shape[1]
		case x.shape[0] != m || w.shape[1] != n:
			panicf(ErrShape, op, "%s %v @ %s %v is not (%d, %d) like a @ b", name(i), x.shape, name(i+1), w.shape, m, n)
		}
	}
	ok := len(c.shape) <= 2
	for i, d := range c.shape {
		want := []int{m, n}[2-len(c.shape)+i]
		ok = ok && (d == want || d == 1)
	}
	if !ok {
		panicf(ErrShape, op, "c has shape %v, which does not broadcast to a @ b's (%d, %d)", c.shape, m, n)
	}
	return m, n, cRows(c, m, n)
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

// addMM is AddMM, followed by ReLU when relu is set.
func addMM(op string, relu bool, c, a, b *Tensor, more []*Tensor) *Tensor {
	if len(more)%2 != 0 {
		panicf(ErrShape, op, "more must hold (a, b) pairs, got an odd number (%d) of tensors", len(more))
	}
	pairs := append([]*Tensor{a, b}, more...)
	checkFloats(op, append([]*Tensor{c}, pairs...)...)
	m, n, fill := addMMShapes(op, c, pairs)
	if on, adt := AutocastState(); on {
		for i, t := range pairs {
			pairs[i] = autocastTo(op, t, adt)
		}
	}
	dev := deviceOf(op, append([]*Tensor{c}, pairs...)...)
	dt, same := pairs[0].dtype, true
	for _, t := range pairs {
		same = same && t.dtype == dt
	}
	lowDT := dt == Float16 || dt == BFloat16
	switch {
	case dev == "cpu" && same && dt == Float32 && c.dtype == Float32:
	case dev == "cpu" && same && lowDT && (c.dtype == dt || autocastOn() && c.dtype.IsFloatingPoint()):
		return addMMLow(op, relu, c, pairs, m, n, fill)
	default:
		out := c
		for i := 0; i < len(pairs); i += 2 {
			out = Add(out, MatMul(pairs[i], pairs[i+1]))
		}
		if relu {
			out = ReLU(out)
		}
		return out
	}
	out := New(Float32, m, n)
	od := out.Float32s()
	parallelFor(m, max(1, (1<<15)/max(n, 1)), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			fill(r, od[r*n:(r+1)*n])
		}
	})
	for i := 0; i < len(pairs); i += 2 {
		x, w := pairs[i], pairs[i+1]
		k := x.shape[1]
		sgemm(false, false, m, n, k, 1, x.Float32s(), k, w.Float32s(), n, 1, od, n)
	}
	if relu {
		parallelFor(len(od), 1<<15, func(lo, hi int) {
			o := od[lo:hi]
			for i, v := range o {
				o[i] = max(v, 0)
			}
		})
	}
	var mask func(g *Tensor) *Tensor
	if relu {
		mask = func(g *Tensor) *Tensor { return reluGrad(g, od) }
	}
	return recordAddMM(op, out, c, pairs, m, n, mask, func(g, x, w *Tensor, k int) (gx, gw *Tensor) {
		if x.requiresGrad { // g @ w^T : (M, K)
			gx = New(Float32, m, k)
			sgemm(false, true, m, k, n, 1, g.Float32s(), n, w.Float32s(), n, 0, gx.Float32s(), k)
		}
		if w.requiresGrad { // x^T @ g : (K, N)
			gw = New(Float32, k, n)
			sgemm(true, false, k, n, m, 1, x.Float32s(), k, g.Float32s(), n, 0, gw.Float32s(), n)
		}
		return gx, gw
	})
}

// recordAddMM records AddMM's node: its backward masks the output gradient
// (the ReLU's, when mask is set), gives c the gradient summed to c's shape
// and each pair (x, w) the gradients grads computes from the masked
// gradient (nil for an operand that does not require grad).
func recordAddMM(op string, out, c *Tensor, pairs []*Tensor, m, n int, mask func(g *Tensor) *Tensor,
	grads func(g, x, w *Tensor, k int) (gx, gw *Tensor)) *Tensor {
	return record(out, op, append([]*Tensor{c}, pairs...), func(g *Tensor) []*Tensor {
		res := make([]*Tensor, 1+len(pairs))
		if mask != nil {
			g = mask(g)
		}
		if c.requiresGrad {
			res[0] = sumTo(g, c.shape)
		}
		for i := 0; i < len(pairs); i += 2 {
			res[1+i], res[2+i] = grads(g, pairs[i], pairs[i+1], pairs[i].shape[1])
		}
		return res
	})
}
