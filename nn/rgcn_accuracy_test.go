package nn

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// rgcnData is an RDF dataset prepared as entity.py prepares it: norm =
// 1/in-degree per canonical edge type, the homogeneous graph, its edge
// types, and the homogeneous ids of the labelled category's train and
// test nodes with their labels.
type rgcnData struct {
	g                     *graph.Graph
	etypes, norm          *tensor.Tensor
	trainIdx, testIdx     *tensor.Tensor
	trainLabel, testLabel *tensor.Tensor
	numRels, numClasses   int
	// relNames is the relation (EType) name of every edge type id.
	relNames []string
}

func prepareRGCN(t testing.TB, d *datasets.RDFDataset) *rgcnData {
	t.Helper()
	hg := d.Graph
	for _, ce := range hg.CanonicalETypes() {
		if err := hg.SetEDataOf(ce.String(), "norm", hg.NormByDst(ce.String())); err != nil {
			t.Fatal(err)
		}
	}
	g, err := hg.ToHomogeneous(nil, []string{"norm"})
	if err != nil {
		t.Fatal(err)
	}
	var offset int64
	for _, nt := range hg.NTypes() {
		if nt == d.PredictCategory {
			break
		}
		offset += int64(hg.NumNodesOf(nt))
	}
	labels := d.Labels.Int64s()
	pick := func(idx *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		var ids, lab []int64
		for _, i := range idx.Int64s() {
			ids = append(ids, offset+i)
			lab = append(lab, labels[i])
		}
		return tensor.FromInt64(ids), tensor.FromInt64(lab)
	}
	r := &rgcnData{g: g, etypes: g.EData(graph.EType), norm: g.EData("norm"),
		numRels: len(hg.CanonicalETypes()), numClasses: d.NumClasses}
	for _, ce := range hg.CanonicalETypes() {
		r.relNames = append(r.relNames, ce.EType)
	}
	r.trainIdx, r.trainLabel = pick(d.TrainIdx)
	r.testIdx, r.testLabel = pick(d.TestIdx)
	return r
}

// withIdentityRelation returns d with the R-GCN paper's self-connection
// as its reference implementation (tkipf/relational-gcn,
// prepare_dataset.py) builds it: one edge i -> i for every node, of a new
// last relation (id numRels, norm 1), so that W_0 is one more relation of
// the basis decomposition (W_0 = sum_b a_0b V_b) rather than the separate
// full weight of RGCNOptions.SelfLoop (DGL's self_loop).
func withIdentityRelation(d *rgcnData) *rgcnData {
	g := d.g.AddSelfLoop()
	et := append([]int64(nil), d.etypes.Int64s()...)
	norm := append([]float32(nil), d.norm.Float32s()...)
	for i := 0; i < d.g.NumNodes(); i++ {
		et, norm = append(et, int64(d.numRels)), append(norm, 1)
	}
	r := *d
	r.g, r.etypes, r.norm, r.numRels = g, tensor.FromInt64(et), tensor.FromFloat32(norm, len(norm), 1), d.numRels+1
	return &r
}

// withPaperRelations returns d with the relations of the R-GCN paper's
// graph (Table 1's 23 predicates and their inverses: one relation per
// relation name, not per canonical edge type, so (d, type, SCHEMA) and
// (bond, type, SCHEMA) share W_type as in tkipf/relational-gcn) and norm
// 1/c_{i,r} recomputed per (destination, relation).
func withPaperRelations(d *rgcnData) *rgcnData {
	id := map[string]int64{}
	var of []int64
	for _, n := range d.relNames {
		if _, ok := id[n]; !ok {
			id[n] = int64(len(id))
		}
		of = append(of, id[n])
	}
	old := d.etypes.Int64s()
	et := make([]int64, len(old))
	_, dst := d.g.Edges()
	dsts := dst.Int64s()
	count := map[[2]int64]int{}
	for e, t := range old {
		et[e] = of[t]
		count[[2]int64{dsts[e], et[e]}]++
	}
	norm := make([]float32, len(et))
	for e := range et {
		norm[e] = 1 / float32(count[[2]int64{dsts[e], et[e]}])
	}
	r := *d
	r.etypes, r.norm, r.numRels = tensor.FromInt64(et), tensor.FromFloat32(norm, len(norm), 1), len(id)
	r.relNames = nil
	return &r
}

