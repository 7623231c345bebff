package tensor

import (
	"fmt"
	"sync"
)

// SparseKernels are the primitive kernels of the graph ops over an Adj
// (SpMM, SDDMM, EdgeSoftmax, and through SpMM SegmentReduce and
// ScatterReduce), forward and backward, as DGL's gspmm / gsddmm /
// edge_softmax kernels. Every Backend implements them: cpu_sparse.go (the
// reference loops and the edge-balanced fast paths), cuda_sparse.go (the
// kernels package's SpMM, SDDMM and edge-softmax kernels over the Adj
// uploaded once per device), meta.go (nothing to compute).
//
// The ops have checked the shapes and dtypes: u, e, lhs, rhs, g and the
// outputs are contiguous tensors of the backend's device, of one float
// dtype per call (float32, float16 or bfloat16) unless a method says
// otherwise; edge tensors (E) or (E, H) are in edge-id order (Adj.EIDs);
// an output is overwritten unless its method says it arrives zeroed.
// Float16 and bfloat16 operands are widened as they are read, every sum
// is accumulated in float32 and each result is rounded once. A backend
// without a kernel for a dtype panics with ErrNotImplemented naming the
// op, the dtype and the device.
type SparseKernels interface {
	// SpMM writes into out (NumDst, F) the reduction ("sum", "mean" or
	// "max") at each destination of the messages along its in-edges: the
	// source row u[src] (NumSrc, F) when e is nil, else u[src] times the
	// edge's value e[eid] (E) or (E, H), head k scaling features
	// [k*F/H, (k+1)*F/H). A destination without in-edges gets 0. For
	// "max", arg (NumDst, F) int64 receives the Adj position of the edge
	// that won each element (-1 where none did), the input of the
	// backward; arg is nil for the other reducers.
	SpMM(adj *Adj, reduce string, u, e, out, arg *Tensor)
	// SpMMBackwardU writes into gu (NumSrc, F) SpMM's gradient with
	// respect to u from the output gradient g (NumDst, F), for the same
	// reduce, e and arg. For "max", acc is a zeroed float32 tensor of gu's
	// shape into which the kernel adds the winners' gradients before
	// rounding them into gu (acc is gu itself when gu is float32); acc is
	// nil for "sum" and "mean".
	SpMMBackwardU(adj *Adj, reduce string, g, e, arg, gu, acc *Tensor)
	// SpMMBackwardE writes into ge, of e's shape, SpMM's gradient with
	// respect to e from g (NumDst, F) and u (NumSrc, F): per edge and
	// head, the dot product of g[dst] and u[src] (divided by the in-degree
	// for "mean"), or for "max" the sum of g*u over the elements the edge
	// won. For "max", acc is a zeroed float32 tensor of ge's shape (ge
	// itself when ge is float32) as in SpMMBackwardU; nil otherwise.
	SpMMBackwardE(adj *Adj, reduce string, g, u, arg, ge, acc *Tensor)
	// SDDMM writes into out, in edge-id order, a value per edge from its
	// source row lhs[src] (NumSrc, D) and destination row rhs[dst]
	// (NumDst, D): op "add" and "mul" give (E, D) (or (E) for 1-D
	// operands), op "dot" gives (E, 1).
	SDDMM(adj *Adj, op string, lhs, rhs, out *Tensor)
	// SDDMMBackward writes into gl (lhs's shape) and gr (rhs's shape)
	// SDDMM's gradients from the edge gradient g (out's shape); either may
	// be nil when its input needs none.
	SDDMMBackward(adj *Adj, op string, g, lhs, rhs, gl, gr *Tensor)
	// EdgeSoftmax writes into out the softmax of scores (E) or (E, H),
	// float32, over each destination's in-edges, per head, with the
	// maximum subtracted; where some of a destination's scores are +Inf
	// they share its mass equally and the others get 0.
	EdgeSoftmax(adj *Adj, scores, out *Tensor)
	// EdgeSoftmaxBackward writes into gs the score gradient from the
	// forward's output out and its gradient g (float32, out's shape):
	// gs = out * (g - sum over the destination's in-edges of out*g).
	EdgeSoftmaxBackward(adj *Adj, out, g, gs *Tensor)
	// ScatterAdj returns the adjacency of a scatter of len(idx) rows into
	// n: destination v's in-edges are the positions i with idx[i] == v,
	// in increasing i (built on the host by scatterAdj; a GPU downloads
	// idx, a synchronization). idx is a 1-D int64 index the op checked
	// against [0, n). The meta device, whose idx has no values, returns an
	// adjacency of the same sizes.
	ScatterAdj(idx *Tensor, n int) *Adj
}

