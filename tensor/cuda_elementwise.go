package tensor

import (
	"math"

	"github.com/gnnrepl/gnnrepl/kernels"
)

// The CUDA backend's elementwise kernels (ElementwiseKernels,
// elementwise.go): the kernels package's float32 launchers (AddF32,
// AddBiasF32, ScaleF32, ReLUForward, ..., Cast for float32 <-> float16 and
// bfloat16) and kernels' dense kernels (dense.cu), which also take float16
// and bfloat16 storage for the binary ops and the unary math and its
// backward; the 16-bit activations (ReLU, LeakyReLU, ELU) have no kernel
// yet and panic with ErrNotImplemented. Kernels queue on the device's
// stream and read no device memory back. (The 16-bit paths have not run
// on a GPU yet: tensor/backendtest checks them through gpu-check.sh.)

// need32 panics with ErrNotImplemented naming op unless every tensor is
// float32 (the only dtype of the elementwise GPU kernels).
func (d *cudaDevice) need32(op string, ts ...*Tensor) {
	for _, t := range ts {
		if t.dtype != Float32 {
			panicf(ErrNotImplemented, op, "no CUDA kernel for %s on %s", t.dtype, d.name)
		}
	}
}

// sameLow reports whether every t has one 16-bit float dtype, and its
// kernels dtype: the elementwise kernels of dense.cu take float16 and
// bfloat16 storage (computing in float32, rounding once).
func sameLow(ts ...*Tensor) (kernels.DType, bool) {
	dt := ts[0].dtype
	if !isLow(dt) {
		return 0, false
	}
	for _, t := range ts[1:] {
		if t.dtype != dt {
			return 0, false
		}
	}
	k, _ := kernelDType(dt)
	return k, true
}

// hasDenseUnary reports whether dense.cu's unary kernels compute op (the
// activations have float32 kernels only).
func hasDenseUnary(op UnaryOp) bool {
	switch op {
	case UnaryReLU, UnaryLeakyReLU, UnaryELU:
		return false
	}
	return true
}

// binaryCode is op's code in kernels.BinaryElementwise / kernels.BroadcastBinary.
func binaryCode(op BinaryOp) kernels.BinaryOp {
	return [...]kernels.BinaryOp{BinaryAdd: kernels.BinaryAdd, BinarySub: kernels.BinarySub, BinaryMul: kernels.BinaryMul, BinaryDiv: kernels.BinaryDiv}[op]
}

// Binary sets out = a op b with broadcasting (float32): same shapes through
// the kernels package (Add, Sub, Mul) or kernels.BinaryElementwise (Div), a bias row
// through AddBiasF32, other broadcasts of up to four dimensions through
// kernels.BroadcastBinary.
func (d *cudaDevice) Binary(op BinaryOp, out, a, b *Tensor) {
	name := op.String()
	if kd, ok := sameLow(out, a, b); ok { // float16 / bfloat16: dense.cu's kernels
		if out.n == 0 {
			return
		}
		pa, pb, py := devPtr(name, a), devPtr(name, b), ptr(out)
		if sameShape(a.shape, b.shape) {
			d.must(name, kernels.BinaryElementwise(d.s, binaryCode(op), kd, pa, pb, py, out.n))
			return
		}
		if len(out.shape) > 4 {
			notOnDevice(name+" (broadcast over more than 4 dimensions)", d.name)
		}
		d.must(name, kernels.BroadcastBinary(d.s, binaryCode(op), kd, pa, pb, py, out.n,
			padTo4(out.shape, 1), padTo4(bstrides(a.shape, out.shape), 0), padTo4(bstrides(b.shape, out.shape), 0)))
		return
	}
	d.need32(name, out, a, b)
	shape := out.shape
	n := out.n
	if n == 0 {
		return
	}
	pa, pb, py := devPtr(name, a), devPtr(name, b), ptr(out)
	code := binaryCode(op)
	switch {
	case sameShape(a.shape, b.shape):
		switch op {
		case BinaryAdd:
			d.must(name, kernels.AddF32(d.s, pa, pb, py, n))
		case BinarySub:
			d.must(name, kernels.SubF32(d.s, pa, pb, py, n))
		case BinaryMul:
			d.must(name, kernels.MulF32(d.s, pa, pb, py, n))
		default:
			d.must(name, kernels.BinaryElementwise(d.s, code, kernels.DTypeFloat32, pa, pb, py, n))
		}
	case op == BinaryAdd && isBiasRow(a, b, shape):
		f := b.shape[0]
		d.must(name, kernels.AddBiasF32(d.s, pa, pb, py, n/f, f))
	default:
		if len(shape) > 4 {
			notOnDevice(name+" (broadcast over more than 4 dimensions)", d.name)
		}
		od := padTo4(shape, 1)
		sa, sb := padTo4(bstrides(a.shape, shape), 0), padTo4(bstrides(b.shape, shape), 0)
		d.must(name, kernels.BroadcastBinary(d.s, code, kernels.DTypeFloat32, pa, pb, py, n, od, sa, sb))
	}
}