// fitRGCN trains the model o describes (NumNodes, OutFeats and NumRels
// filled in from d) full-graph with Adam (lr 0.01; weight decay wd1 on
// the first layer's parameters, as the paper's L2 penalty on the first
// layer, and wd on the others) for epochs and returns the test accuracy.
func fitRGCN(d *rgcnData, o RGCNOptions, wd1, wd float64, epochs int) float64 {
	return fitRGCNOn(d, d.trainIdx, d.trainLabel, d.testIdx, d.testLabel, o, wd1, wd, epochs)
}

// fitRGCNOn is fitRGCN training on the nodes trainIdx (labels trainLabel)
// and returning the accuracy on evalIdx (labels evalLabel).
func fitRGCNOn(d *rgcnData, trainIdx, trainLabel, evalIdx, evalLabel *tensor.Tensor, o RGCNOptions, wd1, wd float64, epochs int) float64 {
	return fitRGCNOnInit(d, trainIdx, trainLabel, evalIdx, evalLabel, o, wd1, wd, epochs, false)
}

// kerasInit re-draws the weights of m's basis-decomposed layers as the
// R-GCN paper's reference implementation (tkipf/relational-gcn,
// rgcn/layers/graph.py, Keras 1 glorot_uniform) initialises them: every
// basis V_b, an (in, out) matrix of its own, from U(-a, a) with
// a = sqrt(6/(in+out)), and W_comp (NumRels, NumBases) with
// a = sqrt(6/(NumRels+NumBases)); no ReLU gain. DGL's RelGraphConv draws
// the (NumBases, in, out) tensor at once with the ReLU gain sqrt(2)
// (fan_in in*out, fan_out NumBases*out): for MUTAG's featureless first
// layer a = 0.0056 where Keras has 0.0159, and 0.36 vs 0.58 on layer 2.
// Without bases (full weights) Keras draws one (in*R, out) matrix:
// a = sqrt(6/(in*R+out)).
func kerasInit(m *RGCN, seed int64) {
	gen := tensor.NewGenerator(seed)
	for _, l := range m.Layers {
		if l.WComp == nil {
			// Full weights: one (in*R, out) matrix in Keras.
			XavierUniform(l.Weight, l.InFeats*l.NumRels, l.OutFeats, 1, gen)
			continue
		}
		XavierUniform(l.Weight, l.InFeats, l.OutFeats, 1, gen)
		XavierUniform(l.WComp, l.NumRels, l.NumBases, 1, gen)
	}
}

