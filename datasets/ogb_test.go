package datasets

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ogbFixture writes a small dataset in the OGB raw layout: 5 nodes, 4
// edges, 3 features, single-task labels (one NaN), a node_year file, edge
// features and the split folder "time".
func ogbFixture(t *testing.T, name string, over map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	files := map[string]string{
		"raw/num-node-list.csv.gz": "5\n",
		"raw/num-edge-list.csv.gz": "4\n",
		"raw/edge.csv.gz":          "0,1\n1,2\n2,3\n3,0\n",
		"raw/node-feat.csv.gz":     "0.5,1,-2\n0,0,0\n1e-3,2.5,3\n-1,-1,-1\n7,8,9\n",
		"raw/edge-feat.csv.gz":     "1\n2\n3\n4\n",
		"raw/node-label.csv.gz":    "2\n0\n1\nnan\n2\n",
		"raw/node_year.csv.gz":     "2001\n2002\n2003\n2004\n2005\n",
		"split/time/train.csv.gz":  "0\n1\n",
		"split/time/valid.csv.gz":  "2\n",
		"split/time/test.csv.gz":   "4\n3\n",
	}
	for k, v := range over {
		if v == "" {
			delete(files, k)
		} else {
			files[k] = v
		}
	}
	for k, v := range files {
		writeFile(t, filepath.Join(dir, k), v, strings.HasSuffix(k, ".gz"))
	}
	return dir
}

