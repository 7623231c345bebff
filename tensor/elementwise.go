package tensor

// Elementwise ops: binary arithmetic with broadcasting and dtype
// promotion, scalar arithmetic, activations and the elementwise math
// functions. Each op is written once for every device and dtype: it checks
// its arguments, allocates its output on its inputs' device and calls the
// backend's ElementwiseKernels; its gradient (grad_rules.go) is written
// with the same ops.
//
// Kernels: cpu_elementwise.go (the float32 loops and the one float16 /
// bfloat16 path through block load/store), cuda_elementwise.go (the kernels
// package's float32 kernels, dense.cu's included), meta.go (nothing).

// BinaryOp names the arithmetic of ElementwiseKernels.Binary.
type BinaryOp int

const (
	BinaryAdd BinaryOp = iota // a + b
	BinarySub                 // a - b
	BinaryMul                 // a * b
	BinaryDiv                 // a / b
)

var binaryNames = [...]string{BinaryAdd: "Add", BinarySub: "Sub", BinaryMul: "Mul", BinaryDiv: "Div"}

// String returns the name of the op that computes op ("Add", "Sub", "Mul",
// "Div").
func (op BinaryOp) String() string {
	if op < 0 || int(op) >= len(binaryNames) {
		return "BinaryOp(?)"
	}
	return binaryNames[op]
}

// UnaryOp names the function f of ElementwiseKernels.Unary and
// UnaryBackward; p is its parameter where it has one.
type UnaryOp int

const (
	UnaryScale     UnaryOp = iota // p * x (MulScalar); f' = p
	UnaryAddScalar                // x + p; f' = 1
	UnaryReLU                     // max(x, 0); f' = 1 for x > 0, else 0
	UnaryLeakyReLU                // x for x > 0, else p * x; f' = 1 or p
	UnaryELU                      // x for x > 0, else p * (exp(x) - 1); f' = 1 or y + p
	UnarySigmoid                  // 1 / (1 + exp(-x)); f' = y * (1 - y)
	UnaryTanh                     // tanh(x); f' = 1 - y*y
	UnaryExp                      // exp(x); f' = y
	UnaryLog                      // log(x); f' = 1 / x
	UnarySqrt                     // sqrt(x); f' = 0.5 / y
	UnaryPow                      // x ** p; f' = p * x ** (p - 1)
)

var unaryNames = [...]string{UnaryScale: "MulScalar", UnaryAddScalar: "AddScalar", UnaryReLU: "ReLU",
	UnaryLeakyReLU: "LeakyReLU", UnaryELU: "ELU", UnarySigmoid: "Sigmoid", UnaryTanh: "Tanh",
	UnaryExp: "Exp", UnaryLog: "Log", UnarySqrt: "Sqrt", UnaryPow: "Pow"}

// String returns the name of the op that computes op ("MulScalar", "ReLU",
// "Exp", ...).
func (op UnaryOp) String() string {
	if op < 0 || int(op) >= len(unaryNames) {
		return "UnaryOp(?)"
	}
	return unaryNames[op]
}

// ElementwiseKernels are the primitive kernels of the elementwise ops, the
// gradient accumulation of Backward, casts and fills. Every Backend
// implements them (cpu_elementwise.go, cuda_elementwise.go, meta.go). As
// for every primitive, the tensors are on the backend's device, contiguous
// (a shape, a dtype and an element offset into their storage), validated by
// the calling op, and outputs were allocated by it. The float ops compute
// in float32 and round once into a float16 or bfloat16 output (round to
// nearest, ties to even).
type ElementwiseKernels interface {
	// Binary sets out = a op b with NumPy broadcasting: out has the
	// broadcast shape of a and b and the dtype PromoteTypes(a, b); a and
	// b have any float dtypes. (The ops give a 16-bit operand with a
	// general broadcast, one that is not the same shape, a one-element
	// tensor or a bias row of at most 2048 elements, as float32 copies.)
	// The CUDA backend computes float32 only.
	Binary(op BinaryOp, out, a, b *Tensor)
	// Unary sets out = f(x, p) elementwise (see UnaryOp); out has x's
	// shape and, from the ops, x's float dtype. out may be x.
	Unary(op UnaryOp, out, x *Tensor, p float32)
	// UnaryBackward sets gx = g * f'(x) elementwise, where y = f(x, p) is
	// the forward's output (PyTorch's threshold_backward, elu_backward, ...):
	// g, x, y and gx have one shape; gx has x's dtype. The float32 ReLU
	// keeps g where y > 0 and writes +0 elsewhere.
	UnaryBackward(op UnaryOp, gx, g, x, y *Tensor, p float32)
	// SumTo sets out to g summed over the dimensions along which out's
	// shape broadcasts to g's (the gradient of a broadcast operand): out
	// and g have one float dtype, and out holds zeros on entry (the op
	// allocates it cleared), so a kernel may accumulate into it.
	SumTo(out, g *Tensor)
	// Accumulate does dst += src for tensors of one shape and float dtypes
	// (a 16-bit dst is widened, added to in float32 and rounded once):
	// the gradient accumulation of Backward.
	Accumulate(dst, src *Tensor)
	// Cast converts x into out, of x's shape and another dtype, as
	// Tensor.Cast does. The CUDA backend converts float32 <-> float16 and
	// float32 <-> bfloat16 only.
	Cast(out, x *Tensor)
	// Fill sets every element of out to v, converted to out's dtype as
	// Cast converts.
	Fill(out *Tensor, v float64)
}

