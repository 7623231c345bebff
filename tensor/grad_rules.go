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
