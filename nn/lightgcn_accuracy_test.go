package nn

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/metrics"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// recConfig is the training recipe shared by LightGCN and the MF baseline.
type recConfig struct {
	layers, epochs, negatives int
	lr, weightDecay           float64
	seed                      int64
}

type recResult struct {
	rank metrics.RankingResult
	auc  float64
}

// trainRec trains a LightGCN with c.layers propagation steps (-1: none,
// matrix factorisation over the bare embedding) on the dataset's training
// pairs, full-batch: every epoch scores all training pairs against
// c.negatives training-negatives each (items the user has no training
// interaction with) with the BPR loss, Adam with an L2 penalty. After
// epoch e (1-based) it calls at(e, h) with the node representations h of
// UserItemGraph when e is in evalAt or is c.epochs. Adam has no schedule,
// so the model after e epochs of a longer run is the model of a run of e
// epochs: one run evaluates several epoch counts.
func trainRec(t testing.TB, d *datasets.RecDataset, c recConfig, evalAt []int, at func(epoch int, h *tensor.Tensor)) {
	t.Helper()
	g, err := d.UserItemGraph()
	if err != nil {
		t.Fatal(err)
	}
	m := NewLightGCN(LightGCNOptions{NumNodes: d.NumUsers + d.NumItems, EmbeddingDim: 64, NumLayers: c.layers, Seed: c.seed})
	opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: c.lr, WeightDecay: c.weightDecay})
	pred := NewDotPredictor()
	pos, err := d.PairGraph(d.TrainPos)
	if err != nil {
		t.Fatal(err)
	}
	for epoch := 0; epoch < c.epochs; epoch++ {
		neg, err := d.NegativePairs(d.TrainPos, c.negatives, c.seed*1000+int64(epoch), "train")
		if err != nil {
			t.Fatal(err)
		}
		ng, err := d.PairGraph(neg)
		if err != nil {
			t.Fatal(err)
		}
		h := m.Forward(g)
		loss := BPRLoss(pred.Forward(pos, h), pred.Forward(ng, h))
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
		e := epoch + 1
		if e == c.epochs || slices.Contains(evalAt, e) {
			tensor.NoGrad(func() { h = m.Forward(g) })
			at(e, h)
		}
	}
}

// fitRec trains as trainRec for c.epochs and returns the metrics of
// evalRec on the test pairs.
func fitRec(t testing.TB, d *datasets.RecDataset, c recConfig) recResult {
	t.Helper()
	var r recResult
	trainRec(t, d, c, nil, func(_ int, h *tensor.Tensor) { r = evalRec(t, d, h, d.TestPos) })
	return r
}

