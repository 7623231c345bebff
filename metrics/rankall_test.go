package metrics

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestEvalEmbeddingsMatchesFullMatrix checks EvalEmbeddings against
// RecallAtK and NDCGAtK on the full score matrix with excluded items at
// -Inf, on scores with many ties (small integer embeddings).
func TestEvalEmbeddingsMatchesFullMatrix(t *testing.T) {
	const nu, ni, dim = 13, 40, 2
	gen := tensor.NewGenerator(3)
	round := func(x *tensor.Tensor) *tensor.Tensor {
		v := x.Float32s()
		for i := range v {
			v[i] = float32(math.Round(float64(v[i]) * 2))
		}
		return tensor.FromFloat32(v, x.Shape()...)
	}
	ue, ie := round(tensor.Randn(gen, nu, dim)), round(tensor.Randn(gen, ni, dim))
	var exc, rel []int64
	for u := 0; u < nu; u++ {
		for i := 0; i < ni; i++ {
			switch x := gen.Float64(); {
			case x < 0.2:
				exc = append(exc, int64(u), int64(i))
			case x < 0.3 && u != 5: // user 5 has nothing relevant
				rel = append(rel, int64(u), int64(i))
			}
		}
	}
	full := tensor.MatMul(ue, tensor.Transpose(ie)).Float32s()
	relM := make([]bool, nu*ni)
	for k := 0; k < len(exc); k += 2 {
		full[exc[k]*ni+exc[k+1]] = float32(math.Inf(-1))
	}
	for k := 0; k < len(rel); k += 2 {
		relM[rel[k]*ni+rel[k+1]] = true
	}
	scores, relevance := tensor.FromFloat32(full, nu, ni), tensor.FromBool(relM).Reshape(nu, ni)
	ks := []int{1, 3, 5, 10}
	got, err := RankingEvaluator{K: ks}.EvalEmbeddings(ue, ie, tensor.FromInt64(exc, len(exc)/2, 2), tensor.FromInt64(rel, len(rel)/2, 2))
	if err != nil {
		t.Fatal(err)
	}
	want, err := RankingEvaluator{K: ks}.Eval(scores, relevance)
	if err != nil {
		t.Fatal(err)
	}
	if got.Users != want.Users {
		t.Fatalf("users %d, want %d", got.Users, want.Users)
	}
	for _, k := range ks {
		if math.Abs(got.Recall[k]-want.Recall[k]) > 1e-12 || math.Abs(got.NDCG[k]-want.NDCG[k]) > 1e-12 {
			t.Errorf("k=%d: got recall %g ndcg %g, want %g %g", k, got.Recall[k], got.NDCG[k], want.Recall[k], want.NDCG[k])
		}
	}
}

func TestEvalEmbeddingsErrors(t *testing.T) {
	ue, ie := tensor.Ones(2, 3), tensor.Ones(4, 3)
	pairs := tensor.FromInt64([]int64{0, 1}, 1, 2)
	for _, c := range []struct {
		name string
		e    RankingEvaluator
		u, i *tensor.Tensor
		ex   *tensor.Tensor
		rel  *tensor.Tensor
		want string
	}{
		{"nil user", RankingEvaluator{}, nil, ie, nil, pairs, "userEmb is nil"},
		{"dims", RankingEvaluator{}, ue, tensor.Ones(4, 2), nil, pairs, "differ in D"},
		{"1-D", RankingEvaluator{}, tensor.Ones(3), ie, nil, pairs, "userEmb must be 2-D"},
		{"rel shape", RankingEvaluator{}, ue, ie, nil, tensor.FromInt64([]int64{0, 1}), "relevant must be (M, 2)"},
		{"rel range", RankingEvaluator{}, ue, ie, nil, tensor.FromInt64([]int64{0, 4}, 1, 2), "relevant row 0 (0, 4) is outside"},
		{"exclude range", RankingEvaluator{}, ue, ie, tensor.FromInt64([]int64{2, 0}, 1, 2), pairs, "exclude row 0 (2, 0)"},
		{"empty rel", RankingEvaluator{}, ue, ie, nil, tensor.FromInt64(nil, 0, 2), "relevant holds no pair"},
		{"k", RankingEvaluator{K: []int{0}}, ue, ie, nil, pairs, "every K must be >= 1"},
		{"nan", RankingEvaluator{}, ue, tensor.FromFloat32([]float32{1, 1, 1, float32(math.NaN()), 0, 0, 1, 1, 1, 1, 1, 1}, 4, 3), nil, pairs, "is NaN"},
	} {
		_, err := c.e.EvalEmbeddings(c.u, c.i, c.ex, c.rel)
		if err == nil || !(errors.Is(err, ErrArgument) || errors.Is(err, ErrShape)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
