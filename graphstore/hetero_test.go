package graphstore

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// smallHetero has two node types, three canonical edge types (two named
// "rates" between different types, one with no edges in reverse order of
// declaration), node data on "user" and edge data on one relation.
func smallHetero(t testing.TB) *graph.Graph {
	g, err := graph.NewHetero(map[string]int{"user": 4, "item": 3}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "user", EType: "rates", Dst: "item"}:   {Src: []int64{0, 1, 3, 3, 2}, Dst: []int64{2, 0, 1, 2, 2}},
		{Src: "item", EType: "rates", Dst: "user"}:   {Src: []int64{2, 0}, Dst: []int64{0, 1}},
		{Src: "user", EType: "follows", Dst: "user"}: {Src: []int64{0, 1, 2}, Dst: []int64{1, 2, 3}},
	})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(g.SetNDataOf("user", "feat", tensor.FromFloat32([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 4, 2)))
	must(g.SetNDataOf("user", "train_mask", tensor.FromBool([]bool{true, false, true, true})))
	must(g.SetNDataOf("user", "label", tensor.FromInt64([]int64{3, 1, 4, 1})))
	must(g.SetEDataOf("user:rates:item", "w", tensor.FromFloat32([]float32{.5, -1, 2.25, 0, 3})))
	return g
}

// sameHetero fails unless a and b have the same types in the same order,
// the same edges and bit-identical data.
func sameHetero(t *testing.T, a, b *graph.Graph) {
	t.Helper()
	if !slices.Equal(a.NTypes(), b.NTypes()) || !slices.Equal(a.CanonicalETypes(), b.CanonicalETypes()) {
		t.Fatalf("types %v %v vs %v %v", a.NTypes(), a.CanonicalETypes(), b.NTypes(), b.CanonicalETypes())
	}
	sameData := func(what string, x, y *tensor.Tensor) {
		t.Helper()
		if x.DType() != y.DType() || !slices.Equal(x.Shape(), y.Shape()) || !slices.Equal(tensorBytes(x), tensorBytes(y)) {
			t.Fatalf("%s differs: %v %v vs %v %v", what, x.DType(), x.Shape(), y.DType(), y.Shape())
		}
	}
	for _, nt := range a.NTypes() {
		if a.NumNodesOf(nt) != b.NumNodesOf(nt) {
			t.Fatalf("%s: %d vs %d nodes", nt, a.NumNodesOf(nt), b.NumNodesOf(nt))
		}
		if !slices.Equal(a.NDataNamesOf(nt), b.NDataNamesOf(nt)) {
			t.Fatalf("%s: ndata %v vs %v", nt, a.NDataNamesOf(nt), b.NDataNamesOf(nt))
		}
		for _, n := range a.NDataNamesOf(nt) {
			sameData(nt+"/"+n, a.NDataOf(nt, n), b.NDataOf(nt, n))
		}
	}
	for _, ce := range a.CanonicalETypes() {
		k := ce.Key()
		as, ad := a.EdgesOf(k)
		bs, bd := b.EdgesOf(k)
		if !slices.Equal(as.Int64s(), bs.Int64s()) || !slices.Equal(ad.Int64s(), bd.Int64s()) {
			t.Fatalf("%v: edges differ", ce)
		}
		x, y := a.AdjOf(k), b.AdjOf(k)
		if !slices.Equal(x.Indptr, y.Indptr) || !slices.Equal(x.Indices, y.Indices) || !slices.Equal(x.EIDs, y.EIDs) {
			t.Fatalf("%v: adjacency differs", ce)
		}
		if !slices.Equal(a.EDataNamesOf(k), b.EDataNamesOf(k)) {
			t.Fatalf("%v: edata %v vs %v", ce, a.EDataNamesOf(k), b.EDataNamesOf(k))
		}
		for _, n := range a.EDataNamesOf(k) {
			sameData(k+"/"+n, a.EDataOf(k, n), b.EDataOf(k, n))
		}
	}
}

