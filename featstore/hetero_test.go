package featstore

import (
	"bufio"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// smallHetero: 3 papers, 2 authors, 1 subject; papers and authors have
// features.
func smallHetero(t *testing.T) *graph.Graph {
	t.Helper()
	g, err := graph.NewHetero(map[string]int{"paper": 3, "author": 2, "subject": 1}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "paper", EType: "pa", Dst: "author"}:        {Src: []int64{0, 1, 2, 2}, Dst: []int64{0, 0, 0, 1}},
		{Src: "author", EType: "ap", Dst: "paper"}:        {Src: []int64{0, 0, 0, 1}, Dst: []int64{0, 1, 2, 2}},
		{Src: "paper", EType: "ps", Dst: "subject"}:       {Src: []int64{0, 1, 2}, Dst: []int64{0, 0, 0}},
		{Src: "subject", EType: "sp", Dst: "paper"}:       {Src: []int64{0, 0, 0}, Dst: []int64{0, 1, 2}},
		{Src: "author", EType: "coauthor", Dst: "author"}: {Src: []int64{0}, Dst: []int64{1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetNDataOf("paper", "feat", tensor.FromFloat32([]float32{1, 0, 0, 2, 3, 3}, 3, 2)); err != nil {
		t.Fatal(err)
	}
	if err := g.SetNDataOf("author", "feat", tensor.FromFloat32([]float32{-1, 1, 4, 0}, 2, 2)); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestPerTypeSmall(t *testing.T) {
	g := smallHetero(t)
	p, err := NewPerType(g, "feat", tensor.Float16)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.NTypes(), ","); got != "author,paper" {
		t.Fatalf("ntypes %s", got)
	}
	if p.BytesOf("paper") != 12 || p.Float32BytesOf("paper") != 24 || p.Bytes() != 20 {
		t.Fatalf("bytes %d/%d total %d", p.BytesOf("paper"), p.Float32BytesOf("paper"), p.Bytes())
	}
	if v := p.Gather("author", tensor.FromInt64([]int64{1})).Float32s(); v[0] != 4 || v[1] != 0 {
		t.Fatalf("gather %v", v)
	}
	t.Log("\n" + p.String())

	// Degrees over all relations: author 0 is the source of 3 "ap" edges
	// and 1 "coauthor" edge.
	deg, err := NodeDegrees(g, "author", "out")
	if err != nil || deg[0] != 4 || deg[1] != 1 {
		t.Fatalf("out degrees %v %v", deg, err)
	}
	deg, _ = NodeDegrees(g, "author", "total")
	if deg[0] != 7 || deg[1] != 3 {
		t.Fatalf("total degrees %v", deg)
	}
	hot, err := NewHotCachePerType(p, g, HotCacheOptions{Capacity: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := hot.Store("author").(*HotCache)
	if !c.IsCached(0) || c.IsCached(1) {
		t.Fatal("the author cache should hold author 0 (highest degree)")
	}
	hot.Gather("author", tensor.FromInt64([]int64{0, 1, 0}))
	if s := hot.StatsOf("author"); s.Hits != 2 || s.Misses != 1 {
		t.Fatalf("stats %v", s)
	}

	// One-hop means per relation, in canonical edge type order.
	sp, err := PropagatePerType(g, "feat", PropagateOptions{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sp.RelationsOf("paper"), " "); got != `self ("author", "ap", "paper")` {
		t.Fatalf("paper blocks %s", got)
	}
	if got := strings.Join(sp.RelationsOf("author"), " "); got != `self ("author", "coauthor", "author") ("paper", "pa", "author")` {
		t.Fatalf("author blocks %s", got)
	}
	// Subject has no features: the mean of its papers only.
	if v := sp.Gather("subject", tensor.FromInt64([]int64{0})).Float32s(); len(v) != 2 || math.Abs(float64(v[0])-4.0/3) > 1e-6 || math.Abs(float64(v[1])-5.0/3) > 1e-6 {
		t.Fatalf("subject %v", v)
	}
	// Paper 2: self (3, 3), mean of authors 0 and 1: (1.5, 0.5).
	if v := sp.Gather("paper", tensor.FromInt64([]int64{2})).Float32s(); v[0] != 3 || v[1] != 3 || v[2] != 1.5 || v[3] != 0.5 {
		t.Fatalf("paper 2 %v", v)
	}
	// Author 1: self (4, 0), coauthor author 0 (-1, 1), its one paper 2 (3, 3).
	if v := sp.Gather("author", tensor.FromInt64([]int64{1})).Float32s(); v[2] != -1 || v[3] != 1 || v[4] != 3 || v[5] != 3 {
		t.Fatalf("author 1 %v", v)
	}
	// Author 0 has no coauthor in-edge: zeros.
	if v := sp.Gather("author", tensor.FromInt64([]int64{0})).Float32s(); v[2] != 0 || v[3] != 0 {
		t.Fatalf("author 0 %v", v)
	}
}

func TestPerTypeErrors(t *testing.T) {
	g := smallHetero(t)
	p, err := NewPerType(g, "feat", tensor.Float32)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    func() error
		want string
	}{
		{"no data", func() error { _, err := NewPerType(g, "nope", tensor.Float32); return err }, `has node data "nope"`},
		{"dtype", func() error { _, err := NewPerType(g, "feat", tensor.Int64); return err }, `node type "author"`},
		{"unknown ntype", func() error {
			_, err := NewPerTypeStores(g, map[string]Store{"venue": p.Store("paper")})
			return err
		}, `node type "venue" is not in the graph`},
		{"row count", func() error {
			_, err := NewPerTypeStores(g, map[string]Store{"author": p.Store("paper")})
			return err
		}, `has 3 rows, the type has 2 nodes`},
		{"degree kind", func() error { _, err := NodeDegrees(g, "paper", "both"); return err }, `Degree "both"`},
		{"degree ntype", func() error { _, err := NodeDegrees(g, "venue", "in"); return err }, `node type "venue"`},
		{"hot options", func() error { _, err := NewHotCachePerType(p, g, HotCacheOptions{}); return err }, "set Capacity"},
		{"K", func() error { _, err := PropagatePerType(g, "feat", PropagateOptions{K: 2}); return err }, "K = 2"},
		{"norm", func() error { _, err := PropagatePerType(g, "feat", PropagateOptions{K: 1, Norm: "left"}); return err }, `Norm "left"`},
	} {
		if err := c.f(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		} else if !errors.Is(err, ErrArgument) && !errors.Is(err, ErrShape) {
			t.Errorf("%s: %v wraps neither ErrArgument nor ErrShape", c.name, err)
		}
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(error).Error(), `no store for node type "subject"`) {
				t.Errorf("Gather of a type without a store: %v", r)
			}
		}()
		p.Gather("subject", tensor.FromInt64([]int64{0}))
	}()
}

// loadACM builds ACM's heterograph (HeCo layout: paper-author and
// paper-subject pairs, both directions) with the papers' and authors'
// 1,902 binary features from the npz files (this test's own reader: the
// ACM loader is elsewhere).
func loadACM(t *testing.T) *graph.Graph {
	t.Helper()
	dir := filepath.Join(shareddata.Dir(t), "heco-acm")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("ACM is absent: %v", err)
	}
	pairs := func(name string) (a, b []int64) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) != 2 {
				t.Fatalf("%s: %q", name, sc.Text())
			}
			x, _ := strconv.ParseInt(fs[0], 10, 64)
			y, _ := strconv.ParseInt(fs[1], 10, 64)
			a, b = append(a, x), append(b, y)
		}
		return a, b
	}
	pa, a := pairs("pa.txt")
	ps, s := pairs("ps.txt")
	g, err := graph.NewHetero(map[string]int{"paper": 4019, "author": 7167, "subject": 60}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "paper", EType: "pa", Dst: "author"}:  {Src: pa, Dst: a},
		{Src: "author", EType: "ap", Dst: "paper"}:  {Src: a, Dst: pa},
		{Src: "paper", EType: "ps", Dst: "subject"}: {Src: ps, Dst: s},
		{Src: "subject", EType: "sp", Dst: "paper"}: {Src: s, Dst: ps},
	})
	if err != nil {
		t.Fatal(err)
	}
	for nt, file := range map[string]string{"paper": "p_feat.npz", "author": "a_feat.npz"} {
		arrs, err := datasets.ReadNPZ(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		// scipy CSR (indptr, indices, data) or COO (row, col, data).
		shape, data := arrs["shape"].Int64, arrs["data"]
		n, f := int(shape[0]), int(shape[1])
		var rows, cols []int64
		if ip := arrs["indptr"]; ip != nil {
			cols = arrs["indices"].Int64
			for r := 0; r < n; r++ {
				for p := ip.Int64[r]; p < ip.Int64[r+1]; p++ {
					rows = append(rows, int64(r))
				}
			}
		} else {
			rows, cols = arrs["row"].Int64, arrs["col"].Int64
		}
		x := make([]float32, n*f)
		for p := range rows {
			v := float32(1)
			if data.Float32 != nil {
				v = data.Float32[p]
			} else if data.Int64 != nil {
				v = float32(data.Int64[p])
			}
			x[int(rows[p])*f+int(cols[p])] = v
		}
		if err := g.SetNDataOf(nt, "feat", tensor.FromFloat32(x, n, f)); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// TestPerTypeACM measures the bytes per node type of float16 and int8
// stores and of per-relation SIGN features on ACM, and the hit rate of a
// 10% degree-ordered hot cache per type on the rows a one-hop aggregation
// over every paper reads.
func TestPerTypeACM(t *testing.T) {
	g := loadACM(t)
	f32, err := NewPerType(g, "feat", tensor.Float32)
	if err != nil {
		t.Fatal(err)
	}
	for _, dt := range []tensor.DType{tensor.Float16, tensor.Int8} {
		p, err := NewPerType(g, "feat", dt)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v stores:\n%v", dt, p)
		for _, nt := range []string{"paper", "author"} {
			r := float64(p.BytesOf(nt)) / float64(f32.BytesOf(nt))
			want := 0.5
			if dt == tensor.Int8 {
				want = 0.25 + 8.0/(4*1902)
			}
			if math.Abs(r-want) > 1e-9 {
				t.Errorf("%v %s: ratio %.4f, want %.4f", dt, nt, r, want)
			}
			// Within the dtype's error bound (binary rows are exact).
			ids := tensor.FromInt64([]int64{0, 17, 3000})
			a, b := f32.Gather(nt, ids).Float32s(), p.Gather(nt, ids).Float32s()
			for i := range a {
				if math.Abs(float64(a[i]-b[i])) > 0.01*math.Max(1, math.Abs(float64(a[i]))) {
					t.Fatalf("%v %s: value %d is %g, float32 %g", dt, nt, i, b[i], a[i])
				}
			}
		}
		p.Close()
	}
	// The hot cache: the author rows that a mean over every paper's authors
	// reads, in paper order.
	i8, _ := NewPerType(g, "feat", tensor.Int8)
	hot, err := NewHotCachePerType(i8, g, HotCacheOptions{Fraction: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	src, _ := g.EdgesOf("ap")
	hot.Gather("author", src)
	st := hot.StatsOf("author")
	t.Logf("author hot cache (10%% by degree): %v; fast tier %d bytes", st, hot.Store("author").(*HotCache).FastBytes())
	if st.HitRate < 0.25 {
		t.Errorf("hit rate %.3f; a 10%% degree cache should serve at least 25%% of ACM's paper-author reads", st.HitRate)
	}
	sign, err := PropagatePerType(g, "feat", PropagateOptions{K: 1, DType: tensor.Int8})
	if err != nil {
		t.Fatal(err)
	}
	sign32, err := PropagatePerType(g, "feat", PropagateOptions{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("per-relation SIGN features, int8:\n%v\nfloat32:\n%v", sign, sign32)
	for _, nt := range []string{"paper", "author", "subject"} {
		if sign.Store(nt).Dim() != sign32.Store(nt).Dim() {
			t.Fatalf("%s dims differ", nt)
		}
		if r := float64(sign.BytesOf(nt)) / float64(sign32.BytesOf(nt)); r > 0.26 {
			t.Errorf("%s: int8 SIGN is %.3f of float32", nt, r)
		}
	}
	// Dequantisation error of the averaged blocks is within int8's bound.
	ids := tensor.FromInt64([]int64{0, 1, 2, 59})
	a, b := sign32.Gather("subject", ids).Float32s(), sign.Gather("subject", ids).Float32s()
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1.0/255 {
			t.Fatalf("subject value %d: int8 %g, float32 %g", i, b[i], a[i])
		}
	}
}
