package graphstore

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"github.com/gnnrepl/gnnrepl/tensor"
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

// TestTransformedACM runs the transforms on a real heterograph (ACM, HeCo's
// paper/author/subject graph) and saves and reopens each result: the
// reverse relations of AddReverseEdges hold every edge reversed, the
// name-only ToHeterogeneousNamed inverts ToHomogeneous, and an edge
// subgraph's node features are the rows NID names.
func TestTransformedACM(t *testing.T) {
	dir := shareddata.Dir(t)
	if _, err := os.Stat(filepath.Join(dir, datasets.ACMFolder)); err != nil {
		t.Skipf("%s absent: %v", datasets.ACMFolder, err)
	}
	d, err := datasets.LoadACM(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	t.Logf("ACM: ntypes %v, canonical etypes %v", g.NTypes(), g.CanonicalETypes())
	o := graph.AddReverseOptions{CopyEData: true}
	r, err := g.AddReverseEdges(o)
	if err != nil {
		t.Fatal(err)
	}
	r = saveOpen(t, r, "acm-rev.gnng")
	rev := g.ReverseETypes(o)
	for _, ce := range g.CanonicalETypes() {
		k, ok := rev[ce.Key()]
		if !ok { // reverses appended to ce itself
			if ce.Src != ce.Dst || r.NumEdgesOf(ce.Key()) != 2*g.NumEdgesOf(ce.Key()) {
				t.Errorf("%v: no reverse relation and %d edges", ce, r.NumEdgesOf(ce.Key()))
			}
			continue
		}
		s0, d0 := g.EdgesOf(ce.Key())
		s1, d1 := r.EdgesOf(k)
		if !slices.Equal(s0.Int64s(), d1.Int64s()) || !slices.Equal(d0.Int64s(), s1.Int64s()) {
			t.Errorf("%v: %s is not its reverse", ce, k)
		}
	}
	h, err := g.ToHomogeneous(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := graph.ToHeterogeneousNamed(h, g.NTypes(), g.ETypes())
	if err != nil {
		t.Fatal(err)
	}
	back = saveOpen(t, back, "acm-hetero.gnng")
	if !slices.Equal(back.CanonicalETypes(), g.CanonicalETypes()) {
		t.Fatalf("canonical etypes %v, want %v", back.CanonicalETypes(), g.CanonicalETypes())
	}
	for _, ce := range g.CanonicalETypes() {
		s0, d0 := g.EdgesOf(ce.Key())
		s1, d1 := back.EdgesOf(ce.Key())
		if !slices.Equal(s0.Int64s(), s1.Int64s()) || !slices.Equal(d0.Int64s(), d1.Int64s()) {
			t.Errorf("%v: edges differ after ToHomogeneous and ToHeterogeneousNamed", ce)
		}
	}
	eids := map[string][]int64{}
	for _, ce := range g.CanonicalETypes() {
		n := min(50, g.NumEdgesOf(ce.Key()))
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = int64(g.NumEdgesOf(ce.Key()) - 1 - 3*i%g.NumEdgesOf(ce.Key()))
		}
		eids[ce.Key()] = ids
	}
	sub, err := g.EdgeSubgraph(eids, true)
	if err != nil {
		t.Fatal(err)
	}
	sub = saveOpen(t, sub, "acm-esub.gnng")
	for _, ce := range g.CanonicalETypes() {
		s0, d0 := g.EdgesOf(ce.Key())
		s1, d1 := sub.EdgesOf(ce.Key())
		sn, dn := sub.NDataOf(ce.Src, graph.NID).Int64s(), sub.NDataOf(ce.Dst, graph.NID).Int64s()
		for i, e := range eids[ce.Key()] {
			if sn[s1.Int64s()[i]] != s0.Int64s()[e] || dn[d1.Int64s()[i]] != d0.Int64s()[e] {
				t.Fatalf("%v: subgraph edge %d does not map back to edge %d", ce, i, e)
			}
		}
	}
	for _, nt := range g.NTypes() {
		nid := sub.NDataOf(nt, graph.NID).Int64s()
		for _, name := range g.NDataNamesOf(nt) {
			full, part := g.NDataOf(nt, name), sub.NDataOf(nt, name)
			if full.DType() != tensor.Float32 {
				continue
			}
			w := full.Size(0)
			if w > 0 {
				w = len(full.Float32s()) / w
			}
			for i, v := range nid {
				if !slices.Equal(part.Float32s()[i*w:(i+1)*w], full.Float32s()[int(v)*w:(int(v)+1)*w]) {
					t.Fatalf("%s %s: row %d is not row %d of g", nt, name, i, v)
				}
			}
		}
	}
}
