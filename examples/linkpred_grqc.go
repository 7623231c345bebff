//go:build ignore

// Link prediction on SNAP ca-GrQc with GraphGAN's fixed split, in DGL's
// recipe (examples/pytorch/link_pred, the "Link Prediction using Graph
// Neural Networks" tutorial): a 2-layer GraphSAGE over learnable node
// embeddings (the graph has no features) and a dot-product scorer, trained
// on minibatches of training edges from an edge DataLoader that samples
// the endpoints' neighbourhoods (fanouts [10, 10]) without the batch's
// edges and their reverses (exclude "reverse_id"), against one uniform
// negative per edge (PerSourceUniform(1)), with the BCE loss. The model is
// evaluated on the fixed test positives and negatives with full
// neighbourhoods: ROC-AUC, average precision, MRR and Hits@K.
//
//	gnnrepl --data ../shared/data run examples/linkpred_grqc.go
package main

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/metrics"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func main() {
	ds, err := datasets.LoadCaGrQc("")
	if err != nil {
		panic(err)
	}
	g := ds.Graph
	fmt.Println(ds)

	sampler := sampling.AsEdgePredictionSampler(sampling.NeighborSampler{Fanouts: []int{10, 10}},
		sampling.EdgePredictionOptions{Exclude: "reverse_id", ReverseEIDs: ds.ReverseEIDs, NegativeSampler: sampling.PerSourceUniform(1)})
	loader, err := sampling.NewEdgeDataLoader(g, ds.TrainEIDs, sampler,
		sampling.LoaderOptions{BatchSize: 1024, Shuffle: true, Seed: 0, NumWorkers: 1})
	if err != nil {
		panic(err)
	}
	defer loader.Close()

	const dim = 64
	emb := tensor.MulScalar(tensor.Randn(tensor.NewGenerator(0), ds.NumNodes, dim), 0.1).SetRequiresGrad(true)
	sage := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: dim, HiddenFeats: dim, OutFeats: dim, Dropout: 0.5, Seed: 0})
	pred := nn.NewDotPredictor()
	params := append([]*tensor.Tensor{emb}, sage.Parameters()...)
	adam := optim.NewAdam(params, optim.AdamOptions{LR: 0.005})

	testPos, err := ds.PairGraph(ds.TestPos)
	if err != nil {
		panic(err)
	}
	testNeg, err := ds.PairGraph(ds.TestNeg)
	if err != nil {
		panic(err)
	}
	evaluate := func() metrics.LinkResult {
		sage.Eval()
		var pos, neg *tensor.Tensor
		tensor.NoGrad(func() {
			h := sage.Forward(g, emb)
			pos, neg = pred.Forward(testPos, h), pred.Forward(testNeg, h)
		})
		r, err := metrics.LinkEvaluator{K: []int{10, 50, 100}}.Eval(pos, neg)
		if err != nil {
			panic(err)
		}
		return r
	}

	for epoch := 0; epoch < 25; epoch++ {
		sage.Train()
		total, batches := 0.0, 0
		for loader.Next() {
			// The model's output rows are the pair graphs' nodes.
			h := sage.ForwardBlocks(loader.Blocks(), tensor.IndexSelect(emb, loader.InputNodes()))
			loss := nn.LinkBCELoss(pred.Forward(loader.PairGraph(), h), pred.Forward(loader.NegPairGraph(), h))
			adam.ZeroGrad()
			loss.Backward()
			adam.Step()
			total += loss.Item()
			batches++
		}
		if err := loader.Err(); err != nil {
			panic(err)
		}
		if epoch%5 == 4 {
			fmt.Printf("epoch %2d  loss %.4f  test %v\n", epoch, total/float64(batches), evaluate())
		}
	}
	r := evaluate()
	fmt.Printf("test hits@50: %.4f\n", r.Hits[50])
	fmt.Printf("test mrr: %.4f\n", r.MRR)
	fmt.Printf("test auc: %.4f\n", r.AUC)
}
