package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// GCNOptions configures a GCN model. Zero values take the defaults given
// per field, which are Kipf & Welling's except for the dropouts.
type GCNOptions struct {
	InFeats, OutFeats int
	// HiddenFeats is the width of the hidden layers (16 when 0).
	HiddenFeats int
	// NumLayers is the number of GraphConv layers (2 when 0).
	NumLayers int
	// Dropout is applied to the input of every layer but the first (DGL's
	// GCN example; Kipf & Welling use 0.5).
	Dropout float32
	// InputDropout is applied to the input features of the first layer.
	// Kipf & Welling's reference code drops the input too, with the same
	// rate as Dropout; DGL's example does not (0).
	InputDropout float32
	// Norm is each GraphConv's normalisation ("both" when empty).
	Norm string
	// AllowZeroInDegree is passed to every GraphConv.
	AllowZeroInDegree bool
	// Seed seeds the generator of the initial weights and dropout masks.
	Seed int64
	// Checkpoint recomputes every layer but the last in the backward pass
	// instead of keeping its activations (gradient checkpointing, see
	// Checkpointed): less memory for one extra forward pass of those layers.
	Checkpoint bool
}

// GCN is the graph convolutional network of Kipf & Welling, "Semi-Supervised
// Classification with Graph Convolutional Networks" (ICLR 2017): GraphConv
// layers with ReLU between them and dropout on each layer's input, as DGL's
// examples/pytorch/gcn (the dropout is each GraphConv's FeatDrop). Parameters are named "layers.<i>.weight" and
// "layers.<i>.bias". With Kipf & Welling's weight decay on the first layer
// only, give the optimizer Layers[0].Parameters() with WeightDecay and the
// rest in a second parameter group without.
type GCN struct {
	core
	Layers []*GraphConv
	// Dropout and InputDropout record the options; the rate each layer
	// applies is its FeatDrop (Layers[0].FeatDrop is InputDropout, the
	// others Dropout), which can be changed between epochs.
	Dropout, InputDropout float32
	// Checkpoint: see GCNOptions.Checkpoint.
	Checkpoint bool
}

// NewGCN builds a GCN model. It panics with ErrOption naming the field on an
// invalid option.
func NewGCN(o GCNOptions) *GCN {
	const op = "GCN"
	if o.HiddenFeats == 0 {
		o.HiddenFeats = 16
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
	m := &GCN{Dropout: o.Dropout, InputDropout: o.InputDropout, Checkpoint: o.Checkpoint}
	gen := tensor.NewGenerator(o.Seed)
	for l := 0; l < o.NumLayers; l++ {
		in, out := o.HiddenFeats, o.HiddenFeats
		if l == 0 {
			in = o.InFeats
		}
		var act func(*tensor.Tensor) *tensor.Tensor
		if l == o.NumLayers-1 {
			out = o.OutFeats
		} else {
			act = tensor.ReLU
		}
		drop := o.Dropout
		if l == 0 {
			drop = o.InputDropout
		}
		c := NewGraphConv(GraphConvOptions{InFeats: in, OutFeats: out, Norm: o.Norm, Activation: act,
			FeatDrop: drop, AllowZeroInDegree: o.AllowZeroInDegree, Gen: gen})
		m.Layers = append(m.Layers, c)
		m.child(fmt.Sprintf("layers.%d", l), c)
	}
	return m
}

// Forward runs every layer on the full graph g: x (N, InFeats) -> (N,
// OutFeats) logits.
func (m *GCN) Forward(g graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	return m.ForwardGraphs(repeatGraph(g, len(m.Layers)), x)
}

// ForwardBlocks runs layer l on blocks[l]; see GraphSAGE.ForwardBlocks.
func (m *GCN) ForwardBlocks(blocks []*graph.Block, x *tensor.Tensor) *tensor.Tensor {
	return m.ForwardGraphs(blockGraphs(blocks), x)
}

// ForwardGraphs is ForwardBlocks over any message graphs, one per layer.
func (m *GCN) ForwardGraphs(gs []graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	checkLayers("GCN.ForwardGraphs", len(gs), len(m.Layers))
	h := x
	for l, layer := range m.Layers {
		// Each layer drops its input (FeatDrop).
		h = checkpointed(m.Checkpoint && l < len(m.Layers)-1, func(h *tensor.Tensor) *tensor.Tensor { return layer.Forward(gs[l], h) }, h)
	}
	return h
}

// String describes the GCN in the manner of DGL's and PyTorch's repr.
func (m *GCN) String() string {
	return stackString("GCN", fmt.Sprintf("dropout=%g, input_dropout=%g", m.Dropout, m.InputDropout),
		len(m.Layers), func(i int) string { return m.Layers[i].String() })
}
