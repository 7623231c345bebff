//go:build ignore

// R-GCN entity classification on MUTAG (Schlichtkrull, Kipf et al., ESWC
// 2018) as the paper's reference implementation (tkipf/relational-gcn)
// trains it: the paper's graph (datasets.LoadMUTAG: 23,644 entities, every
// triple and its reverse), norm = 1/in-degree per relation, to_homogeneous,
// the self-connection as one more relation (an edge i -> i for every node,
// of its own relation id, norm 1, so that W_0 shares the 30 bases), a
// 2-layer RelGraphConv model on featureless (one-hot) input with 30 bases,
// 16 hidden and no bias, Keras' l2(5e-4) on the first layer (Adam's weight
// decay 1e-3 there), 50 full-graph epochs of Adam lr 0.01, then the
// accuracy on the 68 test compounds (paper 73.23%; 0.7206 here for seed
// 0, mean 0.7118 over 5 seeds). It uses the 52 canonical edge types as
// relations; nn's TestRGCNSelectMUTAG (5-fold cross-validation on the
// training set) selected the paper's 46 relations instead (test mean
// 0.7206), not yet carried over here.
//
//	gnnrepl --data ../shared/data run examples/rgcn_mutag.go
package main

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func main() {
	ds, err := datasets.LoadMUTAG("")
	if err != nil {
		panic(err)
	}
	hg := ds.Graph
	fmt.Println(ds)
	for _, ce := range hg.CanonicalETypes() {
		if err := hg.SetEDataOf(ce.String(), "norm", hg.NormByDst(ce.String())); err != nil {
			panic(err)
		}
	}
	g, err := hg.ToHomogeneous(nil, []string{"norm"})
	if err != nil {
		panic(err)
	}
	// Homogeneous ids of the labelled compounds: their type's offset plus
	// their id within the type.
	offset := int64(0)
	for _, nt := range hg.NTypes() {
		if nt == ds.PredictCategory {
			break
		}
		offset += int64(hg.NumNodesOf(nt))
	}
	labels := ds.Labels.Int64s()
	pick := func(idx *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		var ids, lab []int64
		for _, i := range idx.Int64s() {
			ids = append(ids, offset+i)
			lab = append(lab, labels[i])
		}
		return tensor.FromInt64(ids), tensor.FromInt64(lab)
	}
	trainIdx, trainLabel := pick(ds.TrainIdx)
	testIdx, testLabel := pick(ds.TestIdx)
	// The self-connection: edges i -> i (norm 1) of a last relation.
	numRels := len(hg.CanonicalETypes())
	n := g.NumNodes()
	et := append([]int64(nil), g.EData(graph.EType).Int64s()...)
	for i := 0; i < n; i++ {
		et = append(et, int64(numRels))
	}
	g = g.AddSelfLoop()
	etypes, norm := tensor.FromInt64(et), g.EData("norm")

	model := nn.NewRGCN(nn.RGCNOptions{NumNodes: n, HiddenFeats: 16, OutFeats: ds.NumClasses,
		NumRels: numRels + 1, Featureless: true, Regularizer: "basis", NumBases: 30, NoBias: true, Seed: 0})
	// L2 on the first layer only, as the paper: two parameter groups.
	opt := optim.NewAdam(model.Layers[0].Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 1e-3})
	opt.AddParamGroup(optim.ParamGroup{Params: model.Layers[1].Parameters(), LR: 0.01})
	for epoch := 0; epoch < 50; epoch++ {
		model.Train()
		loss := tensor.CrossEntropy(tensor.IndexSelect(model.Forward(g, etypes, norm), trainIdx), trainLabel)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
		if epoch%10 == 9 {
			fmt.Printf("epoch %d: loss %.4f\n", epoch+1, loss.Item())
		}
	}
	model.Eval()
	var acc float64
	tensor.NoGrad(func() {
		acc = tensor.Accuracy(tensor.IndexSelect(model.Forward(g, etypes, norm), testIdx), testLabel)
	})
	fmt.Printf("test accuracy: %.4f\n", acc)
}
