package datasets

import (
	"slices"
	"testing"
)

func TestPowerLawSmall(t *testing.T) {
	o := ProductsLike(0.002, 7)
	d, err := PowerLaw(o)
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	if g.NumNodes() != o.NumNodes || g.NumEdges() != o.NumEdges {
		t.Fatalf("got %d nodes %d edges, want %d %d", g.NumNodes(), g.NumEdges(), o.NumNodes, o.NumEdges)
	}
	if err := g.Adj().Validate(); err != nil {
		t.Fatal(err)
	}
	// Determinism, independent of parallelism: build again.
	d2, _ := PowerLaw(o)
	if !slices.Equal(g.Adj().Indices, d2.Graph.Adj().Indices) ||
		!slices.Equal(g.NData("feat").Float32s(), d2.Graph.NData("feat").Float32s()) {
		t.Fatal("two builds differ")
	}
	// Homophily: most in-edges join nodes of the same class.
	lab := g.NData("label").Int64s()
	a := g.Adj()
	same := 0
	for v := 0; v < a.NumDst; v++ {
		for _, s := range a.Indices[a.Indptr[v]:a.Indptr[v+1]] {
			if lab[s] == lab[v] {
				same++
			}
		}
	}
	if h := float64(same) / float64(a.NumEdges()); h < 0.75 || h > 0.9 {
		t.Errorf("edge homophily %.3f, want about 0.8", h)
	}
	// Power law: the largest in-degree is far above the mean.
	maxd := int64(0)
	for _, x := range a.InDegrees() {
		maxd = max(maxd, x)
	}
	if mean := float64(o.NumEdges) / float64(o.NumNodes); float64(maxd) < 10*mean {
		t.Errorf("max in-degree %d, mean %.1f: no hubs", maxd, mean)
	}
	// Features carry the label: the nearest class mean classifies well.
	f := o.NumFeatures
	feat := g.NData("feat").Float32s()
	means := make([]float64, o.NumClasses*f)
	cnt := make([]float64, o.NumClasses)
	for v := 0; v < o.NumNodes; v++ {
		cnt[lab[v]]++
		for j := 0; j < f; j++ {
			means[int(lab[v])*f+j] += float64(feat[v*f+j])
		}
	}
	right := 0
	for v := 0; v < o.NumNodes; v++ {
		best, bk := 1e300, -1
		for k := 0; k < o.NumClasses; k++ {
			var s float64
			for j := 0; j < f; j++ {
				x := float64(feat[v*f+j]) - means[k*f+j]/max(cnt[k], 1)
				s += x * x
			}
			if s < best {
				best, bk = s, k
			}
		}
		if int64(bk) == lab[v] {
			right++
		}
	}
	if acc := float64(right) / float64(o.NumNodes); acc < 0.5 {
		t.Errorf("nearest-centroid accuracy %.3f; features do not carry labels", acc)
	}
	n := d.TrainIdx.Numel() + d.ValIdx.Numel() + d.TestIdx.Numel()
	if n != o.NumNodes || d.TrainIdx.Numel() == 0 || d.ValIdx.Numel() == 0 {
		t.Errorf("split sizes %d/%d/%d", d.TrainIdx.Numel(), d.ValIdx.Numel(), d.TestIdx.Numel())
	}
}
