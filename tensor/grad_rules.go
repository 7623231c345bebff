package tensor

// The backward rules: how each op's output gradient flows to its inputs,
// one function per op, written with tensor ops (public ones, or unexported
// ops that dispatch through the Backend like the public ones), so that a
// rule runs on whatever device and in whatever dtype its tensors have.
// Ops record them with record(out, op, inputs, rule); Backward runs them
// with autograd and autocast off. The table follows the op files.
// (Model: tinygrad's gradient.py.)

// ---------------------------------------------------------------------
// elementwise.go
// ---------------------------------------------------------------------

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

// gradSum: every element of x receives the scalar gradient g.
func gradSum(g, x *Tensor) []*Tensor {
	return []*Tensor{expandDim("Sum", g, x.shape, 1, x.n, 1)}
}

// gradSumDim: g (the output's shape, dimension d summed away) is repeated
// along the summed dimension of x viewed as (outer, d, inner).
func gradSumDim(g, x *Tensor, outer, d, inner int) []*Tensor {
	return []*Tensor{expandDim("SumDim", g, x.shape, outer, d, inner)}
}

// gradLogSoftmax: dx = g - softmax(x) * sum(g) per row, softmax(x) =
// exp(out).
func gradLogSoftmax(g, out *Tensor) []*Tensor {
	return []*Tensor{logSoftmaxBackward(g, out)}
}

// gradNLLLoss: -g/N at logp[i, targets[i]], zero elsewhere.
func gradNLLLoss(g, logp, targets *Tensor) []*Tensor {
	return []*Tensor{nllLossBackward(g, targets, logp.shape[0], logp.shape[1])}
}

// (end of reduce rules)
//
//
//

// ---------------------------------------------------------------------
// random.go, step.go
// ---------------------------------------------------------------------

// (end of random rules)
