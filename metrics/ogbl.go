package metrics

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// ogblMetrics is the "eval metric" row of ogb/linkproppred/master.csv.
var ogblMetrics = map[string]string{
	"ogbl-ppa":       "hits@100",
	"ogbl-collab":    "hits@50",
	"ogbl-citation2": "mrr",
	"ogbl-wikikg2":   "mrr",
	"ogbl-ddi":       "hits@20",
	"ogbl-biokg":     "mrr",
	"ogbl-vessel":    "rocauc",
}

// OGBLinkEvaluator is the official evaluator of one OGB link-prediction
// dataset, as ogb.linkproppred.Evaluator(name): Hits@K for ogbl-collab
// (K = 50), ogbl-ppa (100) and ogbl-ddi (20), MRR for ogbl-citation2
// (and the knowledge graphs ogbl-wikikg2, ogbl-biokg), ROC-AUC for
// ogbl-vessel. Make one with NewOGBLinkEvaluator.
type OGBLinkEvaluator struct {
	// Name is the dataset's name, "ogbl-collab".
	Name string
	// Metric is "hits@K", "mrr" or "rocauc".
	Metric string
	// K is the cut-off of a "hits@K" metric, else 0.
	K int
}

// NewOGBLinkEvaluator returns the evaluator of the named OGB
// link-prediction dataset ("ogbl-collab"; "ogbl_collab" is accepted too).
// An unknown name is an error wrapping ErrArgument that lists the known
// ones.
func NewOGBLinkEvaluator(name string) (OGBLinkEvaluator, error) {
	key := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	m, ok := ogblMetrics[key]
	if !ok {
		known := make([]string, 0, len(ogblMetrics))
		for k := range ogblMetrics {
			known = append(known, k)
		}
		sort.Strings(known)
		return OGBLinkEvaluator{}, errorf(ErrArgument, "NewOGBLinkEvaluator", "unknown dataset %q; OGB's link datasets are %v", name, known)
	}
	e := OGBLinkEvaluator{Name: key, Metric: m}
	if k, ok := strings.CutPrefix(m, "hits@"); ok {
		fmt.Sscan(k, &e.K)
	}
	return e, nil
}

// Eval scores positive pairs against negative ones with the dataset's
// metric and returns the results under the keys of OGB's evaluator:
//
//   - "hits@K": pos (P) and neg (N) 1-D, the negatives shared by every
//     positive; the fraction of positives scoring strictly above the K-th
//     highest negative, 1 when N < K (HitsAtK). Returns {"hits@K": v}.
//   - "mrr": pos (P) and neg (P, K'), the K' negatives of each positive
//     (ogbl-citation2: the scores of its source with the 1000
//     target_node_neg); a positive's rank is 1 + the negatives above it +
//     half the ties (OGB's mean of optimistic and pessimistic ranks).
//     Returns "mrr", "hits@1", "hits@3", "hits@10": the means of OGB's
//     mrr_list and hits@K_list (score all pairs, then Eval once, to get
//     OGB's averages over the concatenated lists).
//   - "rocauc": pos and neg 1-D; returns {"rocauc": ROCAUC(pos, neg)}.
//
// Scores are any floating dtype on any device, compared in float32 (see
// the package doc). Errors wrap ErrShape for the wrong number of
// dimensions (OGB's own checks) or mismatched rows, ErrArgument for a nil
// or non-floating tensor, a NaN, or an evaluator not made by
// NewOGBLinkEvaluator.
func (e OGBLinkEvaluator) Eval(pos, neg *tensor.Tensor) (map[string]float64, error) {
	const op = "OGBLinkEvaluator.Eval"
	if pos == nil || neg == nil {
		return nil, errorf(ErrArgument, op, "pos and neg must both be set (pos nil: %v, neg nil: %v)", pos == nil, neg == nil)
	}
	if pos.Dim() != 1 {
		return nil, errorf(ErrShape, op, "pos must be 1-D (one score per positive pair), got shape %v", pos.Shape())
	}
	switch {
	case e.Metric == "mrr":
		if neg.Dim() != 2 {
			return nil, errorf(ErrShape, op, "%s: neg must be 2-D (P, K), the negatives of each positive, got shape %v", e.Name, neg.Shape())
		}
		r, err := ranks(op, pos, neg)
		if err != nil {
			return nil, err
		}
		var mrr, h1, h3, h10 float64
		for _, v := range r {
			mrr += 1 / v
			h1 += b2f(v <= 1)
			h3 += b2f(v <= 3)
			h10 += b2f(v <= 10)
		}
		n := float64(len(r))
		return map[string]float64{"mrr": mrr / n, "hits@1": h1 / n, "hits@3": h3 / n, "hits@10": h10 / n}, nil
	case e.Metric == "rocauc" || (strings.HasPrefix(e.Metric, "hits@") && e.K >= 1):
		if neg.Dim() != 1 {
			return nil, errorf(ErrShape, op, "%s: neg must be 1-D (negatives shared by every positive), got shape %v", e.Name, neg.Shape())
		}
		if e.Metric == "rocauc" {
			v, err := ROCAUC(pos, neg)
			if err != nil {
				return nil, err
			}
			return map[string]float64{"rocauc": v}, nil
		}
		v, err := HitsAtK(pos, neg, e.K)
		if err != nil {
			return nil, err
		}
		return map[string]float64{e.Metric: v}, nil
	}
	return nil, errorf(ErrArgument, op, "metric %q (K = %d) is not hits@K, mrr or rocauc; make the evaluator with NewOGBLinkEvaluator", e.Metric, e.K)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
