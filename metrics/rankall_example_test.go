package metrics_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/metrics"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Full ranking of a recommender's embeddings: 2 users, 4 items, the
// training pairs left out of each user's list, test pairs relevant.
func ExampleRankingEvaluator_EvalEmbeddings() {
	users := tensor.FromFloat32([]float32{1, 0, 0, 1}, 2, 2)
	items := tensor.FromFloat32([]float32{0.9, 0.1, 0.8, 0.3, 0.1, 0.7, 0.2, 0.9}, 4, 2)
	train := tensor.FromInt64([]int64{0, 0, 1, 3}, 2, 2) // user 0 - item 0, user 1 - item 3
	test := tensor.FromInt64([]int64{0, 1, 1, 1}, 2, 2)  // user 0 - item 1, user 1 - item 1
	r, err := metrics.RankingEvaluator{K: []int{1, 2}}.EvalEmbeddings(users, items, train, test)
	if err != nil {
		panic(err)
	}
	fmt.Println(r)
	// Output:
	// users=2 recall@1=0.5000 ndcg@1=0.5000 recall@2=1.0000 ndcg@2=0.8155
}
