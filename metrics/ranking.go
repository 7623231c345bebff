package metrics

import (
	"fmt"
	"math"
	"sort"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// rankingInput reads a (U, L) score matrix and a relevance matrix of the
// same shape (bool, or floating graded relevance >= 0).
func rankingInput(op string, scores, relevance *tensor.Tensor, k int) (s, rel []float64, u, l int, err error) {
	if k < 1 {
		return nil, nil, 0, 0, errorf(ErrArgument, op, "k = %d; want k >= 1", k)
	}
	if s, err = values(op, "scores", scores); err != nil {
		return
	}
	if relevance == nil {
		return nil, nil, 0, 0, errorf(ErrArgument, op, "relevance is nil")
	}
	if scores.Dim() != 2 || !sameShape(scores.Shape(), relevance.Shape()) {
		return nil, nil, 0, 0, errorf(ErrShape, op, "scores and relevance must be (users, items) of the same shape, got %v and %v",
			scores.Shape(), relevance.Shape())
	}
	u, l = scores.Size(0), scores.Size(1)
	if relevance.DType() == tensor.Bool {
		var b []bool
		if err = tensor.Catch(func() {
			c := relevance
			if c.Device() != "cpu" {
				var err error
				if c, err = c.To("cpu"); err != nil {
					panic(err)
				}
			}
			b = c.Bools()
		}); err != nil {
			return nil, nil, 0, 0, fmt.Errorf("metrics.%s: reading relevance: %w", op, err)
		}
		rel = make([]float64, len(b))
		for i, v := range b {
			if v {
				rel[i] = 1
			}
		}
	} else if rel, err = values(op, "relevance", relevance); err != nil {
		return
	}
	for i, v := range rel {
		if v < 0 || math.IsInf(v, 0) {
			return nil, nil, 0, 0, errorf(ErrArgument, op, "relevance[%d, %d] = %g; relevance must be finite and >= 0", i/l, i%l, v)
		}
	}
	return s, rel, u, l, nil
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// order returns the item indices of one row by score, highest first, ties
// in index order.
func order(s []float64) []int {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
	return idx
}

// rowMetrics returns, for every user with a relevant item, Recall@k and
// NDCG@k of that row.
func rowMetrics(s, rel []float64, u, l int, ks []int) (recall, ndcg map[int]float64, users int) {
	recall, ndcg = map[int]float64{}, map[int]float64{}
	for _, k := range ks {
		recall[k], ndcg[k] = 0, 0
	}
	for r := 0; r < u; r++ {
		rs, rr := s[r*l:(r+1)*l], rel[r*l:(r+1)*l]
		relevant := 0
		for _, v := range rr {
			if v > 0 {
				relevant++
			}
		}
		if relevant == 0 {
			continue
		}
		users++
		ord := order(rs)
		ideal := append([]float64(nil), rr...)
		sort.Sort(sort.Reverse(sort.Float64Slice(ideal)))
		for _, k := range ks {
			hit := 0
			for _, i := range ord[:min(k, l)] {
				if rr[i] > 0 {
					hit++
				}
			}
			recall[k] += float64(hit) / float64(relevant)
			ndcg[k] += tieAveragedDCG(rs, rr, ord, k) / idealDCG(ideal, k)
		}
	}
	if users > 0 {
		for _, k := range ks {
			recall[k] /= float64(users)
			ndcg[k] /= float64(users)
		}
	}
	return recall, ndcg, users
}

// discount is 1/log2(position + 2) for positions before k, else 0.
func discount(pos, k int) float64 {
	if pos >= k {
		return 0
	}
	return 1 / math.Log2(float64(pos)+2)
}

// tieAveragedDCG is sklearn's _tie_averaged_dcg: the items of a group of
// tied scores share the group's mean gain at each of its positions.
func tieAveragedDCG(s, rel []float64, ord []int, k int) float64 {
	var dcg float64
	for i := 0; i < len(ord); {
		j := i
		var gain, disc float64
		for j < len(ord) && s[ord[j]] == s[ord[i]] {
			gain += rel[ord[j]]
			disc += discount(j, k)
			j++
		}
		dcg += gain / float64(j-i) * disc
		i = j
	}
	return dcg
}

func idealDCG(sortedRel []float64, k int) float64 {
	var d float64
	for i, v := range sortedRel[:min(k, len(sortedRel))] {
		d += v * discount(i, k)
	}
	return d
}

// RecallAtK returns the mean over users of the fraction of a user's
// relevant items that are among the k highest-scored (torchmetrics'
// RetrievalRecall(top_k=k), LightGCN's recall@k). scores is (U, L) floating,
// one row of candidate scores per user; relevance is (U, L) bool or
// floating (> 0 is relevant). Scores tied at the cut-off are taken in item
// order. Users without a relevant item are skipped; when no user has one it
// is an error. Mask items that must not be recommended (those seen in
// training) with a score of -Inf.
func RecallAtK(scores, relevance *tensor.Tensor, k int) (float64, error) {
	s, rel, u, l, err := rankingInput("RecallAtK", scores, relevance, k)
	if err != nil {
		return 0, err
	}
	r, _, users := rowMetrics(s, rel, u, l, []int{k})
	if users == 0 {
		return 0, errorf(ErrArgument, "RecallAtK", "no user (row of relevance) has a relevant item")
	}
	return r[k], nil
}

// NDCGAtK returns the mean over users of the normalised discounted
// cumulative gain of the k highest-scored items: DCG@k = sum over the top
// k positions i (from 0) of relevance / log2(i + 2), divided by the DCG@k
// of the ideal order. Gains are the relevance values (1 for true in a bool
// matrix); tied scores share their mean gain, as
// sklearn.metrics.ndcg_score(relevance, scores, k=k) computes. Shapes and
// skipped users as RecallAtK (sklearn instead counts users without a
// relevant item as 0).
func NDCGAtK(scores, relevance *tensor.Tensor, k int) (float64, error) {
	s, rel, u, l, err := rankingInput("NDCGAtK", scores, relevance, k)
	if err != nil {
		return 0, err
	}
	_, n, users := rowMetrics(s, rel, u, l, []int{k})
	if users == 0 {
		return 0, errorf(ErrArgument, "NDCGAtK", "no user (row of relevance) has a relevant item")
	}
	return n[k], nil
}

// RankingEvaluator evaluates per-user ranked lists (recommendation) at
// several cut-offs in one call.
type RankingEvaluator struct {
	// K lists the cut-offs; nil means {10, 20}.
	K []int
}

// RankingResult holds the metrics of RankingEvaluator.Eval.
type RankingResult struct {
	// Recall and NDCG map each K to Recall@K and NDCG@K.
	Recall, NDCG map[int]float64
	// Users is the number of users with a relevant item (the others are
	// skipped).
	Users int
}

// String lists the metrics on one line, "recall@10=... ndcg@10=...".
func (r RankingResult) String() string {
	ks := make([]int, 0, len(r.Recall))
	for k := range r.Recall {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	s := fmt.Sprintf("users=%d", r.Users)
	for _, k := range ks {
		s += fmt.Sprintf(" recall@%d=%.4f ndcg@%d=%.4f", k, r.Recall[k], k, r.NDCG[k])
	}
	return s
}

// Eval returns Recall@K and NDCG@K for every K of the evaluator (see
// RecallAtK and NDCGAtK for the inputs and errors).
func (e RankingEvaluator) Eval(scores, relevance *tensor.Tensor) (RankingResult, error) {
	ks := e.K
	if ks == nil {
		ks = []int{10, 20}
	}
	if len(ks) == 0 {
		return RankingResult{}, errorf(ErrArgument, "RankingEvaluator.Eval", "K is empty")
	}
	for _, k := range ks {
		if k < 1 {
			return RankingResult{}, errorf(ErrArgument, "RankingEvaluator.Eval", "K holds %d; every K must be >= 1", k)
		}
	}
	s, rel, u, l, err := rankingInput("RankingEvaluator.Eval", scores, relevance, ks[0])
	if err != nil {
		return RankingResult{}, err
	}
	r, n, users := rowMetrics(s, rel, u, l, ks)
	if users == 0 {
		return RankingResult{}, errorf(ErrArgument, "RankingEvaluator.Eval", "no user (row of relevance) has a relevant item")
	}
	return RankingResult{Recall: r, NDCG: n, Users: users}, nil
}
