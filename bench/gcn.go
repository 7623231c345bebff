package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// loadGCNDataset loads a dataset for workload (a): "cora", "citeseer"
// (Planetoid, standard split) or "facebook" (Facebook page-page, seeded
// random split), with the graph's self loops replaced by one per node (the
// A + I of Kipf & Welling).
func loadGCNDataset(name, dataDir string) (*datasets.Dataset, *graph.Graph, error) {
	var d *datasets.Dataset
	var err error
	switch name {
	case "cora", "citeseer", "pubmed":
		d, err = datasets.LoadPlanetoid(name, dataDir)
	case "facebook":
		d, err = datasets.FacebookPagePage(filepath.Join(dataDir, "facebook-page-page"))
	default:
		err = fmt.Errorf("unknown dataset %q (cora, citeseer, pubmed, facebook)", name)
	}
	if err != nil {
		return nil, nil, err
	}
	return d, d.Graph.RemoveSelfLoop().AddSelfLoop(), nil
}

// kipfGCN is Kipf & Welling's model and optimizer: 2 GraphConv layers, 16
// hidden, dropout 0.5 on the input and the hidden layer, Adam lr 0.01 with
// weight decay 5e-4 on the first layer only.
func kipfGCN(d *datasets.Dataset, seed int64) (*nn.GCN, *optim.Adam) {
	m := nn.NewGCN(nn.GCNOptions{InFeats: d.NumFeatures, OutFeats: d.NumClasses, HiddenFeats: 16,
		Dropout: 0.5, InputDropout: 0.5, Seed: seed})
	opt := optim.NewAdam(m.Layers[0].Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	opt.AddParamGroup(optim.ParamGroup{Params: m.Layers[1].Parameters()})
	return m, opt
}

// gcnEpochTimes times reps full-graph training epochs (forward, masked
// cross-entropy, backward, Adam step) after warmup untimed ones.
func gcnEpochTimes(d *datasets.Dataset, g *graph.Graph, warmup, reps int) []float64 {
	feat, labels := d.Graph.NData("feat"), d.Graph.NData("label")
	m, opt := kipfGCN(d, 0)
	m.Train()
	step := func() {
		opt.ZeroGrad()
		nn.MaskedCrossEntropy(m.Forward(g, feat), labels, d.TrainIdx).Backward()
		opt.Step()
	}
	for i := 0; i < warmup; i++ {
		step()
	}
	times := make([]float64, reps)
	for i := range times {
		t0 := time.Now()
		step()
		times[i] = time.Since(t0).Seconds()
	}
	return times
}

// gcnAccuracy trains Kipf's GCN for epochs from seed and returns the test
// accuracy after the last epoch (no model selection).
func gcnAccuracy(d *datasets.Dataset, g *graph.Graph, seed int64, epochs int) float64 {
	feat, labels := d.Graph.NData("feat"), d.Graph.NData("label")
	m, opt := kipfGCN(d, seed)
	m.Train()
	for e := 0; e < epochs; e++ {
		opt.ZeroGrad()
		nn.MaskedCrossEntropy(m.Forward(g, feat), labels, d.TrainIdx).Backward()
		opt.Step()
	}
	m.Eval()
	var acc float64
	tensor.NoGrad(func() { acc = nn.MaskedAccuracy(m.Forward(g, feat), labels, d.TestIdx) })
	return acc
}

// exportGCN writes what py/gcn.py reads into dir: src.npy and dst.npy (E)
// int64, the edges of g (self loops included); feat.npy (N, F) float32;
// label.npy (N) int64; train.npy, val.npy, test.npy int64 node ids.
func exportGCN(dir string, d *datasets.Dataset, g *graph.Graph) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src, dst := g.Edges()
	feat := d.Graph.NData("feat")
	items := []struct {
		name  string
		data  any
		shape []int
	}{
		{"src", src.Int64s(), src.Shape()},
		{"dst", dst.Int64s(), dst.Shape()},
		{"feat", feat.Float32s(), feat.Shape()},
		{"label", d.Graph.NData("label").Int64s(), []int{g.NumNodes()}},
		{"train", d.TrainIdx.Int64s(), d.TrainIdx.Shape()},
		{"val", d.ValIdx.Int64s(), d.ValIdx.Shape()},
		{"test", d.TestIdx.Int64s(), d.TestIdx.Shape()},
	}
	for _, it := range items {
		if err := writeNPY(filepath.Join(dir, it.name+".npy"), it.data, it.shape...); err != nil {
			return err
		}
	}
	return nil
}
