package graphstore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func smallGraph(t *testing.T) *graph.Graph {
	g, err := graph.New(5, []int64{0, 2, 1, 3, 0, 2, 4}, []int64{1, 1, 0, 2, 2, 3, 0})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetNData("feat", tensor.FromFloat32([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5, 2)); err != nil {
		t.Fatal(err)
	}
	g.SetNData("train_mask", tensor.FromBool([]bool{true, false, true, false, false}))
	g.SetEData("w", tensor.FromFloat32([]float32{.1, .2, .3, .4, .5, .6, .7}))
	return g
}

func sameGraph(t *testing.T, a, b *graph.Graph) {
	t.Helper()
	if a.NumNodes() != b.NumNodes() || a.NumEdges() != b.NumEdges() {
		t.Fatalf("sizes %v vs %v", a, b)
	}
	as, ad := a.Edges()
	bs, bd := b.Edges()
	if !slices.Equal(as.Int64s(), bs.Int64s()) || !slices.Equal(ad.Int64s(), bd.Int64s()) {
		t.Fatal("edge lists differ")
	}
	for _, adj := range [][2]*tensor.Adj{{a.Adj(), b.Adj()}, {a.OutAdj(), b.OutAdj()}} {
		x, y := adj[0], adj[1]
		if !slices.Equal(x.Indptr, y.Indptr) || !slices.Equal(x.Indices, y.Indices) || !slices.Equal(x.EIDs, y.EIDs) {
			t.Fatal("adjacency differs")
		}
	}
	if !slices.Equal(a.NDataNames(), b.NDataNames()) || !slices.Equal(a.EDataNames(), b.EDataNames()) {
		t.Fatalf("data names %v %v vs %v %v", a.NDataNames(), a.EDataNames(), b.NDataNames(), b.EDataNames())
	}
	for _, n := range a.NDataNames() {
		x, y := a.NData(n), b.NData(n)
		if !slices.Equal(x.Shape(), y.Shape()) || x.DType() != y.DType() || x.String() != y.String() {
			t.Fatalf("ndata %s differs", n)
		}
	}
}

func TestSaveOpenRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, csr := range []bool{false, true} {
		g := smallGraph(t)
		p := filepath.Join(dir, "g.gnng")
		if err := SaveWith(p, g, Options{CSR: csr}); err != nil {
			t.Fatal(err)
		}
		h, c, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, g, h)
		if !slices.Equal(g.EData("w").Float32s(), h.EData("w").Float32s()) {
			t.Fatal("edata differs")
		}
		// Copy-on-write: writing into an opened tensor neither crashes nor
		// changes the file.
		h.NData("feat").Float32s()[0] = 42
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		h2, c2, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if h2.NData("feat").Float32s()[0] != 1 {
			t.Fatal("the file changed")
		}
		c2.Close()
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

// TestOpenedGraphSamplesIdentically samples a power-law dataset and its
// stored copy (whose CSC is the mapping itself) with the same seeds.
func TestOpenedGraphSamplesIdentically(t *testing.T) {
	d, err := datasets.PowerLaw(datasets.ProductsLike(0.001, 3))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "p.gnng")
	if err := Save(p, d.Graph); err != nil {
		t.Fatal(err)
	}
	h, c, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sameGraph(t, d.Graph, h)
	if &h.Adj().Indices[0] == &d.Graph.Adj().Indices[0] {
		t.Fatal("not a separate mapping")
	}
	s := sampling.NeighborSampler{Fanouts: []int{15, 10, 5}}
	seeds := d.TestIdx.Int64s()[:256]
	a, err := s.SampleBlocks(d.Graph, seeds, 11)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.SampleBlocks(h, seeds, 11)
	if err != nil {
		t.Fatal(err)
	}
	for l := range a {
		if !slices.Equal(a[l].SrcNodeIDs(), b[l].SrcNodeIDs()) || !slices.Equal(a[l].EIDs().Int64s(), b[l].EIDs().Int64s()) {
			t.Fatalf("block %d differs", l)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "g.gnng")
	if err := Save(p, smallGraph(t)); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(p)
	write := func(b []byte) string {
		q := filepath.Join(dir, "bad.gnng")
		os.WriteFile(q, b, 0o644)
		return q
	}
	cases := []struct {
		data []byte
		want string
	}{
		{[]byte("hello world, not a graph at all......................................."), "bad magic"},
		{good[:40], "truncated"},
		{good[:len(good)-10], "truncated"},
		{good[:len(good)/2], "truncated"},
		{good[:len(good)-1], "truncated"},
		{append(append([]byte(nil), good[:8]...), append([]byte{9, 0, 0, 0}, good[12:]...)...), "version 9"},
	}
	for _, c := range cases {
		q := write(c.data)
		_, _, err := Open(q)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), q) || !errors.Is(err, ErrFormat) {
			t.Errorf("got %v, want %q naming %s", err, c.want, q)
		}
	}
	if _, _, err := Open(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
}
