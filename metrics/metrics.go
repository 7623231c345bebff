// Package metrics scores link predictors and recommenders: ROC-AUC and
// average precision of positive against negative scores (as
// sklearn.metrics.roc_auc_score and average_precision_score), MRR and
// Hits@K (as the evaluators of OGB's ogbl-* datasets), and Recall@K and
// NDCG@K over per-user ranked lists (as torchmetrics' retrieval metrics
// and sklearn.metrics.ndcg_score), and the accuracy and the macro- and
// micro-averaged F1 of node classification (Accuracy, as sklearn's
// accuracy_score; MacroF1, MicroF1, as sklearn's f1_score).
//
// The evaluators are structs in OGB's manner (ogb.linkproppred.Evaluator):
// LinkEvaluator.Eval takes the scores of positive and negative pairs and
// returns every link metric at once; OGBLinkEvaluator.Eval (made by
// NewOGBLinkEvaluator) returns one ogbl-* dataset's official metric under
// OGB's keys; RankingEvaluator.Eval takes a score matrix and a relevance
// matrix and returns Recall@K and NDCG@K. The free
// functions ROCAUC, AveragePrecision, MRR, HitsAtK, RecallAtK, NDCGAtK,
// Accuracy, MacroF1 and MicroF1 compute one metric each.
//
// Scores are tensors of any floating dtype on any device (copied to the
// host in float64); no gradient is recorded. Results are float64 in [0, 1].
//
// Errors: every function returns an error, never panics, on bad input: a
// nil or empty tensor, a non-floating score tensor, a NaN score, shapes
// that do not fit each other (naming both arguments and their shapes), a
// K below 1. They wrap ErrShape or ErrArgument (tensor's sentinels).
package metrics

import (
	"fmt"
	"math"
	"sort"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// ErrShape and ErrArgument are tensor.ErrShape and tensor.ErrArgument.
var (
	ErrShape    = engerr.ErrShape
	ErrArgument = engerr.ErrArgument
)

func errorf(kind error, op, format string, args ...any) error {
	return engerr.New(kind, "metrics", op, format, args...)
}

// values returns t's entries as float64 (t on any device, any floating
// dtype), checking that t is not nil, not empty and holds no NaN.
func values(op, arg string, t *tensor.Tensor) ([]float64, error) {
	if t == nil {
		return nil, errorf(ErrArgument, op, "%s is nil", arg)
	}
	if !t.DType().IsFloatingPoint() {
		return nil, errorf(ErrArgument, op, "%s must hold floating-point scores, got %s", arg, t.DType())
	}
	if t.Numel() == 0 {
		return nil, errorf(ErrShape, op, "%s is empty (shape %v)", arg, t.Shape())
	}
	var out []float64
	err := tensor.Catch(func() {
		tensor.NoGrad(func() {
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
			f := c.Float32s()
			out = make([]float64, len(f))
			for i, v := range f {
				out[i] = float64(v)
			}
		})
	})
	if err != nil {
		return nil, fmt.Errorf("metrics.%s: reading %s: %w", op, arg, err)
	}
	for i, v := range out {
		if math.IsNaN(v) {
			return nil, errorf(ErrArgument, op, "%s[%d] is NaN", arg, i)
		}
	}
	return out, nil
}

// ROCAUC returns the area under the ROC curve of positive scores pos
// against negative scores neg (any shapes; all entries count): the
// probability that a random positive scores above a random negative, ties
// counting one half. This is sklearn.metrics.roc_auc_score on
// y_true = [1]*len(pos) + [0]*len(neg), which averages the ranks of tied
// scores (the Mann-Whitney U statistic over |pos|*|neg|).
func ROCAUC(pos, neg *tensor.Tensor) (float64, error) {
	p, n, err := posNeg("ROCAUC", pos, neg)
	if err != nil {
		return 0, err
	}
	return rocAUC(p, n), nil
}

func posNeg(op string, pos, neg *tensor.Tensor) (p, n []float64, err error) {
	if p, err = values(op, "pos", pos); err != nil {
		return nil, nil, err
	}
	if n, err = values(op, "neg", neg); err != nil {
		return nil, nil, err
	}
	return p, n, nil
}

type scored struct {
	s   float64
	pos bool
}

// sortedDesc returns all scores with their labels, highest score first.
func sortedDesc(p, n []float64) []scored {
	all := make([]scored, 0, len(p)+len(n))
	for _, v := range p {
		all = append(all, scored{v, true})
	}
	for _, v := range n {
		all = append(all, scored{v, false})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].s > all[j].s })
	return all
}

