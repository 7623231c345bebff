package datasets_test

import (
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestPowerLawLearnable checks that the synthetic products-like graph can
// be learned: full-graph GraphSAGE-mean (2 layers, 64 hidden, dropout 0.5,
// Adam lr 0.01, 40 epochs) on ProductsLike at scale 0.002 (4,898 nodes,
// 123,718 edges, 100 features, 47 classes) must reach a test accuracy far
// above chance (1/47 = 0.021): at least 0.5. A linear model of the node's
// own features (nn.Linear, trained the same way) is logged beside it: the
// graph's communities are what lifts GraphSAGE above it.
func TestPowerLawLearnable(t *testing.T) {
	d, err := datasets.PowerLaw(datasets.ProductsLike(0.002, 1))
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	feat, labels := g.NData("feat"), g.NData("label")
	m := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: d.NumFeatures, HiddenFeats: 64, OutFeats: d.NumClasses,
		Dropout: 0.5, Seed: 1})
	opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01})
	for epoch := 0; epoch < 40; epoch++ {
		m.Train()
		opt.ZeroGrad()
		nn.MaskedCrossEntropy(m.Forward(g, feat), labels, d.TrainIdx).Backward()
		opt.Step()
	}
	m.Eval()
	var acc float64
	tensor.NoGrad(func() { acc = nn.MaskedAccuracy(m.Forward(g, feat), labels, d.TestIdx) })

	lin := nn.NewLinear(d.NumFeatures, d.NumClasses, true, tensor.NewGenerator(1))
	lopt := optim.NewAdam(lin.Parameters(), optim.AdamOptions{LR: 0.01})
	for epoch := 0; epoch < 40; epoch++ {
		lopt.ZeroGrad()
		nn.MaskedCrossEntropy(lin.Forward(feat), labels, d.TrainIdx).Backward()
		lopt.Step()
	}
	var linAcc float64
	tensor.NoGrad(func() { linAcc = nn.MaskedAccuracy(lin.Forward(feat), labels, d.TestIdx) })
	t.Logf("ProductsLike(0.002), %d test nodes: GraphSAGE test accuracy %.4f, linear on features alone %.4f, chance %.4f",
		d.TestIdx.Numel(), acc, linAcc, 1.0/47)
	if acc < 0.5 || acc <= linAcc {
		t.Errorf("GraphSAGE test accuracy %.4f (linear %.4f): the synthetic graph is not learnable", acc, linAcc)
	}
}

// TestRMATLearnable is TestPowerLawLearnable on the R-MAT generator at
// scale 12 (4,096 nodes, 65,536 edges, Graph500's parameters).
func TestRMATLearnable(t *testing.T) {
	d, err := datasets.RMAT(datasets.Graph500Like(12, 1))
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	feat, labels := g.NData("feat"), g.NData("label")
	m := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: d.NumFeatures, HiddenFeats: 64, OutFeats: d.NumClasses,
		Dropout: 0.5, Seed: 1})
	opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01})
	for epoch := 0; epoch < 40; epoch++ {
		m.Train()
		opt.ZeroGrad()
		nn.MaskedCrossEntropy(m.Forward(g, feat), labels, d.TrainIdx).Backward()
		opt.Step()
	}
	m.Eval()
	var acc float64
	tensor.NoGrad(func() { acc = nn.MaskedAccuracy(m.Forward(g, feat), labels, d.TestIdx) })
	t.Logf("RMAT Graph500Like(12), %d test nodes: GraphSAGE test accuracy %.4f, chance %.4f", d.TestIdx.Numel(), acc, 1.0/47)
	if acc < 0.5 {
		t.Errorf("GraphSAGE test accuracy %.4f: the R-MAT graph is not learnable", acc)
	}
}
