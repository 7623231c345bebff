package tensor

// The backward rules: how each op's output gradient flows to its inputs,
// one function per op, written with tensor ops (public ones, or unexported
// ops that dispatch through the Backend like the public ones), so that a
// rule runs on whatever device and in whatever dtype its tensors have.
// Ops record them with record(out, op, inputs, rule); Backward runs them
// with autograd and autocast off. The table follows the op files.
// (Model: tinygrad's gradient.py.)

// ---------------------------------------------------------------------
// elementwise.go, cast.go
// ---------------------------------------------------------------------

// Add: da = sumTo(g), db = sumTo(g), each summed over the dimensions its
// operand was broadcast along (both are computed, as they always were).
func gradAdd(g, a, b *Tensor) []*Tensor {
	return []*Tensor{sumTo(g, a.shape), sumTo(g, b.shape)}
}

// Sub: da = sumTo(g), db = sumTo(-g).
func gradSub(g, a, b *Tensor) []*Tensor {
	var gb *Tensor
	if b.requiresGrad {
		gb = sumTo(MulScalar(g, -1), b.shape)
	}
	return []*Tensor{sumTo(g, a.shape), gb}
}

// Mul: da = sumTo(g * b), db = sumTo(g * a).
func gradMul(g, a, b *Tensor) []*Tensor {
	var ga, gb *Tensor
	if a.requiresGrad {
		ga = sumTo(Mul(g, b), a.shape)
	}
	if b.requiresGrad {
		gb = sumTo(Mul(g, a), b.shape)
	}
	return []*Tensor{ga, gb}
}

// Div (out = a / b): da = sumTo(g / b), db = sumTo(g * -(out / b)), since
// d(a/b)/db = -a/b^2 = -out/b.
func gradDiv(g, a, b, out *Tensor) []*Tensor {
	var ga, gb *Tensor
	if a.requiresGrad {
		ga = sumTo(Div(g, b), a.shape)
	}
	if b.requiresGrad {
		gb = sumTo(Mul(g, negDiv(out, b)), b.shape)
	}
	return []*Tensor{ga, gb}
}

// MulScalar (s * x): dx = s * g. AddScalar passes g through; Neg is
// MulScalar(x, -1).
func gradMulScalar(g *Tensor, s float32) []*Tensor {
	return []*Tensor{MulScalar(g, s)}
}

// ReLU, LeakyReLU, ELU, Sigmoid, Tanh, Exp, Log, Sqrt, Pow (y = f(x)):
// dx = g * f'(x, y), the derivative of UnaryOp op (elementwise.go lists
// them) in one backward kernel (UnaryBackward).
func gradUnary(op UnaryOp, g, x, y *Tensor, p float32) []*Tensor {
	return []*Tensor{unaryGrad(op, g, x, y, p)}
}

// Cast (float to float): the gradient is cast back to the source dtype.
func gradCast(g *Tensor, src DType) []*Tensor {
	return []*Tensor{castRaw(g, src)}
}

// (end of elementwise rules)
//
//
//

// ---------------------------------------------------------------------
// matmul.go
// ---------------------------------------------------------------------

// (end of matmul rules)
//
//
//

// ---------------------------------------------------------------------
// sparse.go
// ---------------------------------------------------------------------

// (end of sparse rules)
//
//
//

// ---------------------------------------------------------------------
// index.go
// ---------------------------------------------------------------------

// (end of index rules)
//
//
//

// ---------------------------------------------------------------------
// reduce.go, softmax.go
// ---------------------------------------------------------------------

// (end of reduce rules)
//
//
//

// ---------------------------------------------------------------------
// random.go, step.go
// ---------------------------------------------------------------------

// (end of random rules)
