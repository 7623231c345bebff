package metrics_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/metrics"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Scores of positive and negative test pairs, evaluated as OGB does.
func ExampleLinkEvaluator() {
	pos := tensor.FromFloat32([]float32{2.1, 0.3, 1.7, -0.2})
	neg := tensor.FromFloat32([]float32{0.4, -1.5, 0.1, -0.9})
	r, err := metrics.LinkEvaluator{K: []int{1, 2}}.Eval(pos, neg)
	if err != nil {
		panic(err)
	}
	fmt.Println(r)
	// Output: auc=0.8125 ap=0.8542 mrr=0.7083 hits@1=0.5000 hits@2=0.7500
}

// Recall@2 and NDCG@2 of two users' ranked candidate items.
func ExampleRankingEvaluator() {
	scores := tensor.FromFloat32([]float32{0.9, 0.1, 0.5, 0.3, 0.2, 0.7, 0.8, 0.1}, 2, 4)
	relevant := tensor.FromBool([]bool{true, false, false, true, false, true, false, false}, 2, 4)
	r, err := metrics.RankingEvaluator{K: []int{2}}.Eval(scores, relevant)
	if err != nil {
		panic(err)
	}
	fmt.Println(r)
	// Output: users=2 recall@2=0.7500 ndcg@2=0.6220
}