// unaryCode is op's code in kernels.Unary / kernels.UnaryBackward.
func unaryCode(op UnaryOp) kernels.UnaryOp {
	switch op {
	case UnaryExp:
		return kernels.UnaryExp
	case UnaryLog:
		return kernels.UnaryLog
	case UnarySqrt:
		return kernels.UnarySqrt
	case UnarySigmoid:
		return kernels.UnarySigmoid
	case UnaryTanh:
		return kernels.UnaryTanh
	case UnaryPow:
		return kernels.UnaryPow
	case UnaryAddScalar:
		return kernels.UnaryAddScalar
	case UnaryScale:
		return kernels.UnaryScale
	}
	panicf(ErrNotImplemented, op.String(), "no dense unary kernel for %s", op)
	return 0
}

// Unary sets out = f(x) (float32): MulScalar through ScaleF32, the
// activations through the kernels package, the rest through kernels.Unary.
func (d *cudaDevice) Unary(op UnaryOp, out, x *Tensor, p float32) {
	name := op.String()
	if kd, ok := sameLow(out, x); ok && hasDenseUnary(op) { // float16 / bfloat16
		d.must(name, kernels.Unary(d.s, unaryCode(op), kd, devPtr(name, x), ptr(out), x.n, p))
		return
	}
	d.need32(name, out, x)
	n := x.n
	px, py := devPtr(name, x), ptr(out)
	switch op {
	case UnaryScale:
		d.must(name, kernels.ScaleF32(d.s, px, p, py, n))
	case UnaryReLU:
		d.must(name, kernels.ReLUForward(d.s, px, py, n))
	case UnaryLeakyReLU:
		d.must(name, kernels.LeakyReLUForward(d.s, px, py, p, n))
	case UnaryELU:
		d.must(name, kernels.ELUForward(d.s, px, py, p, n))
	default:
		d.must(name, kernels.Unary(d.s, unaryCode(op), kernels.DTypeFloat32, px, py, n, p))
	}
}

// UnaryBackward sets gx = g * f'(x, y) (float32): the activations through
// the kernels package's backward kernels, the rest through
// kernels.UnaryBackward.
func (d *cudaDevice) UnaryBackward(op UnaryOp, gx, g, x, y *Tensor, p float32) {
	name := op.String()
	if kd, ok := sameLow(gx, g, x, y); ok && hasDenseUnary(op) { // float16 / bfloat16
		d.must(name, kernels.UnaryBackward(d.s, unaryCode(op), kd, devPtr(name, x), devPtr(name, y), devPtr(name, g), ptr(gx), x.n, p))
		return
	}
	d.need32(name, gx, g, x, y)
	n := x.n
	px, py, pg, pgx := devPtr(name, x), devPtr(name, y), devPtr(name, g), ptr(gx)
	switch op {
	case UnaryScale:
		d.must(name, kernels.ScaleF32(d.s, pg, p, pgx, n))
	case UnaryAddScalar:
		if n > 0 {
			d.must(name, d.dev.CopyDtoD(pgx, pg, n*4))
		}
	case UnaryReLU:
		d.must(name, kernels.ReLUBackward(d.s, px, pg, pgx, n))
	case UnaryLeakyReLU:
		d.must(name, kernels.LeakyReLUBackward(d.s, px, pg, pgx, p, n))
	case UnaryELU:
		d.must(name, kernels.ELUBackward(d.s, px, pg, pgx, p, n))
	default:
		d.must(name, kernels.UnaryBackward(d.s, unaryCode(op), kernels.DTypeFloat32, px, py, pg, pgx, n, p))
	}
}

