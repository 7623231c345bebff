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

// gradMatMul: out = a @ b, a (M, K), b (K, N): a gets g @ b^T (M, K), b
// gets a^T @ g (K, N), each only when it requires grad.
func gradMatMul(g, a, b *Tensor) []*Tensor {
	var ga, gb *Tensor
	if a.requiresGrad {
		ga = matmulT(g, b, false, true)
	}
	if b.requiresGrad {
		gb = matmulT(a, g, true, false)
	}
	return []*Tensor{ga, gb}
}

// gradAddMM: out = c + sum_i x_i @ w_i (ReLU'd when y, the output, is
// given): the output gradient is masked by y > 0 first; c gets it summed
// to c's shape, each pair the gradients of MatMul.
func gradAddMM(g, y, c *Tensor, pairs []*Tensor) []*Tensor {
	res := make([]*Tensor, 1+len(pairs))
	if y != nil {
		g = addMMReLUBackward(g, y)
	}
	if c.requiresGrad {
		res[0] = sumTo(g, c.shape)
	}
	for i := 0; i < len(pairs); i += 2 {
		gx := gradMatMul(g, pairs[i], pairs[i+1])
		res[1+i], res[2+i] = gx[0], gx[1]
	}
	return res
}

// (end of matmul rules)
//
//
//

// ---------------------------------------------------------------------
// sparse.go
// ---------------------------------------------------------------------

// gradSpMM: out = SpMM(adj, u, e, reduce). u receives the messages'
// gradients summed into each source (g[dst] times the edge value, over the
// reverse adjacency; divided by the in-degree for "mean"; for "max" only
// the winner of each element, arg); e receives per edge and head
// <g[dst], u[src]> (for "max", the products of the elements it won).
// SegmentReduce and ScatterReduce are SpMM and have no rule of their own.
func gradSpMM(adj *Adj, reduce string, g, u, e, arg *Tensor) []*Tensor {
	var gu, ge *Tensor
	if u.requiresGrad {
		gu = spmmBackwardU(adj, reduce, g, u, e, arg)
	}
	if e != nil && e.requiresGrad {
		ge = spmmBackwardE(adj, reduce, g, u, e, arg)
	}
	return []*Tensor{gu, ge}
}

// gradSDDMM: out[e] = lhs[src] op rhs[dst]. Each endpoint sums its edges'
// gradients: "add" g, "mul" g * (the other endpoint's row), "dot" g times
// the other endpoint's row.
func gradSDDMM(adj *Adj, op string, g, lhs, rhs *Tensor) []*Tensor {
	gl, gr := sddmmBackward(adj, op, g, lhs, rhs)
	return []*Tensor{gl, gr}
}

// gradEdgeSoftmax: out = EdgeSoftmax(adj, scores);
// d scores = out * (g - sum over the destination's in-edges of out * g).
func gradEdgeSoftmax(adj *Adj, g, out *Tensor) []*Tensor {
	return []*Tensor{edgeSoftmaxBackward(adj, g, out)}
}

// (end of sparse rules)
//
//
//

// ---------------------------------------------------------------------
// index.go
// ---------------------------------------------------------------------

// gradIndexSelect: x's rows receive the scatter-add of g's rows (n rows;
// float32 accumulation, rounded once for a low-precision g).
func gradIndexSelect(g, idx *Tensor, n int) *Tensor { return scatterAdd(n, idx, g) }

// gradIndexAdd: src's rows are the gathered rows of g.
func gradIndexAdd(g, idx *Tensor) *Tensor { return IndexSelect(g, idx) }

// gradNarrow: x's gradient is g padded with zero rows to x's n rows.
func gradNarrow(g *Tensor, n, start int) *Tensor { return padRows(g, n, start) }

// gradReshape: g viewed in x's shape.
func gradReshape(g *Tensor, shape []int) *Tensor { return Reshape(g, shape...) }

// gradTranspose: g transposed back.
func gradTranspose(g *Tensor) *Tensor { return transpose(g) }

// gradConcat: each input that requires grad receives its slice of g along
// dim (non-negative).
func gradConcat(g *Tensor, ts []*Tensor, dim int) []*Tensor {
	gs := make([]*Tensor, len(ts))
	at := 0
	for k, t := range ts {
		if t.requiresGrad {
			gs[k] = sliceDim(g, dim, at, t.shape[dim])
		}
		at += t.shape[dim]
	}
	return gs
}

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

// gradDropout: out = x * keep / (1-p): x gets g * keep / (1-p), with the
// mask the backend kept (nil where it regenerates it from (seed, base));
// the mask gets none.
func gradDropout(g, mask *Tensor, p float32, seed, base uint64) []*Tensor {
	return []*Tensor{dropoutBackward(g, mask, p, seed, base), nil}
}

// (end of random rules)
