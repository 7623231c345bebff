package tensor

import (
	"fmt"
)

// Dense products: MatMul, AddMM and AddMMReLU, written once for every
// device and float dtype over the MatMulKernels of the tensors' backend.
// Their gradients (grad_rules.go) are products with a transposed operand,
// computed by matmulT without a transposed copy.

// MatMulKernels are the primitive kernels of the dense products. Every
// Backend implements them: cpu_matmul.go (the BLAS, SetBLAS, and float32
// row blocks for float16 / bfloat16), cuda_matmul.go (cuBLAS), meta.go.
// Tensors are contiguous, on the backend's device, and have the shapes
// and dtypes the calling op checked; outputs and scratch are allocated by
// the op.
type MatMulKernels interface {
	// Gemm computes c = alpha * op(a) @ op(b) + beta * c, where op(x) is
	// x, or x^T when tA (tB) is set: op(a) (M, K), op(b) (K, N), c (M, N),
	// so a is stored (M, K) or (K, M) and b (K, N) or (N, K). a, b and c
	// have one float dtype; products accumulate in float32 and a float16 or
	// bfloat16 c is rounded once. With beta == 0, c's old values are not
	// read (it may be uninitialised). ws is the scratch GemmWorkspace
	// asked for, allocated by the caller.
	Gemm(tA, tB bool, alpha float32, a, b *Tensor, beta float32, c *Tensor, ws []*Tensor)
	// GemmWorkspace returns the scratch Gemm needs for these operands: the
	// dtype and the element counts of the 1-D tensors the caller allocates
	// (none when sizes is empty).
	GemmWorkspace(tA, tB bool, a, b, c *Tensor) (dt DType, sizes []int)
	// AddMM writes c + sum_i pairs[2i] @ pairs[2i+1] into out (M, N),
	// followed by max(., 0) when relu is set: c broadcasts to (M, N) ((M, N),
	// (N), (1, N), (M, 1), (1, 1), (1) or a scalar, any float dtype), each
	// pair is (M, K_i) @ (K_i, N) of out's dtype. Accumulation is in
	// float32, rounded once into a float16 or bfloat16 out. ws is the
	// scratch AddMMWorkspace asked for.
	AddMM(out, c *Tensor, pairs []*Tensor, relu bool, ws []*Tensor)
	// AddMMWorkspace returns the scratch AddMM needs, as GemmWorkspace.
	AddMMWorkspace(out, c *Tensor, pairs []*Tensor) (dt DType, sizes []int)
	// AddMMReLUBackward writes gx = g where y > 0, else 0, for AddMMReLU's
	// output y: the ReLU's gradient mask taken from the output. gx, g and
	// y have one shape and one float dtype.
	AddMMReLUBackward(gx, g, y *Tensor)
}

// MatMul returns the matrix product a @ b: (M, K) x (K, N) -> (M, N), on
// the device of a and b. It panics with ErrShape when the inner dimensions
// differ or an operand is not 2-D, with ErrDType for non-float operands,
// and with ErrDevice when a and b are on two devices.
//
// MatMul is on autocast's lower-precision list (torch's mm, matmul,
// linear): inside an autocast region its float operands are cast to the
// autocast dtype and the product is float16 or bfloat16, accumulated in
// float32. Outside autocast, two float16 or two bfloat16 operands give a
// result of their dtype the same way, and operands of different float
// dtypes are promoted (PromoteTypes). Gradients: a gets g @ b^T, b gets
// a^T @ g, in their dtype.
//
// Kernels: cpu_matmul.go (the BLAS named by BLASName; float16 / bfloat16
// rows widened to float32 in blocks, rounded once), cuda_matmul.go (cuBLAS,
// in the precision of SetFloat32MatmulPrecision).
func MatMul(a, b *Tensor) *Tensor {
	defer hookOp("MatMul")()
	notNil("MatMul", "a", a, "b", b)
	a, b = lowerPrecision2("MatMul", a, b)
	be := backendOf("MatMul", a, b)
	if a.dtype != Float32 || b.dtype != Float32 {
		checkFloats("MatMul", a, b)
	}
	checkMatMulShapes(a, b)
	out := gemmOn("MatMul", be, a, b, false, false)
	return record(out, "MatMul", []*Tensor{a, b}, func(g *Tensor) []*Tensor { return gradMatMul(g, a, b) })
}

// matmulT returns op(a) @ op(b) without autograd, where op transposes when
// tA (tB) is set: the products of MatMul's and AddMM's gradients (g @ b^T,
// a^T @ g) without a transposed copy. a and b have one float dtype, on one
// device.
func matmulT(a, b *Tensor, tA, tB bool) *Tensor {
	return gemmOn("MatMul", backendOf("MatMul", a, b), a, b, tA, tB)
}

// gemmOn allocates op(a) @ op(b), (M, N) of a's dtype, on be and computes
// it with be.Gemm (beta 0), with the scratch the backend asks for.
func gemmOn(op string, be Backend, a, b *Tensor, tA, tB bool) *Tensor {
	m := a.shape[0]
	if tA {
		m = a.shape[1]
	}
	n := b.shape[1]
	if tB {
		n = b.shape[0]
	}
	out := emptyOn(op, be, a.dtype, false, m, n) // beta = 0: every element is written
	wdt, sizes := be.GemmWorkspace(tA, tB, a, b, out)
	ws := scratchOn(op, be, wdt, sizes)
	be.Gemm(tA, tB, 1, a, b, 0, out, ws)
	freeScratch(ws)
	return out
}