func rocAUC(p, n []float64) float64 {
	all := sortedDesc(p, n)
	// Walk groups of tied scores from the top: each positive in a group
	// beats every negative below the group and ties with the group's.
	var wins float64
	negBelow := float64(len(n))
	for i := 0; i < len(all); {
		j := i
		var gp, gn float64
		for j < len(all) && all[j].s == all[i].s {
			if all[j].pos {
				gp++
			} else {
				gn++
			}
			j++
		}
		negBelow -= gn
		wins += gp * (negBelow + gn/2)
		i = j
	}
	return wins / (float64(len(p)) * float64(len(n)))
}

// AveragePrecision returns the average precision of positive scores pos
// against negative scores neg: sum over the distinct score thresholds,
// highest first, of (R_t - R_{t-1}) * P_t, with P_t and R_t the precision
// and recall of predicting positive every score >= t. Tied scores form one
// threshold. This is sklearn.metrics.average_precision_score (no
// interpolation).
func AveragePrecision(pos, neg *tensor.Tensor) (float64, error) {
	p, n, err := posNeg("AveragePrecision", pos, neg)
	if err != nil {
		return 0, err
	}
	return averagePrecision(p, n), nil
}

func averagePrecision(p, n []float64) float64 {
	all := sortedDesc(p, n)
	var tp, fp, ap, lastRecall float64
	total := float64(len(p))
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].s == all[i].s {
			if all[j].pos {
				tp++
			} else {
				fp++
			}
			j++
		}
		recall := tp / total
		ap += (recall - lastRecall) * tp / (tp + fp)
		lastRecall = recall
		i = j
	}
	return ap
}

// ranks returns the rank of each positive among its negatives: 1 + the
// number of negatives scoring above it + half of those tying with it (the
// mean of OGB's optimistic and pessimistic ranks). neg is either shared by
// all positives (1-D) or one row per positive ((len(pos), K)).
func ranks(op string, pos, neg *tensor.Tensor) ([]float64, error) {
	p, n, err := posNeg(op, pos, neg)
	if err != nil {
		return nil, err
	}
	if pos.Dim() != 1 {
		return nil, errorf(ErrShape, op, "pos must be 1-D (one score per positive pair), got shape %v", pos.Shape())
	}
	r := make([]float64, len(p))
	switch {
	case neg.Dim() == 1:
		s := append([]float64(nil), n...)
		sort.Float64s(s)
		for i, v := range p {
			below := sort.SearchFloat64s(s, v) // negatives < v
			above := len(s) - sort.Search(len(s), func(k int) bool { return s[k] > v })
			tied := len(s) - below - above
			r[i] = 1 + float64(above) + float64(tied)/2
		}
	case neg.Dim() == 2 && neg.Size(0) == len(p):
		k := neg.Size(1)
		for i, v := range p {
			var above, tied int
			for _, x := range n[i*k : (i+1)*k] {
				if x > v {
					above++
				} else if x == v {
					tied++
				}
			}
			r[i] = 1 + float64(above) + float64(tied)/2
		}
	default:
		return nil, errorf(ErrShape, op, "neg must be 1-D (negatives shared by every positive) or (%d, K) (K negatives per positive), got shape %v for pos of shape %v",
			len(p), neg.Shape(), pos.Shape())
	}
	return r, nil
}

