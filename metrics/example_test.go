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

// The accuracy of node classification from a model's logits (N, C) or
// from predicted class ids (N).
func ExampleAccuracy() {
	logits := tensor.FromFloat32([]float32{
		2.0, 0.1, -1.0, // class 0
		0.3, 0.2, 1.5, // class 2
		0.1, 0.9, 0.0, // class 1
		1.2, 0.4, 0.3, // class 0
	}, 4, 3)
	labels := tensor.FromInt64([]int64{0, 1, 1, 0})
	acc, err := metrics.Accuracy(logits, labels)
	if err != nil {
		panic(err)
	}
	fmt.Printf("accuracy %.2f\n", acc)
	acc, _ = metrics.Accuracy(tensor.FromInt64([]int64{0, 1, 2, 2}), labels)
	fmt.Printf("accuracy %.2f\n", acc)
	// Output:
	// accuracy 0.75
	// accuracy 0.50
}
