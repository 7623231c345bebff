package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// RGCNOptions configures an RGCN entity classifier. Zero values take the
// defaults of DGL's examples/pytorch/rgcn/entity.py.
type RGCNOptions struct {
	// NumNodes is the number of nodes of the homogeneous graph: every node
	// gets a learnable input embedding (featureless nodes).
	NumNodes int
	// InFeats, when set, is the size of input features given to the model
	// instead (ForwardBlocks on heterogeneous blocks, where each node
	// type's features come with the batch): the model then has no
	// embedding, and NumNodes and Featureless are unused.
	InFeats int
	// HiddenFeats is the embedding and hidden size (16 when 0).
	HiddenFeats int
	// OutFeats is the number of classes.
	OutFeats int
	// NumRels is the number of relations (canonical edge types, reverse
	// relations included).
	NumRels int
	// Regularizer is "basis" (the default when empty), "bdd" or "none"
	// (a full weight per relation, the paper's AIFB setting); NumBases
	// is the number of bases (NumRels when 0, as entity.py).
	Regularizer string
	NumBases    int
	// SelfLoop adds the self-loop term to both layers (entity.py: off).
	SelfLoop bool
	// NoBias drops the bias of both layers (DGL's bias=False): the R-GCN
	// paper's layers (eq. 2) and its reference implementation
	// (tkipf/relational-gcn) have none.
	NoBias bool
	// Dropout is applied to the hidden layer's output in training mode.
	Dropout float32
	// Featureless feeds the first layer the identity (one-hot node ids,
	// the R-GCN paper's featureless input: W_r of the first layer is
	// (NumNodes, HiddenFeats) per relation or basis, and the layer gathers
	// its rows rather than multiplying by the identity; see
	// RelGraphConv.Forward) instead of an Embedding. The paper's setups:
	// AIFB Featureless, Regularizer "none", SelfLoop, no weight decay;
	// MUTAG Featureless, "basis" with 30 bases, L2 5e-4 on the first layer
	// (examples/rgcn_mutag.go uses 10 bases, chosen by cross-validation).
	Featureless bool
	// Seed seeds the initial weights and dropout.
	Seed int64
	// NodeEmbeddings, with InFeats, gives each listed node type (node type
	// -> its number of nodes in the graph) a learnable input embedding of
	// InFeats per node instead of input features (RGCN.NodeEmb, sparse
	// gradients; DGL's RelGraphEmbed / NodeEmbedding for the featureless
	// types of ogbn-mag): ForwardBlocks then takes inputs only for the
	// other types. See RGCN.ForwardBlocks.
	NodeEmbeddings map[string]int
}

// RGCN is the two-layer R-GCN for entity classification of Schlichtkrull,
// Kipf et al. (ESWC 2018) as DGL's examples/pytorch/rgcn/entity.py builds
// it: an Embedding of every node as input, RelGraphConv(Hidden, Hidden,
// ReLU) and RelGraphConv(Hidden, OutFeats), both with the basis
// regularizer, no self loop and the bias.
type RGCN struct {
	core
	Emb    *Embedding
	Layers []*RelGraphConv
	// inFeats is RGCNOptions.InFeats (0: embedding or featureless input).
	inFeats int
	// NodeEmb maps a featureless node type to its input embedding
	// (RGCNOptions.NodeEmbeddings; Sparse), nil without.
	NodeEmb map[string]*Embedding
}

// NewRGCN builds the model. It panics with ErrOption naming a size that
// is not positive or an unknown regularizer.
func NewRGCN(o RGCNOptions) *RGCN {
	if o.HiddenFeats == 0 {
		o.HiddenFeats = 16
	}
	if o.Regularizer == "" {
		o.Regularizer = "basis"
	}
	switch o.Regularizer {
	case "basis", "bdd", "none":
	default:
		panicf(ErrOption, "RGCN", "Regularizer must be \"basis\" (the default), \"bdd\" or \"none\", got %q", o.Regularizer)
	}
	checkPositive("RGCN", "NumRels", o.NumRels)
	checkPositive("RGCN", "HiddenFeats", o.HiddenFeats)
	checkPositive("RGCN", "OutFeats", o.OutFeats)
	gen := tensor.NewGenerator(o.Seed)
	m := &RGCN{inFeats: o.InFeats}
	in0 := o.InFeats
	if o.InFeats < 0 {
		panicf(ErrOption, "RGCN", "InFeats must be >= 0 (0: an embedding of NumNodes nodes), got %d", o.InFeats)
	}
	if o.InFeats == 0 {
		checkPositive("RGCN", "NumNodes", o.NumNodes)
		in0 = o.NumNodes
	}
	if o.InFeats == 0 && !o.Featureless {
		m.Emb = NewEmbedding(o.NumNodes, o.HiddenFeats, gen)
		m.child("emb", m.Emb)
		in0 = o.HiddenFeats
	}
	for i, out := range []int{o.HiddenFeats, o.OutFeats} {
		in := o.HiddenFeats
		if i == 0 {
			in = in0
		}
		reg := o.Regularizer
		if reg == "none" {
			reg = ""
		}
		lo := RelGraphConvOptions{InFeats: in, OutFeats: out, NumRels: o.NumRels, Regularizer: reg,
			NumBases: o.NumBases, NoSelfLoop: !o.SelfLoop, NoBias: o.NoBias, Gen: gen}
		if i == 0 {
			lo.Activation = tensor.ReLU
			lo.Dropout = o.Dropout
		}
		l := NewRelGraphConv(lo)
		m.Layers = append(m.Layers, l)
		m.child(fmt.Sprintf("conv%d", i+1), l)
	}
	m.addNodeEmbeddings(o, gen)
	return m
}

// Forward returns the class logits of every node of g, (NumNodes,
// OutFeats) float32: g is the homogeneous graph (graph.ToHomogeneous),
// etypes (E) int64 its edges' relation ids, norm (E, 1) or nil their
// weights (graph.NormByDst per relation). Panics as RelGraphConv.Forward.
func (m *RGCN) Forward(g graph.MessageGraph, etypes, norm *tensor.Tensor) *tensor.Tensor {
	if m.inFeats > 0 {
		panicf(ErrOption, "RGCN.Forward", "the model takes input features (InFeats = %d); use ForwardBlocks", m.inFeats)
	}
	if hg, ok := g.(*graph.Graph); ok && hg != nil && !hg.IsHomogeneous() {
		panicf(ErrOption, "RGCN.Forward", "g has several node or edge types: give its homogeneous form, g.ToHomogeneous, with etypes its %q edge data (or use ForwardBlocks on hetero blocks)", graph.EType)
	}
	var h *tensor.Tensor // nil: featureless
	if m.Emb != nil {
		h = m.Emb.Weight
	}
	for _, l := range m.Layers {
		h = l.Forward(g, h, etypes, norm)
	}
	return h
}

func (m *RGCN) String() string {
	if m.inFeats > 0 {
		return fmt.Sprintf("RGCN(in_feats=%d, %v, %v)", m.inFeats, m.Layers[0], m.Layers[1])
	}
	if m.Emb == nil {
		return fmt.Sprintf("RGCN(featureless, %v, %v)", m.Layers[0], m.Layers[1])
	}
	return fmt.Sprintf("RGCN(%v, %v, %v)", m.Emb, m.Layers[0], m.Layers[1])
}
