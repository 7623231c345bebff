package datasets

import (
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
)

// TestACMHeteroTransforms runs graph's heterograph transforms on a real
// heterograph: ACM (HeCo) to_homogeneous and back is the identity on every
// relation and on the paper features; AddReverseEdges' reverse relations
// hold every edge reversed; EdgeSubgraph of one relation keeps the
// features of the papers it touches.
func TestACMHeteroTransforms(t *testing.T) {
	d, err := LoadACM(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	h, err := g.ToHomogeneous(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := graph.ToHeterogeneous(h, g.NTypes(), g.CanonicalETypes())
	if err != nil {
		t.Fatal(err)
	}
	for _, ce := range g.CanonicalETypes() {
		s0, d0 := g.EdgesOf(ce.Key())
		s1, d1 := back.EdgesOf(ce.Key())
		if !slices.Equal(s0.Int64s(), s1.Int64s()) || !slices.Equal(d0.Int64s(), d1.Int64s()) {
			t.Errorf("%v: edges differ after the round trip", ce)
		}
	}
	for _, nt := range g.NTypes() {
		if back.NumNodesOf(nt) != g.NumNodesOf(nt) {
			t.Errorf("%s: %d nodes, want %d", nt, back.NumNodesOf(nt), g.NumNodesOf(nt))
		}
	}
	r, err := g.AddReverseEdges(graph.AddReverseOptions{Prefix: "inv-"})
	if err != nil {
		t.Fatal(err)
	}
	rev := g.ReverseETypes(graph.AddReverseOptions{Prefix: "inv-"})
	for _, ce := range g.CanonicalETypes() {
		k, ok := rev[ce.Key()]
		if !ok {
			continue
		}
		s0, d0 := g.EdgesOf(ce.Key())
		s1, d1 := r.EdgesOf(k)
		if !slices.Equal(s0.Int64s(), d1.Int64s()) || !slices.Equal(d0.Int64s(), s1.Int64s()) {
			t.Errorf("%v: %s is not its reverse", ce, k)
		}
	}
	if len(rev) == 0 {
		t.Fatalf("no reverse relations for %v", g.CanonicalETypes())
	}
	ce := g.CanonicalETypes()[0]
	sub, err := g.EdgeSubgraph(map[string][]int64{ce.Key(): {0, 1, 2, 3}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if sub.NumEdges() != 4 {
		t.Fatalf("subgraph has %d edges", sub.NumEdges())
	}
	for _, nt := range sub.NTypes() {
		for _, name := range g.NDataNamesOf(nt) {
			nid := sub.NDataOf(nt, graph.NID).Int64s()
			full, part := g.NDataOf(nt, name), sub.NDataOf(nt, name)
			w := 1
			for _, s := range full.Shape()[1:] {
				w *= s
			}
			if full.DType().IsFloatingPoint() {
				for i, v := range nid {
					if !slices.Equal(part.Float32s()[i*w:(i+1)*w], full.Float32s()[int(v)*w:(int(v)+1)*w]) {
						t.Fatalf("%s %s row %d differs", nt, name, i)
					}
				}
			}
		}
	}
}
