//go:build ignore

// Minibatch GraphSAGE on Cora (Hamilton et al. 2017) with DGL's recipe: a
// NeighborSampler with fanouts [15, 10], a DataLoader over the training
// seeds that prefetches the input features and labels of each batch, and
// bfloat16 autocast around the forward pass; the test accuracy is that of
// the epoch with the best validation accuracy.
//
//	gnnrepl --data ../shared/data run examples/sage_minibatch.go
package main

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/amp"
	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func main() {
	ds, err := datasets.LoadPlanetoid("cora", "")
	if err != nil {
		panic(err)
	}
	g := ds.Graph
	loader, err := sampling.NewDataLoader(g, ds.TrainIdx, sampling.NeighborSampler{Fanouts: []int{15, 10}},
		sampling.LoaderOptions{BatchSize: 32, Shuffle: true, Seed: 1, PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
	if err != nil {
		panic(err)
	}
	sage := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 64, OutFeats: ds.NumClasses, Dropout: 0.5, Seed: 0})
	adam := optim.NewAdam(sage.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	feat, labels := g.NData("feat"), g.NData("label")
	bestVal, testAcc := 0.0, 0.0
	for epoch := 0; epoch < 20; epoch++ {
		sage.Train()
		for loader.Next() {
			blocks := loader.Blocks()
			var loss *tensor.Tensor
			amp.Autocast(tensor.BFloat16, func() {
				loss = tensor.CrossEntropy(sage.ForwardBlocks(blocks, blocks[0].SrcData("feat")), blocks[len(blocks)-1].DstData("label"))
			})
			adam.ZeroGrad()
			loss.Backward()
			adam.Step()
		}
		if err := loader.Err(); err != nil {
			panic(err)
		}
		sage.Eval()
		var out *tensor.Tensor
		tensor.NoGrad(func() { out = sage.Forward(g, feat) })
		val := tensor.Accuracy(tensor.IndexSelect(out, ds.ValIdx), tensor.IndexSelect(labels, ds.ValIdx))
		if val > bestVal {
			bestVal = val
			testAcc = tensor.Accuracy(tensor.IndexSelect(out, ds.TestIdx), tensor.IndexSelect(labels, ds.TestIdx))
		}
	}
	fmt.Printf("best validation accuracy: %.4f\n", bestVal)
	fmt.Printf("test accuracy: %.4f\n", testAcc)
}
