package graph

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// edgePairs returns relation etype's edges as "s->d" strings in id order.
func edgePairs(g *Graph, etype string) []string {
	s, d := g.EdgesOf(etype)
	out := make([]string, len(s.Int64s()))
	for i := range out {
		out[i] = fmt.Sprintf("%d->%d", s.Int64s()[i], d.Int64s()[i])
	}
	return out
}

func TestToHeterogeneousRoundTrip(t *testing.T) {
	g := heteroFixture(t)
	if err := g.SetNDataOf("user", "x", tensor.FromFloat32([]float32{1, 2, 3}, 3, 1)); err != nil {
		t.Fatal(err)
	}
	if err := g.SetNDataOf("item", "x", tensor.FromFloat32([]float32{10, 20}, 2, 1)); err != nil {
		t.Fatal(err)
	}
	for _, ce := range g.CanonicalETypes() {
		n := g.NumEdgesOf(ce.Key())
		w := make([]int64, n)
		for i := range w {
			w[i] = int64(100*len(ce.EType) + i)
		}
		if err := g.SetEDataOf(ce.Key(), "w", tensor.FromInt64(w)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := g.ToHomogeneous([]string{"x"}, []string{"w"})
	if err != nil {
		t.Fatal(err)
	}
	back, err := ToHeterogeneous(h, g.NTypes(), g.CanonicalETypes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.NTypes(), g.NTypes()) || !slices.Equal(back.CanonicalETypes(), g.CanonicalETypes()) {
		t.Fatalf("types %v %v, want %v %v", back.NTypes(), back.CanonicalETypes(), g.NTypes(), g.CanonicalETypes())
	}
	for _, ce := range g.CanonicalETypes() {
		if got, want := edgePairs(back, ce.Key()), edgePairs(g, ce.Key()); !slices.Equal(got, want) {
			t.Errorf("%v: edges %v, want %v", ce, got, want)
		}
		if got, want := back.EDataOf(ce.Key(), "w").Int64s(), g.EDataOf(ce.Key(), "w").Int64s(); !slices.Equal(got, want) {
			t.Errorf("%v: w %v, want %v", ce, got, want)
		}
	}
	// NID holds the homogeneous ids: item comes first in NTypes order.
	if got := back.NDataOf("user", NID).Int64s(); !slices.Equal(got, []int64{2, 3, 4}) {
		t.Errorf("user NID %v, want [2 3 4]", got)
	}
	if got := back.NDataOf("item", "x").Float32s(); !slices.Equal(got, []float32{10, 20}) {
		t.Errorf("item x %v", got)
	}
	// Round trip again: the homogeneous graphs agree.
	h2, err := back.ToHomogeneous([]string{"x"}, []string{"w"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(edgePairs(h2, DefaultEType), edgePairs(h, DefaultEType)) {
		t.Errorf("second round trip changed the edges")
	}
}

func TestToHeterogeneousOrderAndErrors(t *testing.T) {
	// Interleaved type ids: node ids within a type follow homogeneous order.
	h, _ := New(4, []int64{0, 2, 1}, []int64{1, 3, 3})
	_ = h.SetNData(NType, tensor.FromInt64([]int64{0, 1, 0, 1}))
	_ = h.SetEData(EType, tensor.FromInt64([]int64{0, 0, 1}))
	ets := []CanonicalEType{{"a", "ab", "b"}, {"b", "bb", "b"}}
	g, err := ToHeterogeneous(h, []string{"a", "b"}, ets)
	if err != nil {
		t.Fatal(err)
	}
	if got := edgePairs(g, "ab"); !slices.Equal(got, []string{"0->0", "1->1"}) {
		t.Errorf("ab edges %v", got)
	}
	if got := edgePairs(g, "bb"); !slices.Equal(got, []string{"0->1"}) {
		t.Errorf("bb edges %v", got)
	}
	if got := g.EDataOf("ab", EID).Int64s(); !slices.Equal(got, []int64{0, 1}) {
		t.Errorf("ab EID %v", got)
	}
	cases := []struct {
		name   string
		ntypes []string
		etypes []CanonicalEType
		want   string
	}{
		{"wrong endpoint types", []string{"a", "b"}, []CanonicalEType{{"a", "ab", "b"}, {"a", "bb", "b"}}, "joins node types"},
		{"unknown ntype", []string{"a"}, ets, "not in ntypes"},
		{"type id out of range", []string{"a", "b"}, ets[:1], "outside [0, 1)"},
		{"duplicate", []string{"a", "a"}, ets, "appears twice"},
	}
	for _, c := range cases {
		if _, err := ToHeterogeneous(h, c.ntypes, c.etypes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	plain, _ := New(2, []int64{0}, []int64{1})
	if _, err := ToHeterogeneous(plain, []string{"a", "b"}, ets[:1]); err == nil || !strings.Contains(err.Error(), "type ids") {
		t.Errorf("missing type data: %v", err)
	}
	if _, err := ToHeterogeneous(heteroFixture(t), nil, nil); !errors.Is(err, ErrHetero) {
		t.Errorf("heterogeneous input: %v", err)
	}
}

func TestAddReverseEdges(t *testing.T) {
	g := heteroFixture(t)
	_ = g.SetEDataOf("clicks", "w", tensor.FromFloat32([]float32{1, 2, 3}, 3))
	_ = g.SetEDataOf("user:follows:user", "w", tensor.FromFloat32([]float32{5, 6}, 2))
	r, err := g.AddReverseEdges(AddReverseOptions{CopyEData: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := edgePairs(r, "rev_clicks"); !slices.Equal(got, []string{"0->0", "0->1", "1->2"}) {
		t.Errorf("rev_clicks %v", got)
	}
	if got := edgePairs(r, "user:follows:user"); !slices.Equal(got, []string{"0->1", "1->2", "1->0", "2->1"}) {
		t.Errorf("follows %v", got)
	}
	if got := r.EDataOf("rev_clicks", "w").Float32s(); !slices.Equal(got, []float32{1, 2, 3}) {
		t.Errorf("rev_clicks w %v", got)
	}
	if got := r.EDataOf("user:follows:user", "w").Float32s(); !slices.Equal(got, []float32{5, 6, 5, 6}) {
		t.Errorf("follows w %v", got)
	}
	if got := len(r.CanonicalETypes()); got != 5+3 { // 3 relations across two types
		t.Errorf("%d relations: %v", got, r.CanonicalETypes())
	}
	rev := g.ReverseETypes(AddReverseOptions{})
	if rev["user:clicks:item"] != "item:rev_clicks:user" || rev["item:rev_clicks:user"] != "user:clicks:item" {
		t.Errorf("ReverseETypes %v", rev)
	}
	if _, ok := rev["user:follows:user"]; ok {
		t.Errorf("appended relation in ReverseETypes: %v", rev)
	}
	for k, v := range rev { // every name is a relation of the new graph
		if _, err := r.findRel("test", k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		if _, err := r.findRel("test", v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	// Without CopyEData the appended relation loses its data, the new one has none.
	r2, _ := g.AddReverseEdges(AddReverseOptions{})
	if r2.HasEDataOf("user:follows:user", "w") || r2.HasEDataOf("rev_clicks", "w") || !r2.HasEDataOf("clicks", "w") {
		t.Errorf("edge data without CopyEData: %v %v", r2.EDataNamesOf("user:follows:user"), r2.EDataNamesOf("rev_clicks"))
	}
	// SymNewEType: (user, rev_follows, user).
	r3, _ := g.AddReverseEdges(AddReverseOptions{SymNewEType: true, Prefix: "inv-"})
	if got := edgePairs(r3, "user:inv-follows:user"); !slices.Equal(got, []string{"1->0", "2->1"}) {
		t.Errorf("inv-follows %v", got)
	}
	// A clash with an existing relation is an error naming it.
	c, _ := NewHetero(map[string]int{"a": 1, "b": 1}, map[CanonicalEType]EdgeList{
		{"a", "x", "b"}: {Src: []int64{0}, Dst: []int64{0}}, {"b", "rev_x", "a"}: {Src: []int64{0}, Dst: []int64{0}}})
	if _, err := c.AddReverseEdges(AddReverseOptions{}); err == nil || !strings.Contains(err.Error(), "rev_x") {
		t.Errorf("clash: %v", err)
	}
	// Homogeneous: add_reverse_edges with ReverseEdgeIDs.
	h, _ := New(3, []int64{0, 1}, []int64{1, 2})
	hr, _ := h.AddReverseEdges(AddReverseOptions{})
	if got := edgePairs(hr, DefaultEType); !slices.Equal(got, []string{"0->1", "1->2", "1->0", "2->1"}) {
		t.Errorf("homogeneous %v", got)
	}
	if got := ReverseEdgeIDs(hr.NumEdges()).Int64s(); !slices.Equal(got, []int64{2, 3, 0, 1}) {
		t.Errorf("ReverseEdgeIDs %v", got)
	}
	if err := engerr.Catch(func() { ReverseEdgeIDs(3) }); !errors.Is(err, engerr.ErrArgument) {
		t.Errorf("odd ReverseEdgeIDs: %v", err)
	}
}

func TestEdgeSubgraph(t *testing.T) {
	g := heteroFixture(t)
	_ = g.SetNDataOf("user", "x", tensor.FromFloat32([]float32{1, 2, 3}, 3))
	_ = g.SetEDataOf("clicks", "w", tensor.FromFloat32([]float32{1, 2, 3}, 3))
	s, err := g.EdgeSubgraph(map[string][]int64{"clicks": {2, 0}, "user:follows:user": {1}}, true)
	if err != nil {
		t.Fatal(err)
	}
	// users touched: 0, 2 (clicks), 1, 2 (follows) -> 0, 1, 2; items 0, 1.
	if got := s.NDataOf("user", NID).Int64s(); !slices.Equal(got, []int64{0, 1, 2}) {
		t.Errorf("user NID %v", got)
	}
	if got := edgePairs(s, "clicks"); !slices.Equal(got, []string{"2->1", "0->0"}) {
		t.Errorf("clicks %v", got)
	}
	if got := s.EDataOf("clicks", "w").Float32s(); !slices.Equal(got, []float32{3, 1}) {
		t.Errorf("clicks w %v", got)
	}
	if got := s.EDataOf("clicks", EID).Int64s(); !slices.Equal(got, []int64{2, 0}) {
		t.Errorf("clicks EID %v", got)
	}
	if s.NumEdgesOf("buys") != 0 || s.NumEdgesOf("clicked-by") != 0 {
		t.Errorf("relations not named kept edges")
	}
	// Relabelling drops untouched nodes: only item 1 is kept here.
	s2, err := g.EdgeSubgraph(map[string][]int64{"item:follows:item": {0}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if s2.NumNodesOf("user") != 0 || s2.NumNodesOf("item") != 2 || !slices.Equal(edgePairs(s2, "item:follows:item"), []string{"0->1"}) {
		t.Errorf("relabel: %d users %d items %v", s2.NumNodesOf("user"), s2.NumNodesOf("item"), edgePairs(s2, "item:follows:item"))
	}
	s3, _ := g.EdgeSubgraph(map[string][]int64{"clicks": {2}}, false)
	if s3.NumNodesOf("user") != 3 || !slices.Equal(edgePairs(s3, "clicks"), []string{"2->1"}) || s3.HasNDataOf("user", NID) {
		t.Errorf("no relabel: %d users %v", s3.NumNodesOf("user"), edgePairs(s3, "clicks"))
	}
	for _, c := range []struct {
		eids map[string][]int64
		want string
	}{
		{map[string][]int64{"nope": {0}}, "no edge type"},
		{map[string][]int64{"follows": {0}}, "ambiguous"},
		{map[string][]int64{"clicks": {3}}, "outside [0, 3)"},
	} {
		if _, err := g.EdgeSubgraph(c.eids, true); err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, engerr.ErrArgument) && !errors.Is(err, engerr.ErrIndex) {
			t.Errorf("%v: err %v, want %q", c.eids, err, c.want)
		}
	}
}

func TestNodeSubgraphOfAndMetagraph(t *testing.T) {
	g := heteroFixture(t)
	s, err := g.NodeSubgraphOf(map[string][]int64{"user": {2, 0}, "item": {0}})
	if err != nil {
		t.Fatal(err)
	}
	// clicks 0->0 and 2->... (2->1 dropped: item 1 not kept); user 2 is id 0.
	if got := edgePairs(s, "clicks"); !slices.Equal(got, []string{"1->0"}) {
		t.Errorf("clicks %v", got)
	}
	if got := edgePairs(s, "buys"); !slices.Equal(got, []string{"0->0"}) {
		t.Errorf("buys %v", got)
	}
	if got := s.NDataOf("user", NID).Int64s(); !slices.Equal(got, []int64{2, 0}) {
		t.Errorf("user NID %v", got)
	}
	if _, err := g.NodeSubgraphOf(map[string][]int64{"shop": {0}}); err == nil || !strings.Contains(err.Error(), `"shop"`) {
		t.Errorf("unknown type: %v", err)
	}
	if _, err := g.NodeSubgraphOf(map[string][]int64{"user": {1, 1}}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("repeat: %v", err)
	}
	m := g.Metagraph()
	if m.NumNodes() != 2 || m.NumEdges() != 5 {
		t.Fatalf("metagraph %d nodes %d edges", m.NumNodes(), m.NumEdges())
	}
	src, dst := m.Edges()
	for j, ce := range g.CanonicalETypes() {
		if g.NTypes()[src.Int64s()[j]] != ce.Src || g.NTypes()[dst.Int64s()[j]] != ce.Dst {
			t.Errorf("metagraph edge %d: %d -> %d for %v", j, src.Int64s()[j], dst.Int64s()[j], ce)
		}
	}
}
