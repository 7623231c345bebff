package graph

import (
	"fmt"
	"sort"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// UpdateAllOf is UpdateAll on the edges of one edge type (DGL's
// g.update_all(message, reduce, etype=etype)): messages are built from
// the source type's node data, the destination type's node data and the
// relation's edge data, and the result is stored as node data red.Out of
// the destination type, (N_dst, ...). etype is an edge type name that one
// canonical edge type has, or a CanonicalEType's String form. It panics
// with *Error (ErrArgument) naming an unknown or ambiguous edge type,
// missing data or functions that do not fit.
func (g *Graph) UpdateAllOf(etype string, msg MessageFunc, red ReduceFunc) {
	r := g.rel(etype)
	si, di := g.ntypeIndex(r.ce.Src), g.ntypeIndex(r.ce.Dst)
	g.ndata[di][red.Out] = propagate(r.inAdj(), g.ndata[si], g.ndata[di], r.edata, msg, red)
}

// EtypeUpdate is the message and reduce functions of one edge type in
// MultiUpdateAll (the (message_func, reduce_func) pair of DGL's
// multi_update_all).
type EtypeUpdate struct {
	Msg    MessageFunc
	Reduce ReduceFunc
}

// MultiUpdateAll runs UpdateAll on several edge types at once and combines,
// per destination node type, the results of every edge type that reaches
// it with crossReducer, "sum", "mean", "max", "min" or "stack" (DGL's
// g.multi_update_all(etype_dict, cross_reducer); see CrossReduce). funcs
// maps an edge type (name or canonical String form) to its functions; the
// per-type results are combined in canonical edge type order, and every
// edge type reaching one node type must write the same Out name. The
// result is node data Out of each destination type: (N_dst, F), or (N_dst,
// K, F) for "stack". It panics with *Error naming an unknown edge type or
// reducer, or Out names that differ.
func (g *Graph) MultiUpdateAll(funcs map[string]EtypeUpdate, crossReducer string) {
	checkCrossReducer("MultiUpdateAll", crossReducer)
	type part struct {
		r   *relation
		out *tensor.Tensor
	}
	byDst := map[int][]part{}
	outName := map[int]string{}
	keys := make([]string, 0, len(funcs))
	for k := range funcs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	seen := map[*relation]string{}
	for _, k := range keys {
		f := funcs[k]
		r := g.rel(k)
		if prev, ok := seen[r]; ok {
			panicf(engerr.ErrArgument, "MultiUpdateAll: %q and %q name the same edge type %v", prev, k, r.ce)
		}
		seen[r] = k
		si, di := g.ntypeIndex(r.ce.Src), g.ntypeIndex(r.ce.Dst)
		if name, ok := outName[di]; ok && name != f.Reduce.Out {
			panicf(engerr.ErrArgument, "MultiUpdateAll: edge types into node type %q write %q and %q; use one output name", r.ce.Dst, name, f.Reduce.Out)
		}
		outName[di] = f.Reduce.Out
		byDst[di] = append(byDst[di], part{r, propagate(r.inAdj(), g.ndata[si], g.ndata[di], r.edata, f.Msg, f.Reduce)})
	}
	for di, parts := range byDst {
		sort.Slice(parts, func(a, b int) bool { return g.relIndex(parts[a].r) < g.relIndex(parts[b].r) })
		ts := make([]*tensor.Tensor, len(parts))
		for i, p := range parts {
			ts[i] = p.out
		}
		g.ndata[di][outName[di]] = CrossReduce(ts, crossReducer)
	}
}

func (g *Graph) relIndex(r *relation) int {
	for i, x := range g.rels {
		if x == r {
			return i
		}
	}
	return -1
}

func checkCrossReducer(op, red string) {
	switch red {
	case "sum", "mean", "max", "min", "stack":
	default:
		panicf(engerr.ErrArgument, "%s: unknown cross reducer %q (want sum, mean, max, min or stack)", op, red)
	}
}

// CrossReduce combines the results of several edge types for one node
// type, as DGL's cross reducers (and HeteroGraphConv's aggregate) do:
// "sum", "mean", "max" and "min" elementwise over K tensors of one shape
// (N, F) -> (N, F); "stack" -> (N, K, F). Gradients flow to every input
// (max and min to the larger, resp. smaller, input; ties to the later).
// It panics with *Error (ErrArgument) for an unknown reducer or no
// tensors, ErrShape for shapes that differ.
func CrossReduce(ts []*tensor.Tensor, reducer string) *tensor.Tensor {
	checkCrossReducer("CrossReduce", reducer)
	if len(ts) == 0 {
		panicf(engerr.ErrArgument, "CrossReduce: no tensors to combine")
	}
	for i, t := range ts {
		if t == nil {
			panicf(engerr.ErrArgument, "CrossReduce: tensor %d is nil", i)
		}
		if fmt.Sprint(t.Shape()) != fmt.Sprint(ts[0].Shape()) {
			panicf(engerr.ErrShape, "CrossReduce: shapes %v and %v differ", ts[0].Shape(), t.Shape())
		}
	}
	if reducer == "stack" {
		n := ts[0].Size(0)
		rest := ts[0].Numel() / max(n, 1)
		flat := make([]*tensor.Tensor, len(ts))
		for i, t := range ts {
			flat[i] = tensor.Reshape(t, n, rest)
		}
		shape := append([]int{n, len(ts)}, ts[0].Shape()[1:]...)
		if len(ts) == 1 {
			return tensor.Reshape(flat[0], shape...)
		}
		return tensor.Reshape(tensor.Concat(flat, 1), shape...)
	}
	acc := ts[0]
	for _, t := range ts[1:] {
		switch reducer {
		case "sum", "mean":
			acc = tensor.Add(acc, t)
		case "max": // max(a, b) = b + relu(a - b)
			acc = tensor.Add(t, tensor.ReLU(tensor.Sub(acc, t)))
		case "min": // min(a, b) = a - relu(a - b)
			acc = tensor.Sub(acc, tensor.ReLU(tensor.Sub(acc, t)))
		}
	}
	if reducer == "mean" && len(ts) > 1 {
		acc = tensor.MulScalar(acc, 1/float32(len(ts)))
	}
	return acc
}

// RelationGraph returns the bipartite graph of one edge type (DGL's
// g[etype]) as a MessageGraph for GNN layers: NumSrcNodes nodes of the
// source type, NumDstNodes of the destination type, the relation's edges.
// Layers that need destination features of their own (SAGEConv's self
// term) read them from the first NumDstNodes source rows, so use it with
// layers that only aggregate (GraphConv, RelGraphConv) or on relations
// within one node type. It panics with *Error for an unknown or ambiguous
// edge type.
func (g *Graph) RelationGraph(etype string) MessageGraph { return relGraph{g.rel(etype)} }

// relGraph is one relation seen as a MessageGraph.
type relGraph struct{ r *relation }

func (v relGraph) NumSrcNodes() int { return v.r.srcN }
func (v relGraph) NumDstNodes() int { return v.r.dstN }
func (v relGraph) NumEdges() int    { return len(v.r.src) }
func (v relGraph) Adj() *tensor.Adj { return v.r.inAdj() }
func (v relGraph) InDegrees() *tensor.Tensor {
	return tensor.FromInt64(v.r.inAdj().InDegrees())
}
func (v relGraph) OutDegrees() *tensor.Tensor {
	return tensor.FromInt64(v.r.outAdj().InDegrees())
}
