package optim

import (
	"fmt"
	"sort"

	"github.com/gnnrepl/gnnrepl/internal/rowopt"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// SparseParam is an embedding table whose gradient comes as the rows a
// step looked up rather than as a dense tensor (nn.Embedding with Sparse
// set: torch's nn.Embedding(sparse=True), DGL's dgl.nn.NodeEmbedding).
type SparseParam interface {
	// SparseWeight returns the table, (N, D) float32 on the CPU; the
	// optimizer updates it in place.
	SparseWeight() *tensor.Tensor
	// SparseGrad returns the rows looked up since the last ZeroSparseGrad
	// that received a gradient: idx (K) int64 row ids (repeats allowed,
	// their gradients add) and grad (K, D) float32; nil, nil when none.
	SparseGrad() (idx, grad *tensor.Tensor)
	// ZeroSparseGrad clears the gradient: SparseGrad returns nothing of
	// the lookups made so far that have received their gradient. A lookup
	// awaiting its Backward must be kept, so that zeroing between Forward
	// and Backward (PyTorch's usual order) loses nothing.
	ZeroSparseGrad()
}

// SparseAdamOptions are SparseAdam's hyperparameters; zero fields take
// torch.optim.SparseAdam's defaults.
type SparseAdamOptions struct {
	// LR is the learning rate (1e-3 when 0).
	LR float64
	// Betas are the moment decay rates ({0.9, 0.999} when both are 0).
	Betas [2]float64
	// Eps is added to the denominator (1e-8 when 0).
	Eps float64
}

// SparseAdam is Adam applied row-wise to the rows of embedding tables that
// a step looked up (DGL's dgl.optim.SparseAdam for NodeEmbedding, the
// optimizer of its R-GCN on ogbn-mag): for a row with gradient g (the sum
// over its lookups) at its t-th update,
//
//	m = b1 m + (1-b1) g,  v = b2 v + (1-b2) g^2,
//	w -= lr * (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps)
//
// with t counted per row, as DGL; rows not looked up keep their weights
// and moments. The moments (2 N D float32 per table) are allocated at the
// first Step. Tables must be float32 on the CPU. Step clears the sparse
// gradients it applied (as DGL resets its trace), so ZeroGrad is optional;
// ZeroGrad clears them too, and may come between Forward and Backward.
type SparseAdam struct {
	params []SparseParam
	o      SparseAdamOptions
	state  []sparseAdamState
}

type sparseAdamState struct {
	m, v []float32
	step []int32
}

// NewSparseAdam returns a SparseAdam over params. It panics with ErrOption
// when params is empty or holds nil, or a hyperparameter is invalid.
func NewSparseAdam(params []SparseParam, o SparseAdamOptions) *SparseAdam {
	const op = "NewSparseAdam"
	if len(params) == 0 {
		panicf(ErrOption, op, "params is empty")
	}
	for i, p := range params {
		if p == nil || p.SparseWeight() == nil {
			panicf(ErrOption, op, "params[%d] is nil", i)
		}
	}
	ao := AdamOptions{LR: o.LR, Betas: o.Betas, Eps: o.Eps}
	ao.defaults(op, false)
	o.LR, o.Betas, o.Eps = ao.LR, ao.Betas, ao.Eps
	return &SparseAdam{params: append([]SparseParam(nil), params...), o: o, state: make([]sparseAdamState, len(params))}
}

// Step updates the looked-up rows of every table, then clears their
// sparse gradients.
// It panics with ErrOption for a table that is not (N, D) float32 on the
// CPU, and with ErrIndex (from the tensor package) for a row id out of
// range.
func (a *SparseAdam) Step() {
	const op = "SparseAdam.Step"
	b1, b2 := a.o.Betas[0], a.o.Betas[1]
	for pi, p := range a.params {
		idx, grad := p.SparseGrad()
		p.ZeroSparseGrad()
		if idx == nil || idx.Numel() == 0 {
			continue
		}
		w := p.SparseWeight()
		if w.Dim() != 2 || w.DType() != tensor.Float32 || w.Device() != "cpu" {
			panicf(ErrOption, op, "params[%d]: the table must be (N, D) float32 on the cpu, got %s%v on %s", pi, w.DType(), w.Shape(), w.Device())
		}
		n, d := w.Size(0), w.Size(1)
		if grad.Device() != "cpu" {
			g, err := grad.To("cpu")
			if err != nil {
				panic(err)
			}
			grad = g
		}
		if idx.Device() != "cpu" {
			g, err := idx.To("cpu")
			if err != nil {
				panic(err)
			}
			idx = g
		}
		if idx.Dim() != 1 || grad.Dim() != 2 || grad.Size(0) != idx.Size(0) || grad.Size(1) != d || grad.DType() != tensor.Float32 {
			panicf(ErrOption, op, "params[%d]: sparse gradient must be idx (K) and grad (K, %d) float32, got %v and %s%v", pi, d, idx.Shape(), grad.DType(), grad.Shape())
		}
		ids, gs := idx.Int64s(), grad.Float32s()
		// Sum the gradients of repeated rows (torch coalesces the sparse
		// gradient), visiting the rows in increasing order.
		pos := map[int64]int{}
		var rows []int64
		for _, r := range ids {
			if r < 0 || r >= int64(n) {
				panicf(ErrOption, op, "params[%d]: row id %d out of range [0, %d)", pi, r, n)
			}
			if _, ok := pos[r]; !ok {
				pos[r] = len(rows)
				rows = append(rows, r)
			}
		}
		sum := make([]float32, len(rows)*d)
		for k, r := range ids {
			dst := sum[pos[r]*d : pos[r]*d+d]
			for j, g := range gs[k*d : k*d+d] {
				dst[j] += g
			}
		}
		st := &a.state[pi]
		if st.m == nil {
			st.m, st.v, st.step = make([]float32, n*d), make([]float32, n*d), make([]int32, n)
		}
		wd := w.Float32s()
		sort.Slice(rows, func(i, j int) bool { return rows[i] < rows[j] })
		for _, r := range rows {
			st.step[r]++
			off := int(r) * d
			rowopt.Adam(wd[off:off+d], st.m[off:off+d], st.v[off:off+d], sum[pos[r]*d:pos[r]*d+d], 1, int(st.step[r]), a.o.LR, b1, b2, a.o.Eps)
		}
	}
}

// ZeroGrad clears every table's sparse gradient (SparseParam.ZeroSparseGrad).
func (a *SparseAdam) ZeroGrad() {
	for _, p := range a.params {
		p.ZeroSparseGrad()
	}
}

// String describes the optimizer.
func (a *SparseAdam) String() string {
	return fmt.Sprintf("SparseAdam(%d tables, lr=%g, betas=(%g, %g), eps=%g)", len(a.params), a.o.LR, a.o.Betas[0], a.o.Betas[1], a.o.Eps)
}
