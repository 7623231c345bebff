package datasets_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/metrics"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Loading an OGB link-prediction dataset (here the tiny ogbl-collab
// fixture) and scoring its test pairs with the official evaluator.
func ExampleLoadOGBLinkProp() {
	d, err := datasets.LoadOGBLinkProp("testdata/ogbl/ogbl_collab")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d)
	fmt.Println("graph edges:", d.Graph.NumEdges(), "feat:", d.Graph.NData("feat").Shape(), "metric:", d.EvalMetric)
	ev, err := metrics.NewOGBLinkEvaluator(d.Name)
	if err != nil {
		fmt.Println(err)
		return
	}
	// A stand-in predictor: positives 0.9, negatives 0.1 and 0.95. With
	// fewer negatives than K = 50, OGB counts every positive as a hit.
	pos := tensor.FromFloat32([]float32{0.9, 0.9, 0.9}, d.TestPos.Size(0))
	neg := tensor.FromFloat32([]float32{0.1, 0.95}, d.TestNeg.Size(0))
	r, err := ev.Eval(pos, neg)
	fmt.Println(r, err)
	// Output:
	// LinkDataset(ogbl-collab: 6 nodes, train=5, val=2/3, test=3/2 pos/neg pairs)
	// graph edges: 10 feat: [6 2] metric: hits@50
	// map[hits@50:1] <nil>
}
