package datasets

import (
	"errors"
	"runtime"
	"slices"
	"testing"
)

func TestSyntheticMAG(t *testing.T) {
	o := SyntheticMAGOptions{Scale: 0.002, Seed: 3}
	d, err := SyntheticMAG(o)
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	want := map[string]int{"paper": 1473, "author": 2269, "institution": 17, "field_of_study": 120}
	for nt, n := range want {
		if got := g.NumNodesOf(nt); got != n {
			t.Errorf("%s: %d nodes, want %d", nt, got, n)
		}
	}
	if got := len(g.CanonicalETypes()); got != 7 {
		t.Errorf("%d relations, want 7: %v", got, g.CanonicalETypes())
	}
	if got, want := g.NumEdgesOf("writes"), 14291; got != want {
		t.Errorf("writes: %d edges, want %d", got, want)
	}
	if g.NumEdgesOf("rev_writes") != g.NumEdgesOf("writes") {
		t.Error("rev_writes differs from writes in size")
	}
	feat := g.NDataOf("paper", "feat")
	if s := feat.Shape(); !slices.Equal(s, []int{1473, 128}) {
		t.Errorf("feat shape %v", s)
	}
	lab := d.Labels.Int64s()
	classes := map[int64]bool{}
	for _, l := range lab {
		if l < 0 || l >= 349 {
			t.Fatalf("label %d", l)
		}
		classes[l] = true
	}
	if len(classes) < 300 {
		t.Errorf("only %d classes used", len(classes))
	}
	n := d.TrainIdx.Size(0) + d.ValIdx.Size(0) + d.TestIdx.Size(0)
	if n != 1473 || d.TrainIdx.Size(0) < 1150 || d.TestIdx.Size(0) < 40 {
		t.Errorf("split %d / %d / %d", d.TrainIdx.Size(0), d.ValIdx.Size(0), d.TestIdx.Size(0))
	}
	// Homophily: most cites edges join papers of one class.
	s, dd := g.EdgesOf("cites")
	same := 0
	for i, u := range s.Int64s() {
		if lab[u] == lab[dd.Int64s()[i]] {
			same++
		}
	}
	if frac := float64(same) / float64(g.NumEdgesOf("cites")); frac < 0.6 {
		t.Errorf("cites homophily %.2f", frac)
	}
	// Deterministic, whatever GOMAXPROCS.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	d2, err := SyntheticMAG(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, ce := range g.CanonicalETypes() {
		a, b := g.AdjOf(ce.String()), d2.Graph.AdjOf(ce.String())
		if !slices.Equal(a.Indices, b.Indices) || !slices.Equal(a.Indptr, b.Indptr) {
			t.Fatalf("%v differs between two runs", ce)
		}
	}
	if !slices.Equal(feat.Float32s(), d2.Graph.NDataOf("paper", "feat").Float32s()) {
		t.Error("features differ between two runs")
	}
	o.Seed = 4
	d3, _ := SyntheticMAG(o)
	if slices.Equal(g.AdjOf("cites").Indices, d3.Graph.AdjOf("cites").Indices) {
		t.Error("another seed gave the same graph")
	}
	d4, err := SyntheticMAG(SyntheticMAGOptions{Scale: 0.001, NoReverse: true})
	if err != nil || len(d4.Graph.CanonicalETypes()) != 4 {
		t.Errorf("NoReverse: %v %v", err, d4)
	}
	for _, bad := range []SyntheticMAGOptions{{Scale: -1}, {Scale: 0.01, NumClasses: -2}, {Scale: 0.01, Homophily: 2}} {
		if _, err := SyntheticMAG(bad); !errors.Is(err, ErrArgument) {
			t.Errorf("%+v: err %v", bad, err)
		}
	}
}
