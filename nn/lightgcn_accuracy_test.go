package nn

import (
	"os"
	"slices"
	"strconv"
	"strings"
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
// factorisation with BPR and a 1-layer LightGCN on Last.fm's per-user
// split, each with its recipe selected on the VALIDATION pairs by
// TestLightGCNLastFMSelect (full batch, Adam lr 0.05, 4 negatives per
// positive, seed 0): MF L2 5e-6 for 140 epochs, LightGCN with one
// propagation step, L2 2e-6, for 120 epochs. It checks that LightGCN is
// ahead of both baselines on the test Recall@20 and NDCG@20 and has a
// held-out AUC of at least 0.95, and that both learned models hold floors
// a little under their measured test metrics.
//
// The selection (validation Recall@20; 4 negatives, lr 0.05, Adam weight
// decay as the L2; "-": not run, "...": stopped, clearly behind):
//
//	               L2    epochs 20  40     60     80     100    120    140    160
//	MF             0     .1800  .1680  .1656
//	MF             2e-6  .1941  .2092  .2404  .2612  .2695  .2730  .2798  .2788
//	MF             5e-6  -      -      .2728  .2795  .2839  .2855  .2869* .2865
//	MF             1e-5  .2137  .2671  .2686  .2757  .2754  -      -      -
//	MF             3e-5  .2149  .2307  .2269  .2293  .2274
//	LightGCN K=1   2e-6  .2252  .2617  .2791  .2863  .2883  .2895* .2889  .2886
//	LightGCN K=1   5e-6  -      -      .2696  .2669  .2696  .2683  .2702  .2694
//	LightGCN K=1   1e-5  -      .2428  .2451  ...
//	LightGCN K=2   2e-6  .2182  .2578  .2678  .2709  .2753  .2742  .2758  -
//	LightGCN K=2   5e-6  -      -      .2476  .2474  .2476  .2474  .2491  .2502
//	LightGCN K=3   0     .2038  .2310  .2456
//	LightGCN K=3   2e-6  .2073  .2429  .2542  .2560  .2580
//	LightGCN K=3   1e-5  .1964  .2067  .2056  .2069  .2073
//	LightGCN K=3   3e-5  .1557  .1537  .1539  .1543  .1546
//
// (L2 0 and 3e-5, and MF 1e-5 and K=3 up to 100 epochs, are the first
// grids', which also found 1 negative per positive never better than 4;
// K=2 at 1e-5 and K=3 at 5e-6 were not run for want of CPU.) Selected:
// MF L2 5e-6, 140 epochs (val recall@20 .2869, ndcg@20 .2229, AUC .9545);
// LightGCN K=1 L2 2e-6, 120 epochs (val .2895, .2249, .9549). Test metrics of the selected recipes, measured once (go test
// ./nn -run 'TestLightGCNLastFM$' -v, GOMAXPROCS=1): popularity recall@20
// 0.1086, ndcg@20 0.0757, AUC 0.8976; MF-BPR 0.2906, 0.2228, 0.9560;
// LightGCN 0.2950, 0.2278, 0.9572 (+0.0043 recall and +0.0050 NDCG over
// MF: a small margin, stable only because every RNG is seeded).
//
// One propagation step is best on this data: the best validation recall
// of K=2 is .2758 and of K=3 .2580, against K=1's .2895 (why deeper is
// worse here was not investigated).
//
// What did not help (validation, TestLastFMExplore in
// lastfm_explore_test.go, K=3): the LightGCN paper's L2 on the batch's ego
// embeddings instead of Adam's weight decay on every row (lambda 1e-4:
// recall .2641 at 100 epochs, .2738 at 250 with 1 negative, AUC .944-.947,
// under 0.95); log1p listening counts as edge weights (.2602 vs .2580 at
// 100 epochs); the friendship edges in the propagation graph (.2563); a
// layer-0 weight of 0.7 instead of 1/(K+1) (.2508, L2 1e-5); Adam lr 0.1
// (with the ego L2: .2518 vs .2466 at 60 epochs).
func TestLightGCNLastFM(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two recommenders on Last.fm (260 full-batch epochs; 460 s on 2 heavily shared cores)")
	}
	d, err := datasets.LoadLastFM(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	ones := tensor.Ones(d.NumUsers, 1)
	pop := evalRec(t, d, tensor.Concat([]*tensor.Tensor{ones, tensor.Reshape(d.ItemPopularity(), d.NumItems, 1)}, 0), d.TestPos)
	t.Logf("popularity:   %v auc=%.4f", pop.rank, pop.auc)
	start := time.Now()
	mf := fitRec(t, d, recConfig{layers: -1, epochs: 140, negatives: 4, lr: 0.05, weightDecay: 5e-6})
	t.Logf("MF-BPR:       %v auc=%.4f (%.1f s)", mf.rank, mf.auc, time.Since(start).Seconds())
	start = time.Now()
	gnn := fitRec(t, d, recConfig{layers: 1, epochs: 120, negatives: 4, lr: 0.05, weightDecay: 2e-6})
	t.Logf("LightGCN K=1: %v auc=%.4f (%.1f s)", gnn.rank, gnn.auc, time.Since(start).Seconds())
	for _, b := range []struct {
		name string
		r    recResult
	}{{"popularity", pop}, {"MF-BPR", mf}} {
		if gnn.rank.Recall[20] <= b.r.rank.Recall[20] || gnn.rank.NDCG[20] <= b.r.rank.NDCG[20] {
			t.Errorf("LightGCN recall@20 %.4f ndcg@20 %.4f is not ahead of %s's %.4f / %.4f",
				gnn.rank.Recall[20], gnn.rank.NDCG[20], b.name, b.r.rank.Recall[20], b.r.rank.NDCG[20])
		}
	}
	if gnn.auc < 0.95 {
		t.Errorf("LightGCN held-out AUC %.4f; want at least 0.95", gnn.auc)
	}
	for _, m := range []struct {
		name         string
		r            recResult
		recall, ndcg float64
	}{{"LightGCN", gnn, 0.285, 0.22}, {"MF", mf, 0.28, 0.21}} {
		if m.r.rank.Recall[20] < m.recall || m.r.rank.NDCG[20] < m.ndcg {
			t.Errorf("%s recall@20 %.4f ndcg@20 %.4f; want at least %.2f / %.2f",
				m.name, m.r.rank.Recall[20], m.r.rank.NDCG[20], m.recall, m.ndcg)
		}
	}
	t.Logf("LightGCN - MF: recall@20 %+.4f ndcg@20 %+.4f", gnn.rank.Recall[20]-mf.rank.Recall[20], gnn.rank.NDCG[20]-mf.rank.NDCG[20])
}

// TestLightGCNLastFMSelect selects the recipes of TestLightGCNLastFM on
// the VALIDATION pairs: MF-BPR and LightGCN with 1, 2 and 3 propagation
// steps, each over the same grid (a fair budget per model): Adam
// weight decay (L2) in {2e-6, 5e-6, 1e-5} x epochs in {20, 40, ..., 160}
// (one 160-epoch run per model and L2, evaluated every 20 epochs), full
// batch, 4 negatives per positive, lr 0.05, seed 0, picked by validation
// Recall@20; then the test metrics of each model's selected config, once.
// It takes about an hour on 2 busy cores, so it runs only with
// GNNREPL_VALSEL=1; GNNREPL_VALSEL=mf,1 (a comma-separated list of "mf"
// and depths) runs only those models. The results are recorded at
// TestLightGCNLastFM, with those of the first grids (L2 0 and 3e-5, up to
// 100 epochs).
func TestLightGCNLastFMSelect(t *testing.T) {
	sel := os.Getenv("GNNREPL_VALSEL")
	if sel == "" {
		t.Skip("model selection on Last.fm's validation pairs: set GNNREPL_VALSEL=1 (about an hour)")
	}
	d, err := datasets.LoadLastFM(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	models := []int{-1, 1, 2, 3}
	if sel != "1" {
		models = nil
		for _, f := range strings.Split(sel, ",") {
			switch f = strings.TrimSpace(f); f {
			case "mf":
				models = append(models, -1)
			default:
				k, err := strconv.Atoi(f)
				if err != nil || k < 1 {
					t.Fatalf("GNNREPL_VALSEL=%q: want 1, or a comma-separated list of \"mf\" and depths >= 1", sel)
				}
				models = append(models, k)
			}
		}
	}
	wds, epochs, evalAt := []float64{2e-6, 5e-6, 1e-5}, 160, []int{20, 40, 60, 80, 100, 120, 140}
	for _, layers := range models {
		best, bestRecall := recConfig{}, -1.0
		for _, wd := range wds {
			c := recConfig{layers: layers, epochs: epochs, negatives: 4, lr: 0.05, weightDecay: wd}
			start := time.Now()
			trainRec(t, d, c, evalAt, func(e int, h *tensor.Tensor) {
				v := evalRec(t, d, h, d.ValPos)
				t.Logf("layers %2d l2 %-6g epochs %3d: val recall@20 %.4f ndcg@20 %.4f auc %.4f (%.0f s)",
					layers, wd, e, v.rank.Recall[20], v.rank.NDCG[20], v.auc, time.Since(start).Seconds())
				if v.rank.Recall[20] > bestRecall {
					best, bestRecall = c, v.rank.Recall[20]
					best.epochs = e
				}
			})
		}
		r := fitRec(t, d, best)
		t.Logf("layers %2d selected l2 %g epochs %d (val recall@20 %.4f): TEST recall@20 %.4f ndcg@20 %.4f auc %.4f",
			layers, best.weightDecay, best.epochs, bestRecall, r.rank.Recall[20], r.rank.NDCG[20], r.auc)
	}
}
