package tensor

import (
	"github.com/gnnrepl/gnnrepl/kernels"
)

// The GPU's dense products: cuBLAS (kernels.BLAS.MatMul on row-major
// buffers). Float32 runs in the precision of SetFloat32MatmulPrecision;
// float16 and bfloat16 operands run on the tensor cores with float32
// accumulation, rounded once into the result.

// cudaGemmWorkspace is the scratch of a GPU GEMM (the meta device asks it
// for "meta:cuda" too): at "medium" float32 precision, bfloat16 copies of
// op(a) (M*K) and op(b) (K*N); none otherwise.
func cudaGemmWorkspace(tA, tB bool, a, b, c *Tensor) (DType, []int) {
	if a.dtype != Float32 || matmulPrecision.Load() != 2 {
		return Float32, nil
	}
	return BFloat16, []int{a.n, b.n}
}

// cudaAddMMWorkspace is cudaGemmWorkspace for AddMM's pairs: bfloat16
// copies as large as the largest a and b, shared by the pairs.
func cudaAddMMWorkspace(out, c *Tensor, pairs []*Tensor) (DType, []int) {
	if out.dtype != Float32 || matmulPrecision.Load() != 2 {
		return Float32, nil
	}
	na, nb := 0, 0
	for i := 0; i < len(pairs); i += 2 {
		na, nb = max(na, pairs[i].n), max(nb, pairs[i+1].n)
	}
	return BFloat16, []int{na, nb}
}

func (d *cudaDevice) GemmWorkspace(tA, tB bool, a, b, c *Tensor) (DType, []int) {
	return cudaGemmWorkspace(tA, tB, a, b, c)
}

func (d *cudaDevice) AddMMWorkspace(out, c *Tensor, pairs []*Tensor) (DType, []int) {
	return cudaAddMMWorkspace(out, c, pairs)
}

// Gemm computes c = alpha*op(a)@op(b) + beta*c with cuBLAS: float32 in
// the precision of SetFloat32MatmulPrecision ("medium" rounds the
// operands to bfloat16 into ws first), float16 / bfloat16 with float32
// accumulation.
func (d *cudaDevice) Gemm(tA, tB bool, alpha float32, a, b *Tensor, beta float32, c *Tensor, ws []*Tensor) {
	const op = "MatMul"
	m, n, k := gemmDims(tA, a, c)
	t := d.floatKernelDType(op, c.dtype)
	if m == 0 || n == 0 {
		return
	}
	pa, pb, pc := ptr(a), ptr(b), ptr(c)
	if k == 0 { // c = beta * c
		switch {
		case beta == 0:
			d.must(op, d.dev.Memset8(pc, 0, m*n*c.dtype.Size()))
		case beta == 1:
		case t == kernels.DTypeFloat32:
			d.must(op, kernels.ScaleF32(d.s, pc, beta, pc, m*n))
		default:
			panicf(ErrNotImplemented, op, "no CUDA kernel scales %s on %s", c.dtype, d.name)
		}
		return
	}
	bl := d.blasHandle(op)
	f32 := kernels.DTypeFloat32
	switch {
	case t != f32:
		d.must(op, bl.MatMul(d.s, tA, tB, m, n, k, alpha, pa, pb, t, beta, pc, t, kernels.Compute32F))
	case len(ws) == 2: // "medium": operands rounded to bfloat16
		bf := kernels.DTypeBFloat16
		sa, sb := ptr(ws[0]), ptr(ws[1])
		d.must(op, kernels.Cast(d.s, pa, f32, sa, bf, a.n))
		d.must(op, kernels.Cast(d.s, pb, f32, sb, bf, b.n))
		d.must(op, bl.MatMul(d.s, tA, tB, m, n, k, alpha, sa, sb, bf, beta, pc, f32, kernels.Compute32F))
	case matmulPrecision.Load() == 1:
		d.must(op, bl.MatMul(d.s, tA, tB, m, n, k, alpha, pa, pb, f32, beta, pc, f32, kernels.Compute32FFastTF32))
	default:
		d.must(op, bl.MatMul(d.s, tA, tB, m, n, k, alpha, pa, pb, f32, beta, pc, f32, kernels.Compute32F))
	}
}

// AddMM copies c broadcast into out (a device copy, or
// kernels.BroadcastBinary copying its first operand), runs one cuBLAS GEMM
// per pair with beta 1 and applies kernels.ReLUForward in place. Float32.
func (d *cudaDevice) AddMM(out, c *Tensor, pairs []*Tensor, relu bool, ws []*Tensor) {
	op := "AddMM"
	if relu {
		op = "AddMMReLU"
	}
	for _, t := range append([]*Tensor{out, c}, pairs...) {
		if t.dtype != Float32 {
			panicf(ErrNotImplemented, op, "no CUDA kernel for %s on %s", t.dtype, d.name)
		}
	}
	if out.n == 0 {
		return
	}
	if c.n == out.n { // c has out's shape (up to leading ones)
		d.must(op, d.dev.CopyDtoD(ptr(out), ptr(c), out.n*4))
	} else {
		od := padTo4(out.shape, 1)
		sc := padTo4(bstrides(c.shape, out.shape), 0)
		pc := ptr(c)
		d.must(op, kernels.BroadcastBinary(d.s, kernels.BinaryCopyA, kernels.DTypeFloat32, pc, pc, ptr(out), out.n, od, sc, kernels.Shape4{}))
	}
	for i := 0; i < len(pairs); i += 2 {
		d.Gemm(false, false, 1, pairs[i], pairs[i+1], 1, out, ws)
	}
	if relu {
		d.must(op, kernels.ReLUForward(d.s, ptr(out), ptr(out), out.n))
	}
}

// AddMMReLUBackward is kernels.ReLUBackward with the output as the
// forward value (y > 0 exactly where the ReLU's input was). Float32.
func (d *cudaDevice) AddMMReLUBackward(gx, g, y *Tensor) {
	const op = "AddMMReLU"
	if g.dtype != Float32 || y.dtype != Float32 {
		panicf(ErrNotImplemented, op, "no CUDA kernel for %s on %s", g.dtype, d.name)
	}
	d.must(op, kernels.ReLUBackward(d.s, ptr(y), ptr(g), ptr(gx), g.n))
}