// Adj is a destination-major compressed adjacency: the in-edges of
// destination node d occupy positions Indptr[d] to Indptr[d+1] of Indices
// (their source ids) and EIDs (their edge ids, which index edge tensors;
// nil means the position is the edge id). It is the CSC of a graph, or of a
// block whose NumSrc source nodes and NumDst destination nodes are
// numbered separately. An Adj is read-only once built.
type Adj struct {
	NumSrc, NumDst int
	Indptr         []int64 // (NumDst + 1)
	Indices        []int64 // (E) source ids
	EIDs           []int64 // (E) edge ids, or nil

	revOnce sync.Once
	rev     *Adj
	cuda    sync.Map // device name -> *devAdj, the copy on that GPU (cuda_sparse.go, the cuda backend's)
}

// NumEdges returns the number of edges.
func (a *Adj) NumEdges() int { return len(a.Indices) }

// String summarises the adjacency (its sizes, not its arrays, which the
// session would otherwise print in full): "Adj(num_src=2708,
// num_dst=2708, num_edges=10556)", with ", eids" when it carries edge ids.
func (a *Adj) String() string {
	if a == nil {
		return "Adj(nil)"
	}
	e := ""
	if a.EIDs != nil {
		e = ", eids"
	}
	return fmt.Sprintf("Adj(num_src=%d, num_dst=%d, num_edges=%d%s)", a.NumSrc, a.NumDst, len(a.Indices), e)
}

// eid returns the edge id stored at position p.
func (a *Adj) eid(p int64) int64 {
	if a.EIDs == nil {
		return p
	}
	return a.EIDs[p]
}

// Validate checks the adjacency's invariants: Indptr has NumDst+1
// non-decreasing entries from 0 to E, every source id is in [0, NumSrc), and
// EIDs, when present, is a permutation-sized list of ids in [0, E).
func (a *Adj) Validate() error {
	if len(a.Indptr) != a.NumDst+1 {
		return fmt.Errorf("tensor.Adj: indptr has %d entries, want NumDst+1 = %d", len(a.Indptr), a.NumDst+1)
	}
	if a.Indptr[0] != 0 || a.Indptr[a.NumDst] != int64(len(a.Indices)) {
		return fmt.Errorf("tensor.Adj: indptr must run from 0 to %d, got %d..%d", len(a.Indices), a.Indptr[0], a.Indptr[a.NumDst])
	}
	for d := 0; d < a.NumDst; d++ {
		if a.Indptr[d+1] < a.Indptr[d] {
			return fmt.Errorf("tensor.Adj: indptr decreases at destination %d", d)
		}
	}
	for p, s := range a.Indices {
		if s < 0 || s >= int64(a.NumSrc) {
			return fmt.Errorf("tensor.Adj: source id %d at position %d is outside [0, %d)", s, p, a.NumSrc)
		}
	}
	if a.EIDs != nil {
		if len(a.EIDs) != len(a.Indices) {
			return fmt.Errorf("tensor.Adj: %d edge ids for %d edges", len(a.EIDs), len(a.Indices))
		}
		for p, e := range a.EIDs {
			if e < 0 || e >= int64(len(a.Indices)) {
				return fmt.Errorf("tensor.Adj: edge id %d at position %d is outside [0, %d)", e, p, len(a.Indices))
			}
		}
	}
	return nil
}

// InDegrees returns the number of in-edges of each destination node.
func (a *Adj) InDegrees() []int64 {
	d := make([]int64, a.NumDst)
	for i := range d {
		d[i] = a.Indptr[i+1] - a.Indptr[i]
	}
	return d
}

