package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// GATOptions configures a GAT model. Zero values take the defaults given
// per field, which are the paper's Cora setup except for the dropouts.
type GATOptions struct {
	InFeats, OutFeats int
	// HiddenFeats is the width of each hidden head (8 when 0).
	HiddenFeats int
	// NumLayers is the number of GATConv layers (2 when 0).
	NumLayers int
	// NumHeads is the number of heads of the hidden layers (8 when 0); their
	// outputs are concatenated.
	NumHeads int
	// NumOutHeads is the number of heads of the output layer (1 when 0;
	// the paper uses 8 on PubMed); their outputs are averaged.
	NumOutHeads int
	// FeatDrop and AttnDrop are every layer's input and attention dropout
	// (the paper uses 0.6 for both).
	FeatDrop, AttnDrop float32
	// NegativeSlope of the attention LeakyReLU (0.2 when 0).
	NegativeSlope float32
	// Residual adds residual connections to every layer but the first (as
	// DGL's GAT example).
	Residual bool
	// AllowZeroInDegree is passed to every GATConv.
	AllowZeroInDegree bool
	// Seed seeds the generator of the initial weights and dropout masks.
	Seed int64
	// Checkpoint recomputes every layer but the last in the backward pass
	// instead of keeping its activations (gradient checkpointing, see
	// Checkpointed): less memory for one extra forward pass of those layers.
	Checkpoint bool
}

// GAT is the graph attention network of Veličković et al., "Graph Attention
// Networks" (ICLR 2018), as DGL's examples/pytorch/gat: hidden GATConv
// layers of NumHeads heads with ELU, concatenated, and an output GATConv of
// NumOutHeads heads, averaged. The paper's transductive setup is
// GATOptions{HiddenFeats: 8, NumHeads: 8, FeatDrop: 0.6, AttnDrop: 0.6}
// with Adam (lr 0.005, weight decay 5e-4). Parameters are named
// "layers.<i>.<GATConv name>".
type GAT struct {
	core
	Layers []*GATConv
	// Checkpoint: see GATOptions.Checkpoint.
	Checkpoint bool
	gen        *tensor.Generator
}

// NewGAT builds a GAT model. It panics with ErrOption naming the field on an
// invalid option.
func NewGAT(o GATOptions) *GAT {
	const op = "GAT"
	if o.HiddenFeats == 0 {
		o.HiddenFeats = 8
	}
	if o.NumLayers == 0 {
		o.NumLayers = 2
	}
	if o.NumHeads == 0 {
		o.NumHeads = 8
	}
	if o.NumOutHeads == 0 {
		o.NumOutHeads = 1
	}
	checkPositive(op, "InFeats", o.InFeats)
	checkPositive(op, "OutFeats", o.OutFeats)
	checkPositive(op, "HiddenFeats", o.HiddenFeats)
	checkPositive(op, "NumLayers", o.NumLayers)
	checkPositive(op, "NumHeads", o.NumHeads)
	checkPositive(op, "NumOutHeads", o.NumOutHeads)
	m := &GAT{Checkpoint: o.Checkpoint, gen: tensor.NewGenerator(o.Seed)}
	in := o.InFeats
	for l := 0; l < o.NumLayers; l++ {
		co := GATConvOptions{InFeats: in, OutFeats: o.HiddenFeats, NumHeads: o.NumHeads,
			FeatDrop: o.FeatDrop, AttnDrop: o.AttnDrop, NegativeSlope: o.NegativeSlope,
			Residual: o.Residual && l > 0, Activation: ELU{}.Forward, AllowZeroInDegree: o.AllowZeroInDegree, Gen: m.gen}
		if l == o.NumLayers-1 {
			co.OutFeats, co.NumHeads, co.Activation, co.Merge = o.OutFeats, o.NumOutHeads, nil, "mean"
		}
		c := NewGATConv(co)
		m.Layers = append(m.Layers, c)
		m.child(fmt.Sprintf("layers.%d", l), c)
		in = o.HiddenFeats * o.NumHeads
	}
	return m
}

// Forward runs every layer on the full graph g: x (N, InFeats) -> (N,
// OutFeats) logits.
func (m *GAT) Forward(g graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	return m.ForwardGraphs(repeatGraph(g, len(m.Layers)), x)
}

// ForwardBlocks runs layer l on blocks[l]; see GraphSAGE.ForwardBlocks.
func (m *GAT) ForwardBlocks(blocks []*graph.Block, x *tensor.Tensor) *tensor.Tensor {
	return m.ForwardGraphs(blockGraphs(blocks), x)
}

// ForwardGraphs is ForwardBlocks over any message graphs, one per layer.
func (m *GAT) ForwardGraphs(gs []graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	checkLayers("GAT.ForwardGraphs", len(gs), len(m.Layers))
	h := x
	for l, layer := range m.Layers {
		h = checkpointed(m.Checkpoint && l < len(m.Layers)-1, func(h *tensor.Tensor) *tensor.Tensor { return layer.Forward(gs[l], h) }, h)
	}
	return h
}

// String describes the GAT in the manner of DGL's and PyTorch's repr.
func (m *GAT) String() string {
	return stackString("GAT", fmt.Sprintf("layers=%d", len(m.Layers)), len(m.Layers), func(i int) string { return m.Layers[i].String() })
}
