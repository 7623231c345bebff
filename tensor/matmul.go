package tensor

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

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
