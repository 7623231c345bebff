package sampling_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"github.com/gnnrepl/gnnrepl/metrics"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// lpLayer is a SAGE-style heterograph layer: per destination type, the sum
// over relations of a mean-aggregating GraphConv (HeteroGraphConv) plus a
// linear self term of the destination nodes' own features (read from
// their own type's source rows, which SAGEConv on a cross-type relation
// would not do).
type lpLayer struct {
	conv *nn.HeteroGraphConv
	self map[string]*nn.Linear
}

func newLPLayer(g *graph.Graph, in, out int, gen *tensor.Generator) *lpLayer {
	mods := map[string]nn.GraphModel{}
	for _, ce := range g.CanonicalETypes() {
		mods[ce.EType] = nn.NewGraphConv(nn.GraphConvOptions{InFeats: in, OutFeats: out, Norm: "right", NoBias: true, AllowZeroInDegree: true, Gen: gen})
	}
	l := &lpLayer{conv: nn.NewHeteroGraphConv(mods, "sum"), self: map[string]*nn.Linear{}}
	for _, nt := range g.NTypes() {
		l.self[nt] = nn.NewLinear(in, out, true, gen)
	}
	return l
}

func (l *lpLayer) params() []*tensor.Tensor {
	p := l.conv.Parameters()
	for _, nt := range []string{"artist", "user"} {
		p = append(p, l.self[nt].Parameters()...)
	}
	return p
}

func (l *lpLayer) forward(blk *graph.HeteroBlock, x map[string]*tensor.Tensor) map[string]*tensor.Tensor {
	h := l.conv.ForwardBlock(blk, x)
	for _, nt := range blk.NTypes() {
		nd := blk.NumDstNodes(nt)
		if nd == 0 {
			continue
		}
		s := l.self[nt].Forward(tensor.Narrow(x[nt], 0, nd))
		if a, ok := h[nt]; ok {
			s = tensor.Add(a, s)
		}
		h[nt] = s
	}
	return h
}

type lpModel struct {
	emb    map[string]*nn.Embedding
	layers []*lpLayer
}

func (m *lpModel) params() []*tensor.Tensor {
	var p []*tensor.Tensor
	for _, nt := range []string{"artist", "user"} {
		p = append(p, m.emb[nt].Parameters()...)
	}
	for _, l := range m.layers {
		p = append(p, l.params()...)
	}
	return p
}

func (m *lpModel) forward(blocks []*graph.HeteroBlock) map[string]*tensor.Tensor {
	x := map[string]*tensor.Tensor{}
	for _, nt := range blocks[0].NTypes() {
		x[nt] = m.emb[nt].Forward(blocks[0].SrcNodes(nt))
	}
	for i, l := range m.layers {
		x = l.forward(blocks[i], x)
		if i+1 < len(m.layers) {
			for nt, t := range x {
				x[nt] = tensor.ReLU(t)
			}
		}
	}
	return x
}

// dotScores scores the user -> artist edges of a pair graph whose nodes
// are the rows of h, h_u . h_a, (E).
func dotScores(pair *graph.Graph, etype string, h map[string]*tensor.Tensor) *tensor.Tensor {
	u, a := pair.EdgesOf(etype)
	return tensor.SumDim(tensor.Mul(tensor.IndexSelect(h["user"], u), tensor.IndexSelect(h["artist"], a)), 1, false)
}

// heldOutAUC scores the (user, artist) pairs pos and their negatives (one
// per pair, an artist the user never listened to in any split) with full
// neighbourhoods of the training graph and returns the ROC AUC.
func heldOutAUC(t *testing.T, d *datasets.RecDataset, m *lpModel, pos *tensor.Tensor) float64 {
	t.Helper()
	neg, err := d.NegativePairs(pos, 1, 99, "all")
	if err != nil {
		t.Fatal(err)
	}
	g := d.TrainGraph
	seeds := map[string][]int64{"user": arangeN(d.NumUsers), "artist": arangeN(d.NumItems)}
	blocks, err := sampling.NeighborSampler{Fanouts: []int{-1, -1}}.SampleHeteroBlocks(g, seeds, 0)
	if err != nil {
		t.Fatal(err)
	}
	var auc float64
	tensor.NoGrad(func() {
		h := m.forward(blocks) // rows = node ids (the seeds are every node in order)
		score := func(p *tensor.Tensor) *tensor.Tensor {
			n := p.Size(0)
			ids := p.Int64s()
			us, as := make([]int64, n), make([]int64, n)
			for i := 0; i < n; i++ {
				us[i], as[i] = ids[2*i], ids[2*i+1]
			}
			return tensor.SumDim(tensor.Mul(tensor.IndexSelect(h["user"], tensor.FromInt64(us)), tensor.IndexSelect(h["artist"], tensor.FromInt64(as))), 1, false)
		}
		auc, err = metrics.ROCAUC(score(pos), score(neg))
	})
	if err != nil {
		t.Fatal(err)
	}
	return auc
}

