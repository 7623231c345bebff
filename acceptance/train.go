package acceptance

import (
	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TrainSAGE is testdata/train_sage.go compiled: a 2-layer GraphSAGE-mean
// (64 hidden, dropout 0.5, weights from seed) trained with Adam (lr 0.01,
// weight decay 5e-4) for 40 epochs through the DataLoader (fanouts [15, 10],
// batches of 32 shuffled with seed+1), evaluated on the full graph after
// every epoch. It returns the test accuracy at the epoch of best validation
// accuracy, the usual model selection of the DGL and PyG examples. With seed
// 0 it is exactly what a session's preloaded model and opt give for that
// script.
func TrainSAGE(ds *datasets.Dataset, seed int64, numWorkers int) (float64, error) {
	g := ds.Graph
	sampler := sampling.NeighborSampler{Fanouts: []int{15, 10}}
	model := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 64, OutFeats: ds.NumClasses, Dropout: 0.5, Seed: seed})
	opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	loader, err := sampling.NewDataLoader(g, ds.TrainIdx, sampler, sampling.LoaderOptions{BatchSize: 32, Shuffle: true, Seed: seed + 1,
		NumWorkers: numWorkers, PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
	if err != nil {
		return 0, err
	}
	defer loader.Close()
	feat, labels := g.NData("feat"), g.NData("label")
	valLabels, testLabels := tensor.IndexSelect(labels, ds.ValIdx), tensor.IndexSelect(labels, ds.TestIdx)
	bestVal, testAcc := 0.0, 0.0
	for epoch := 0; epoch < 40; epoch++ {
		model.Train()
		for loader.Next() {
			blocks := loader.Blocks()
			logits := model.ForwardBlocks(blocks, blocks[0].SrcData("feat"))
			loss := tensor.CrossEntropy(logits, blocks[len(blocks)-1].DstData("label"))
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
		}
		if err := loader.Err(); err != nil {
			return 0, err
		}
		model.Eval()
		tensor.NoGrad(func() {
			out := model.Forward(g, feat)
			if va := tensor.Accuracy(tensor.IndexSelect(out, ds.ValIdx), valLabels); va > bestVal {
				bestVal, testAcc = va, tensor.Accuracy(tensor.IndexSelect(out, ds.TestIdx), testLabels)
			}
		})
	}
	return testAcc, nil
}