func TestOGBNodeProp(t *testing.T) {
	d, err := LoadOGBNodeProp(ogbFixture(t, "mine", nil), OGBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	src, dst := g.Edges()
	if d.Name != "mine" || g.NumNodes() != 5 || !slices.Equal(src.Int64s(), []int64{0, 1, 2, 3}) || !slices.Equal(dst.Int64s(), []int64{1, 2, 3, 0}) {
		t.Errorf("graph %v edges %v %v", d, src.Int64s(), dst.Int64s())
	}
	feat := g.NData("feat")
	if !slices.Equal(feat.Shape(), []int{5, 3}) || feat.Float32s()[6] != 1e-3 || feat.Float32s()[2] != -2 || d.NumFeatures != 3 {
		t.Errorf("feat %v %v", feat.Shape(), feat.Float32s())
	}
	if !slices.Equal(g.NData("label").Int64s(), []int64{2, 0, 1, -1, 2}) || d.NumClasses != 3 {
		t.Errorf("labels %v classes %d", g.NData("label").Int64s(), d.NumClasses)
	}
	if y := g.NData("year"); y.DType().String() != "int64" || !slices.Equal(y.Int64s(), []int64{2001, 2002, 2003, 2004, 2005}) {
		t.Errorf("year %v", y)
	}
	if ef := g.EData("feat"); !slices.Equal(ef.Float32s(), []float32{1, 2, 3, 4}) {
		t.Errorf("edge feat %v", ef)
	}
	if !slices.Equal(d.TrainIdx.Int64s(), []int64{0, 1}) || !slices.Equal(d.ValIdx.Int64s(), []int64{2}) || !slices.Equal(d.TestIdx.Int64s(), []int64{4, 3}) {
		t.Errorf("split %v %v %v", d.TrainIdx, d.ValIdx, d.TestIdx)
	}
	if !slices.Equal(g.NData("test_mask").Bools(), []bool{false, false, false, true, true}) {
		t.Errorf("test mask %v", g.NData("test_mask").Bools())
	}
}

func TestOGBNodePropInverseEdgesAndTasks(t *testing.T) {
	// ogbn-proteins-like: inverse edges, multi-task float labels, plain .csv.
	dir := ogbFixture(t, "ogbn_proteins", map[string]string{
		"raw/node-label.csv.gz": "", "raw/node-label.csv": "1,0\n0,nan\n1,1\n0,0\n1,0\n",
		"raw/node-feat.csv.gz": "", "raw/node_year.csv.gz": "", "raw/node_species.csv.gz": "3\n3\n4\n4\n3\n",
		"split/time/train.csv.gz": "", "split/time/valid.csv.gz": "", "split/time/test.csv.gz": "",
		"split/species/train.csv": "0\n1\n2\n", "split/species/valid.csv": "3\n", "split/species/test.csv": "4\n",
	})
	opts := DefaultOGBOptions(dir)
	if opts != (OGBOptions{Name: "ogbn-proteins", Split: "species", AddInverseEdge: true}) {
		t.Fatalf("default options %+v", opts)
	}
	d, err := OGBNodeProp(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	src, dst := g.Edges()
	if !slices.Equal(src.Int64s(), []int64{0, 1, 1, 2, 2, 3, 3, 0}) || !slices.Equal(dst.Int64s(), []int64{1, 0, 2, 1, 3, 2, 0, 3}) {
		t.Errorf("inverse edges %v %v", src.Int64s(), dst.Int64s())
	}
	if ef := g.EData("feat").Float32s(); !slices.Equal(ef, []float32{1, 1, 2, 2, 3, 3, 4, 4}) {
		t.Errorf("edge feat repeated %v", ef)
	}
	lab := g.NData("label")
	if !slices.Equal(lab.Shape(), []int{5, 2}) || !math.IsNaN(float64(lab.Float32s()[3])) || d.NumClasses != 2 {
		t.Errorf("multi-task labels %v %v classes %d", lab.Shape(), lab.Float32s(), d.NumClasses)
	}
	if g.HasNData("feat") || d.NumFeatures != 0 {
		t.Error("feat present without node-feat file")
	}
	if !slices.Equal(g.NData("species").Int64s(), []int64{3, 3, 4, 4, 3}) || d.Name != "ogbn-proteins" {
		t.Errorf("species %v name %s", g.NData("species"), d.Name)
	}
}

func TestOGBNodePropErrors(t *testing.T) {
	for _, c := range []struct {
		name      string
		over      map[string]string
		kind      error
		wantInMsg string
	}{
		{"bad edge", map[string]string{"raw/edge.csv.gz": "0,1\n1,x\n2,3\n3,0\n"}, ErrFormat, "edge.csv.gz:2: \"x\" is not an integer"},
		{"edge fields", map[string]string{"raw/edge.csv.gz": "0,1\n1,2,3\n2,3\n3,0\n"}, ErrFormat, "edge.csv.gz:2: 3 fields, want 2"},
		{"edge range", map[string]string{"raw/edge.csv.gz": "0,1\n1,2\n2,9\n3,0\n"}, ErrFormat, "edge.csv.gz:3: edge 2,9"},
		{"edge count", map[string]string{"raw/edge.csv.gz": "0,1\n1,2\n2,3\n"}, ErrFormat, "edge.csv.gz: 3 rows, want 4"},
		{"edge extra", map[string]string{"raw/edge.csv.gz": "0,1\n1,2\n2,3\n3,0\n0,0\n"}, ErrFormat, "edge.csv.gz:5: more than the 4 rows"},
		{"feat width", map[string]string{"raw/node-feat.csv.gz": "1,2,3\n1,2\n1,2,3\n1,2,3\n1,2,3\n"}, ErrFormat, "node-feat.csv.gz:2: 2 fields, want 3"},
		{"feat value", map[string]string{"raw/node-feat.csv.gz": "1,2,3\n1,2,3\n1,2,abc\n1,2,3\n1,2,3\n"}, ErrFormat, "node-feat.csv.gz:3: \"abc\""},
		{"label", map[string]string{"raw/node-label.csv.gz": "0\n1.5\n0\n0\n0\n"}, ErrFormat, "node-label.csv.gz:2: label 1.5"},
		{"split range", map[string]string{"split/time/test.csv.gz": "4\n5\n"}, ErrFormat, "test.csv.gz:2: node id 5"},
		{"empty line", map[string]string{"split/time/valid.csv.gz": "2\n\n3\n"}, ErrFormat, "valid.csv.gz:2: empty line"},
		{"two graphs", map[string]string{"raw/num-node-list.csv.gz": "5\n3\n"}, ErrFormat, "exactly one graph"},
		{"node count", map[string]string{"raw/num-node-list.csv.gz": "x\n"}, ErrFormat, "num-node-list.csv.gz:1:"},
		{"extra rows", map[string]string{"raw/node_year.csv.gz": "1\n2\n"}, ErrFormat, "node_year.csv.gz: 2 rows, want 5"},
		{"shadowing", map[string]string{"raw/node_label.csv.gz": "1\n2\n3\n4\n5\n"}, ErrFormat, "would replace"},
		{"no edges", map[string]string{"raw/edge.csv.gz": ""}, ErrMissing, "edge.csv.gz"},
		{"no labels", map[string]string{"raw/node-label.csv.gz": ""}, ErrMissing, "node-label.csv.gz"},
		{"no split", map[string]string{"split/time/train.csv.gz": ""}, ErrMissing, "train.csv.gz"},
		{"two splits", map[string]string{"split/other/train.csv.gz": "0\n"}, ErrArgument, "2 split folders"},
		{"hetero", map[string]string{"raw/relations/x/edge.csv.gz": "0,1\n"}, ErrArgument, "heterogeneous"},
	} {
		dir := ogbFixture(t, "mine", c.over)
		d, err := OGBNodeProp(dir)
		if d != nil || !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.wantInMsg) {
			t.Errorf("%s: %v; want %v containing %q", c.name, err, c.kind, c.wantInMsg)
		}
	}
	// The named split must exist.
	if _, err := LoadOGBNodeProp(ogbFixture(t, "mine", nil), OGBOptions{Split: "nope"}); !errors.Is(err, ErrMissing) {
		t.Errorf("missing named split: %v", err)
	}
}

// writeOGBSynthetic writes a random OGB-layout dataset of n nodes, e edges
// and f features (the shape of ogbn-products scaled down) for benchmarks.
func writeOGBSynthetic(tb testing.TB, dir string, n, e, f int) {
	x := uint64(88172645463325252)
	rnd := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	files := map[string]func(*strings.Builder){
		"raw/num-node-list.csv.gz": func(b *strings.Builder) { fmt.Fprintf(b, "%d\n", n) },
		"raw/num-edge-list.csv.gz": func(b *strings.Builder) { fmt.Fprintf(b, "%d\n", e) },
		"raw/edge.csv.gz": func(b *strings.Builder) {
			for i := 0; i < e; i++ {
				fmt.Fprintf(b, "%d,%d\n", rnd()%uint64(n), rnd()%uint64(n))
			}
		},
		"raw/node-feat.csv.gz": func(b *strings.Builder) {
			for i := 0; i < n; i++ {
				for j := 0; j < f; j++ {
					if j > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(b, "%.6f", float64(rnd()%2000000)/1e6-1)
				}
				b.WriteByte('\n')
			}
		},
		"raw/node-label.csv.gz": func(b *strings.Builder) {
			for i := 0; i < n; i++ {
				fmt.Fprintf(b, "%d\n", rnd()%47)
			}
		},
		"split/sales_ranking/train.csv.gz": func(b *strings.Builder) {
			for i := 0; i < n/10; i++ {
				fmt.Fprintf(b, "%d\n", i)
			}
		},
		"split/sales_ranking/valid.csv.gz": func(b *strings.Builder) { fmt.Fprintf(b, "%d\n", n/10) },
		"split/sales_ranking/test.csv.gz": func(b *strings.Builder) {
			for i := n/10 + 1; i < n; i++ {
				fmt.Fprintf(b, "%d\n", i)
			}
		},
	}
	for name, fill := range files {
		var sb strings.Builder
		fill(&sb)
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		writeGz(tb, p, sb.String())
	}
}
