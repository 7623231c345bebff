//go:build ignore

// Full-graph GCN on Cora (Kipf & Welling 2017): 200 epochs of Adam on the
// Planetoid split, then the test accuracy of the epoch with the best
// validation accuracy.
//
//	gnnrepl --data ../shared/data run examples/gcn_cora.go
package main

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func main() {
	ds, err := datasets.LoadPlanetoid("cora", "")
	if err != nil {
		panic(err)
	}
	g := ds.Graph
	feat, labels := g.NData("feat"), g.NData("label")
	gcn := nn.NewGCN(nn.GCNOptions{InFeats: ds.NumFeatures, HiddenFeats: 16, OutFeats: ds.NumClasses, Dropout: 0.5, InputDropout: 0.5, Seed: 0})
	adam := optim.NewAdam(gcn.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	bestVal, testAcc := 0.0, 0.0
	for epoch := 0; epoch < 200; epoch++ {
		gcn.Train()
		loss := nn.MaskedCrossEntropy(gcn.Forward(g, feat), labels, ds.TrainIdx)
		adam.ZeroGrad()
		loss.Backward()
		adam.Step()

		gcn.Eval()
		var out *tensor.Tensor
		tensor.NoGrad(func() { out = gcn.Forward(g, feat) })
		val := tensor.Accuracy(tensor.IndexSelect(out, ds.ValIdx), tensor.IndexSelect(labels, ds.ValIdx))
		if val > bestVal {
			bestVal = val
			testAcc = tensor.Accuracy(tensor.IndexSelect(out, ds.TestIdx), tensor.IndexSelect(labels, ds.TestIdx))
		}
	}
	fmt.Printf("best validation accuracy: %.4f\n", bestVal)
	fmt.Printf("test accuracy: %.4f\n", testAcc)
}
