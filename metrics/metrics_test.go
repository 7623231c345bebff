package metrics

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

func f32(v ...float32) *tensor.Tensor { return tensor.FromFloat32(v) }

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("%s = %.7f, want %.7f", name, got, want)
	}
}

// TestLinkMetricsHand checks the values sklearn and OGB give on a small case
// with ties, computed by hand:
//
//	roc_auc_score([1,1,1,1,0,0,0], [.9,.8,.4,.4,.7,.4,.3]) = 9/12 = 0.75
//	  (0.9 and 0.8 beat 3 negatives each; each 0.4 beats 0.3 and ties 0.4)
//	average_precision_score(same) = .25*1 + .25*1 + .5*(4/6) = 0.8333333
//	  (thresholds .9 .8 .7 .4 .3; the tied 0.4s are one threshold)
//	MRR: ranks 1, 1, 2.5, 2.5 (one negative above 0.4, one tied) -> 0.7
//	Hits@K (OGB ogbl-collab): pos > k-th best negative (.7, .4, .3)
func TestLinkMetricsHand(t *testing.T) {
	pos, neg := f32(.9, .8, .4, .4), f32(.7, .4, .3)
	auc, err := ROCAUC(pos, neg)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "AUC", auc, 0.75)
	ap, _ := AveragePrecision(pos, neg)
	near(t, "AP", ap, 0.25+0.25+0.5*4.0/6)
	mrr, _ := MRR(pos, neg)
	near(t, "MRR", mrr, 0.7)
	for k, want := range map[int]float64{1: 0.5, 2: 0.5, 3: 1, 4: 1} {
		h, err := HitsAtK(pos, neg, k)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "Hits@"+string(rune('0'+k)), h, want)
	}
	r, err := LinkEvaluator{K: []int{1, 3}}.Eval(pos, neg)
	if err != nil {
		t.Fatal(err)
	}
	if r.AUC != auc || r.AP != ap || r.MRR != mrr || r.Hits[1] != 0.5 || r.Hits[3] != 1 || len(r.Hits) != 2 {
		t.Errorf("Eval: %v", r)
	}
	if s := r.String(); s != "auc=0.7500 ap=0.8333 mrr=0.7000 hits@1=0.5000 hits@3=1.0000" {
		t.Errorf("String: %s", s)
	}
	// All positives above all negatives, and the reverse; all tied.
	for _, c := range []struct {
		p, n    *tensor.Tensor
		auc, ap float64
	}{
		{f32(3, 2), f32(1, 0), 1, 1},
		{f32(0, 1), f32(2, 3), 0, 0.5/3 + 0.5*2.0/4},
		{f32(1, 1), f32(1, 1, 1), 0.5, 0.4},
	} {
		a, _ := ROCAUC(c.p, c.n)
		near(t, "AUC", a, c.auc)
		p, _ := AveragePrecision(c.p, c.n)
		near(t, "AP", p, c.ap)
	}
}

// TestMRRPerPositive: K negatives per positive (ogbl-citation2's layout).
// pos .5 against {.1, .6, .5}: rank 1 + 1 + 1/2 = 2.5; pos .2 against
// {.3, .4, .1}: rank 3. MRR = (1/2.5 + 1/3) / 2.
func TestMRRPerPositive(t *testing.T) {
	pos := f32(.5, .2)
	neg := tensor.FromFloat32([]float32{.1, .6, .5, .3, .4, .1}, 2, 3)
	m, err := MRR(pos, neg)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "MRR", m, (0.4+1.0/3)/2)
	h2, _ := HitsAtK(pos, neg, 2)
	h3, _ := HitsAtK(pos, neg, 3)
	near(t, "Hits@2", h2, 0)
	near(t, "Hits@3", h3, 1)
}

// TestAUCBruteForce compares ROCAUC with counting every pair, on scores
// with many ties.
func TestAUCBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		p := make([]float32, 1+rng.IntN(50))
		n := make([]float32, 1+rng.IntN(50))
		for i := range p {
			p[i] = float32(rng.IntN(8)) / 4
		}
		for i := range n {
			n[i] = float32(rng.IntN(6)) / 4
		}
		var w float64
		for _, a := range p {
			for _, b := range n {
				switch {
				case a > b:
					w++
				case a == b:
					w += 0.5
				}
			}
		}
		got, err := ROCAUC(tensor.FromFloat32(p), tensor.FromFloat32(n))
		if err != nil {
			t.Fatal(err)
		}
		near(t, "AUC", got, w/float64(len(p)*len(n)))
	}
}

