package tensor

import "fmt"

// CustomOp is an op with a hand-written gradient (torch.autograd.Function):
// Forward computes the output from the inputs, Backward the gradients of
// the inputs from the output's gradient. Either may be written in a
// session cell; Apply records the op in autograd, so Backward runs when a
// loss that depends on the output is back-propagated.
//
//	square := tensor.CustomOp{
//		Name:    "square",
//		Forward: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.Mul(in[0], in[0]) },
//		Backward: func(g *tensor.Tensor, in []*tensor.Tensor, out *tensor.Tensor) []*tensor.Tensor {
//			return []*tensor.Tensor{tensor.Mul(g, tensor.MulScalar(in[0], 2))}
//		},
//	}
//	y := square.Apply(x) // y = x², dy/dx = 2x
//
// Forward runs with autograd off (torch's forward of a Function), so the
// ops inside it record nothing; when the output records history it is a
// new tensor sharing the data of what Forward returned. Backward runs inside
// the backward pass (autograd off, no double backward) and receives grad
// (the output's shape and dtype), the inputs Apply was given (the
// tensors themselves, as ctx.saved_tensors) and the output (without its
// history). It returns one gradient per input, in order, each of its
// input's shape and on its device, or nil for an input that needs none (an
// index tensor, a constant); a gradient of another float dtype is cast to
// the input's.
type CustomOp struct {
	// Name names the op in autograd's history and in its errors ("" reads
	// "CustomOp").
	Name string
	// Forward computes the output of inputs. Required.
	Forward func(inputs []*Tensor) *Tensor
	// Backward computes the inputs' gradients. Without it the output
	// records no history: a gradient does not flow through the op.
	Backward func(grad *Tensor, inputs []*Tensor, output *Tensor) []*Tensor
}

// Apply runs Forward on inputs and, when an input requires grad and grad
// mode is on, records Backward as the output's grad_fn
// (Function.apply). Shapes, dtypes and devices are Forward's.
//
// It panics with an *Error of kind ErrArgument, naming the op, when
// Forward is nil, an input is nil or Forward returns nil. The backward
// pass panics with an *Error naming the op (as "tensor.<Name>.Backward")
// when Backward returns a number of gradients other than the number of
// inputs (ErrArgument), or a gradient that is not floating point
// (ErrDType), of another shape than its input (ErrShape) or on another
// device (ErrDevice). A panic inside Forward or Backward itself comes out
// of Apply or of the backward pass unchanged.
func (op CustomOp) Apply(inputs ...*Tensor) *Tensor {
	name := op.name()
	if op.Forward == nil {
		panicf(ErrArgument, name, "CustomOp %q has no Forward", name)
	}
	for i, in := range inputs {
		if in == nil {
			panicf(ErrArgument, name, "input %d of %d is nil", i, len(inputs))
		}
	}
	ins := append([]*Tensor(nil), inputs...)
	var out *Tensor
	NoGrad(func() { out = op.Forward(append([]*Tensor(nil), ins...)) })
	if out == nil {
		panicf(ErrArgument, name, "Forward returned nil")
	}
	if op.Backward == nil || !out.dtype.IsFloatingPoint() || !needsGrad(ins...) {
		return out // no history: nothing to differentiate, or nothing needs it
	}
	// The recorded output is a new tensor on Forward's data, so that a
	// tensor Forward returns as it is (an input, a parameter) keeps its own
	// place in autograd.
	saved := out.Detach()
	out = out.Detach()
	bw := op.Backward
	return record(out, name, ins, func(g *Tensor) []*Tensor {
		grads := bw(g, append([]*Tensor(nil), ins...), saved)
		checkCustomGrads(name, ins, grads)
		return grads
	})
}

func (op CustomOp) name() string {
	if op.Name == "" {
		return "CustomOp"
	}
	return op.Name
}

// checkCustomGrads validates what a CustomOp's Backward returned.
func checkCustomGrads(name string, ins, grads []*Tensor) {
	bop := name + ".Backward"
	if len(grads) != len(ins) {
		panicf(ErrArgument, bop, "Backward returned %d gradients for %d inputs (return one per input, nil for an input that needs none)", len(grads), len(ins))
	}
	for i, g := range grads {
		in := ins[i]
		if g == nil {
			continue
		}
		if !g.dtype.IsFloatingPoint() {
			panicf(ErrDType, bop, "gradient %d is %s, want a floating-point tensor (input %d is %s%v)", i, g.dtype, i, in.dtype, in.shape)
		}
		if !sameShape(g.shape, in.shape) {
			panicf(ErrShape, bop, "gradient %d has shape %v, input %d has shape %v", i, g.shape, i, in.shape)
		}
		if g.Device() != in.Device() {
			panicf(ErrDevice, bop, "gradient %d is on %s, input %d on %s", i, g.Device(), i, in.Device())
		}
	}
}

// String describes the op: "CustomOp(name)".
func (op CustomOp) String() string { return fmt.Sprintf("CustomOp(%s)", op.name()) }
