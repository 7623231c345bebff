package nn

import (
	"fmt"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// fitMinibatch trains a 2-layer GraphSAGE-mean model (16 hidden units,
// dropout 0.5 on the input and the hidden layer, Adam lr 0.01 and weight
// decay 5e-4) on the training nodes of d through the DataLoader
// (NeighborSampler fanouts [15, 10], batches of 32) and returns the test
// accuracy of full-graph inference after the last epoch.
func fitMinibatch(t testing.TB, d *datasets.Dataset, seed int64, epochs int) float64 {

	g := d.Graph
	feat, labels := g.NData("feat"), g.NData("label")
	m := NewGraphSAGE(SAGEOptions{InFeats: d.NumFeatures, HiddenFeats: 16, OutFeats: d.NumClasses,
		Dropout: 0.5, InputDropout: 0.5, Seed: seed})
	opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	loader, err := sampling.NewDataLoader(g, d.TrainIdx, sampling.NeighborSampler{Fanouts: []int{15, 10}},
		sampling.LoaderOptions{BatchSize: 32, Shuffle: true, Seed: seed, NumWorkers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer loader.Close()
	for e := 0; e < epochs; e++ {
		m.Train()
		for loader.Next() {
			blocks := loader.Blocks()
			x := tensor.IndexSelect(feat, loader.InputNodes())
			y := tensor.IndexSelect(labels, loader.OutputNodes())
			opt.ZeroGrad()
			tensor.CrossEntropy(m.ForwardBlocks(blocks, x), y).Backward()
			opt.Step()
		}
		if err := loader.Err(); err != nil {
			t.Fatal(err)
		}
	}
	m.Eval()
	var acc float64
	tensor.NoGrad(func() { acc = MaskedAccuracy(m.Forward(g, feat), labels, d.TestIdx) })
	return acc
}

// TestMinibatchGraphSAGE trains GraphSAGE-mean on Cora through the
// DataLoader with fanouts [15, 10] (issue 2's acceptance: at least 0.79),
// mean over seeds 0..4.
func TestMinibatchGraphSAGE(t *testing.T) {
	d, err := datasets.LoadPlanetoid("cora", sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	line := ""
	for seed := int64(0); seed < 5; seed++ {
		acc := fitMinibatch(t, d, seed, 100)
		sum += acc
		line += fmt.Sprintf(" %.4f", acc)
	}
	t.Logf("GraphSAGE-mean minibatch on cora: mean test accuracy %.4f; seeds 0..4:%s", sum/5, line)
	if sum/5 < 0.79 {
		t.Errorf("mean test accuracy %.4f < 0.79", sum/5)
	}
}
