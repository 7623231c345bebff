package graph

import (
	"math"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

func small(t *testing.T) *Graph {
	t.Helper()
	// 0->1, 0->2, 1->2, 2->2 (self loop), 3->1; node 4 isolated at the end.
	g, err := New(5, []int64{0, 0, 1, 2, 3}, []int64{1, 2, 2, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func ints(t *tensor.Tensor) []int64 { return t.Int64s() }

func eq(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCountsAndDegrees(t *testing.T) {
	g := small(t)
	if g.NumNodes() != 5 || g.NumEdges() != 5 {
		t.Fatalf("got %d nodes %d edges", g.NumNodes(), g.NumEdges())
	}
	if got := ints(g.InDegrees()); !eq(got, []int64{0, 2, 3, 0, 0}) {
		t.Errorf("in-degrees %v", got)
	}
	if got := ints(g.OutDegrees()); !eq(got, []int64{2, 1, 1, 1, 0}) {
		t.Errorf("out-degrees %v", got)
	}
	adj := g.Adj()
	if err := adj.Validate(); err != nil {
		t.Fatal(err)
	}
	// In-neighbours of node 2, in edge-id order: 0 (e1), 1 (e2), 2 (e3).
	if got := adj.Indices[adj.Indptr[2]:adj.Indptr[3]]; !eq(got, []int64{0, 1, 2}) {
		t.Errorf("in-neighbours of 2: %v", got)
	}
	if got := adj.EIDs[adj.Indptr[2]:adj.Indptr[3]]; !eq(got, []int64{1, 2, 3}) {
		t.Errorf("in-edge ids of 2: %v", got)
	}
	if n, err := New(-1, []int64{0, 7}, []int64{1, 2}); err != nil || n.NumNodes() != 8 {
		t.Errorf("inferred node count: %v %v", n, err)
	}
}

func TestErrors(t *testing.T) {
	if _, err := New(3, []int64{0, 5}, []int64{1, 2}); err == nil || !strings.Contains(err.Error(), "source id 5") {
		t.Errorf("want error naming id 5, got %v", err)
	}
	if _, err := New(3, []int64{0}, []int64{1, 2}); err == nil {
		t.Error("want length mismatch error")
	}
	g := small(t)
	if err := g.SetNData("x", tensor.Zeros(4, 2)); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("want row-count error naming x, got %v", err)
	}
	err := tensor.Catch(func() { g.NData("missing") })
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("want panic naming missing data, got %v", err)
	}
}

func TestTransforms(t *testing.T) {
	g := small(t)
	if err := g.SetEData("w", tensor.FromFloat32([]float32{1, 2, 3, 4, 5}, 5)); err != nil {
		t.Fatal(err)
	}
	sl := g.AddSelfLoop()
	if sl.NumEdges() != 10 || sl.EData("w").Float32s()[9] != 1 {
		t.Errorf("AddSelfLoop: %v edges, w=%v", sl.NumEdges(), sl.EData("w").Float32s())
	}
	rs := g.RemoveSelfLoop()
	if rs.NumEdges() != 4 || !eq(ints(must(rs.Edges())), []int64{0, 0, 1, 3}) {
		t.Errorf("RemoveSelfLoop: %v", rs)
	}
	if w := rs.EData("w").Float32s(); w[3] != 5 {
		t.Errorf("RemoveSelfLoop kept wrong edge data %v", w)
	}
	bi := g.ToBidirected()
	// pairs: 0-1,0-2,1-2,2-2,3-1 both ways, deduplicated: 9 edges.
	if bi.NumEdges() != 9 {
		t.Errorf("ToBidirected: %d edges", bi.NumEdges())
	}
	if err := g.SetNData("h", tensor.FromFloat32([]float32{0, 10, 20, 30, 40}, 5, 1)); err != nil {
		t.Fatal(err)
	}
	sg, err := g.NodeSubgraph([]int64{2, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	src, dst := sg.Edges()
	if !eq(ints(src), []int64{1, 1, 2, 0}) || !eq(ints(dst), []int64{2, 0, 0, 0}) {
		t.Errorf("subgraph edges %v -> %v", ints(src), ints(dst))
	}
	if h := sg.NData("h").Float32s(); h[0] != 20 || h[1] != 0 {
		t.Errorf("subgraph data %v", h)
	}
	if !eq(ints(sg.EData(EID)), []int64{0, 1, 2, 3}) {
		t.Errorf("subgraph EID %v", ints(sg.EData(EID)))
	}
	if _, err := g.NodeSubgraph([]int64{1, 1}); err == nil {
		t.Error("want duplicate-node error")
	}
}

func must(a, _ *tensor.Tensor) *tensor.Tensor { return a }

func TestUpdateAll(t *testing.T) {
	g := small(t)
	_ = g.SetNData("h", tensor.FromFloat32([]float32{1, 2, 4, 8, 16}, 5, 1))
	_ = g.SetEData("w", tensor.FromFloat32([]float32{1, 1, 2, 1, 0.5}, 5))
	g.UpdateAll(CopyU("h", "m"), Mean("m", "hn"))
	if got := g.NData("hn").Float32s(); got[0] != 0 || got[1] != 4.5 || math.Abs(float64(got[2])-7.0/3) > 1e-6 || got[4] != 0 {
		t.Errorf("mean: %v", got)
	}
	g.UpdateAll(UMulE("h", "w", "m"), Sum("m", "hs"))
	if got := g.NData("hs").Float32s(); got[1] != 1+4 || got[2] != 1+4+4 {
		t.Errorf("u_mul_e sum: %v", got)
	}
	g.UpdateAll(CopyU("h", "m"), Max("m", "hm"))
	if got := g.NData("hm").Float32s(); got[0] != 0 || got[1] != 8 || got[2] != 4 {
		t.Errorf("max: %v", got)
	}
	if err := tensor.Catch(func() { g.UpdateAll(CopyU("h", "m"), Sum("x", "y")) }); err == nil {
		t.Error("want mismatched message name error")
	}
}

func TestBlock(t *testing.T) {
	// dst nodes 7, 3; src nodes 7, 3, 9. 7 <- 3, 9; 3 <- nothing.
	b, err := NewBlock([]int64{7, 3, 9}, 2, []int64{0, 2, 2}, []int64{1, 2}, []int64{11, 12})
	if err != nil {
		t.Fatal(err)
	}
	if b.NumSrcNodes() != 3 || b.NumDstNodes() != 2 || b.NumEdges() != 2 {
		t.Fatal(b)
	}
	_ = b.SetSrcData("h", tensor.FromFloat32([]float32{1, 2, 4}, 3, 1))
	b.UpdateAll(CopyU("h", "m"), Sum("m", "h"))
	if got := b.DstData("h").Float32s(); got[0] != 6 || got[1] != 0 {
		t.Errorf("block sum %v", got)
	}
	if _, err := NewBlock([]int64{1}, 1, []int64{0, 1}, []int64{3}, nil); err == nil {
		t.Error("want out-of-range source error")
	}
	if s := b.String(); !strings.Contains(s, "num_src_nodes=3") {
		t.Error(s)
	}
}

func TestHetero(t *testing.T) {
	g, err := NewHetero(map[string]int{"user": 3, "movie": 2},
		map[CanonicalEType]EdgeList{{"user", "rated", "movie"}: {Src: []int64{0, 1, 2}, Dst: []int64{1, 1, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodesOf("user") != 3 || g.NumEdgesOf("rated") != 3 || g.IsHomogeneous() {
		t.Fatal(g)
	}
	if err := tensor.Catch(func() { g.NumNodes() }); err == nil {
		t.Error("NumNodes on a heterograph should panic")
	}
	if !strings.Contains(g.String(), "'rated'") {
		t.Error(g.String())
	}
	if g.AdjOf("rated").NumDst != 2 {
		t.Error("AdjOf")
	}
}

func TestString(t *testing.T) {
	g := small(t)
	_ = g.SetNData("feat", tensor.Zeros(5, 3))
	want := "Graph(num_nodes=5, num_edges=5, ndata_schemes={'feat': (3,) float32}, edata_schemes={})"
	if g.String() != want {
		t.Errorf("got %s", g.String())
	}
}

func TestNewHeteroOwnedAndDataNamesOf(t *testing.T) {
	src, dst := []int64{0, 1}, []int64{2, 0}
	g, err := NewHeteroOwned(map[string]int{"a": 2, "b": 3}, map[CanonicalEType]EdgeList{
		{"a", "x", "b"}: {src, dst}, {"b", "x", "a"}: {[]int64{1}, []int64{1}}})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := g.EdgesOf("a:x:b"); &s.Int64s()[0] != &src[0] {
		t.Fatal("NewHeteroOwned copied the edge list")
	}
	if _, err := NewHeteroOwned(map[string]int{"a": 2, "b": 3}, map[CanonicalEType]EdgeList{{"a", "x", "b"}: {[]int64{2}, []int64{0}}}); err == nil {
		t.Fatal("id outside the type accepted")
	}
	g.SetNDataOf("b", "z", tensor.FromFloat32(make([]float32, 3)))
	g.SetNDataOf("b", "h", tensor.FromFloat32(make([]float32, 3)))
	g.SetEDataOf("b:x:a", "w", tensor.FromFloat32([]float32{1}))
	if n := g.NDataNamesOf("b"); len(n) != 2 || n[0] != "h" || n[1] != "z" || len(g.NDataNamesOf("a")) != 0 {
		t.Fatalf("NDataNamesOf %v", n)
	}
	if n := g.EDataNamesOf("b:x:a"); len(n) != 1 || n[0] != "w" || len(g.EDataNamesOf("a:x:b")) != 0 {
		t.Fatalf("EDataNamesOf %v", n)
	}
}
