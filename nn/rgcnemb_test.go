package nn

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// embBlocks samples 2 blocks of smallHetero around a few items.
func embBlocks(t *testing.T) (*graph.Graph, []*graph.HeteroBlock) {
	t.Helper()
	g := smallHetero(t)
	blocks, err := sampling.NeighborSampler{Fanouts: []int{3, 3}}.SampleHeteroBlocks(g, map[string][]int64{"item": {0, 5, 7}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return g, blocks
}

// TestRGCNNodeEmbeddingsGrad: with NodeEmbeddings for users and tags and
// inputs for items only, the sparse embedding's gradient covers exactly
// the block's user / tag source rows and equals the dense embedding's
// gradient there (zero elsewhere); one SparseAdam step changes only those
// rows and equals a dense Adam step from fresh state.
func TestRGCNNodeEmbeddingsGrad(t *testing.T) {
	g, blocks := embBlocks(t)
	opts := RGCNOptions{InFeats: 4, HiddenFeats: 5, OutFeats: 3, NumRels: len(g.CanonicalETypes()), SelfLoop: true, Regularizer: "none", Seed: 7,
		NodeEmbeddings: map[string]int{"user": 30, "tag": 4}}
	x := map[string]*tensor.Tensor{"item": randT(3, -1, 1, blocks[0].NumSrcNodes("item"), 4)}
	run := func(sparse bool) (*RGCN, *tensor.Tensor) {
		m := NewRGCN(opts)
		for _, e := range m.NodeEmb {
			e.Sparse = sparse
		}
		out := m.ForwardBlocks(blocks, x)
		if got := out["item"].Shape(); len(got) != 2 || got[0] != 3 || got[1] != 3 {
			t.Fatalf("output shape %v, want [3 3]", got)
		}
		loss := tensor.Sum(tensor.Mul(out["item"], out["item"]))
		loss.Backward()
		return m, loss
	}
	if blocks[0].NumSrcNodes("user") == 0 || blocks[0].NumSrcNodes("user") == 30 {
		t.Fatalf("the block has %d of 30 users; the test needs some, not all", blocks[0].NumSrcNodes("user"))
	}
	ms, ls := run(true)
	md, ld := run(false)
	if ls.Item() != ld.Item() {
		t.Fatalf("sparse and dense losses differ: %v, %v", ls.Item(), ld.Item())
	}
	if len(ms.SparseParameters()) != 2 || len(ms.DenseParameters()) != len(ms.Parameters())-2 {
		t.Fatalf("SparseParameters %d, DenseParameters %d of %d", len(ms.SparseParameters()), len(ms.DenseParameters()), len(ms.Parameters()))
	}
	for _, nt := range []string{"user", "tag"} {
		es, ed := ms.NodeEmb[nt], md.NodeEmb[nt]
		if es.Weight.Grad() != nil {
			t.Errorf("%s: sparse embedding has a dense gradient", nt)
		}
		idx, grad := es.SparseGrad()
		if blocks[0].NumSrcNodes(nt) == 0 {
			if idx != nil {
				t.Errorf("%s: no source nodes but a sparse gradient", nt)
			}
			continue
		}
		nid := blocks[0].SrcData(nt, graph.NID).Int64s()
		if idx == nil || idx.Size(0) != len(nid) || grad.Size(0) != len(nid) || grad.Size(1) != 4 {
			t.Fatalf("%s: sparse grad %v / %v for %d source nodes", nt, idx, grad, len(nid))
		}
		touched := map[int64]bool{}
		for _, id := range nid {
			touched[id] = true
		}
		// Sum the sparse rows per id and compare with the dense gradient.
		sum := make([]float64, es.NumEmbeddings*4)
		for k, id := range idx.Int64s() {
			for j := 0; j < 4; j++ {
				sum[int(id)*4+j] += float64(grad.Float32s()[k*4+j])
			}
		}
		dg := ed.Weight.Grad().Float32s()
		nonzero := 0
		for r := 0; r < es.NumEmbeddings; r++ {
			for j := 0; j < 4; j++ {
				d := float64(dg[r*4+j])
				if !touched[int64(r)] && d != 0 {
					t.Errorf("%s: untouched row %d has dense gradient %g", nt, r, d)
				}
				if d != 0 {
					nonzero++
				}
				if math.Abs(d-sum[r*4+j]) > 1e-5*(1+math.Abs(d)) {
					t.Errorf("%s row %d col %d: sparse %g, dense %g", nt, r, j, sum[r*4+j], d)
				}
			}
		}
		if nonzero == 0 {
			t.Errorf("%s: no gradient at all", nt)
		}
		// One SparseAdam step vs one dense Adam step on the dense twin.
		before := es.Weight.Clone().Float32s()
		sa := optim.NewSparseAdam([]optim.SparseParam{es}, optim.SparseAdamOptions{LR: 0.1})
		sa.Step()
		optim.NewAdam([]*tensor.Tensor{ed.Weight}, optim.AdamOptions{LR: 0.1}).Step()
		after, dense := es.Weight.Float32s(), ed.Weight.Float32s()
		for i := range after {
			r := int64(i / 4)
			if !touched[r] && after[i] != before[i] {
				t.Errorf("%s: SparseAdam changed untouched row %d", nt, r)
			}
			if math.Abs(float64(after[i]-dense[i])) > 1e-6 {
				t.Errorf("%s elem %d: SparseAdam %g, Adam %g", nt, i, after[i], dense[i])
			}
		}
		if i, _ := es.SparseGrad(); i != nil {
			t.Errorf("%s: Step did not clear the lookups", nt)
		}
	}
	// Zeroing between Forward and Backward keeps the pending lookup; a
	// lookup whose Backward never comes is dropped at the second zeroing.
	e := ms.NodeEmb["user"]
	out := ms.ForwardBlocks(blocks, x)
	e.ZeroSparseGrad()
	tensor.Sum(out["item"]).Backward()
	if i, _ := e.SparseGrad(); i == nil {
		t.Errorf("ZeroSparseGrad between Forward and Backward lost the lookup")
	}
	e.ZeroSparseGrad()
	ms.ForwardBlocks(blocks, x) // abandoned
	e.ZeroSparseGrad()
	if len(e.lookups) != 1 {
		t.Errorf("%d lookups after one zeroing, want the pending one", len(e.lookups))
	}
	e.ZeroSparseGrad()
	if len(e.lookups) != 0 {
		t.Errorf("%d lookups after two zeroings, want 0", len(e.lookups))
	}
	// Eval mode and NoGrad record no lookups.
	ms.Eval()
	tensor.NoGrad(func() { ms.ForwardBlocks(blocks, x) })
	if i, _ := ms.NodeEmb["user"].SparseGrad(); i != nil || len(ms.NodeEmb["user"].lookups) != 0 {
		t.Errorf("eval forward recorded lookups")
	}
}

// TestRGCNNodeEmbeddingsErrors: the option and input errors name the node
// type.
func TestRGCNNodeEmbeddingsErrors(t *testing.T) {
	g, blocks := embBlocks(t)
	nr := len(g.CanonicalETypes())
	mk := func(ne map[string]int) *RGCN {
		return NewRGCN(RGCNOptions{InFeats: 4, HiddenFeats: 5, OutFeats: 3, NumRels: nr, NodeEmbeddings: ne, Seed: 1})
	}
	item := randT(3, -1, 1, blocks[0].NumSrcNodes("item"), 4)
	user := randT(4, -1, 1, blocks[0].NumSrcNodes("user"), 4)
	for _, tc := range []struct {
		name string
		f    func()
		kind error
		want string
	}{
		{"both", func() {
			mk(map[string]int{"user": 30, "tag": 4}).ForwardBlocks(blocks, map[string]*tensor.Tensor{"item": item, "user": user})
		}, ErrOption, `"user" has both inputs and an embedding`},
		{"neither", func() { mk(map[string]int{"tag": 4}).ForwardBlocks(blocks, map[string]*tensor.Tensor{"item": item}) }, ErrOption, `"user"`},
		{"unknown", func() {
			mk(map[string]int{"user": 30, "tag": 4, "shop": 3}).ForwardBlocks(blocks, map[string]*tensor.Tensor{"item": item})
		}, ErrOption, `"shop"`},
		{"out of range", func() {
			mk(map[string]int{"user": 2, "tag": 4}).ForwardBlocks(blocks, map[string]*tensor.Tensor{"item": item})
		}, tensor.ErrIndex, `node type "user": node id`},
		{"no InFeats", func() {
			NewRGCN(RGCNOptions{NumNodes: 5, OutFeats: 3, NumRels: nr, NodeEmbeddings: map[string]int{"user": 30}})
		}, ErrOption, "NodeEmbeddings needs InFeats"},
		{"size 0", func() {
			NewRGCN(RGCNOptions{InFeats: 4, OutFeats: 3, NumRels: nr, NodeEmbeddings: map[string]int{"user": 0}})
		}, ErrOption, `NodeEmbeddings["user"]`},
		{"sparse adam empty", func() { optim.NewSparseAdam(nil, optim.SparseAdamOptions{}) }, optim.ErrOption, "params is empty"},
		// Found by a new user: RGCN's own option names and values.
		{"regularizer", func() {
			NewRGCN(RGCNOptions{InFeats: 4, OutFeats: 3, NumRels: nr, Regularizer: "bogus"})
		}, ErrOption, `RGCN: Regularizer must be "basis" (the default), "bdd" or "none", got "bogus"`},
		{"out feats", func() { NewRGCN(RGCNOptions{InFeats: 4, NumRels: nr}) }, ErrOption, "RGCN: OutFeats must be positive"},
		{"heterograph", func() {
			NewRGCN(RGCNOptions{NumNodes: g.NumNodesOf("user"), Featureless: true, OutFeats: 3, NumRels: nr}).Forward(g, nil, nil)
		}, ErrOption, "g.ToHomogeneous"},
		{"nil input", func() {
			hc := NewHeteroGraphConv(map[string]GraphModel{"follows": NewGraphConv(GraphConvOptions{InFeats: 4, OutFeats: 2})}, "sum")
			hc.Forward(g, map[string]*tensor.Tensor{"user": nil})
		}, ErrOption, `inputs["user"] is nil`},
	} {
		err := tensor.Catch(tc.f)
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a %v error containing %q", tc.name, err, tc.kind, tc.want)
		}
	}
}

// TestRGCNNodeEmbeddingsACM trains minibatch R-GCN on HeCo's ACM with
// features for papers only: authors and subjects are made featureless and
// get learnable NodeEmbeddings (sparse, SparseAdam), as DGL's R-GCN on
// ogbn-mag. 2 layers (hidden 64, full weights per relation, self loop,
// dropout 0.5), fanouts [10, 10], batches of 32 of the 60 training papers,
// 40 epochs, Adam and SparseAdam at lr 0.01 (DGL's ogbn-mag settings, not
// tuned), the optimizers zeroed between Forward and Backward. It checks
// that the embeddings train and the validation accuracy (1,000 papers, 3
// classes, chance 1/3) on full neighbourhoods.
func TestRGCNNodeEmbeddingsACM(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few seconds")
	}
	d, err := datasets.LoadACM(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	r := fitRGCNEmbACM(t, d, 40, 0.01, 0.01, 0)
	t.Logf("ACM minibatch R-GCN, paper features + author/subject NodeEmbeddings: train loss %.3f -> %.3f, val accuracy %.4f (%d papers, chance 0.333), %d of %d author rows trained",
		r.first, r.last, r.val, d.ValIdx.Size(0), r.moved, d.Graph.NumNodesOf("author"))
	if !(r.last < r.first) || r.val < 0.6 || r.moved == 0 {
		t.Errorf("ACM R-GCN with node embeddings: loss %.3f -> %.3f, val accuracy %.4f < 0.6, %d author rows trained", r.first, r.last, r.val, r.moved)
	}
}

type acmEmbResult struct {
	first, last, val float64
	moved            int // author embedding rows changed by training
}

// fitRGCNEmbACM trains TestRGCNNodeEmbeddingsACM's model for epochs with
// Adam at lr and SparseAdam at slr (the embeddings frozen when 0) and L2
// weight decay wd on the dense weights, and returns the losses and the
// validation accuracy.
func fitRGCNEmbACM(t *testing.T, d *datasets.HeteroDataset, epochs int, lr, slr, wd float64) acmEmbResult {
	g := d.Graph
	feat := g.NDataOf("paper", "feat")
	nf := feat.Size(1)
	ne := map[string]int{}
	for _, nt := range g.NTypes() {
		if nt != "paper" {
			ne[nt] = g.NumNodesOf(nt)
		}
	}
	m := NewRGCN(RGCNOptions{InFeats: nf, HiddenFeats: 64, OutFeats: d.NumClasses, NumRels: len(g.CanonicalETypes()),
		Regularizer: "none", SelfLoop: true, Dropout: 0.5, Seed: 1, NodeEmbeddings: ne})
	before := m.NodeEmb["author"].Weight.Clone().Float32s()
	opt := optim.NewAdam(m.DenseParameters(), optim.AdamOptions{LR: lr, WeightDecay: wd})
	var sopt *optim.SparseAdam
	if slr > 0 {
		sopt = optim.NewSparseAdam(m.SparseParameters(), optim.SparseAdamOptions{LR: slr})
	}
	s := sampling.NeighborSampler{Fanouts: []int{10, 10}}
	dl, err := sampling.NewHeteroDataLoader(g, map[string]*tensor.Tensor{"paper": d.TrainIdx}, s,
		sampling.LoaderOptions{BatchSize: 32, Shuffle: true, Seed: 1, PrefetchLabels: []string{"label"}})
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	input := func(b *graph.HeteroBlock) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"paper": tensor.IndexSelect(feat, b.SrcData("paper", graph.NID))}
	}
	var r acmEmbResult
	m.Train()
	for epoch := 0; epoch < epochs; epoch++ {
		var sum float64
		n := 0
		for dl.Next() {
			blocks := dl.Blocks()
			out := m.ForwardBlocks(blocks, input(blocks[0]))
			loss := tensor.CrossEntropy(out["paper"], blocks[1].DstData("paper", "label"))
			opt.ZeroGrad()
			if sopt != nil {
				sopt.ZeroGrad() // between Forward and Backward: the lookups stay
			}
			loss.Backward()
			opt.Step()
			if sopt != nil {
				sopt.Step()
			}
			sum += float64(loss.Item())
			n++
		}
		if dl.Err() != nil {
			t.Fatal(dl.Err())
		}
		if epoch == 0 {
			r.first = sum / float64(n)
		}
		r.last = sum / float64(n)
	}
	m.Eval()
	blocks, err := sampling.NeighborSampler{Fanouts: []int{-1, -1}}.SampleHeteroBlocks(g, map[string][]int64{"paper": d.ValIdx.Int64s()}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tensor.NoGrad(func() {
		r.val = tensor.Accuracy(m.ForwardBlocks(blocks, input(blocks[0]))["paper"], tensor.IndexSelect(g.NDataOf("paper", "label"), d.ValIdx))
	})
	after := m.NodeEmb["author"].Weight.Float32s()
	for i := 0; i < len(after); i += nf {
		for j := i; j < i+nf; j++ {
			if after[j] != before[j] {
				r.moved++
				break
			}
		}
	}
	return r
}
