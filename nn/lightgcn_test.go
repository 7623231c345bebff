package nn

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestLightGCNForward checks the propagation against the formula on a
// 2-user, 2-item graph: e = (e0 + Â e0 + Â² e0) / 3 with
// Â = D^-1/2 A D^-1/2.
func TestLightGCNForward(t *testing.T) {
	// user 0 - item 2, user 0 - item 3, user 1 - item 3, both directions.
	src := []int64{0, 0, 1, 2, 3, 3}
	dst := []int64{2, 3, 3, 0, 0, 1}
	g, err := graph.New(4, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	m := NewLightGCN(LightGCNOptions{NumNodes: 4, EmbeddingDim: 3, NumLayers: 2, Seed: 1})
	e0 := m.Embedding.Weight.Float32s()
	deg := []float64{2, 1, 1, 2}
	prop := func(x []float64) []float64 {
		out := make([]float64, len(x))
		for k := range src {
			for j := 0; j < 3; j++ {
				out[int(dst[k])*3+j] += x[int(src[k])*3+j] / math.Sqrt(deg[src[k]]*deg[dst[k]])
			}
		}
		return out
	}
	x := make([]float64, 12)
	for i, v := range e0 {
		x[i] = float64(v)
	}
	x1 := prop(x)
	x2 := prop(x1)
	got := m.Forward(g).Float32s()
	for i := range got {
		want := (x[i] + x1[i] + x2[i]) / 3
		if math.Abs(float64(got[i])-want) > 1e-6 {
			t.Fatalf("entry %d: %g, want %g", i, got[i], want)
		}
	}
	// Gradients reach the embedding.
	tensor.Sum(m.Forward(g)).Backward()
	if m.Embedding.Weight.Grad() == nil {
		t.Fatal("no gradient on the embedding")
	}
	// NumLayers -1: the bare embedding (matrix factorisation).
	mf := NewLightGCN(LightGCNOptions{NumNodes: 4, EmbeddingDim: 3, NumLayers: -1, Seed: 1})
	if v := mf.Forward(g).Float32s(); v[5] != e0[5] || mf.NumLayers != 0 {
		t.Fatal("NumLayers -1 should return the embedding")
	}
	if s := m.String(); s != "LightGCN(4, 3, num_layers=2)" {
		t.Fatal(s)
	}
	if len(m.Parameters()) != 1 {
		t.Fatalf("%d parameters", len(m.Parameters()))
	}
}

func TestLightGCNErrors(t *testing.T) {
	g, _ := graph.New(3, []int64{0}, []int64{1})
	for _, c := range []struct {
		name string
		f    func()
		kind error
		want string
	}{
		{"nodes", func() { NewLightGCN(LightGCNOptions{}) }, ErrOption, "NumNodes"},
		{"layers", func() { NewLightGCN(LightGCNOptions{NumNodes: 3, NumLayers: -2}) }, ErrOption, "NumLayers = -2"},
		{"graph size", func() { NewLightGCN(LightGCNOptions{NumNodes: 4}).Forward(g) }, ErrShape, "the model has 4 nodes"},
	} {
		err := tensor.Catch(c.f)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %v containing %q", c.name, err, c.kind, c.want)
		}
	}
}