// MRR returns the mean reciprocal rank of each positive score among the
// negative scores (OGB's ogbl-citation2 evaluator): pos is (P) and neg is
// either (P, K), K negatives per positive, or 1-D, the same negatives for
// every positive. A positive's rank is 1 + the negatives scoring above it
// + half of those tying with it (OGB's mean of optimistic and pessimistic
// ranks).
func MRR(pos, neg *tensor.Tensor) (float64, error) {
	r, err := ranks("MRR", pos, neg)
	if err != nil {
		return 0, err
	}
	var s float64
	for _, v := range r {
		s += 1 / v
	}
	return s / float64(len(r)), nil
}

// HitsAtK returns the fraction of positives ranked within the top k. With
// 1-D neg (negatives shared by every positive) it is the evaluator of OGB's
// ogbl-collab and ogbl-ddi: the fraction of positives scoring strictly
// above the k-th highest negative score, and 1 when there are fewer than k
// negatives. With neg of shape (P, K) it is ogbl-citation2's: the fraction
// of positives whose rank (see MRR) is at most k. k < 1 is an error.
func HitsAtK(pos, neg *tensor.Tensor, k int) (float64, error) {
	if k < 1 {
		return 0, errorf(ErrArgument, "HitsAtK", "k = %d; want k >= 1", k)
	}
	if neg != nil && neg.Dim() == 1 {
		p, n, err := posNeg("HitsAtK", pos, neg)
		if err != nil {
			return 0, err
		}
		return hitsShared(p, n, k), nil
	}
	r, err := ranks("HitsAtK", pos, neg)
	if err != nil {
		return 0, err
	}
	var h float64
	for _, v := range r {
		if v <= float64(k) {
			h++
		}
	}
	return h / float64(len(r)), nil
}

func hitsShared(p, n []float64, k int) float64 {
	if len(n) < k {
		return 1
	}
	s := append([]float64(nil), n...)
	sort.Sort(sort.Reverse(sort.Float64Slice(s)))
	th := s[k-1]
	var h float64
	for _, v := range p {
		if v > th {
			h++
		}
	}
	return h / float64(len(p))
}

// LinkEvaluator evaluates link prediction as OGB's Evaluator does for its
// ogbl-* datasets, all metrics in one call.
type LinkEvaluator struct {
	// K lists the cut-offs of Hits@K; nil means {10, 50, 100}.
	K []int
}

// LinkResult holds the metrics of LinkEvaluator.Eval.
type LinkResult struct {
	AUC, AP, MRR float64
	// Hits maps each K of the evaluator to Hits@K.
	Hits map[int]float64
}

// String lists the metrics on one line, "auc=0.9512 ap=... mrr=...
// hits@10=...".
func (r LinkResult) String() string {
	s := fmt.Sprintf("auc=%.4f ap=%.4f mrr=%.4f", r.AUC, r.AP, r.MRR)
	ks := make([]int, 0, len(r.Hits))
	for k := range r.Hits {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	for _, k := range ks {
		s += fmt.Sprintf(" hits@%d=%.4f", k, r.Hits[k])
	}
	return s
}

// Eval returns ROC-AUC, average precision, MRR and Hits@K (see the
// functions of those names) of positive scores pos (P) against negative
// scores neg, 1-D (shared by all positives) or (P, K). AUC and AP pool all
// the negatives. Errors as the functions'.
func (e LinkEvaluator) Eval(pos, neg *tensor.Tensor) (LinkResult, error) {
	ks := e.K
	if ks == nil {
		ks = []int{10, 50, 100}
	}
	var r LinkResult
	var err error
	if r.AUC, err = ROCAUC(pos, neg); err != nil {
		return LinkResult{}, err
	}
	if r.AP, err = AveragePrecision(pos, neg); err != nil {
		return LinkResult{}, err
	}
	if r.MRR, err = MRR(pos, neg); err != nil {
		return LinkResult{}, err
	}
	r.Hits = make(map[int]float64, len(ks))
	for _, k := range ks {
		if r.Hits[k], err = HitsAtK(pos, neg, k); err != nil {
			return LinkResult{}, err
		}
	}
	return r, nil
}
