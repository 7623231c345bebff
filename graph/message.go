package graph

import (
	"github.com/gnnrepl/gnnrepl/tensor"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

// MessageFunc says how to build the message on each edge (dgl.function):
// CopyU copies the source node's data U; UMulE multiplies it by edge data
// E. The message is called Out.
type MessageFunc struct {
	Op   string // "copy_u" or "u_mul_e"
	U, E string
	Out  string
}

// ReduceFunc says how the messages Msg at each destination are combined
// ("sum", "mean" or "max") into destination data Out.
type ReduceFunc struct {
	Op       string
	Msg, Out string
}

// CopyU is dgl.function.copy_u(u, out).
func CopyU(u, out string) MessageFunc { return MessageFunc{Op: "copy_u", U: u, Out: out} }

// UMulE is dgl.function.u_mul_e(u, e, out): source data times edge data,
// where edge data of shape (E) or (E, H) scales H equal heads of the
// source's features.
func UMulE(u, e, out string) MessageFunc { return MessageFunc{Op: "u_mul_e", U: u, E: e, Out: out} }

// Sum is dgl.function.sum(msg, out).
func Sum(msg, out string) ReduceFunc { return ReduceFunc{Op: "sum", Msg: msg, Out: out} }

// Mean is dgl.function.mean(msg, out); nodes without in-edges get 0.
func Mean(msg, out string) ReduceFunc { return ReduceFunc{Op: "mean", Msg: msg, Out: out} }

// Max is dgl.function.max(msg, out); nodes without in-edges get 0.
func Max(msg, out string) ReduceFunc { return ReduceFunc{Op: "max", Msg: msg, Out: out} }

// propagate runs one fused message + reduce step over adj.
func propagate(adj *tensor.Adj, src, edata dataMap, msg MessageFunc, red ReduceFunc) *tensor.Tensor {
	if msg.Out != red.Msg {
		panicf(engerr.ErrArgument, "UpdateAll: the message is called %q but the reducer reads %q", msg.Out, red.Msg)
	}
	u := src.get("source node", msg.U)
	var e *tensor.Tensor
	switch msg.Op {
	case "copy_u":
	case "u_mul_e":
		e = edata.get("edge", msg.E)
	default:
		panicf(engerr.ErrArgument, "UpdateAll: unknown message function %q (want copy_u or u_mul_e)", msg.Op)
	}
	if red.Op != "sum" && red.Op != "mean" && red.Op != "max" {
		panicf(engerr.ErrArgument, "UpdateAll: unknown reducer %q (want sum, mean or max)", red.Op)
	}
	return tensor.SpMM(adj, u, e, red.Op)
}

// UpdateAll sends messages along every edge and reduces them at every node,
// storing the result as node data red.Out (g.update_all(message, reduce)).
// Node data is both source and destination data on a full graph. It panics
// with *Error when data is missing or the functions do not fit together.
func (g *Graph) UpdateAll(msg MessageFunc, red ReduceFunc) {
	r := g.one("UpdateAll")
	out := propagate(r.inAdj(), g.ndata[0], r.edata, msg, red)
	g.ndata[0][red.Out] = out
}

// UpdateAll sends messages from the block's source data along its edges and
// stores the reduced result as destination data red.Out.
func (b *Block) UpdateAll(msg MessageFunc, red ReduceFunc) {
	b.dstdata[red.Out] = propagate(b.adj, b.srcdata, b.edata, msg, red)
}
