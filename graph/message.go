package graph

import (
	"strings"

	"github.com/gnnrepl/gnnrepl/tensor"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

// MessageFunc says how to build the message on each edge (dgl.function):
// Op is "copy_u" (the source node's data U), "copy_e" (the edge's data E)
// or a binary "<lhs>_<op>_<rhs>" with lhs and rhs two of u (source node
// data U), v (destination node data V) and e (edge data E), and op one of
// add, sub, mul, div, as DGL's u_add_e, e_mul_v, u_sub_v... Operands
// broadcast as tensors do: (E, F) with (E, 1) or (E) scales every feature,
// and u_mul_e with edge data (E, H) scales H equal heads of the source's
// features. The message is called Out.
type MessageFunc struct {
	Op      string
	U, V, E string
	Out     string
}

// ReduceFunc says how the messages Msg at each destination are combined
// ("sum", "mean", "max" or "min") into destination data Out.
type ReduceFunc struct {
	Op       string
	Msg, Out string
}

// CopyU is dgl.function.copy_u(u, out).
func CopyU(u, out string) MessageFunc { return MessageFunc{Op: "copy_u", U: u, Out: out} }

// CopyE is dgl.function.copy_e(e, out): the edge's data is the message.
func CopyE(e, out string) MessageFunc { return MessageFunc{Op: "copy_e", E: e, Out: out} }

// UMulE is dgl.function.u_mul_e(u, e, out): source data times edge data,
// where edge data of shape (E) or (E, H) scales H equal heads of the
// source's features.
func UMulE(u, e, out string) MessageFunc { return MessageFunc{Op: "u_mul_e", U: u, E: e, Out: out} }

// UAddE is dgl.function.u_add_e(u, e, out): source data plus edge data.
func UAddE(u, e, out string) MessageFunc { return MessageFunc{Op: "u_add_e", U: u, E: e, Out: out} }

// USubE is dgl.function.u_sub_e(u, e, out).
func USubE(u, e, out string) MessageFunc { return MessageFunc{Op: "u_sub_e", U: u, E: e, Out: out} }

// UDivE is dgl.function.u_div_e(u, e, out).
func UDivE(u, e, out string) MessageFunc { return MessageFunc{Op: "u_div_e", U: u, E: e, Out: out} }

// UAddV is dgl.function.u_add_v(u, v, out): source plus destination data.
func UAddV(u, v, out string) MessageFunc { return MessageFunc{Op: "u_add_v", U: u, V: v, Out: out} }

// USubV is dgl.function.u_sub_v(u, v, out).
func USubV(u, v, out string) MessageFunc { return MessageFunc{Op: "u_sub_v", U: u, V: v, Out: out} }

// UMulV is dgl.function.u_mul_v(u, v, out).
func UMulV(u, v, out string) MessageFunc { return MessageFunc{Op: "u_mul_v", U: u, V: v, Out: out} }

// EAddV is dgl.function.e_add_v(e, v, out): edge plus destination data.
func EAddV(e, v, out string) MessageFunc { return MessageFunc{Op: "e_add_v", E: e, V: v, Out: out} }

// EMulV is dgl.function.e_mul_v(e, v, out): edge times destination data.
func EMulV(e, v, out string) MessageFunc { return MessageFunc{Op: "e_mul_v", E: e, V: v, Out: out} }

// EDivV is dgl.function.e_div_v(e, v, out).
func EDivV(e, v, out string) MessageFunc { return MessageFunc{Op: "e_div_v", E: e, V: v, Out: out} }

// Sum is dgl.function.sum(msg, out).
func Sum(msg, out string) ReduceFunc { return ReduceFunc{Op: "sum", Msg: msg, Out: out} }

// Mean is dgl.function.mean(msg, out); nodes without in-edges get 0.
func Mean(msg, out string) ReduceFunc { return ReduceFunc{Op: "mean", Msg: msg, Out: out} }

// Max is dgl.function.max(msg, out); nodes without in-edges get 0.
func Max(msg, out string) ReduceFunc { return ReduceFunc{Op: "max", Msg: msg, Out: out} }

// Min is dgl.function.min(msg, out); nodes without in-edges get 0.
func Min(msg, out string) ReduceFunc { return ReduceFunc{Op: "min", Msg: msg, Out: out} }

// propagate runs one message + reduce step over adj: copy_u and u_mul_e
// are one fused SpMM (min as -max(-x)); every other message is built on
// the edges in edge-id order (IndexSelect of the node operands, one
// elementwise op) and reduced with one ScatterReduce by destination.
func propagate(adj *tensor.Adj, src, dst, edata dataMap, msg MessageFunc, red ReduceFunc) *tensor.Tensor {
	if msg.Out != red.Msg {
		panicf(engerr.ErrArgument, "UpdateAll: the message is called %q but the reducer reads %q", msg.Out, red.Msg)
	}
	if red.Op != "sum" && red.Op != "mean" && red.Op != "max" && red.Op != "min" {
		panicf(engerr.ErrArgument, "UpdateAll: unknown reducer %q (want sum, mean, max or min)", red.Op)
	}
	spmm := func(u, e *tensor.Tensor) *tensor.Tensor {
		if red.Op == "min" {
			return tensor.Neg(tensor.SpMM(adj, tensor.Neg(u), e, "max"))
		}
		return tensor.SpMM(adj, u, e, red.Op)
	}
	switch msg.Op {
	case "copy_u":
		return spmm(src.get("source node", msg.U), nil)
	case "u_mul_e":
		e := edata.get("edge", msg.E)
		if u := src.get("source node", msg.U); u.Dim() <= 2 && (e.Dim() == 1 || e.Dim() == 2) {
			return spmm(u, e)
		}
	}
	m := edgeMessages(adj, src, dst, edata, msg)
	_, dstIdx := edgeEnds(adj)
	idx := indexOn(dstIdx, m.Device())
	if red.Op == "min" {
		return tensor.Neg(tensor.ScatterReduce(adj.NumDst, idx, tensor.Neg(m), "max"))
	}
	return tensor.ScatterReduce(adj.NumDst, idx, m, red.Op)
}

// edgeEnds returns the source and destination of every edge of adj in
// edge-id order.
func edgeEnds(adj *tensor.Adj) (src, dst []int64) {
	e := adj.NumEdges()
	src, dst = make([]int64, e), make([]int64, e)
	for d := 0; d < adj.NumDst; d++ {
		for p := adj.Indptr[d]; p < adj.Indptr[d+1]; p++ {
			id := p
			if adj.EIDs != nil {
				id = adj.EIDs[p]
			}
			src[id], dst[id] = adj.Indices[p], int64(d)
		}
	}
	return src, dst
}

// edgeMessages computes msg on every edge, (E, ...) in edge-id order.
func edgeMessages(adj *tensor.Adj, src, dst, edata dataMap, msg MessageFunc) *tensor.Tensor {
	srcIdx, dstIdx := edgeEnds(adj)
	operand := func(side, name string) *tensor.Tensor {
		var t *tensor.Tensor
		var ids []int64
		switch side {
		case "u":
			t, ids = src.get("source node", name), srcIdx
		case "v":
			t, ids = dst.get("destination node", name), dstIdx
		case "e":
			return edata.get("edge", name)
		default:
			panicf(engerr.ErrArgument, "UpdateAll: unknown message function %q (want copy_u, copy_e or <u|v|e>_<add|sub|mul|div>_<u|v|e>)", msg.Op)
		}
		return tensor.IndexSelect(t, indexOn(ids, t.Device()))
	}
	name := func(side string) string {
		switch side {
		case "u":
			return msg.U
		case "v":
			return msg.V
		}
		return msg.E
	}
	if msg.Op == "copy_e" {
		return edata.get("edge", msg.E)
	}
	parts := strings.Split(msg.Op, "_")
	if len(parts) != 3 || parts[0] == parts[2] {
		panicf(engerr.ErrArgument, "UpdateAll: unknown message function %q (want copy_u, copy_e or <u|v|e>_<add|sub|mul|div>_<u|v|e>)", msg.Op)
	}
	a, b := operand(parts[0], name(parts[0])), operand(parts[2], name(parts[2]))
	// (E) operands scale every feature of an (E, F) one.
	if a.Dim() == 1 && b.Dim() == 2 {
		a = tensor.Reshape(a, -1, 1)
	}
	if b.Dim() == 1 && a.Dim() == 2 {
		b = tensor.Reshape(b, -1, 1)
	}
	switch parts[1] {
	case "add":
		return tensor.Add(a, b)
	case "sub":
		return tensor.Sub(a, b)
	case "mul":
		return tensor.Mul(a, b)
	case "div":
		return tensor.Div(a, b)
	}
	panicf(engerr.ErrArgument, "UpdateAll: unknown message function %q (want an add, sub, mul or div operator)", msg.Op)
	return nil
}

// UpdateAll sends messages along every edge and reduces them at every node,
// storing the result as node data red.Out (g.update_all(message, reduce)).
// Node data is both source and destination data on a full graph. It panics
// with *Error when data is missing or the functions do not fit together.
func (g *Graph) UpdateAll(msg MessageFunc, red ReduceFunc) {
	r := g.one("UpdateAll")
	out := propagate(r.inAdj(), g.ndata[0], g.ndata[0], r.edata, msg, red)
	g.ndata[0][red.Out] = out
}

// UpdateAll sends messages from the block's source data along its edges and
// stores the reduced result as destination data red.Out.
func (b *Block) UpdateAll(msg MessageFunc, red ReduceFunc) {
	b.dstdata[red.Out] = propagate(b.adj, b.srcdata, b.dstdata, b.edata, msg, red)
}

// indexOn returns ids as an int64 tensor on device.
func indexOn(ids []int64, device string) *tensor.Tensor {
	idx := tensor.FromInt64(ids)
	if device == "cpu" {
		return idx
	}
	out, err := idx.To(device)
	if err != nil {
		panic(err)
	}
	return out
}