// evalRec scores node representations h of UserItemGraph (users first)
// on the held-out pairs target (d.ValPos or d.TestPos): Recall@20 /
// NDCG@20 over all items not in the user's training set and the AUC of
// the target pairs against one sampled negative each (an item the user
// has no interaction with in any split).
func evalRec(t testing.TB, d *datasets.RecDataset, h, target *tensor.Tensor) recResult {
	t.Helper()
	var r recResult
	var err error
	r.rank, err = metrics.RankingEvaluator{K: []int{20}}.EvalEmbeddings(tensor.Narrow(h, 0, d.NumUsers), tensor.Narrow(h, d.NumUsers, d.NumItems), d.TrainPos, target)
	if err != nil {
		t.Fatal(err)
	}
	neg, err := d.NegativePairs(target, 1, 12345, "all")
	if err != nil {
		t.Fatal(err)
	}
	pg, err := d.PairGraph(target)
	if err != nil {
		t.Fatal(err)
	}
	ng, err := d.PairGraph(neg)
	if err != nil {
		t.Fatal(err)
	}
	pred := NewDotPredictor()
	var ps, ns *tensor.Tensor
	tensor.NoGrad(func() { ps, ns = pred.Forward(pg, h), pred.Forward(ng, h) })
	if r.auc, err = metrics.ROCAUC(ps, ns); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLightGCNLastFM trains, in one run, a popularity baseline, matrix
// factorisation with BPR and a 3-layer LightGCN on Last.fm's per-user
// split, each with its recipe selected on the VALIDATION pairs by
// TestLightGCNLastFMSelect (lr 0.05, 4 negatives per positive, seed 0):
// MF L2 1e-5 for 80 epochs, LightGCN L2 2e-6 for 100 epochs. It checks
// that LightGCN is ahead of popularity on Recall@20 and NDCG@20, holds
// floors a little under its measured test metrics and has a held-out AUC
// of at least 0.95, and that MF holds its own floors.
//
// The goal "LightGCN ahead of both baselines" does NOT hold with
// validation-selected recipes: MF-BPR, which the earlier shared recipe
// (L2 2e-6, 40 epochs, chosen on the test split) under-regularised, is
// ahead. The selection (validation Recall@20 / NDCG@20 / AUC, 4
// negatives; 1 negative was never better):
//
//	             L2     epochs 20      40      60      80      100
//	MF           0      .1800   .1680   .1656
//	MF           2e-6   .1941   .2092   .2404   .2612   .2695
//	MF           1e-5   .2137   .2671   .2686   .2757*  .2754   (ndcg .2143, auc .9564 at 80)
//	MF           3e-5   .2149   .2307   .2269   .2293   .2274
//	LightGCN     0      .2038   .2310   .2456
//	LightGCN     2e-6   .2073   .2429   .2542   .2560   .2580*  (ndcg .2000, auc .9581 at 100)
//	LightGCN     1e-5   .1964   .2067   .2056   .2069   .2073
//	LightGCN     3e-5   .1557   .1537   .1539   .1543   .1546
//
// Test metrics of the selected recipes, measured once: MF-BPR recall@20
// 0.2817, ndcg@20 0.2150, AUC 0.9588; LightGCN 0.2595, 0.2018, 0.9591
// (LightGCN is 0.022 recall and 0.013 NDCG behind MF). LightGCN's best
// lies at the grid's 100-epoch edge, still rising by about 0.002 per 20
// epochs: not enough to close the gap.
func TestLightGCNLastFM(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two recommenders on Last.fm (about 50 s on 2 cores)")
	}
	d, err := datasets.LoadLastFM(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	ones := tensor.Ones(d.NumUsers, 1)
	pop := evalRec(t, d, tensor.Concat([]*tensor.Tensor{ones, tensor.Reshape(d.ItemPopularity(), d.NumItems, 1)}, 0), d.TestPos)
	t.Logf("popularity: %v auc=%.4f", pop.rank, pop.auc)
	start := time.Now()
	mf := fitRec(t, d, recConfig{layers: -1, epochs: 80, negatives: 4, lr: 0.05, weightDecay: 1e-5})
	t.Logf("MF-BPR:     %v auc=%.4f (%.1f s)", mf.rank, mf.auc, time.Since(start).Seconds())
	start = time.Now()
	gnn := fitRec(t, d, recConfig{layers: 3, epochs: 100, negatives: 4, lr: 0.05, weightDecay: 2e-6})
	t.Logf("LightGCN:   %v auc=%.4f (%.1f s)", gnn.rank, gnn.auc, time.Since(start).Seconds())
	if gnn.rank.Recall[20] <= pop.rank.Recall[20] || gnn.rank.NDCG[20] <= pop.rank.NDCG[20] {
		t.Errorf("LightGCN recall@20 %.4f ndcg@20 %.4f is not ahead of popularity's %.4f / %.4f",
			gnn.rank.Recall[20], gnn.rank.NDCG[20], pop.rank.Recall[20], pop.rank.NDCG[20])
	}
	for _, m := range []struct {
		name         string
		r            recResult
		recall, ndcg float64
	}{{"LightGCN", gnn, 0.25, 0.19}, {"MF", mf, 0.27, 0.20}} {
		if m.r.rank.Recall[20] < m.recall || m.r.rank.NDCG[20] < m.ndcg || m.r.auc < 0.95 {
			t.Errorf("%s recall@20 %.4f ndcg@20 %.4f auc %.4f; want at least %.2f / %.2f / 0.95",
				m.name, m.r.rank.Recall[20], m.r.rank.NDCG[20], m.r.auc, m.recall, m.ndcg)
		}
	}
	t.Logf("LightGCN - MF: recall@20 %+.4f ndcg@20 %+.4f (the gap the goal would close)",
		gnn.rank.Recall[20]-mf.rank.Recall[20], gnn.rank.NDCG[20]-mf.rank.NDCG[20])
}

// TestLightGCNLastFMSelect selects the recipe of TestLightGCNLastFM on
// the VALIDATION pairs: for MF-BPR and 3-layer LightGCN alike (the same
// grid, a fair budget), L2 in {0, 2e-6, 1e-5} x negatives per positive in
// {1, 4} x epochs in {20, 40, 60} (one 60-epoch run per model, L2 and
// negatives, evaluated after 20, 40 and 60 epochs), lr 0.05, seed 0,
// picked by validation Recall@20; then the test metrics of each model's
// selected config, once. It takes several minutes, so it runs only with
// GNNREPL_VALSEL=1. The results are recorded at TestLightGCNLastFM.
func TestLightGCNLastFMSelect(t *testing.T) {
	if os.Getenv("GNNREPL_VALSEL") == "" {
		t.Skip("model selection on Last.fm's validation pairs: set GNNREPL_VALSEL=1 (several minutes)")
	}
	d, err := datasets.LoadLastFM(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	wds, negatives, epochs, evalAt := []float64{0, 2e-6, 1e-5}, []int{1, 4}, 60, []int{20, 40}
	if os.Getenv("GNNREPL_VALSEL") == "wide" {
		// The first grid's best configs lie on its edge (60 epochs; MF at
		// L2 1e-5): 4 negatives (never worse than 1 there), L2 up to 3e-5
		// and up to 100 epochs.
		wds, negatives, epochs, evalAt = []float64{2e-6, 1e-5, 3e-5}, []int{4}, 100, []int{20, 40, 60, 80}
	}
	for _, layers := range []int{-1, 3} {
		best, bestRecall := recConfig{}, -1.0
		for _, wd := range wds {
			for _, negs := range negatives {
				c := recConfig{layers: layers, epochs: epochs, negatives: negs, lr: 0.05, weightDecay: wd}
				start := time.Now()
				trainRec(t, d, c, evalAt, func(e int, h *tensor.Tensor) {
					v := evalRec(t, d, h, d.ValPos)
					t.Logf("layers %2d l2 %-6g neg %d epochs %2d: val recall@20 %.4f ndcg@20 %.4f auc %.4f (%.0f s)",
						layers, wd, negs, e, v.rank.Recall[20], v.rank.NDCG[20], v.auc, time.Since(start).Seconds())
					if v.rank.Recall[20] > bestRecall {
						best, bestRecall = c, v.rank.Recall[20]
						best.epochs = e
					}
				})
			}
		}
		r := fitRec(t, d, best)
		t.Logf("layers %2d selected l2 %g neg %d epochs %d (val recall@20 %.4f): TEST recall@20 %.4f ndcg@20 %.4f auc %.4f",
			layers, best.weightDecay, best.negatives, best.epochs, bestRecall, r.rank.Recall[20], r.rank.NDCG[20], r.auc)
	}
}