func TestHeteroRoundTrip(t *testing.T) {
	g := smallHetero(t)
	p := filepath.Join(t.TempDir(), "h.gnng")
	if err := Save(p, g); err != nil {
		t.Fatal(err)
	}
	h, c, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sameHetero(t, g, h)
	if h.IsHomogeneous() || h.NumEdges() != 10 {
		t.Fatalf("opened %v", h)
	}
	// The edge list is a view of the mapping, not a copy.
	src, _ := h.EdgesOf("follows")
	b, _ := os.ReadFile(p)
	if s := tensorBytes(src); len(s) == 0 || &s[0] == &b[0] {
		t.Fatal("unexpected edge list")
	}
	// Save wrote version 2; saving the opened graph gives the same bytes.
	if v := b[8]; v != VersionHetero {
		t.Fatalf("version %d", v)
	}
	q := filepath.Join(t.TempDir(), "h2.gnng")
	if err := Save(q, h); err != nil {
		t.Fatal(err)
	}
	b2, _ := os.ReadFile(q)
	if !slices.Equal(b, b2) {
		t.Fatal("re-saving the opened heterograph changes the file")
	}
}

// A graph with one node and one edge type but other names keeps its names
// (version 2); one with the default names is still written as version 1.
func TestSingleTypeNamesKept(t *testing.T) {
	g, err := graph.NewHetero(map[string]int{"paper": 3}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "paper", EType: "cites", Dst: "paper"}: {Src: []int64{0, 1}, Dst: []int64{1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "s.gnng")
	if err := Save(p, g); err != nil {
		t.Fatal(err)
	}
	h, c, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sameHetero(t, g, h)
	q := filepath.Join(dir, "d.gnng")
	if err := Save(q, smallGraph(t)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(q); b[8] != Version || b[12] != 0 || string(b[56:64]) != "\x00\x00\x00\x00\x00\x00\x00\x00" {
		t.Fatalf("homogeneous header %v", b[8:16])
	}
}

func TestHeteroOpenErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "h.gnng")
	if err := Save(p, smallHetero(t)); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(p)
	q := filepath.Join(dir, "bad.gnng")
	check := func(what string, b []byte, want string) {
		t.Helper()
		if err := os.WriteFile(q, b, 0o644); err != nil {
			t.Fatal(err)
		}
		g, c, err := Open(q)
		if err == nil {
			c.Close()
			t.Fatalf("%s: opened %v", what, g)
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), q) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want %q naming %s", what, err, want, q)
		}
	}
	// Truncation at every 509th byte, and around the header, directory and
	// schema.
	offs := []int{0, 7, 8, 40, 63, 64, len(good) - 1, len(good) - 4, len(good) - 30}
	for o := 100; o < len(good); o += 509 {
		offs = append(offs, o)
	}
	for _, o := range offs {
		want := "truncated"
		if o < 8 {
			want = "bad magic"
		}
		check(fmt.Sprintf("truncated at %d", o), good[:o], want)
	}
	le := func(b []byte, off int) int64 {
		var v int64
		for i := 7; i >= 0; i-- {
			v = v<<8 | int64(b[off+i])
		}
		return v
	}
	dirOff, dirLen := int(le(good, 32)), int(le(good, 40))
	corrupt := func(off int, x byte) []byte {
		b := slices.Clone(good)
		b[off] ^= x
		return b
	}
	// A flipped bit anywhere in the directory or schema fails the checksum.
	for o := dirOff; o < len(good)-4; o += 7 {
		check(fmt.Sprintf("bit flipped at %d", o), corrupt(o, 0x10), "corrupted")
	}
	check("checksum", corrupt(len(good)-1, 1), "corrupted")
	check("flags", corrupt(12, 2), "flags")
	check("schema length", corrupt(56, 1), "inconsistent")
	check("node count", corrupt(16, 1), "nodes")
	// An edge id outside its type's range (the first source of each
	// relation) is caught by the graph check.
	secs, err := decodeDir(good[dirOff : dirOff+dirLen])
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range secs {
		if strings.HasSuffix(s.name, "/coo/src") {
			b := slices.Clone(good)
			b[s.offset] = 100
			check("edge id in "+s.name, b, "outside")
			n++
		}
	}
	if n != 3 {
		t.Fatalf("%d edge lists", n)
	}
}

