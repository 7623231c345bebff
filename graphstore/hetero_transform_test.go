package graphstore

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
)

// saveOpen saves g under dir, opens it again and checks the copy equals g
// (sameHetero: types in order, edges, adjacency, bit-identical data).
func saveOpen(t *testing.T, g *graph.Graph, name string) *graph.Graph {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := Save(p, g); err != nil {
		t.Fatalf("%s: Save: %v", name, err)
	}
	h, c, err := Open(p)
	if err != nil {
		t.Fatalf("%s: Open: %v", name, err)
	}
	t.Cleanup(func() { c.Close() })
	sameHetero(t, g, h)
	return h
}

// TestTransformedHeteroRoundTrip saves and reopens the graphs graph's
// heterograph transforms make: AddReverseEdges (new relations, appended
// reverses with zero rows, CopyEData), EdgeSubgraph with relabelling (a node
// type left with no nodes, relations with no edges, NID and EID data),
// NodeSubgraphOf, and ToHeterogeneous of ToHomogeneous (NID/EID from the
// homogeneous ids).
func TestTransformedHeteroRoundTrip(t *testing.T) {
	g := smallHetero(t)
	for _, o := range []graph.AddReverseOptions{{}, {CopyEData: true}, {SymNewEType: true, Prefix: "inv_"}} {
		r, err := g.AddReverseEdges(o)
		if err != nil {
			t.Fatal(err)
		}
		saveOpen(t, r, "rev.gnng")
	}
	s, err := g.EdgeSubgraph(map[string][]int64{"user:follows:user": {2, 0}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.NumNodesOf("item") != 0 || s.NumEdgesOf("user:rates:item") != 0 {
		t.Fatalf("edge subgraph kept %d items, %d rates", s.NumNodesOf("item"), s.NumEdgesOf("user:rates:item"))
	}
	back := saveOpen(t, s, "esub.gnng")
	if got := back.NDataOf("user", graph.NID).Int64s(); !slices.Equal(got, []int64{0, 1, 2, 3}) {
		t.Errorf("user NID after reopening %v", got)
	}
	if got := back.EDataOf("user:follows:user", graph.EID).Int64s(); !slices.Equal(got, []int64{2, 0}) {
		t.Errorf("follows EID after reopening %v", got)
	}
	n, err := g.NodeSubgraphOf(map[string][]int64{"user": {3, 1}, "item": {2}})
	if err != nil {
		t.Fatal(err)
	}
	saveOpen(t, n, "nsub.gnng")
	h, err := g.ToHomogeneous([]string{}, []string{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := graph.ToHeterogeneous(h, g.NTypes(), g.CanonicalETypes())
	if err != nil {
		t.Fatal(err)
	}
	saveOpen(t, x, "tohetero.gnng")
}