func arangeN(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i)
	}
	return s
}

// TestHeteroEdgeLoaderLastFM trains link prediction on the Last.fm
// heterograph (users, artists, "listens" / "rev-listens", "friends") with
// NewHeteroEdgeDataLoader: a 2-layer SAGE-style HeteroGraphConv model on
// sampled blocks (fanout 10 per edge type and layer), node embeddings for
// the featureless users and artists, a dot scorer on user -> artist and
// BCE with logits against PerSourceUniform(2) negatives, the batch's
// listens and their rev-listens excluded from the neighbourhoods
// ("reverse_types"). The held-out test AUC (one negative per test pair, an
// artist the user never listened to) must be >= 0.90.
//
// Hyperparameters (dim 32, Adam lr 0.01, batch 1024, k = 2, 6 epochs)
// were chosen on the validation pairs (ValPos): validation AUC 0.900,
// 0.926, 0.938 and 0.944 after 1, 3, 6 and 10 epochs; 6 keeps the test
// well under its time budget. GNNREPL_HEDGE_EPOCHS overrides the epochs
// for exploration.
func TestHeteroEdgeLoaderLastFM(t *testing.T) {
	dir := shareddata.Dir(t) // skips only when ../shared/data is absent
	if _, err := os.Stat(filepath.Join(dir, datasets.LastFMFolder)); err != nil {
		t.Skipf("Last.fm data not found under %s (%v)", dir, err)
	}
	d, err := datasets.LoadLastFM(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := d.TrainGraph
	epochs, dim, lr, batch, k := 6, 32, 0.01, 1024, 2
	if s := os.Getenv("GNNREPL_HEDGE_EPOCHS"); s != "" {
		epochs, _ = strconv.Atoi(s)
	}
	gen := tensor.NewGenerator(1)
	m := &lpModel{emb: map[string]*nn.Embedding{}}
	for _, nt := range g.NTypes() {
		m.emb[nt] = nn.NewEmbedding(g.NumNodesOf(nt), dim, gen)
	}
	m.layers = []*lpLayer{newLPLayer(g, dim, dim, gen), newLPLayer(g, dim, dim, gen)}
	opt := optim.NewAdam(m.params(), optim.AdamOptions{LR: lr})

	train := map[string]*tensor.Tensor{d.EType: tensor.FromInt64(arangeN(g.NumEdgesOf(d.EType)))}
	sampler := sampling.AsHeteroEdgePredictionSampler(sampling.NeighborSampler{Fanouts: []int{10, 10}},
		sampling.HeteroEdgePredictionOptions{
			Exclude:         sampling.ExcludeReverseTypes,
			ReverseETypes:   map[string]string{"listens": "rev-listens"},
			NegativeSampler: sampling.PerSourceUniform(k),
		})
	loader, err := sampling.NewHeteroEdgeDataLoader(g, train, sampler, sampling.LoaderOptions{BatchSize: batch, Shuffle: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer loader.Close()
	lk := `("user", "listens", "artist")`
	for ep := 0; ep < epochs; ep++ {
		var sum float64
		n := 0
		for loader.Next() {
			h := m.forward(loader.Blocks())
			pos := dotScores(loader.PairGraph(), lk, h)
			neg := dotScores(loader.NegPairGraph(), lk, h)
			loss := nn.LinkBCELoss(pos, neg)
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
			sum += float64(loss.Item())
			n++
		}
		if err := loader.Err(); err != nil {
			t.Fatal(err)
		}
		t.Logf("epoch %d: mean loss %.4f over %d batches", ep, sum/float64(n), n)
	}
	val := heldOutAUC(t, d, m, d.ValPos)
	test := heldOutAUC(t, d, m, d.TestPos)
	t.Logf("Last.fm link prediction: validation AUC %.4f, test AUC %.4f (%d / %d pairs)", val, test, d.ValPos.Size(0), d.TestPos.Size(0))
	if test < 0.90 {
		t.Fatalf("test AUC %.4f < 0.90", test)
	}
}