// checkFloat panics with ErrDType unless every tensor is float32.
func checkFloat(op string, ts ...*Tensor) {
	for _, t := range ts {
		if t.dtype != Float32 {
			panicf(ErrDType, op, "needs float32 tensors, got %s of shape %v", t.dtype, t.shape)
		}
	}
}

// binary returns a op b with broadcasting, without autograd: float tensors
// on one device, the result in their promoted dtype. A 16-bit operand with
// a general broadcast goes through whole float32 copies (counted).
func binary(name string, op BinaryOp, a, b *Tensor) *Tensor {
	notNil(name, "a", a, "b", b)
	be := backendOf(name, a, b)
	checkFloats(name, a, b)
	pd := PromoteTypes(a.dtype, b.dtype)
	shape := broadcastShapes(name, a.shape, b.shape)
	if (a.dtype != Float32 || b.dtype != Float32) && !lowBinaryDirect(a, b, shape) {
		r := binary(name, op, castRaw(a, Float32), castRaw(b, Float32))
		return castRaw(r, pd)
	}
	out := emptyOn(name, be, pd, false, shape...) // every element is written
	be.Binary(op, out, a, b)
	return out
}

// lowBinaryDirect reports whether a binary kernel reads 16-bit operands a
// and b (broadcast to shape) directly, by blocks: one shape, a one-element
// operand against a full one, or a bias row of at most lowBlock elements.
func lowBinaryDirect(a, b *Tensor, shape []int) bool {
	return sameShape(a.shape, b.shape) ||
		b.n == 1 && sameShape(a.shape, shape) ||
		a.n == 1 && sameShape(b.shape, shape) ||
		isBiasRow(a, b, shape) && b.n <= lowBlock
}

// isBiasRow reports whether b is a row (F) broadcast against a (..., F).
func isBiasRow(a, b *Tensor, shape []int) bool {
	return sameShape(a.shape, shape) && len(b.shape) == 1 && len(shape) >= 1 && b.shape[0] == shape[len(shape)-1]
}

// Add returns a + b with NumPy broadcasting. Float tensors of any float
// dtype: the result has the promoted dtype (PromoteTypes: bfloat16 +
// float32 -> float32, as PyTorch), computed in float32. Panics with
// ErrShape when the shapes do not broadcast, with ErrDType for integer or
// bool operands and with ErrDevice for tensors on two devices. Sub, Mul and
// Div follow the same rules. Devices: cpu, meta, cuda (float32).
// Kernels: cpu_elementwise.go (Binary), cuda_elementwise.go.
func Add(a, b *Tensor) *Tensor {
	defer hookOp("Add")()
	out := binary("Add", BinaryAdd, a, b)
	return record(out, "Add", []*Tensor{a, b}, func(g *Tensor) []*Tensor { return gradAdd(g, a, b) })
}

// Sub returns a - b with broadcasting; see Add.
func Sub(a, b *Tensor) *Tensor {
	defer hookOp("Sub")()
	out := binary("Sub", BinarySub, a, b)
	return record(out, "Sub", []*Tensor{a, b}, func(g *Tensor) []*Tensor { return gradSub(g, a, b) })
}

// Mul returns the elementwise product a * b with broadcasting; see Add.
func Mul(a, b *Tensor) *Tensor {
	defer hookOp("Mul")()
	out := binary("Mul", BinaryMul, a, b)
	return record(out, "Mul", []*Tensor{a, b}, func(g *Tensor) []*Tensor { return gradMul(g, a, b) })
}

// Div returns the elementwise quotient a / b with broadcasting; see Add.
func Div(a, b *Tensor) *Tensor {
	defer hookOp("Div")()
	out := binary("Div", BinaryDiv, a, b)
	return record(out, "Div", []*Tensor{a, b}, func(g *Tensor) []*Tensor { return gradDiv(g, a, b, out) })
}

// negDiv returns -(a / b) with broadcasting, without autograd (Div's
// gradient for b): the quotient negated in place, which rounds as -a/b.
func negDiv(a, b *Tensor) *Tensor {
	t := binary("Div", BinaryDiv, a, b)
	t.st.be.Unary(UnaryScale, t, t, -1)
	return t
}

// unary returns f(x) elementwise (UnaryOp op with parameter p), without
// autograd: a float x, the result in x's dtype and on x's device.
func unary(name string, op UnaryOp, x *Tensor, p float32) *Tensor {
	be := backendOf(name, x)
	checkFloats(name, x)
	out := emptyOn(name, be, x.dtype, false, x.shape...) // every element is written
	be.Unary(op, out, x, p)
	return out
}

