package metrics

import (
	"container/heap"
	"math"
	"sort"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// EvalEmbeddings is full ranking for recommendation, as LightGCN's and
// NGCF's evaluation: every user with at least one relevant pair ranks all
// items by the dot product userEmb[u] . itemEmb[i], leaving out the items
// of the user's exclude pairs (the training interactions), and the
// evaluator returns Recall@K and NDCG@K over those users (binary
// relevance). The metrics equal RecallAtK and NDCGAtK on the full (U, I)
// score matrix with excluded items at -Inf (ties in item order, NDCG's
// ties sharing their gain), without forming that matrix: scores are
// computed in chunks of users and only each row's top max(K) (and the
// items tied with the last of them) are ordered.
//
// userEmb is (U, D) and itemEmb (I, D) floating, on any device (copied to
// the CPU); a popularity baseline passes (U, 1) ones and (I, 1) counts.
// exclude (may be nil) and relevant are (M, 2) int64 (user, item) pairs,
// relevant typically the test pairs of datasets.RecDataset. Errors (never
// panics): nil or non-2-D embeddings, differing D, pairs that are not
// (M, 2) int64 or hold an id out of range, NaN scores, no relevant pair,
// K below 1.
func (e RankingEvaluator) EvalEmbeddings(userEmb, itemEmb, exclude, relevant *tensor.Tensor) (RankingResult, error) {
	const op = "RankingEvaluator.EvalEmbeddings"
	ks := e.K
	if ks == nil {
		ks = []int{10, 20}
	}
	if len(ks) == 0 {
		return RankingResult{}, errorf(ErrArgument, op, "K is empty")
	}
	maxK := 0
	for _, k := range ks {
		if k < 1 {
			return RankingResult{}, errorf(ErrArgument, op, "K holds %d; every K must be >= 1", k)
		}
		maxK = max(maxK, k)
	}
	for _, a := range []struct {
		name string
		t    *tensor.Tensor
	}{{"userEmb", userEmb}, {"itemEmb", itemEmb}} {
		if a.t == nil {
			return RankingResult{}, errorf(ErrArgument, op, "%s is nil", a.name)
		}
		if a.t.Dim() != 2 || !a.t.DType().IsFloatingPoint() {
			return RankingResult{}, errorf(ErrShape, op, "%s must be 2-D floating (rows, D), got %s %v", a.name, a.t.DType(), a.t.Shape())
		}
	}
	if userEmb.Size(1) != itemEmb.Size(1) {
		return RankingResult{}, errorf(ErrShape, op, "userEmb %v and itemEmb %v differ in D", userEmb.Shape(), itemEmb.Shape())
	}
	nu, ni := userEmb.Size(0), itemEmb.Size(0)
	rel, err := pairsByUser(op, "relevant", relevant, nu, ni)
	if err != nil {
		return RankingResult{}, err
	}
	var exc [][]int64
	if exclude != nil {
		if exc, err = pairsByUser(op, "exclude", exclude, nu, ni); err != nil {
			return RankingResult{}, err
		}
	}
	var users []int64
	for u, r := range rel {
		if len(r) > 0 {
			users = append(users, int64(u))
		}
	}
	if len(users) == 0 {
		return RankingResult{}, errorf(ErrArgument, op, "relevant holds no pair")
	}

	res := RankingResult{Recall: map[int]float64{}, NDCG: map[int]float64{}, Users: len(users)}
	for _, k := range ks {
		res.Recall[k], res.NDCG[k] = 0, 0
	}
	const chunk = 256
	excluded := make([]bool, ni)
	isRel := make([]bool, ni)
	var scoreErr error
	err = tensor.Catch(func() {
		tensor.NoGrad(func() {
			ue, ie := cpuFloat32(userEmb), cpuFloat32(itemEmb)
			ieT := tensor.Transpose(ie)
			for start := 0; start < len(users); start += chunk {
				rows := users[start:min(start+chunk, len(users))]
				s := tensor.MatMul(tensor.IndexSelect(ue, tensor.FromInt64(rows)), ieT).Float32s()
				for r, u := range rows {
					row := s[r*ni : (r+1)*ni]
					if exc != nil {
						for _, i := range exc[u] {
							excluded[i] = true
						}
					}
					for _, i := range rel[u] {
						isRel[i] = true
					}
					recall, ndcg, bad := rankRow(row, excluded, isRel, len(rel[u]), ks, maxK)
					if bad >= 0 && scoreErr == nil {
						scoreErr = errorf(ErrArgument, op, "the score of user %d and item %d is NaN", u, bad)
					}
					for j, k := range ks {
						res.Recall[k] += recall[j]
						res.NDCG[k] += ndcg[j]
					}
					if exc != nil {
						for _, i := range exc[u] {
							excluded[i] = false
						}
					}
					for _, i := range rel[u] {
						isRel[i] = false
					}
				}
			}
		})
	})
	if err != nil {
		return RankingResult{}, err
	}
	if scoreErr != nil {
		return RankingResult{}, scoreErr
	}
	for _, k := range ks {
		res.Recall[k] /= float64(len(users))
		res.NDCG[k] /= float64(len(users))
	}
	return res, nil
}

// cpuFloat32 returns t detached, on the CPU, as float32.
func cpuFloat32(t *tensor.Tensor) *tensor.Tensor {
	c := t.Detach()
	if c.Device() != "cpu" {
		var err error
		if c, err = c.To("cpu"); err != nil {
			panic(err)
		}
	}
	if c.DType() != tensor.Float32 {
		c = c.Cast(tensor.Float32)
	}
	return c
}

// pairsByUser reads (M, 2) int64 (user, item) pairs into per-user item
// lists (repeats kept once).
func pairsByUser(op, arg string, t *tensor.Tensor, nu, ni int) ([][]int64, error) {
	if t == nil {
		return nil, errorf(ErrArgument, op, "%s is nil", arg)
	}
	if t.DType() != tensor.Int64 || t.Dim() != 2 || t.Size(1) != 2 {
		return nil, errorf(ErrShape, op, "%s must be (M, 2) int64 (user, item) pairs, got %s %v", arg, t.DType(), t.Shape())
	}
	var p []int64
	if err := tensor.Catch(func() {
		c := t
		if c.Device() != "cpu" {
			var err error
			if c, err = c.To("cpu"); err != nil {
				panic(err)
			}
		}
		p = c.Int64s()
	}); err != nil {
		return nil, err
	}
	out := make([][]int64, nu)
	for r := 0; r < len(p)/2; r++ {
		u, i := p[2*r], p[2*r+1]
		if u < 0 || u >= int64(nu) || i < 0 || i >= int64(ni) {
			return nil, errorf(ErrArgument, op, "%s row %d (%d, %d) is outside [0, %d) x [0, %d)", arg, r, u, i, nu, ni)
		}
		out[u] = append(out[u], i)
	}
	for u, l := range out {
		if len(l) > 1 {
			sort.Slice(l, func(a, b int) bool { return l[a] < l[b] })
			k := 1
			for j := 1; j < len(l); j++ {
				if l[j] != l[k-1] {
					l[k] = l[j]
					k++
				}
			}
			out[u] = l[:k]
		}
	}
	return out, nil
}

// topHeap is a min-heap of item indices by (score, -index): its root is
// the weakest of the best items kept.
type topHeap struct {
	idx []int
	s   []float32
}

func (h topHeap) Len() int { return len(h.idx) }
func (h topHeap) Less(a, b int) bool {
	sa, sb := h.s[h.idx[a]], h.s[h.idx[b]]
	if sa != sb {
		return sa < sb
	}
	return h.idx[a] > h.idx[b]
}
func (h topHeap) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *topHeap) Push(x any)   { h.idx = append(h.idx, x.(int)) }
func (h *topHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// rankRow returns Recall@k and NDCG@k of one user's scores (items with
// excluded set left out), and the first NaN item or -1.
func rankRow(s []float32, excluded, isRel []bool, numRel int, ks []int, maxK int) (recall, ndcg []float64, nan int) {
	nan = -1
	h := &topHeap{idx: make([]int, 0, maxK+1), s: s}
	for i, v := range s {
		if excluded[i] {
			continue
		}
		if v != v {
			if nan < 0 {
				nan = i
			}
			continue
		}
		if h.Len() < maxK {
			heap.Push(h, i)
		} else if r := h.idx[0]; v > s[r] {
			h.idx[0] = i
			heap.Fix(h, 0)
		}
	}
	// Candidates: every kept item scoring at least the weakest of the top
	// maxK, so that a tie group straddling a cut-off is whole.
	thr := float32(math.Inf(-1))
	if h.Len() == maxK {
		thr = s[h.idx[0]]
	}
	var cand []int
	for i, v := range s {
		if !excluded[i] && v == v && v >= thr {
			cand = append(cand, i)
		}
	}
	sort.SliceStable(cand, func(a, b int) bool { return s[cand[a]] > s[cand[b]] })
	sc, rc := make([]float64, len(cand)), make([]float64, len(cand))
	ord := make([]int, len(cand))
	for j, i := range cand {
		sc[j] = float64(s[i])
		if isRel[i] {
			rc[j] = 1
		}
		ord[j] = j
	}
	ones := make([]float64, numRel)
	for j := range ones {
		ones[j] = 1
	}
	recall, ndcg = make([]float64, len(ks)), make([]float64, len(ks))
	for j, k := range ks {
		hit := 0
		for _, v := range rc[:min(k, len(rc))] {
			if v > 0 {
				hit++
			}
		}
		recall[j] = float64(hit) / float64(numRel)
		ndcg[j] = tieAveragedDCG(sc, rc, ord, k) / idealDCG(ones, k)
	}
	return recall, ndcg, nan
}