// fitRGCNOnInit is fitRGCNOn, with the weights re-drawn by kerasInit
// (seeded by o.Seed) when keras is set.
func fitRGCNOnInit(d *rgcnData, trainIdx, trainLabel, evalIdx, evalLabel *tensor.Tensor, o RGCNOptions, wd1, wd float64, epochs int, keras bool) float64 {
	o.NumNodes, o.OutFeats, o.NumRels = d.g.NumNodes(), d.numClasses, d.numRels
	m := NewRGCN(o)
	if keras {
		kerasInit(m, o.Seed)
	}
	first := m.Layers[0].Parameters()
	var rest []*tensor.Tensor
	if m.Emb != nil {
		rest = append(rest, m.Emb.Parameters()...)
	}
	rest = append(rest, m.Layers[1].Parameters()...)
	opt := optim.NewAdam(first, optim.AdamOptions{LR: 0.01, WeightDecay: wd1})
	opt.AddParamGroup(optim.ParamGroup{Params: rest, LR: 0.01, WeightDecay: wd})
	for e := 0; e < epochs; e++ {
		m.Train()
		logits := tensor.IndexSelect(m.Forward(d.g, d.etypes, d.norm), trainIdx)
		loss := tensor.CrossEntropy(logits, trainLabel)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	m.Eval()
	var acc float64
	tensor.NoGrad(func() {
		acc = tensor.Accuracy(tensor.IndexSelect(m.Forward(d.g, d.etypes, d.norm), evalIdx), evalLabel)
	})
	return acc
}

// stratifiedFolds splits the training nodes of d into k folds, stratified
// by label: each class's nodes are shuffled (seeded) and dealt round-robin
// (continuing from class to class), so fold sizes differ by at most one.
// It returns, per fold, the held-out nodes and labels and the rest.
func stratifiedFolds(d *rgcnData, k int, seed int64) (valIdx, valLabel, fitIdx, fitLabel []*tensor.Tensor) {
	ids, labels := d.trainIdx.Int64s(), d.trainLabel.Int64s()
	byClass := map[int64][]int{}
	var classes []int64
	for i, l := range labels {
		if _, ok := byClass[l]; !ok {
			classes = append(classes, l)
		}
		byClass[l] = append(byClass[l], i)
	}
	slices.Sort(classes)
	rng := rand.New(rand.NewSource(seed))
	fold := make([]int, len(ids))
	next := 0
	for _, c := range classes {
		rows := byClass[c]
		rng.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
		for _, r := range rows {
			fold[r] = next % k
			next++
		}
	}
	for f := 0; f < k; f++ {
		var vi, vl, fi, fl []int64
		for r := range ids {
			if fold[r] == f {
				vi, vl = append(vi, ids[r]), append(vl, labels[r])
			} else {
				fi, fl = append(fi, ids[r]), append(fl, labels[r])
			}
		}
		valIdx, valLabel = append(valIdx, tensor.FromInt64(vi)), append(valLabel, tensor.FromInt64(vl))
		fitIdx, fitLabel = append(fitIdx, tensor.FromInt64(fi)), append(fitLabel, tensor.FromInt64(fl))
	}
	return valIdx, valLabel, fitIdx, fitLabel
}

// TestRGCNAccuracyAIFB: the R-GCN paper's AIFB setup (Schlichtkrull et
// al. 2018, Table 4 and DGL's entity_classify.py for AIFB: featureless
// one-hot input, 2 layers, 16 hidden, full weights per relation (0
// bases), no L2, 50 epochs of Adam lr 0.01) with the paper's
// self-connection W_0 h_i (eq. 2), mean test accuracy of 5 seeds. The
// issue's goal is 95% (paper 95.83%); measured 0.9722 for every seed.
// The embedding-input setup of DGL's entity.py measured 0.8889 here.
func TestRGCNAccuracyAIFB(t *testing.T) {
	ds, err := datasets.LoadAIFB(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	d := prepareRGCN(t, ds)
	var sum float64
	for seed := int64(0); seed < 5; seed++ {
		o := RGCNOptions{HiddenFeats: 16, Featureless: true, Regularizer: "none", SelfLoop: true, Seed: seed}
		acc := fitRGCN(d, o, 0, 0, 50)
		t.Logf("seed %d: test accuracy %.4f", seed, acc)
		sum += acc
	}
	if mean := sum / 5; mean < 0.95 {
		t.Errorf("AIFB R-GCN mean test accuracy %.4f < 0.95", mean)
	} else {
		t.Logf("mean test accuracy %.4f", mean)
	}
}

// TestRGCNAccuracyMUTAG: MUTAG as the R-GCN paper (Schlichtkrull et al.
// 2018) and its reference implementation (tkipf/relational-gcn: train.py
// -d mutag --hidden 16 --l2norm 5e-4 --testing) train it: the paper's
// graph (datasets.LoadMUTAG: 23,644 entities, 148,454 edges with the
// reverse ones), the paper's 46 relations (withPaperRelations: one per
// predicate and one per inverse, norm 1/c_{i,r}), featureless one-hot
// input, 2 layers, 16 hidden, 10 bases, no bias, the self-connection as
// one more basis-decomposed relation (withIdentityRelation: 47 supports,
// as prepare_dataset.py), the reference's initial weights (kerasInit:
// Keras glorot_uniform per basis and on W_comp), Keras' l2(5e-4) on the
// first layer's bases and W_comp (Adam's coupled weight decay 1e-3), 50
// full-graph epochs of Adam lr 0.01. Mean test accuracy of 5 seeds; the
// issue's goal is 73% (paper 73.23%).
//
// The config was selected without the test set, by seeded stratified
// 5-fold cross-validation on the 272 training compounds (mean validation
// accuracy; a fold holds 54 or 55 compounds, so differences under about
// 0.03 are noise), in two rounds. TestRGCNSelectMUTAG chose the recipe:
//
//	30 bases, DGL self-loop (full W_0), bias, L2 5e-4 layer 1    0.6764
//	30 bases, paper self-connection, no bias, L2 1e-3 layer 1    0.6803
//	30 bases, paper self-connection, no bias, L2 5e-4 layer 1    0.6766
//	paper relations (46), paper self-connection, no bias, L2 1e-3  0.6914
//	  the same with the Keras init (kerasInit)                    0.6986  (selected)
//
// (test mean 0.7265 with 30 bases: 0.6765, 0.7353, 0.7353, 0.7647,
// 0.7206). TestRGCNSelectMUTAGPaperGrid then searched, with that recipe,
// the hyperparameters the paper tunes on validation data, the number of
// bases and the first layer's L2 penalty:
//
//	bases        0       10      20      30      40
//	L2 1e-3    0.6615  0.7094  0.6876  0.6986  0.6912
//	L2 0       0.5951  0.6100  0.6430  (n/a)   0.6287
//
// and chose 10 bases with L2 (validation 0.7094). Retrained on the whole
// training set it measures 0.7647, 0.7059, 0.7500, 0.7353, 0.7353 on the
// 68 test compounds (one is 1.47 points), mean 0.7382, the only test
// evaluation of that round.
//
// Before LoadMUTAG built the paper's graph it built DGL's MUTAGDataset
// (27,163 nodes: every structure instance split into two unconnected
// nodes). There the same procedure over 8 DGL-layer candidates (30 bases
// vs full weights, with vs without the self-loop, L2 on layer 1 vs all)
// chose 30 bases, self-loop, L2 layer 1 (validation 0.6803; the others
// 0.6396-0.6766), test mean 0.7235. The earlier "full weights" choice
// (mean 0.7441) was made on the test set and is not used.
func TestRGCNAccuracyMUTAG(t *testing.T) {
	ds, err := datasets.LoadMUTAG(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	d := withIdentityRelation(withPaperRelations(prepareRGCN(t, ds)))
	var sum float64
	for seed := int64(0); seed < 5; seed++ {
		o := RGCNOptions{HiddenFeats: 16, Featureless: true, Regularizer: "basis", NumBases: 10, NoBias: true, Seed: seed}
		acc := fitRGCNOnInit(d, d.trainIdx, d.trainLabel, d.testIdx, d.testLabel, o, 1e-3, 0, 50, true)
		t.Logf("seed %d: test accuracy %.4f", seed, acc)
		sum += acc
	}
	if mean := sum / 5; mean < 0.73 {
		t.Errorf("MUTAG R-GCN mean test accuracy %.4f < 0.73, the issue's goal (measured 0.7382)", mean)
	} else {
		t.Logf("mean test accuracy %.4f (paper 0.7323)", mean)
	}
}

// TestRGCNSelectMUTAG selects TestRGCNAccuracyMUTAG's config without the
// test set (the standard split has no validation set): seeded stratified
// 5-fold cross-validation on the 272 training compounds (fold f trains
// with seed f on the other four folds, 50 epochs, and scores fold f), on
// the paper's graph (datasets.LoadMUTAG), over DGL's layers (a separate
// full self-loop weight and a bias; the previous selection) vs the
// paper's reference implementation (the self-connection as a
// basis-decomposed relation, no bias) with Keras' L2 (Adam weight decay
// 1e-3 on the first layer) or DGL's 5e-4, and that with the paper's 46
// relations instead of the 52 canonical edge types, and that with the
// reference's initial weights (kerasInit); picked by mean
// validation accuracy (ties: the earlier candidate). It then retrains the
// selected config on the whole training set with seeds 0..4 and logs the
// mean test accuracy, once. It takes about an hour on a loaded 2-core
// machine, so it runs only with GNNREPL_VALSEL=1; the results are
// recorded at TestRGCNAccuracyMUTAG.
func TestRGCNSelectMUTAG(t *testing.T) {
	if os.Getenv("GNNREPL_VALSEL") == "" {
		t.Skip("model selection by cross-validation on MUTAG's training set: set GNNREPL_VALSEL=1 (minutes)")
	}
	ds, err := datasets.LoadMUTAG(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	d := prepareRGCN(t, ds)
	const k = 5
	valIdx, valLabel, fitIdx, fitLabel := stratifiedFolds(d, k, 42)
	type cand struct {
		name    string
		o       RGCNOptions
		wd1, wd float64
		// identity: the paper's self-connection (withIdentityRelation);
		// paperRels: its relations too (withPaperRelations); keras: its
		// initial weights too (kerasInit).
		identity, paperRels, keras bool
	}
	// DGL's layers (a full self-loop weight W_0 and a bias; L2 5e-4 on the
	// first layer), the previous selection, and the paper's reference
	// implementation (tkipf/relational-gcn): the self-connection as one
	// more basis-decomposed relation, no bias, Keras' l2(5e-4) on the first
	// layer's bases and coefficients (a loss term 5e-4 ||W||^2: gradient
	// 1e-3 W, Adam's coupled weight decay 1e-3), and that with DGL's 5e-4.
	cands := []cand{{name: "30 bases, self-loop, bias, L2 5e-4 layer 1",
		o: RGCNOptions{HiddenFeats: 16, Featureless: true, Regularizer: "basis", NumBases: 30, SelfLoop: true}, wd1: 5e-4}}
	for _, wd1 := range []float64{1e-3, 5e-4} {
		cands = append(cands, cand{name: fmt.Sprintf("30 bases, paper self-connection, no bias, L2 %g layer 1", wd1),
			o: RGCNOptions{HiddenFeats: 16, Featureless: true, Regularizer: "basis", NumBases: 30, NoBias: true}, wd1: wd1, identity: true})
	}
	cands = append(cands, cand{name: "paper relations (46), paper self-connection, no bias, L2 0.001 layer 1",
		o: RGCNOptions{HiddenFeats: 16, Featureless: true, Regularizer: "basis", NumBases: 30, NoBias: true}, wd1: 1e-3, identity: true, paperRels: true})
	cands = append(cands, cand{name: "paper relations (46), paper self-connection, no bias, L2 0.001 layer 1, Keras init",
		o: RGCNOptions{HiddenFeats: 16, Featureless: true, Regularizer: "basis", NumBases: 30, NoBias: true}, wd1: 1e-3, identity: true, paperRels: true, keras: true})
	di, dp := withIdentityRelation(d), withIdentityRelation(withPaperRelations(d))
	data := func(c cand) *rgcnData {
		switch {
		case c.paperRels:
			return dp
		case c.identity:
			return di
		}
		return d
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = c.name
	}
	best, bestAcc := selectByCV(t, names, k, func(i, f int) float64 {
		c := cands[i]
		o := c.o
		o.Seed = int64(f)
		return fitRGCNOnInit(data(c), fitIdx[f], fitLabel[f], valIdx[f], valLabel[f], o, c.wd1, c.wd, 50, c.keras)
	})
	c := cands[best]
	dc := data(c)
	mean, accs := meanAcc(5, func(seed int) float64 {
		o := c.o
		o.Seed = int64(seed)
		return fitRGCNOnInit(dc, dc.trainIdx, dc.trainLabel, dc.testIdx, dc.testLabel, o, c.wd1, c.wd, 50, c.keras)
	})
	t.Logf("selected %s (val %.4f): TEST accuracy mean of 5 seeds %.4f %.4f", c.name, bestAcc, mean, accs)
}

// meanAcc returns the mean of fit(0), ..., fit(n-1) and the values.
func meanAcc(n int, fit func(i int) float64) (float64, []float64) {
	accs := make([]float64, n)
	var sum float64
	for i := range accs {
		accs[i] = fit(i)
		sum += accs[i]
	}
	return sum / float64(n), accs
}

// selectByCV scores each candidate by its mean accuracy over k folds
// (fit(candidate, fold)), logs it, and returns the best candidate and its
// score (ties: the earlier candidate).
func selectByCV(t *testing.T, names []string, k int, fit func(cand, fold int) float64) (int, float64) {
	best, bestAcc := -1, -1.0
	for i, name := range names {
		mean, accs := meanAcc(k, func(f int) float64 { return fit(i, f) })
		t.Logf("%-72s %d-fold val accuracy %.4f %.4f", name, k, mean, accs)
		if mean > bestAcc {
			best, bestAcc = i, mean
		}
	}
	return best, bestAcc
}

// TestRGCNSelectMUTAGPaperGrid extends TestRGCNSelectMUTAG's selection
// over the hyperparameters the R-GCN paper tunes on validation data
// (Schlichtkrull et al. 2018, section 5.1): the number of bases (0, 10,
// 20, 30, 40) and the L2 penalty on the first layer (Keras' 5e-4 or 0),
// each with the reference implementation's recipe that TestRGCNSelectMUTAG
// selected (the paper's 46 relations, its self-connection, no bias,
// Keras' initial weights, 50 epochs of Adam lr 0.01, 16 hidden): the same
// seeded stratified 5-fold cross-validation on the 272 training
// compounds, picked by mean validation accuracy (ties: the earlier
// candidate; the previous selection, 30 bases with L2, comes first). It
// then retrains the selected config on the whole training set with seeds
// 0..4 and logs the mean test accuracy, once. GNNREPL_VALSEL=1 runs it
// (about 15 minutes on 2 cores); the results are recorded at
// TestRGCNAccuracyMUTAG.
func TestRGCNSelectMUTAGPaperGrid(t *testing.T) {
	if os.Getenv("GNNREPL_VALSEL") == "" {
		t.Skip("model selection by cross-validation on MUTAG's training set: set GNNREPL_VALSEL=1 (minutes)")
	}
	ds, err := datasets.LoadMUTAG(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	d := withIdentityRelation(withPaperRelations(prepareRGCN(t, ds)))
	const k = 5
	valIdx, valLabel, fitIdx, fitLabel := stratifiedFolds(d, k, 42)
	type cand struct {
		bases int
		wd1   float64
	}
	cands := []cand{{30, 1e-3}}
	for _, b := range []int{0, 10, 20, 30, 40} {
		for _, wd1 := range []float64{1e-3, 0} {
			if b != 30 || wd1 != 1e-3 {
				cands = append(cands, cand{b, wd1})
			}
		}
	}
	opts := func(c cand, seed int64) RGCNOptions {
		o := RGCNOptions{HiddenFeats: 16, Featureless: true, Regularizer: "basis", NumBases: c.bases, NoBias: true, Seed: seed}
		if c.bases == 0 {
			o.Regularizer = "none"
		}
		return o
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = fmt.Sprintf("bases %2d, L2 (Adam weight decay) %-6g layer 1:", c.bases, c.wd1)
	}
	best, bestAcc := selectByCV(t, names, k, func(i, f int) float64 {
		c := cands[i]
		return fitRGCNOnInit(d, fitIdx[f], fitLabel[f], valIdx[f], valLabel[f], opts(c, int64(f)), c.wd1, 0, 50, true)
	})
	c := cands[best]
	mean, accs := meanAcc(5, func(seed int) float64 {
		return fitRGCNOnInit(d, d.trainIdx, d.trainLabel, d.testIdx, d.testLabel, opts(c, int64(seed)), c.wd1, 0, 50, true)
	})
	t.Logf("selected bases %d, L2 %g (val %.4f): TEST accuracy mean of 5 seeds %.4f %.4f", c.bases, c.wd1, bestAcc, mean, accs)
}
