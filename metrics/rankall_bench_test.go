package metrics

import (
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// BenchmarkEvalEmbeddingsLastFM ranks all items for Last.fm-sized data:
// 1,892 users, 17,632 items, D = 64, 40 excluded and 5 relevant items per
// user.
func BenchmarkEvalEmbeddingsLastFM(b *testing.B) {
	const nu, ni, dim = 1892, 17632, 64
	gen := tensor.NewGenerator(0)
	ue, ie := tensor.Randn(gen, nu, dim), tensor.Randn(gen, ni, dim)
	var exc, rel []int64
	for u := 0; u < nu; u++ {
		perm := gen.Perm(ni)
		for k := 0; k < 45; k++ {
			if k < 40 {
				exc = append(exc, int64(u), perm[k])
			} else {
				rel = append(rel, int64(u), perm[k])
			}
		}
	}
	et, rt := tensor.FromInt64(exc, len(exc)/2, 2), tensor.FromInt64(rel, len(rel)/2, 2)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (RankingEvaluator{K: []int{20}}).EvalEmbeddings(ue, ie, et, rt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(nu)*float64(b.N)/b.Elapsed().Seconds(), "users/s")
}
