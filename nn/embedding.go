package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Embedding is a lookup table of NumEmbeddings rows of EmbeddingDim
// features (torch.nn.Embedding): the learnable input of featureless nodes
// (R-GCN's entity embeddings, user and item ids). Parameter "weight"
// (NumEmbeddings, EmbeddingDim) float32, initialised N(0, 1) as torch. Its
// gradient is dense (torch's sparse=False).
type Embedding struct {
	core
	NumEmbeddings, EmbeddingDim int
	Weight                      *tensor.Tensor
}

// NewEmbedding returns an Embedding drawn from gen (the default generator
// when nil). It panics with ErrOption when a size is not positive.
func NewEmbedding(numEmbeddings, embeddingDim int, gen *tensor.Generator) *Embedding {
	checkPositive("Embedding", "num_embeddings", numEmbeddings)
	checkPositive("Embedding", "embedding_dim", embeddingDim)
	e := &Embedding{NumEmbeddings: numEmbeddings, EmbeddingDim: embeddingDim}
	e.Weight = e.param("weight", tensor.Randn(genOr(gen), numEmbeddings, embeddingDim))
	return e
}

// Forward looks up rows: idx (B) int64 ids in [0, NumEmbeddings) -> (B,
// EmbeddingDim); the gradient is added into the rows looked up. It panics
// with ErrIndex naming the first id out of range and ErrDType for an index
// that is not 1-D int64 (tensor.IndexSelect).
func (e *Embedding) Forward(idx *tensor.Tensor) *tensor.Tensor {
	if idx == nil {
		panicf(ErrOption, "Embedding.Forward", "idx is nil")
	}
	return tensor.IndexSelect(e.Weight, idx)
}

// String describes the Embedding as torch's repr.
func (e *Embedding) String() string {
	return fmt.Sprintf("Embedding(%d, %d)", e.NumEmbeddings, e.EmbeddingDim)
}
