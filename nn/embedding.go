package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Embedding is a lookup table of NumEmbeddings rows of EmbeddingDim
// features (torch.nn.Embedding): the learnable input of featureless nodes
// (R-GCN's entity embeddings, user and item ids). Parameter "weight"
// (NumEmbeddings, EmbeddingDim) float32, initialised N(0, 1) as torch. Its
// gradient is dense (torch's sparse=False) unless Sparse is set.
type Embedding struct {
	core
	NumEmbeddings, EmbeddingDim int
	Weight                      *tensor.Tensor
	// Sparse makes the gradient sparse (torch's sparse=True, DGL's
	// NodeEmbedding): Forward in training mode returns the looked-up rows
	// as a new leaf and records them; Weight.Grad stays nil, and
	// SparseGrad returns the rows' ids and gradients after Backward, for
	// optim.SparseAdam (a dense optimizer skips Weight). Only the rows a
	// batch touches cost memory and time, as a table of millions of nodes
	// needs.
	Sparse  bool
	lookups []sparseLookup
	zeros   int // ZeroSparseGrad calls so far
}

// sparseLookup is one sparse Forward: the ids, the rows' leaf and the
// number of ZeroSparseGrad calls before it.
type sparseLookup struct {
	idx, rows *tensor.Tensor
	zeros     int
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
// EmbeddingDim); the gradient is added into the rows looked up (into
// Weight.Grad, or with Sparse into the lookup that SparseGrad returns;
// a sparse lookup in eval mode or under tensor.NoGrad records nothing). It
// panics with ErrIndex naming the first id out of range and ErrDType for
// an index that is not 1-D int64 (tensor.IndexSelect).
func (e *Embedding) Forward(idx *tensor.Tensor) *tensor.Tensor {
	if idx == nil {
		panicf(ErrOption, "Embedding.Forward", "idx is nil")
	}
	if !e.Sparse {
		return tensor.IndexSelect(e.Weight, idx)
	}
	rows := tensor.IndexSelect(e.Weight.Detach(), idx)
	if e.Training() && tensor.GradEnabled() {
		rows.SetRequiresGrad(true)
		e.lookups = append(e.lookups, sparseLookup{idx, rows, e.zeros})
	}
	return rows
}

// SparseWeight returns Weight (optim.SparseParam).
func (e *Embedding) SparseWeight() *tensor.Tensor { return e.Weight }

// SparseGrad returns the ids and gradients of the sparse lookups since the
// last ZeroSparseGrad that received a gradient (optim.SparseParam): idx
// (K) int64 and grad (K, EmbeddingDim) float32, on the device of the
// lookups, repeated ids not summed; nil, nil when there are none or the
// embedding is not Sparse.
func (e *Embedding) SparseGrad() (idx, grad *tensor.Tensor) {
	var ids, gs []*tensor.Tensor
	for _, l := range e.lookups {
		if g := l.rows.Grad(); g != nil {
			ids, gs = append(ids, l.idx), append(gs, g)
		}
	}
	switch len(ids) {
	case 0:
		return nil, nil
	case 1:
		return ids[0], gs[0]
	}
	return tensor.Concat(ids, 0), tensor.Concat(gs, 0)
}

// ZeroSparseGrad clears the sparse gradient (optim.SparseParam): it
// forgets the lookups that have received a gradient, and those still
// without one that were made before the previous ZeroSparseGrad (a
// Forward whose Backward never came). A lookup made since then and awaiting
// its Backward is kept, so zeroing between Forward and Backward (PyTorch's
// usual order) loses nothing.
func (e *Embedding) ZeroSparseGrad() {
	kept := e.lookups[:0]
	for _, l := range e.lookups {
		if l.rows.Grad() == nil && l.zeros == e.zeros {
			kept = append(kept, l)
		}
	}
	for i := len(kept); i < len(e.lookups); i++ {
		e.lookups[i] = sparseLookup{}
	}
	e.lookups = kept
	e.zeros++
}

// String describes the Embedding as torch's repr.
func (e *Embedding) String() string {
	if e.Sparse {
		return fmt.Sprintf("Embedding(%d, %d, sparse=True)", e.NumEmbeddings, e.EmbeddingDim)
	}
	return fmt.Sprintf("Embedding(%d, %d)", e.NumEmbeddings, e.EmbeddingDim)
}
