package nn

import (
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

// fitRec trains a LightGCN with c.layers propagation steps (-1: none,
// matrix factorisation over the bare embedding) on the dataset's training
// pairs, full-batch: every epoch scores all training pairs against
// c.negatives training-negatives each (items the user has no training
// interaction with) with the BPR loss, Adam with an L2 penalty. It returns
// Recall@20 / NDCG@20 over all items not in the user's training set and
// the AUC of the test pairs against one sampled negative each.
func fitRec(t testing.TB, d *datasets.RecDataset, c recConfig) recResult {
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
	}
	var h *tensor.Tensor
	tensor.NoGrad(func() { h = m.Forward(g) })
	return evalRec(t, d, h)
}

// evalRec scores node representations h of UserItemGraph (users first).
func evalRec(t testing.TB, d *datasets.RecDataset, h *tensor.Tensor) recResult {
	t.Helper()
	var r recResult
	var err error
	r.rank, err = metrics.RankingEvaluator{K: []int{20}}.EvalEmbeddings(tensor.Narrow(h, 0, d.NumUsers), tensor.Narrow(h, d.NumUsers, d.NumItems), d.TrainPos, d.TestPos)
	if err != nil {
		t.Fatal(err)
	}
	neg, err := d.NegativePairs(d.TestPos, 1, 12345, "all")
	if err != nil {
		t.Fatal(err)
	}
	pg, err := d.PairGraph(d.TestPos)
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
// factorisation with BPR and a 3-layer LightGCN with the same recipe on
// Last.fm's per-user split, and checks that LightGCN is ahead of both on
// Recall@20 and NDCG@20 with a held-out AUC of at least 0.95.
func TestLightGCNLastFM(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two recommenders on Last.fm (about 40 s on 2 cores)")
	}
	d, err := datasets.LoadLastFM(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	ones := tensor.Ones(d.NumUsers, 1)
	pop := evalRec(t, d, tensor.Concat([]*tensor.Tensor{ones, tensor.Reshape(d.ItemPopularity(), d.NumItems, 1)}, 0))
	t.Logf("popularity: %v auc=%.4f", pop.rank, pop.auc)
	c := recConfig{epochs: 40, negatives: 4, lr: 0.05, weightDecay: 2e-6}
	start := time.Now()
	c.layers = -1
	mf := fitRec(t, d, c)
	t.Logf("MF-BPR:     %v auc=%.4f (%.1f s)", mf.rank, mf.auc, time.Since(start).Seconds())
	start = time.Now()
	c.layers = 3
	gnn := fitRec(t, d, c)
	t.Logf("LightGCN:   %v auc=%.4f (%.1f s)", gnn.rank, gnn.auc, time.Since(start).Seconds())
	for _, b := range []struct {
		name string
		r    recResult
	}{{"popularity", pop}, {"MF", mf}} {
		if gnn.rank.Recall[20] <= b.r.rank.Recall[20] || gnn.rank.NDCG[20] <= b.r.rank.NDCG[20] {
			t.Errorf("LightGCN recall@20 %.4f ndcg@20 %.4f is not ahead of %s's %.4f / %.4f",
				gnn.rank.Recall[20], gnn.rank.NDCG[20], b.name, b.r.rank.Recall[20], b.r.rank.NDCG[20])
		}
	}
	if gnn.auc < 0.95 {
		t.Errorf("LightGCN AUC %.4f < 0.95", gnn.auc)
	}
}