// Reverse returns the source-major view of the same edges (for each source
// node, its out-edges' destination ids and edge ids), built once and cached.
// Backward passes use it to scatter into sources without write conflicts.
func (a *Adj) Reverse() *Adj {
	a.revOnce.Do(func() {
		e := len(a.Indices)
		r := &Adj{NumSrc: a.NumDst, NumDst: a.NumSrc, Indptr: make([]int64, a.NumSrc+1),
			Indices: make([]int64, e), EIDs: make([]int64, e)}
		for _, s := range a.Indices {
			r.Indptr[s+1]++
		}
		for i := 0; i < a.NumSrc; i++ {
			r.Indptr[i+1] += r.Indptr[i]
		}
		next := append([]int64(nil), r.Indptr[:a.NumSrc]...)
		for d := 0; d < a.NumDst; d++ {
			for p := a.Indptr[d]; p < a.Indptr[d+1]; p++ {
				s := a.Indices[p]
				q := next[s]
				next[s]++
				r.Indices[q] = int64(d)
				r.EIDs[q] = a.eid(p)
			}
		}
		a.rev = r
	})
	return a.rev
}

func rows2(op string, t *Tensor) (int, int) {
	if t.Dim() == 1 {
		return t.shape[0], 1
	}
	if t.Dim() != 2 {
		panicf(ErrShape, op, "needs a 1-D or 2-D tensor, got shape %v", t.shape)
	}
	return t.shape[0], t.shape[1]
}

// SpMM is DGL's generalised sparse-dense product (update_all): it sends a
// message along every edge and reduces the messages at each destination.
// With e nil the message is the source row (copy_u); with e of shape (E) or
// (E, H) it is the source row times the edge value (u_mul_e), the source's F
// features split into H equal heads. reduce is "sum", "mean" or "max";
// destinations without in-edges get 0 for every reducer.
//
//	u (NumSrc, F), e (E) | (E, H) | nil  ->  (NumDst, F)
//
// Gradients flow to u and e. Panics with ErrShape on mismatched sizes or an
// unknown reducer, ErrDType on a non-float operand, ErrDevice on operands
// of two devices. The max reducer keeps an (NumDst, F) int64 tensor of the
// winning edges for the backward pass (counted like any tensor).
//
// SpMM is on autocast's lower-precision list (DGL casts gspmm's inputs to
// the autocast dtype): inside an autocast region u and e are cast to
// float16 or bfloat16 and so is the result, each destination's row being
// accumulated in float32 and rounded once (a sum over thousands of
// neighbors does not stall as a 16-bit accumulator would; a sum beyond
// float16's ±65504 is ±Inf, use "mean" or bfloat16 there). On the CPU, in
// float16 and bfloat16 the max of a single message is that message,
// however negative, while float32 (and the GPU kernel) ignores -Inf and NaN
// messages (a destination whose messages are all -Inf gets 0). Outside
// autocast, float16 or bfloat16 operands of one
// dtype give a result of their dtype the same way, and mixed float dtypes
// are promoted (PromoteTypes).
//
// Devices: cpu, cuda (float32, float16 and bfloat16 forward; the backward
// pass in float32), meta. Kernels: cpu_sparse.go (SpMM, spmmMaxRow,
// sumRowsSet), cuda_sparse.go (kernels.SpMM, kernels.SpMMBackward,
// kernels.SDDMMUDotV).
func SpMM(adj *Adj, u, e *Tensor, reduce string) *Tensor {
	defer hookOp("SpMM")()
	notNilAdj("SpMM", adj)
	notNil("SpMM", "u", u)
	u, e = lowerPrecision2("SpMM", u, e)
	be := backendOf("SpMM", u, e)
	checkFloats("SpMM", u, e)
	ns, f := rows2("SpMM", u)
	if ns != adj.NumSrc {
		panicf(ErrShape, "SpMM", "source features have %d rows, graph has %d source nodes", ns, adj.NumSrc)
	}
	if e != nil {
		if e.dtype != u.dtype {
			panicf(ErrDType, "SpMM", "edge values are %s, features %s", e.dtype, u.dtype)
		}
		ne, h := rows2("SpMM", e)
		if ne != adj.NumEdges() {
			panicf(ErrShape, "SpMM", "edge values have %d rows, graph has %d edges", ne, adj.NumEdges())
		}
		if h == 0 || f%h != 0 {
			panicf(ErrShape, "SpMM", "features %v do not split into %d heads of edge values %v", u.shape, h, e.shape)
		}
	}
	if reduce != "sum" && reduce != "mean" && reduce != "max" {
		panicf(ErrArgument, "SpMM", "reduce must be \"sum\", \"mean\" or \"max\", got %q", reduce)
	}
	out := emptyOn("SpMM", be, u.dtype, false, adj.NumDst, f)
	var arg *Tensor // max: the position of the edge that won each element
	if reduce == "max" {
		arg = emptyOn("SpMM", be, Int64, false, adj.NumDst, f)
	}
	be.SpMM(adj, reduce, u, e, out, arg)
	if arg != nil && !needsGrad(u, e) {
		arg.Free() // a GPU block goes back to the cache now
	}
	return record(out, "SpMM", []*Tensor{u, e}, func(g *Tensor) []*Tensor { return gradSpMM(adj, reduce, g, u, e, arg) })
}

