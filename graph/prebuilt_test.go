package graph

import (
	"slices"
	"strings"
	"testing"
)

func TestNewFromCSCMatchesNew(t *testing.T) {
	src := []int64{0, 2, 1, 3, 0, 2}
	dst := []int64{1, 1, 0, 2, 2, 3}
	ref, err := New(5, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	a := ref.Adj()
	for _, withCOO := range []bool{false, true} {
		var s, d []int64
		if withCOO {
			s, d = slices.Clone(src), slices.Clone(dst)
		}
		g, err := NewFromCSC(5, slices.Clone(a.Indptr), slices.Clone(a.Indices), slices.Clone(a.EIDs), s, d)
		if err != nil {
			t.Fatal(err)
		}
		gs, gd := g.Edges()
		if !slices.Equal(gs.Int64s(), src) || !slices.Equal(gd.Int64s(), dst) {
			t.Fatalf("edges %v %v, want %v %v", gs.Int64s(), gd.Int64s(), src, dst)
		}
		if o, w := g.OutAdj(), ref.OutAdj(); !slices.Equal(o.Indices, w.Indices) || !slices.Equal(o.EIDs, w.EIDs) {
			t.Fatalf("OutAdj differs")
		}
	}
	// Identity edge ids: src aliases indices.
	ind := []int64{2, 0, 2, 1}
	g, err := NewFromCSC(3, []int64{0, 1, 3, 4}, ind, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, d := g.Edges()
	if !slices.Equal(s.Int64s(), ind) || !slices.Equal(d.Int64s(), []int64{0, 1, 1, 2}) || g.Adj().EIDs != nil {
		t.Fatalf("identity eids: %v %v", s.Int64s(), d.Int64s())
	}
	g2, err := NewOwned(3, []int64{2, 0, 2, 1}, []int64{0, 1, 1, 2})
	if err != nil || !slices.Equal(g2.Adj().Indices, ind) {
		t.Fatalf("NewOwned: %v", err)
	}
}

func TestNewFromCSCErrors(t *testing.T) {
	for _, c := range []struct {
		n                     int
		indptr, indices, eids []int64
		want                  string
	}{
		{2, []int64{0, 1}, []int64{0}, nil, "indptr has 2 entries"},
		{2, []int64{0, 1, 2}, []int64{0}, nil, "run from 0 to 1"},
		{2, []int64{0, 1, 1}, []int64{5}, nil, "source id 5"},
		{2, []int64{0, 2, 2}, []int64{0, 1}, []int64{0, 0}, "repeated"},
	} {
		if _, err := NewFromCSC(c.n, c.indptr, c.indices, c.eids, nil, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