// Old homogeneous files (version 1, written before heterographs were
// supported) open unchanged: the bytes written today are those the
// version-1-only writer (commit 40a8a54) wrote for smallGraph, whose
// SHA-256 sums are recorded here, and they open as smallGraph.
func TestHomogeneousLayoutUnchanged(t *testing.T) {
	want := map[bool]string{
		false: "55f8c7b6437d7d244371ecb010721c409898401676b49940827d5f4fd383154c",
		true:  "a7e30ad39c9e84f5dbfb43b598214dbab1ea4ad582ec5358b155a27f1e631c3d",
	}
	for _, csr := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "g.gnng")
		if err := SaveWith(p, smallGraph(t), Options{CSR: csr}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != want[csr] {
			t.Fatalf("CSR %v: version-1 file changed: sha256 %s, want %s", csr, got, want[csr])
		}
		h, c, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, smallGraph(t), h)
		c.Close()
	}
}

func TestHeteroACM(t *testing.T) {
	dir := shareddata.Dir(t)
	if _, err := os.Stat(filepath.Join(dir, datasets.ACMFolder)); err != nil {
		t.Skipf("%s absent: %v", datasets.ACMFolder, err)
	}
	d, err := datasets.LoadACM(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "acm.gnng")
	if err := Save(p, d.Graph); err != nil {
		t.Fatal(err)
	}
	h, c, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sameHetero(t, d.Graph, h)
	if len(h.NTypes()) != 3 || len(h.CanonicalETypes()) < 4 {
		t.Fatalf("ACM opened as %v", h)
	}
}

func TestHeteroAIFB(t *testing.T) {
	dir := shareddata.Dir(t)
	if _, err := os.Stat(filepath.Join(dir, datasets.AIFBFolder)); err != nil {
		t.Skipf("%s absent: %v", datasets.AIFBFolder, err)
	}
	d, err := datasets.LoadAIFB(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "aifb.gnng")
	if err := Save(p, d.Graph); err != nil {
		t.Fatal(err)
	}
	h, c, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sameHetero(t, d.Graph, h)
}

// BenchmarkOpenHetero opens a saved SyntheticMAG at scale 0.01 (types,
// edge-list check, mapping; adjacencies are built on first use).
func BenchmarkOpenHetero(b *testing.B) {
	d, err := datasets.SyntheticMAG(datasets.SyntheticMAGOptions{Scale: 0.01, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "mag.gnng")
	if err := Save(p, d.Graph); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		_, c, err := Open(p)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	b.ReportMetric(float64(d.Graph.NumEdges()), "edges")
}

// BenchmarkSaveHetero saves the same graph.
func BenchmarkSaveHetero(b *testing.B) {
	d, err := datasets.SyntheticMAG(datasets.SyntheticMAGOptions{Scale: 0.01, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "mag.gnng")
	b.ResetTimer()
	for range b.N {
		if err := Save(p, d.Graph); err != nil {
			b.Fatal(err)
		}
	}
}

// Empty graphs and relations without edges round-trip too.
func TestHeteroEmpty(t *testing.T) {
	for _, g := range []*graph.Graph{
		mustHetero(t, map[string]int{}, nil),
		mustHetero(t, map[string]int{"a": 0, "b": 2}, map[graph.CanonicalEType]graph.EdgeList{{Src: "b", EType: "x", Dst: "a"}: {}, {Src: "b", EType: "y", Dst: "b"}: {}}),
	} {
		p := filepath.Join(t.TempDir(), "e.gnng")
		if err := Save(p, g); err != nil {
			t.Fatal(err)
		}
		h, c, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sameHetero(t, g, h)
		c.Close()
	}
}

func mustHetero(t *testing.T, n map[string]int, e map[graph.CanonicalEType]graph.EdgeList) *graph.Graph {
	g, err := graph.NewHetero(n, e)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