// scratchOn allocates the scratch a primitive asked for: one 1-D tensor
// of dt per size, uninitialised.
func scratchOn(op string, be Backend, dt DType, sizes []int) []*Tensor {
	if len(sizes) == 0 {
		return nil
	}
	ws := make([]*Tensor, len(sizes))
	for i, n := range sizes {
		ws[i] = emptyOn(op, be, dt, false, n)
	}
	return ws
}

// freeScratch releases scratch tensors now where the device can (a GPU
// block returns to its cache, behind the queued kernels that use it); on
// the CPU they are garbage once the kernel returns.
func freeScratch(ws []*Tensor) {
	for _, t := range ws {
		releaseStorage(t.st)
	}
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
// torch.addmm's input), -> (M, N). more holds further (a, b) pairs, each
// (M, K_i) and (K_i, N), whose products are added too: c + a@b +
// more[0]@more[1] + ... (GraphSAGE's self and neighbour terms plus bias in
// one output).
//
// When the pairs have one dtype and c has it too, it copies c into the
// output and runs one accumulating GEMM per pair (on the CPU, cuBLAS with
// beta = 1 on a GPU), which saves the passes and the (M, N) temporaries of
// separate Adds; nn.Linear and nn.SAGEConv use it. AddMM is on autocast's
// lower-precision list (torch's addmm): inside a region the pairs are cast
// to the autocast dtype and the result has that dtype whatever c's float
// dtype (a float32 bias is added in float32); with float16 or bfloat16
// pairs and c of the same dtype outside autocast the result has it too.
// Low-precision products are accumulated in float32 per block of rows and
// rounded once. Other mixes of dtypes compute Add(c, MatMul(a, b)) + ...
// with those ops' dtype rules. Gradients: c gets g (summed to c's shape),
// each a gets g @ b^T, each b a^T @ g.
//
// Panics with ErrShape naming the argument when one is nil, a pair does not
// multiply, a pair's product is not (M, N), c does not broadcast to it or
// more has odd length, with ErrDType for a non-float operand and with
// ErrDevice for operands on two devices. Kernels: cpu_matmul.go,
// cuda_matmul.go (float32).
func AddMM(c, a, b *Tensor, more ...*Tensor) *Tensor {
	defer hookOp("AddMM")()
	return addMM("AddMM", false, c, a, b, more)
}

// AddMMReLU returns ReLU(AddMM(c, a, b, more...)) (torch's
// _addmm_activation, which fuses the bias, the products and the ReLU): in
// the fused case the ReLU is applied to the output in place and its
// gradient mask is taken from it, saving the (M, N) temporary and pass of
// a separate ReLU. Shapes, dtypes, devices and panics as AddMM.
func AddMMReLU(c, a, b *Tensor, more ...*Tensor) *Tensor {
	defer hookOp("AddMMReLU")()
	return addMM("AddMMReLU", true, c, a, b, more)
}

// addMMShapes checks AddMM's operands (none nil, every pair's product
// (M, N), c broadcastable to it) and returns M and N.
func addMMShapes(op string, c *Tensor, pairs []*Tensor) (m, n int) {
	name := func(i int) string { // the argument pairs[i] came in
		if i < 2 {
			return string(rune('a' + i))
		}
		return fmt.Sprintf("more[%d]", i-2)
	}
	if c == nil {
		panicf(ErrArgument, op, "c is nil")
	}
	for i, t := range pairs {
		if t == nil {
			panicf(ErrArgument, op, "%s is nil", name(i))
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
	return m, n
}

// addMM is AddMM, followed by ReLU when relu is set.
func addMM(op string, relu bool, c, a, b *Tensor, more []*Tensor) *Tensor {
	if len(more)%2 != 0 {
		panicf(ErrShape, op, "more must hold (a, b) pairs, got an odd number (%d) of tensors", len(more))
	}
	pairs := append([]*Tensor{a, b}, more...)
	checkFloats(op, append([]*Tensor{c}, pairs...)...)
	m, n := addMMShapes(op, c, pairs)
	if on, adt := AutocastState(); on {
		for i, t := range pairs {
			pairs[i] = autocastTo(op, t, adt)
		}
	}
	inputs := append([]*Tensor{c}, pairs...)
	be := backendOf(op, inputs...)
	dt, same := pairs[0].dtype, true
	for _, t := range pairs {
		same = same && t.dtype == dt
	}
	fused := same && (dt == Float32 && c.dtype == Float32 || isLow(dt) && (c.dtype == dt || autocastOn()))
	if !fused {
		out := c
		for i := 0; i < len(pairs); i += 2 {
			out = Add(out, MatMul(pairs[i], pairs[i+1]))
		}
		if relu {
			out = ReLU(out)
		}
		return out
	}
	out := emptyOn(op, be, dt, false, m, n) // c's rows are copied into every row
	wdt, sizes := be.AddMMWorkspace(out, c, pairs)
	ws := scratchOn(op, be, wdt, sizes)
	be.AddMM(out, c, pairs, relu, ws)
	freeScratch(ws)
	var y *Tensor // the output, whose sign is the ReLU's gradient mask
	if relu {
		y = out
	}
	return record(out, op, inputs, func(g *Tensor) []*Tensor { return gradAddMM(g, y, c, pairs) })
}

// addMMReLUBackward returns g where AddMMReLU's output y is positive and 0
// elsewhere, on their device, in g's dtype.
func addMMReLUBackward(g, y *Tensor) *Tensor {
	be := backendOf("AddMMReLU", g, y)
	gx := emptyOn("AddMMReLU", be, g.dtype, false, g.shape...) // every element is written
	be.AddMMReLUBackward(gx, g, y)
	return gx
}
