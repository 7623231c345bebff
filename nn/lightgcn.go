package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// LightGCNOptions configures NewLightGCN. Zero values take the defaults
// given per field.
type LightGCNOptions struct {
	// NumNodes is the number of nodes (users and items together) and
	// EmbeddingDim the width of their embeddings (64 when 0).
	NumNodes, EmbeddingDim int
	// NumLayers is the number of propagation steps (3 when 0; -1 means 0
	// layers: the model is then matrix factorisation over the embedding).
	NumLayers int
	// InitStd is the standard deviation of the normal initial embedding
	// (0.1 when 0, as the reference implementation).
	InitStd float32
	// Seed seeds the initial embedding.
	Seed int64
}

// LightGCN is the recommender of He et al., "LightGCN: Simplifying and
// Powering Graph Convolution Network for Recommendation" (SIGIR 2020;
// torch_geometric.nn.models.LightGCN): a learnable embedding e^(0) per
// node, K propagation steps e^(k+1) = D^-1/2 A D^-1/2 e^(k) over the
// user-item graph without weights or non-linearities (GraphConv with
// norm "both", no weight, no bias), and the mean of the K+1 layers,
// e = 1/(K+1) sum_k e^(k), as the final representation; a user-item pair
// scores e_u . e_i (DotPredictor). Train it with BPRLoss on sampled
// negatives. Parameter "embedding.weight" (NumNodes, EmbeddingDim)
// float32.
type LightGCN struct {
	core
	Embedding *Embedding
	NumLayers int
	conv      *GraphConv
}

// NewLightGCN builds a LightGCN. It panics with ErrOption naming the field
// on an invalid option.
func NewLightGCN(o LightGCNOptions) *LightGCN {
	checkPositive("LightGCN", "NumNodes", o.NumNodes)
	if o.EmbeddingDim == 0 {
		o.EmbeddingDim = 64
	}
	checkPositive("LightGCN", "EmbeddingDim", o.EmbeddingDim)
	switch {
	case o.NumLayers == 0:
		o.NumLayers = 3
	case o.NumLayers == -1:
		o.NumLayers = 0
	case o.NumLayers < 0:
		panicf(ErrOption, "LightGCN", "NumLayers = %d; want >= 0 (-1 for none)", o.NumLayers)
	}
	if o.InitStd == 0 {
		o.InitStd = 0.1
	}
	if o.InitStd < 0 {
		panicf(ErrOption, "LightGCN", "InitStd = %g; want > 0", o.InitStd)
	}
	m := &LightGCN{NumLayers: o.NumLayers}
	gen := tensor.NewGenerator(o.Seed)
	m.Embedding = &Embedding{NumEmbeddings: o.NumNodes, EmbeddingDim: o.EmbeddingDim}
	m.Embedding.Weight = m.Embedding.param("weight", tensor.MulScalar(tensor.Randn(gen, o.NumNodes, o.EmbeddingDim), o.InitStd))
	m.child("embedding", m.Embedding)
	m.conv = NewGraphConv(GraphConvOptions{InFeats: o.EmbeddingDim, OutFeats: o.EmbeddingDim, NoWeight: true, NoBias: true, AllowZeroInDegree: true})
	return m
}

// Forward returns the final node representations, (NumNodes,
// EmbeddingDim) float32 on the embedding's device: the mean of the
// embedding and its NumLayers propagations over g, a graph of NumNodes
// nodes holding every interaction in both directions
// (datasets.RecDataset.UserItemGraph). Gradients flow to the embedding.
// It panics with ErrShape when g does not have NumNodes nodes.
func (m *LightGCN) Forward(g graph.MessageGraph) *tensor.Tensor {
	if g == nil {
		panicf(ErrOption, "LightGCN.Forward", "g is nil")
	}
	if g.NumSrcNodes() != m.Embedding.NumEmbeddings || g.NumDstNodes() != m.Embedding.NumEmbeddings {
		panicf(ErrShape, "LightGCN.Forward", "g has %d source and %d destination nodes; the model has %d nodes",
			g.NumSrcNodes(), g.NumDstNodes(), m.Embedding.NumEmbeddings)
	}
	h := m.Embedding.Weight
	out := h
	for k := 0; k < m.NumLayers; k++ {
		h = m.conv.Forward(g, h)
		out = tensor.Add(out, h)
	}
	if m.NumLayers > 0 {
		out = tensor.MulScalar(out, 1/float32(m.NumLayers+1))
	}
	return out
}

// String describes the model as PyG's repr.
func (m *LightGCN) String() string {
	return fmt.Sprintf("LightGCN(%d, %d, num_layers=%d)", m.Embedding.NumEmbeddings, m.Embedding.EmbeddingDim, m.NumLayers)
}