// spmmBackwardU is SpMM's gradient with respect to u: (NumSrc, F) in u's
// dtype from the output gradient g (NumDst, F). The max reducer of a
// float16 or bfloat16 u accumulates in a float32 tensor of u's shape.
func spmmBackwardU(adj *Adj, reduce string, g, u, e, arg *Tensor) *Tensor {
	be := backendOf("SpMM", g, u, e)
	gu, acc := spmmGradBuffers(be, reduce, u)
	be.SpMMBackwardU(adj, reduce, g, e, arg, gu, acc)
	return gu
}

// spmmGradBuffers allocates the gradient of x (x's shape and dtype) and,
// for the max reducer, the zeroed float32 accumulator the kernel adds into:
// the gradient itself for float32, a separate tensor for float16 or
// bfloat16 (rounded into the gradient once).
func spmmGradBuffers(be Backend, reduce string, x *Tensor) (grad, acc *Tensor) {
	isMax := reduce == "max"
	grad = emptyOn("SpMM", be, x.dtype, isMax && x.dtype == Float32, x.shape...)
	if isMax {
		acc = grad
		if x.dtype != Float32 {
			acc = emptyOn("SpMM", be, Float32, true, x.shape...)
		}
	}
	return grad, acc
}

// spmmBackwardE is SpMM's gradient with respect to e: e's shape and dtype,
// from g (NumDst, F) and u (NumSrc, F); the max reducer of a float16 or
// bfloat16 e accumulates in a float32 tensor of e's shape.
func spmmBackwardE(adj *Adj, reduce string, g, u, e, arg *Tensor) *Tensor {
	be := backendOf("SpMM", g, u, e)
	ge, acc := spmmGradBuffers(be, reduce, e)
	be.SpMMBackwardE(adj, reduce, g, u, arg, ge, acc)
	return ge
}

// SDDMM computes a value on every edge from its source and destination rows
// (DGL's apply_edges with u_add_v, u_mul_v, u_dot_v), in edge-id order:
//
//	op "add": lhs (NumSrc, D), rhs (NumDst, D) -> (E, D), lhs[src] + rhs[dst]
//	op "mul": same shapes, lhs[src] * rhs[dst]
//	op "dot": lhs (NumSrc, D), rhs (NumDst, D) -> (E, 1), <lhs[src], rhs[dst]>
//
// 1-D operands (N) give (E) for "add" and "mul". GAT's attention logits are
// SDDMM(adj, el, er, "add") with el, er (N, H). Gradients flow to lhs and
// rhs. Panics with ErrShape on mismatched sizes or an unknown op, ErrDType
// on a non-float operand, ErrDevice on operands of two devices. Like SpMM,
// SDDMM is on autocast's lower-precision list (DGL's gsddmm): inside an
// autocast region the operands and the result are float16 or bfloat16,
// each value computed in float32 and rounded once (a float16 result beyond
// ±65504 is ±Inf, which EdgeSoftmax handles).
//
// Devices: cpu, cuda (float32), meta. Kernels: cpu_sparse.go (SDDMM,
// sddmmBackwardSide), cuda_sparse.go (kernels.SDDMMUAddV, SDDMMUDotV,
// EdgeSumSrc/Dst, SpMM).
func SDDMM(adj *Adj, lhs, rhs *Tensor, op string) *Tensor {
	defer hookOp("SDDMM")()
	notNilAdj("SDDMM", adj)
	notNil("SDDMM", "lhs", lhs, "rhs", rhs)
	lhs, rhs = lowerPrecision2("SDDMM", lhs, rhs)
	be := backendOf("SDDMM", lhs, rhs)
	checkFloats("SDDMM", lhs, rhs)
	if lhs.dtype != rhs.dtype {
		panicf(ErrDType, "SDDMM", "lhs is %s, rhs %s", lhs.dtype, rhs.dtype)
	}
	nl, dl := rows2("SDDMM", lhs)
	nr, dr := rows2("SDDMM", rhs)
	if nl != adj.NumSrc || nr != adj.NumDst || dl != dr {
		panicf(ErrShape, "SDDMM", "lhs %v and rhs %v do not fit a graph with %d sources and %d destinations", lhs.shape, rhs.shape, adj.NumSrc, adj.NumDst)
	}
	if op != "add" && op != "mul" && op != "dot" {
		panicf(ErrArgument, "SDDMM", "op must be \"add\", \"mul\" or \"dot\", got %q", op)
	}
	shape := []int{adj.NumEdges(), dl}
	switch {
	case op == "dot":
		shape[1] = 1
	case lhs.Dim() == 1:
		shape = shape[:1]
	}
	out := emptyOn("SDDMM", be, lhs.dtype, false, shape...)
	be.SDDMM(adj, op, lhs, rhs, out)
	return record(out, "SDDMM", []*Tensor{lhs, rhs}, func(g *Tensor) []*Tensor { return gradSDDMM(adj, op, g, lhs, rhs) })
}

