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

// (end of random rules)
