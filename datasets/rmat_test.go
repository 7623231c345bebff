package datasets

import (
	"errors"
	"slices"
	"testing"
)

// TestRMATSmall checks the R-MAT generator at scale 12 (4,096 nodes, 65,536
// edges): sizes, determinism, a skewed degree distribution, the planted
// homophily, features that carry the label, and option errors.
func TestRMATSmall(t *testing.T) {
	o := Graph500Like(12, 5)
	d, err := RMAT(o)
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	n, ne := 1<<o.Scale, o.EdgeFactor<<o.Scale
	if g.NumNodes() != n || g.NumEdges() != ne {
		t.Fatalf("got %d nodes %d edges, want %d %d", g.NumNodes(), g.NumEdges(), n, ne)
	}
	a := g.Adj()
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	d2, _ := RMAT(o)
	if !slices.Equal(a.Indices, d2.Graph.Adj().Indices) || !slices.Equal(g.NData("feat").Float32s(), d2.Graph.NData("feat").Float32s()) {
		t.Fatal("two builds differ")
	}
	lab := g.NData("label").Int64s()
	same := 0
	maxIn := int64(0)
	for v := 0; v < a.NumDst; v++ {
		maxIn = max(maxIn, a.Indptr[v+1]-a.Indptr[v])
		for _, s := range a.Indices[a.Indptr[v]:a.Indptr[v+1]] {
			if lab[s] == lab[v] {
				same++
			}
		}
	}
	if h := float64(same) / float64(ne); h < 0.75 || h > 0.9 {
		t.Errorf("edge homophily %.3f, want about 0.8", h)
	}
	maxOut := int64(0)
	for _, x := range g.OutAdj().InDegrees() {
		maxOut = max(maxOut, x)
	}
	if mean := float64(o.EdgeFactor); float64(maxIn) < 10*mean || float64(maxOut) < 10*mean {
		t.Errorf("max in-degree %d, out-degree %d, mean %.0f: no hubs", maxIn, maxOut, mean)
	}
	counts := make([]int, o.NumClasses)
	for _, k := range lab {
		counts[k]++
	}
	if slices.Min(counts) < n/o.NumClasses-1 || slices.Max(counts) > n/o.NumClasses+1 {
		t.Errorf("class sizes from %d to %d, want about %d", slices.Min(counts), slices.Max(counts), n/o.NumClasses)
	}
	if d.TrainIdx.Numel()+d.ValIdx.Numel()+d.TestIdx.Numel() != n || d.TrainIdx.Numel() == 0 {
		t.Errorf("split sizes %d/%d/%d", d.TrainIdx.Numel(), d.ValIdx.Numel(), d.TestIdx.Numel())
	}
	for _, bad := range []RMATOptions{
		{Scale: 0, NumFeatures: 1, NumClasses: 1},
		{Scale: 4, EdgeFactor: 2, A: 0.6, B: 0.3, C: 0.3, NumFeatures: 1, NumClasses: 1},
		{Scale: 2, EdgeFactor: 2, A: 0.5, NumFeatures: 1, NumClasses: 5},
		{Scale: 4, EdgeFactor: 2, A: 0.5, NumFeatures: 1, NumClasses: 2, Homophily: 2},
	} {
		if _, err := RMAT(bad); !errors.Is(err, ErrArgument) {
			t.Errorf("%+v: got %v, want ErrArgument", bad, err)
		}
	}
}