// sddmmBackward is SDDMM's gradients from the edge gradient g: gl of lhs's
// shape and dtype when lhs requires grad, gr of rhs's when rhs does (nil
// otherwise).
func sddmmBackward(adj *Adj, op string, g, lhs, rhs *Tensor) (gl, gr *Tensor) {
	be := backendOf("SDDMM", g, lhs, rhs)
	if lhs.requiresGrad {
		gl = emptyOn("SDDMM", be, lhs.dtype, false, lhs.shape...)
	}
	if rhs.requiresGrad {
		gr = emptyOn("SDDMM", be, rhs.dtype, false, rhs.shape...)
	}
	be.SDDMMBackward(adj, op, g, lhs, rhs, gl, gr)
	return gl, gr
}

// EdgeSoftmax normalises edge scores over the in-edges of each destination,
// separately per head (DGL's edge_softmax; GAT's attention coefficients,
// Veličković et al. 2018): scores (E) or (E, H) in edge-id order -> same
// shape, out[e] = exp(s[e]) / sum over in-edges e' of dst(e) of exp(s[e']),
// computed with the maximum subtracted. When some of a destination's
// scores are +Inf (a float16 score that overflowed), they share the
// destination's mass equally and the others get 0, the limit of the
// softmax, instead of NaN. Panics with ErrShape when scores do not have
// one row per edge, ErrDType on a non-float tensor.
//
// EdgeSoftmax is on autocast's float32 list (DGL's edge_softmax runs in
// float32 under autocast): a float16 or bfloat16 score tensor is
// normalised in float32, and the result is float32 inside an autocast
// region and the scores' dtype outside it.
//
// Devices: cpu, cuda, meta. Kernels: cpu_sparse.go (EdgeSoftmax),
// cuda_sparse.go (kernels.EdgeSoftmaxForward, EdgeSoftmaxBackward).
func EdgeSoftmax(adj *Adj, scores *Tensor) *Tensor {
	defer hookOp("EdgeSoftmax")()
	notNilAdj("EdgeSoftmax", adj)
	notNil("EdgeSoftmax", "scores", scores)
	if isLow(scores.dtype) {
		return fp32Op("EdgeSoftmax", scores, func(s *Tensor) *Tensor { return EdgeSoftmax(adj, s) })
	}
	be := backendOf("EdgeSoftmax", scores)
	checkFloat("EdgeSoftmax", scores)
	ne, _ := rows2("EdgeSoftmax", scores)
	if ne != adj.NumEdges() {
		panicf(ErrShape, "EdgeSoftmax", "scores have %d rows, graph has %d edges", ne, adj.NumEdges())
	}
	out := emptyOn("EdgeSoftmax", be, Float32, false, scores.shape...)
	be.EdgeSoftmax(adj, scores, out)
	return record(out, "EdgeSoftmax", []*Tensor{scores}, func(g *Tensor) []*Tensor { return gradEdgeSoftmax(adj, g, out) })
}

// edgeSoftmaxBackward is EdgeSoftmax's score gradient from its output out
// and the output gradient g: float32 of out's shape.
func edgeSoftmaxBackward(adj *Adj, g, out *Tensor) *Tensor {
	be := backendOf("EdgeSoftmax", g, out)
	gs := emptyOn("EdgeSoftmax", be, Float32, false, out.shape...)
	be.EdgeSoftmaxBackward(adj, out, g, gs)
	return gs
}
