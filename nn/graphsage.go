package nn

import (
	"fmt"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// GraphModel is a model that runs on a full graph: x (N, F_in) -> (N,
// F_out). GCN, GraphSAGE and GAT implement it.
type GraphModel interface {
	Module
	Forward(g graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor
}

// BlockModel is a model that runs on the blocks of a neighbour sampler,
// one block per layer: x (NumSrcNodes of blocks[0], F_in) -> (NumDstNodes
// of the last block, F_out). GCN, GraphSAGE and GAT implement it.
type BlockModel interface {
	Module
	ForwardBlocks(blocks []*graph.Block, x *tensor.Tensor) *tensor.Tensor
}

var (
	_ GraphModel = (*GraphSAGE)(nil)
	_ BlockModel = (*GraphSAGE)(nil)
	_ GraphModel = (*GCN)(nil)
	_ BlockModel = (*GCN)(nil)
	_ GraphModel = (*GAT)(nil)
	_ BlockModel = (*GAT)(nil)
	_ Module     = (*Linear)(nil)
	_ Module     = (*GraphConv)(nil)
	_ Module     = (*SAGEConv)(nil)
	_ Module     = (*GATConv)(nil)
)

// SAGEOptions configures a GraphSAGE model. Zero values take the defaults
// given per field.
type SAGEOptions struct {
	InFeats, OutFeats int
	// HiddenFeats is the width of the hidden layers (256 when 0, as DGL's
	// GraphSAGE example).
	HiddenFeats int
	// NumLayers is the number of SAGEConv layers (2 when 0).
	NumLayers int
	// Aggregator is "mean" (default), "gcn" or "pool".
	Aggregator string
	// Dropout is applied after the ReLU of every layer but the last.
	Dropout float32
	// InputDropout is applied to the input features (the first layer's
	// FeatDrop; DGL's full-graph GraphSAGE example drops the input with the
	// same rate as Dropout).
	InputDropout float32
	// Seed seeds the generator of the initial weights and dropout masks.
	Seed int64
	// Checkpoint recomputes every layer but the last, with its ReLU and
	// dropout, in the backward pass instead of keeping its activations
	// (gradient checkpointing, see Checkpointed): less memory for one extra
	// forward pass of those layers.
	Checkpoint bool
}

// GraphSAGE is a stack of SAGEConv layers with ReLU and dropout between
// them, and optional dropout on the input features, as DGL's
// examples/pytorch/graphsage (Hamilton et al. 2017). It runs
// on a full graph (Forward) or on sampled blocks (ForwardBlocks).
// Parameters are named "layers.<i>.<SAGEConv name>".
type GraphSAGE struct {
	core
	Layers  []*SAGEConv
	Dropout float32
	// Checkpoint: see SAGEOptions.Checkpoint.
	Checkpoint bool
	gen        *tensor.Generator
}

// NewGraphSAGE builds a GraphSAGE model. It panics with ErrOption naming the
// field on an invalid option.
func NewGraphSAGE(o SAGEOptions) *GraphSAGE {
	const op = "GraphSAGE"
	if o.HiddenFeats == 0 {
		o.HiddenFeats = 256
	}
	if o.NumLayers == 0 {
		o.NumLayers = 2
	}
	checkPositive(op, "InFeats", o.InFeats)
	checkPositive(op, "OutFeats", o.OutFeats)
	checkPositive(op, "HiddenFeats", o.HiddenFeats)
	checkPositive(op, "NumLayers", o.NumLayers)
	checkDrop(op, "Dropout", o.Dropout)
	checkDrop(op, "InputDropout", o.InputDropout)
	m := &GraphSAGE{Dropout: o.Dropout, Checkpoint: o.Checkpoint, gen: tensor.NewGenerator(o.Seed)}
	for l := 0; l < o.NumLayers; l++ {
		in, out := o.HiddenFeats, o.HiddenFeats
		if l == 0 {
			in = o.InFeats
		}
		if l == o.NumLayers-1 {
			out = o.OutFeats
		}
		var drop float32
		if l == 0 {
			drop = o.InputDropout
		}
		c := NewSAGEConv(SAGEConvOptions{InFeats: in, OutFeats: out, Aggregator: o.Aggregator, FeatDrop: drop, Gen: m.gen})
		m.Layers = append(m.Layers, c)
		m.child(fmt.Sprintf("layers.%d", l), c)
	}
	return m
}

// Forward runs every layer on the full graph g: x (N, InFeats) -> (N,
// OutFeats) logits.
func (m *GraphSAGE) Forward(g graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	return m.ForwardGraphs(repeatGraph(g, len(m.Layers)), x)
}

// ForwardBlocks runs layer l on blocks[l]: x holds the features of
// blocks[0]'s source nodes; the result has one row per destination node of
// the last block. It panics with ErrShape when the number of blocks is not
// the number of layers.
func (m *GraphSAGE) ForwardBlocks(blocks []*graph.Block, x *tensor.Tensor) *tensor.Tensor {
	return m.ForwardGraphs(blockGraphs(blocks), x)
}

// ForwardGraphs is ForwardBlocks over any message graphs, one per layer.
func (m *GraphSAGE) ForwardGraphs(gs []graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	checkLayers("GraphSAGE.ForwardGraphs", len(gs), len(m.Layers))
	h := x
	for l, layer := range m.Layers {
		last := l == len(m.Layers)-1
		h = checkpointed(m.Checkpoint && !last, func(h *tensor.Tensor) *tensor.Tensor {
			h = layer.forward(gs[l], h, !last)
			if !last {
				h = m.dropout(h, m.Dropout, m.gen)
			}
			return h
		}, h)
	}
	return h
}

// String describes the GraphSAGE in the manner of DGL's and PyTorch's repr.
func (m *GraphSAGE) String() string {
	return stackString("GraphSAGE", fmt.Sprintf("dropout=%g", m.Dropout), len(m.Layers), func(i int) string { return m.Layers[i].String() })
}

func repeatGraph(g graph.MessageGraph, n int) []graph.MessageGraph {
	gs := make([]graph.MessageGraph, n)
	for i := range gs {
		gs[i] = g
	}
	return gs
}

func blockGraphs(blocks []*graph.Block) []graph.MessageGraph {
	gs := make([]graph.MessageGraph, len(blocks))
	for i, b := range blocks {
		gs[i] = b
	}
	return gs
}

func checkLayers(op string, got, want int) {
	if got != want {
		panicf(ErrShape, op, "got %d blocks for a model of %d layers (the sampler's fanouts must have one entry per layer)", got, want)
	}
}

func stackString(name, extra string, n int, layer func(int) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(%s,\n", name, extra)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  (layers.%d): %s\n", i, layer(i))
	}
	b.WriteString(")")
	return b.String()
}
