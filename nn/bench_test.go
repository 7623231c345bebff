package nn

import (
	"testing"

	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// benchEpoch measures one full-graph training epoch on Cora: forward,
// masked cross-entropy, backward and an Adam step.
func benchEpoch(b *testing.B, build func(int64) (GraphModel, optim.Optimizer)) {
	d, g := planetoid(b, "cora")
	feat, labels := d.Graph.NData("feat"), d.Graph.NData("label")
	m, opt := build(0)
	m.Train()
	step := func() {
		opt.ZeroGrad()
		MaskedCrossEntropy(m.Forward(g, feat), labels, d.TrainIdx).Backward()
		opt.Step()
	}
	step()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
}

// BenchmarkGCNEpochCora is one epoch of Kipf & Welling's GCN on Cora
// (2708 nodes, 13264 edges with self loops, 1433 -> 16 -> 7).
func BenchmarkGCNEpochCora(b *testing.B) {
	var d = struct{ f, c int }{1433, 7}
	benchEpoch(b, func(seed int64) (GraphModel, optim.Optimizer) {
		m := NewGCN(GCNOptions{InFeats: d.f, OutFeats: d.c, Dropout: 0.5, InputDropout: 0.5, Seed: seed})
		return m, optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	})
}

// BenchmarkGATEpochCora is one epoch of the paper's GAT on Cora (8 heads x
// 8 hidden, 1 output head, dropout 0.6).
func BenchmarkGATEpochCora(b *testing.B) {
	benchEpoch(b, func(seed int64) (GraphModel, optim.Optimizer) {
		m := NewGAT(GATOptions{InFeats: 1433, OutFeats: 7, FeatDrop: 0.6, AttnDrop: 0.6, Seed: seed})
		return m, optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.005, WeightDecay: 5e-4})
	})
}

// benchSAGEConv measures a SAGEConv forward and backward pass on a
// synthetic graph of 20,000 nodes with 10 in-edges each, 128 -> 128
// features.
func benchSAGEConv(b *testing.B, agg string, backward bool) {
	const n, deg, f = 20000, 10, 128
	g := randomGraph(b, n, deg, false, 1)
	x := randT(2, -1, 1, n, f)
	c := NewSAGEConv(SAGEConvOptions{InFeats: f, OutFeats: f, Aggregator: agg, Gen: tensor.NewGenerator(3)})
	b.SetBytes(int64(n*deg) * f * 4) // gathered message bytes
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		y := c.Forward(g, x)
		if backward {
			tensor.Sum(y).Backward()
			c.ZeroGrad()
		}
	}
}

func BenchmarkSAGEConvMeanForward(b *testing.B)  { benchSAGEConv(b, "mean", false) }
func BenchmarkSAGEConvMeanBackward(b *testing.B) { benchSAGEConv(b, "mean", true) }
func BenchmarkSAGEConvPoolBackward(b *testing.B) { benchSAGEConv(b, "pool", true) }
func BenchmarkSAGEConvGCNBackward(b *testing.B)  { benchSAGEConv(b, "gcn", true) }

// BenchmarkGATConvBackward is a GATConv (8 heads x 16) forward and backward
// pass on the same synthetic graph with 128 input features.
func BenchmarkGATConvBackward(b *testing.B) {
	const n, deg, f = 20000, 10, 128
	g := randomGraph(b, n, deg, true, 1)
	x := randT(2, -1, 1, n, f)
	c := NewGATConv(GATConvOptions{InFeats: f, OutFeats: 16, NumHeads: 8, Gen: tensor.NewGenerator(3)})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tensor.Sum(c.Forward(g, x)).Backward()
		c.ZeroGrad()
	}
}

// BenchmarkGCNEpochPubMed is one epoch of the GCN on PubMed (19717 nodes,
// 500 TF-IDF features, 3 classes) as DGL's example trains it.
func BenchmarkGCNEpochPubMed(b *testing.B) {
	d, g := planetoid(b, "pubmed")
	feat, labels := d.Graph.NData("feat"), d.Graph.NData("label")
	m, opt := kipfGCN(d, 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Train()
		opt.ZeroGrad()
		MaskedCrossEntropy(m.Forward(g, feat), labels, d.TrainIdx).Backward()
		opt.Step()
	}
}