// SumTo reduces g to out's shape (float32; out is zero on entry): a full
// reduction through SumF32, a bias gradient through SumDim0F32, other
// broadcasts of up to four dimensions through kernels.SumTo.
func (d *cudaDevice) SumTo(out, g *Tensor) {
	const op = "sumTo"
	d.need32(op, out, g)
	shape := out.shape
	switch {
	case out.n == 0 || g.n == 0: // out holds the zeros
	case out.n == 1:
		d.must(op, kernels.SumF32(d.s, devPtr(op, g), g.n, ptr(out), 1))
	case isBiasGrad(g.shape, shape):
		d.must(op, kernels.SumDim0F32(d.s, devPtr(op, g), ptr(out), g.shape[0], g.shape[1], 1))
	default:
		if len(g.shape) > 4 {
			notOnDevice(op+" (broadcast gradient over more than 4 dimensions)", d.name)
		}
		// Align shape to g's rank, then pad both to four dimensions.
		al := make([]int, len(g.shape))
		for i := range al {
			al[i] = 1
			if j := len(shape) - len(g.shape) + i; j >= 0 {
				al[i] = shape[j]
			}
		}
		gp, op4 := padTo4(g.shape, 1), padTo4(al, 1)
		d.must(op, kernels.SumTo(d.s, kernels.DTypeFloat32, devPtr(op, g), ptr(out), out.n, gp, op4))
	}
}

// sumToDev reduces a broadcast float32 gradient g on a GPU to shape (sumTo
// with the errors naming op), for cuda_reduce.go.
func sumToDev(op string, g *Tensor, shape []int) *Tensor {
	if sameShape(g.shape, shape) {
		return g
	}
	d := cudaOf(op, g)
	out := emptyOn(op, d, Float32, true, shape...)
	d.SumTo(out, g)
	return out
}

// expandDev broadcasts x to shape (a copy).
func expandDev(op string, x *Tensor, shape []int) *Tensor {
	broadcastShapes(op, x.shape, shape)
	d := cudaOf(op, x)
	out := d.empty(op, Float32, shape)
	if out.n == 0 {
		return out
	}
	if len(shape) > 4 {
		notOnDevice(op+" (broadcast over more than 4 dimensions)", d.name)
	}
	od := padTo4(shape, 1)
	sa := padTo4(bstrides(x.shape, shape), 0)
	px := ptr(x)
	d.must(op, kernels.BroadcastBinary(d.s, kernels.BinaryCopyA, kernels.DTypeFloat32, px, px, ptr(out), out.n, od, sa, kernels.Shape4{}))
	return out
}

// Accumulate does dst += src (float32) with AxpyF32.
func (d *cudaDevice) Accumulate(dst, src *Tensor) {
	const op = "Backward"
	d.need32(op, dst, src)
	d.must(op, kernels.AxpyF32(d.s, devPtr(op, src), 1, devPtr(op, dst), dst.n))
}

// kernelDType is dt as the kernels package names it (ok false for dtypes
// it has no float kernels for).
func kernelDType(dt DType) (kernels.DType, bool) {
	switch dt {
	case Float32:
		return kernels.DTypeFloat32, true
	case Float16:
		return kernels.DTypeFloat16, true
	case BFloat16:
		return kernels.DTypeBFloat16, true
	}
	return 0, false
}

// Cast converts x into out with kernels.Cast: float32 to and from float16
// and bfloat16.
func (d *cudaDevice) Cast(out, x *Tensor) {
	const op = "Cast"
	from, ok1 := kernelDType(x.dtype)
	to, ok2 := kernelDType(out.dtype)
	if !ok1 || !ok2 || (from != kernels.DTypeFloat32) == (to != kernels.DTypeFloat32) {
		panicf(ErrNotImplemented, op, "no CUDA kernel casts %s to %s on %s; cast on the CPU (To(\"cpu\")) first", x.dtype, out.dtype, d.name)
	}
	d.must(op, kernels.Cast(d.s, devPtr(op, x), from, ptr(out), to, x.n))
}

// Fill sets every element of out to v: FillF32 for float32, a byte memset
// for 1-byte dtypes, an upload of the converted values for the others
// (converted as setElem converts).
func (d *cudaDevice) Fill(out *Tensor, v float64) {
	const op = "Fill"
	n := out.n
	if n == 0 {
		return
	}
	p := devPtr(op, out)
	switch out.dtype {
	case Float32:
		d.must(op, kernels.FillF32(d.s, p, float32(v), n))
	case Float16, BFloat16:
		h := make([]uint16, n)
		for i, b := 0, lowRound(out.dtype, float32(v)); i < n; i++ {
			h[i] = b
		}
		d.must(op, d.dev.UploadUint16(p, h))
	case Int64:
		var b int64
		switch {
		case v != v:
		case v >= math.MaxInt64:
			b = math.MaxInt64
		case v <= math.MinInt64:
			b = math.MinInt64
		default:
			b = int64(v)
		}
		h := make([]int64, n)
		for i := range h {
			h[i] = b
		}
		d.must(op, d.dev.UploadInt64(p, h))
	case Int8:
		d.must(op, d.dev.Memset8(p, byte(f32ToInt8(v)), n))
	default: // Bool
		d.must(op, d.dev.Memset8(p, byte(b2u32(v != 0)), n))
	}
}