// unaryGrad returns g * f'(x) for the elementwise op with input x and
// output y (UnaryBackward), in x's dtype, without autograd.
func unaryGrad(op UnaryOp, g, x, y *Tensor, p float32) *Tensor {
	be := backendOf(op.String(), g, x, y)
	gx := emptyOn(op.String(), be, x.dtype, false, g.shape...) // every element is written
	be.UnaryBackward(op, gx, g, x, y, p)
	return gx
}

// reluBackward returns g where the ReLU output y is positive and 0
// elsewhere (y's dtype), for ops that fuse a ReLU (AddMM's relu).
func reluBackward(g, y *Tensor) *Tensor { return unaryGrad(UnaryReLU, g, y, y, 0) }

// elementwise is the differentiable elementwise op name: y = f(x) with the
// gradient g * f'(x, y) (gradUnary).
func elementwise(name string, op UnaryOp, x *Tensor, p float32) *Tensor {
	out := unary(name, op, x, p)
	return record(out, name, []*Tensor{x}, func(g *Tensor) []*Tensor { return gradUnary(op, g, x, out, p) })
}

// fullOn returns a tensor of dt and shape on be with every element v
// (torch.full(..., device=...)), without autograd.
func fullOn(op string, be Backend, dt DType, v float64, shape ...int) *Tensor {
	out := emptyOn(op, be, dt, false, shape...)
	be.Fill(out, v)
	return out
}

// MulScalar returns s * x, in x's float dtype, on x's device. It panics
// with ErrDType for an integer or bool x. Kernels: cpu_elementwise.go
// (Unary), cuda_elementwise.go (kernels.ScaleF32).
func MulScalar(x *Tensor, s float32) *Tensor {
	defer hookOp("MulScalar")()
	out := unary("MulScalar", UnaryScale, x, s)
	return record(out, "MulScalar", []*Tensor{x}, func(g *Tensor) []*Tensor { return gradMulScalar(g, s) })
}

// AddScalar returns x + s; see MulScalar.
func AddScalar(x *Tensor, s float32) *Tensor {
	defer hookOp("AddScalar")()
	out := unary("AddScalar", UnaryAddScalar, x, s)
	return record(out, "AddScalar", []*Tensor{x}, func(g *Tensor) []*Tensor { return []*Tensor{g} })
}

// Neg returns -x; see MulScalar.
func Neg(x *Tensor) *Tensor {
	defer hookOp("Neg")()
	return MulScalar(x, -1)
}

// ReLU returns max(x, 0) elementwise (NaN stays NaN, as in torch): any
// float dtype, the result in x's dtype on x's device; ErrDType for an
// integer or bool x. The activations and math functions below follow the
// same rules. Kernels: cpu_elementwise.go (Unary, UnaryBackward; the
// float32 ReLU has branch-free loops), cuda_elementwise.go
// (kernels.ReLUForward/ReLUBackward, kernels.Unary).
func ReLU(x *Tensor) *Tensor {
	defer hookOp("ReLU")()
	return elementwise("ReLU", UnaryReLU, x, 0)
}

// LeakyReLU returns x for x > 0 and slope*x otherwise (PyTorch's default
// slope is 0.01; GAT uses 0.2); see ReLU.
func LeakyReLU(x *Tensor, slope float32) *Tensor {
	defer hookOp("LeakyReLU")()
	return elementwise("LeakyReLU", UnaryLeakyReLU, x, slope)
}

// ELU returns x for x > 0 and alpha*(exp(x)-1) otherwise (Clevert et al.
// 2016; GAT's hidden activation with alpha 1); see ReLU.
func ELU(x *Tensor, alpha float32) *Tensor {
	defer hookOp("ELU")()
	return elementwise("ELU", UnaryELU, x, alpha)
}

// Sigmoid returns 1/(1+exp(-x)) elementwise; see ReLU.
func Sigmoid(x *Tensor) *Tensor {
	defer hookOp("Sigmoid")()
	return elementwise("Sigmoid", UnarySigmoid, x, 0)
}

// Tanh returns tanh(x) elementwise; see ReLU.
func Tanh(x *Tensor) *Tensor {
	defer hookOp("Tanh")()
	return elementwise("Tanh", UnaryTanh, x, 0)
}

// Exp returns exp(x) elementwise; see ReLU. It is on autocast's float32
// list: under autocast a float16 or bfloat16 x is computed (and returned)
// in float32.
func Exp(x *Tensor) *Tensor {
	defer hookOp("Exp")()
	x = autocastFloat32("Exp", x)
	return elementwise("Exp", UnaryExp, x, 0)
}

// Log returns the natural logarithm of x elementwise; see Exp.
func Log(x *Tensor) *Tensor {
	defer hookOp("Log")()
	x = autocastFloat32("Log", x)
	return elementwise("Log", UnaryLog, x, 0)
}

// Sqrt returns the square root of x elementwise; see ReLU.
func Sqrt(x *Tensor) *Tensor {
	defer hookOp("Sqrt")()
	return elementwise("Sqrt", UnarySqrt, x, 0)
}

// Pow returns x**p elementwise; see Exp.
func Pow(x *Tensor, p float32) *Tensor {
	defer hookOp("Pow")()
	x = autocastFloat32("Pow", x)
	return elementwise("Pow", UnaryPow, x, p)
}
