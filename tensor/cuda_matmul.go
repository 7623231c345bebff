package tensor

import (
	"github.com/gnnrepl/gnnrepl/kernels"
)

// gemm computes the row-major C (m, n) = op(A) @ op(B) with cuBLAS in the
// precision of SetFloat32MatmulPrecision.
func (d *cudaDevice) gemm(op string, tA, tB bool, m, n, k int, a, b, c kernels.DevicePtr) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		d.must(op, d.dev.Memset8(c, 0, m*n*4))
		return
	}
	bl := d.blasHandle(op)
	f32 := kernels.DTypeFloat32
	switch matmulPrecision.Load() {
	case 1:
		d.must(op, bl.MatMul(d.s, tA, tB, m, n, k, 1, a, b, f32, 0, c, f32, kernels.Compute32FFastTF32))
	case 2:
		bf := kernels.DTypeBFloat16
		sa, sb := d.newRaw(op, int64(m*k*2)), d.newRaw(op, int64(k*n*2))
		d.must(op, kernels.Cast(d.s, a, f32, cudaBufOf(sa).ptr, bf, m*k))
		d.must(op, kernels.Cast(d.s, b, f32, cudaBufOf(sb).ptr, bf, k*n))
		d.must(op, bl.MatMul(d.s, tA, tB, m, n, k, 1, cudaBufOf(sa).ptr, cudaBufOf(sb).ptr, bf, 0, c, f32, kernels.Compute32F))
		freeNow(sa)
		freeNow(sb)
	default:
		d.must(op, bl.MatMul(d.s, tA, tB, m, n, k, 1, a, b, f32, 0, c, f32, kernels.Compute32F))
	}
}

func cudaMatMul(a, b *Tensor) *Tensor {
	checkFloat("MatMul", a, b)
	checkMatMulShapes(a, b)
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	d := cudaOf("MatMul", a)
	out := d.empty("MatMul", Float32, []int{m, n})
	d.gemm("MatMul", false, false, m, n, k, ptr(a), ptr(b), ptr(out))
	return record(out, "MatMul", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad { // g @ b^T : (M, K)
			ga = d.empty("MatMul", Float32, []int{m, k})
			d.gemm("MatMul", false, true, m, k, n, ptr(g), ptr(b), ptr(ga))
		}
		if b.requiresGrad { // a^T @ g : (K, N)
			gb = d.empty("MatMul", Float32, []int{k, n})
			d.gemm("MatMul", true, false, k, n, m, ptr(a), ptr(g), ptr(gb))
		}
		return []*Tensor{ga, gb}
	})
}
