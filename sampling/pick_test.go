package sampling

import (
	"errors"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
)

// TestPickNeighbors: the unrelabelled picks equal the block's for the same
// layer, and keying the streams by other ids (a relabelled copy of the
// graph with streamIDs mapping back) reproduces them.
func TestPickNeighbors(t *testing.T) {
	g := powerLaw(t, 500, 4000, 3)
	seeds := []int64{3, 17, 17, 250, 499, 0}
	for _, s := range []NeighborSampler{{Fanouts: []int{4}}, {Fanouts: []int{3}, Replace: true}, {Fanouts: []int{-1}}} {
		b := mustSample(t, s, g, seeds, 11)[0]
		indptr, nbr, eids, err := s.PickNeighbors(g, seeds, 0, 11, nil)
		if err != nil {
			t.Fatal(err)
		}
		src := b.SrcNodeIDs()
		got := make([]int64, len(nbr))
		for i, l := range b.Adj().Indices {
			got[i] = src[l]
		}
		if !slices.Equal(indptr, b.Adj().Indptr) || !slices.Equal(got, nbr) || !slices.Equal(eids, b.EIDs().Int64s()) {
			t.Fatalf("%v: picks differ from the block", s)
		}
		// Reverse the node ids; streams keyed by the original ids.
		n := int64(g.NumNodes())
		es, ed := edgeList(g)
		rs, rd := make([]int64, len(es)), make([]int64, len(ed))
		for i := range es {
			rs[i], rd[i] = n-1-es[i], n-1-ed[i]
		}
		rg, err := graph.New(int(n), rs, rd)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, n)
		rseeds := make([]int64, len(seeds))
		for v := range ids {
			ids[v] = n - 1 - int64(v)
		}
		for i, v := range seeds {
			rseeds[i] = n - 1 - v
		}
		rip, rnbr, reids, err := s.PickNeighbors(rg, rseeds, 0, 11, ids)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rnbr {
			rnbr[i] = n - 1 - rnbr[i]
		}
		if !slices.Equal(rip, indptr) || !slices.Equal(rnbr, nbr) || !slices.Equal(reids, eids) {
			t.Fatalf("%v: keyed picks on the relabelled graph differ", s)
		}
	}
	s := NeighborSampler{Fanouts: []int{2}}
	if _, _, _, err := s.PickNeighbors(g, seeds, 1, 0, nil); !errors.Is(err, ErrArgument) {
		t.Errorf("layer 1 of 1: %v", err)
	}
	if _, _, _, err := s.PickNeighbors(g, seeds, 0, 0, []int64{1}); !errors.Is(err, ErrArgument) {
		t.Errorf("short stream ids: %v", err)
	}
	if _, _, _, err := s.PickNeighbors(g, []int64{500}, 0, 0, nil); !errors.Is(err, ErrArgument) {
		t.Errorf("seed 500: %v", err)
	}
}