// TestRankingHand: two users with relevant items 0 and 3, one without
// (skipped).
//
//	user 0 scores .9 .1 .5 .3: top 2 = items 0, 2: recall 1/2,
//	  NDCG@2 = 1 / (1 + 1/log2 3) = 0.6131472
//	user 1 scores .2 .2 .8 .1: items 0 and 1 tie at positions 1-2, sharing
//	  gain 1/2 (sklearn): DCG@2 = 0.5/log2 3, NDCG@2 = 0.1934264; recall
//	  takes tied items in index order: top 2 = items 2, 0: 1/2
//	graded: sklearn ndcg_score([[3,2,0,1]], [[.1,.9,.8,.2]], k=3) =
//	  (2 + 0 + 1/2) / (3 + 2/log2 3 + 1/2) = 0.5250050
func TestRankingHand(t *testing.T) {
	scores := tensor.FromFloat32([]float32{.9, .1, .5, .3, .2, .2, .8, .1, .4, .3, .2, .1}, 3, 4)
	rel := tensor.FromBool([]bool{true, false, false, true, true, false, false, true, false, false, false, false}, 3, 4)
	r, err := RecallAtK(scores, rel, 2)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "Recall@2", r, 0.5)
	n, err := NDCGAtK(scores, rel, 2)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "NDCG@2", n, (0.6131471927654584+0.19342640361727081)/2)
	res, err := RankingEvaluator{K: []int{2, 4}}.Eval(scores, rel)
	if err != nil {
		t.Fatal(err)
	}
	if res.Users != 2 || res.Recall[2] != r || res.NDCG[2] != n || res.Recall[4] != 1 {
		t.Errorf("Eval: %v", res)
	}
	g, err := NDCGAtK(tensor.FromFloat32([]float32{.1, .9, .8, .2}, 1, 4), tensor.FromFloat32([]float32{3, 2, 0, 1}, 1, 4), 3)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "graded NDCG@3", g, 0.5250049893849101)
	// A perfect ranking has NDCG 1 at every k, k beyond the list included.
	for _, k := range []int{1, 3, 10} {
		p, _ := NDCGAtK(tensor.FromFloat32([]float32{4, 3, 2, 1}, 1, 4), tensor.FromFloat32([]float32{3, 2, 1, 0}, 1, 4), k)
		near(t, "perfect NDCG", p, 1)
	}
}

func TestMetricsErrors(t *testing.T) {
	p, n := f32(1, 2), f32(0)
	cases := []struct {
		name string
		err  error
		kind error
		want string
	}{
		{"nil pos", second(ROCAUC(nil, n)), ErrArgument, "metrics.ROCAUC: pos is nil"},
		{"empty neg", second(AveragePrecision(p, f32())), ErrShape, "neg is empty"},
		{"int scores", second(MRR(tensor.FromInt64([]int64{1}), n)), ErrArgument, "pos must hold floating-point scores, got int64"},
		{"nan", second(ROCAUC(p, f32(float32(math.NaN())))), ErrArgument, "neg[0] is NaN"},
		{"k", second(HitsAtK(p, n, 0)), ErrArgument, "k = 0"},
		{"neg rows", second(MRR(p, tensor.FromFloat32([]float32{1, 2, 3}, 3, 1))), ErrShape, "neg must be 1-D"},
		{"pos 2-D", second(MRR(tensor.FromFloat32([]float32{1, 2}, 2, 1), n)), ErrShape, "pos must be 1-D"},
		{"ranking shapes", second(RecallAtK(tensor.Zeros(2, 3), tensor.New(tensor.Bool, 3, 2), 1)), ErrShape, "got [2 3] and [3 2]"},
		{"no relevant", second(NDCGAtK(tensor.Zeros(2, 3), tensor.New(tensor.Bool, 2, 3), 1)), ErrArgument, "no user"},
		{"negative relevance", second(NDCGAtK(tensor.Zeros(1, 2), f32r(1, 2, 1, -1), 1)), ErrArgument, "relevance[0, 1] = -1"},
		{"evaluator K", second(RankingEvaluator{K: []int{5, 0}}.Eval(tensor.Zeros(1, 2), f32r(1, 2, 1, 0))), ErrArgument, "K holds 0"},
	}
	for _, c := range cases {
		if c.err == nil || !errors.Is(c.err, c.kind) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: got %v; want %v containing %q", c.name, c.err, c.kind, c.want)
		}
	}
}

func f32r(r, c int, v ...float32) *tensor.Tensor { return tensor.FromFloat32(v, r, c) }

func second[T any](_ T, err error) error { return err }
