package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// gemmRef is the float64 row-major reference C = alpha*op(A)@op(B) + beta*C0.
func gemmRef(transA, transB bool, m, n, k int, alpha float64, a, b []float32, beta float64, c0 []float32) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var acc float64
			for l := 0; l < k; l++ {
				av := a[i*k+l]
				if transA {
					av = a[l*m+i]
				}
				bv := b[l*n+j]
				if transB {
					bv = b[j*k+l]
				}
				acc += float64(av) * float64(bv)
			}
			out[i*n+j] = alpha*acc + beta*float64(c0[i*n+j])
		}
	}
	return out
}

// cuBLAS GemmEx through the row-major MatMul, every transpose combination,
// odd sizes, against a float64 reference computed from the rounded inputs.
// Tolerance on ||C - ref|| / ||ref|| (METHOD: float32 far under 1e-3, TF32
// near 3e-4, 16-bit operands 1e-3..1e-2): float32 pedantic 1e-6; TF32 2e-3;
// float16 / bfloat16 inputs with float32 output 1e-5 (products of 16-bit
// values are exact in float32); bfloat16 output 4e-3 (its rounding).
func TestGemmParity(t *testing.T) {
	d, s := gpu(t)
	b, err := NewBLAS(d)
	must(t, err)
	defer b.Destroy()
	v, err := b.Version()
	must(t, err)
	path, _ := BLASPath()
	t.Logf("cuBLAS %d from %s", v, path)
	r := rand.New(rand.NewPCG(21, 22))
	const m, n, k = 129, 67, 257
	type cfg struct {
		in, out DType
		compute ComputeType
		tol     float64
	}
	cfgs := []cfg{
		{DTypeFloat32, DTypeFloat32, Compute32FPedantic, 1e-6},
		{DTypeFloat32, DTypeFloat32, Compute32FFastTF32, 2e-3},
		{DTypeFloat16, DTypeFloat32, Compute32F, 1e-5},
		{DTypeBFloat16, DTypeFloat32, Compute32F, 1e-5},
		{DTypeBFloat16, DTypeBFloat16, Compute32F, 4e-3},
		{DTypeFloat16, DTypeFloat16, Compute32F, 1e-3},
	}
	up := func(dt DType, v []float32) (DevicePtr, []float32) {
		bits, vals := toStorage(dt, v)
		if dt == DTypeFloat32 {
			return upF32(t, d, v), v
		}
		return upU16(t, d, bits), vals
	}
	down := func(dt DType, p DevicePtr, n int) []float32 {
		if dt == DTypeFloat32 {
			return downF32(t, s, p, n)
		}
		return fromStorage(dt, downU16(t, s, p, n))
	}
	for _, c := range cfgs {
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				a32, b32 := randF32(r, m*k, -1, 1), randF32(r, k*n, -1, 1)
				c0 := randF32(r, m*n, -1, 1)
				pa, av := up(c.in, a32)
				pb, bv := up(c.in, b32)
				pc, cv := up(c.out, c0)
				const alpha, beta = 0.5, -0.25
				must(t, b.MatMul(s, ta, tb, m, n, k, alpha, pa, pb, c.in, beta, pc, c.out, c.compute))
				want := gemmRef(ta, tb, m, n, k, alpha, av, bv, beta, cv)
				e := relErr(down(c.out, pc, m*n), want)
				name := fmt.Sprintf("gemm %v->%v compute %d transA=%v transB=%v", c.in, c.out, c.compute, ta, tb)
				if !(e <= c.tol) {
					t.Errorf("%s: relative error %.3g > %.1g", name, e, c.tol)
				} else {
					t.Logf("%s: relative error %.3g (tol %.1g)", name, e, c.tol)
				}
			}
		}
	}
	// Strided batched: (3, M, K) @ (3, K, N), bfloat16 in, float32 out.
	const batch = 3
	a32, b32 := randF32(r, batch*m*k, -1, 1), randF32(r, batch*k*n, -1, 1)
	pa, av := up(DTypeBFloat16, a32)
	pb, bv := up(DTypeBFloat16, b32)
	pc := alloc(t, d, 4*batch*m*n)
	must(t, b.BatchedMatMul(s, false, true, batch, m, n, k, 1, pa, pb, DTypeBFloat16, 0, pc, DTypeFloat32, Compute32F))
	got := downF32(t, s, pc, batch*m*n)
	for i := 0; i < batch; i++ {
		// B_i stored (N, K) because transB.
		want := gemmRef(false, true, m, n, k, 1, av[i*m*k:(i+1)*m*k], bv[i*k*n:(i+1)*k*n], 0, make([]float32, m*n))
		if e := relErr(got[i*m*n:(i+1)*m*n], want); !(e <= 1e-5) {
			t.Errorf("batched gemm %d: relative error %.3g", i, e)
		} else {
			t.Logf("batched gemm bf16 batch %d: relative error %.3g (tol 1e-5)", i, e)
		}
	}
}
