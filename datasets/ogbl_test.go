package datasets

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// The fixtures under testdata/ogbl are written by
// testdata/ogbl/make_fixtures.py (torch 1.13's torch.save); the values
// below are the ones that script writes.

const ogblFixtures = "testdata/ogbl"

// copyFixture copies testdata/ogbl/<name> to a temporary folder of the
// same name, so a test can damage its files.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(ogblFixtures, name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func wantInts(t *testing.T, what string, got *tensor.Tensor, shape []int, vals []int64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s is nil, want %v %v", what, shape, vals)
		return
	}
	if got.DType() != tensor.Int64 || !slices.Equal(got.Shape(), shape) || !slices.Equal(got.Int64s(), vals) {
		t.Errorf("%s = %s %v %v, want int64 %v %v", what, got.DType(), got.Shape(), got.Int64s(), shape, vals)
	}
}

func TestOGBLinkPropCollab(t *testing.T) {
	d, err := LoadOGBLinkProp(filepath.Join(ogblFixtures, "ogbl_collab"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "ogbl-collab" || d.NumNodes != 6 || d.EvalMetric != "hits@50" {
		t.Errorf("name %q nodes %d metric %q", d.Name, d.NumNodes, d.EvalMetric)
	}
	g := d.Graph
	src, dst := g.Edges()
	// The 5 raw edges, then their reverses.
	wantInts(t, "src", src, []int{10}, []int64{0, 1, 2, 3, 0, 1, 2, 3, 4, 2})
	wantInts(t, "dst", dst, []int{10}, []int64{1, 2, 3, 4, 2, 0, 1, 2, 3, 0})
	wantInts(t, "ReverseEIDs", d.ReverseEIDs, []int{10}, []int64{5, 6, 7, 8, 9, 0, 1, 2, 3, 4})
	wantInts(t, "TrainEIDs", d.TrainEIDs, []int{5}, []int64{0, 1, 2, 3, 4})
	feat := g.NData("feat")
	if !slices.Equal(feat.Shape(), []int{6, 2}) || !slices.Equal(feat.Float32s(), []float32{0.5, -1, 1, 2, 0.25, 0, 3, 4, -2, 1.5, 7, 8}) {
		t.Errorf("feat %v %v", feat.Shape(), feat.Float32s())
	}
	wantInts(t, "edge weight", g.EData("weight"), []int{10}, []int64{1, 2, 1, 3, 1, 1, 2, 1, 3, 1})
	wantInts(t, "edge year", g.EData("year"), []int{10}, []int64{2010, 2011, 2012, 2013, 2014, 2010, 2011, 2012, 2013, 2014})
	// train.pt's "edge" is a transposed view (strides (1, 5)).
	wantInts(t, "TrainPos", d.TrainPos, []int{5, 2}, []int64{0, 1, 1, 2, 2, 3, 3, 4, 0, 2})
	if d.TrainNeg != nil || d.ValNegDst != nil || d.TestNegDst != nil {
		t.Error("collab has no training negatives or per-positive negatives")
	}
	wantInts(t, "ValPos", d.ValPos, []int{2, 2}, []int64{4, 5, 1, 3})
	wantInts(t, "ValNeg", d.ValNeg, []int{3, 2}, []int64{0, 5, 2, 5, 1, 4})
	wantInts(t, "TestPos", d.TestPos, []int{3, 2}, []int64{0, 3, 2, 4, 5, 1})
	wantInts(t, "TestNeg", d.TestNeg, []int{2, 2}, []int64{0, 4, 3, 5})
	wantInts(t, "train weight", d.PosData["train"]["weight"], []int{5}, []int64{1, 2, 1, 3, 1})
	wantInts(t, "train year", d.PosData["train"]["year"], []int{5}, []int64{2010, 2011, 2012, 2013, 2014})
	wantInts(t, "valid weight", d.PosData["valid"]["weight"], []int{2}, []int64{2, 1})
	wantInts(t, "valid year", d.PosData["valid"]["year"], []int{2}, []int64{2018, 2018})
	wantInts(t, "test weight", d.PosData["test"]["weight"], []int{3}, []int64{1, 1, 4})
	wantInts(t, "test year", d.PosData["test"]["year"], []int{3}, []int64{2019, 2019, 2019})
	if s := d.String(); !strings.Contains(s, "ogbl-collab: 6 nodes") {
		t.Errorf("String %q", s)
	}
}

func TestOGBLinkPropDDILegacy(t *testing.T) {
	// The ddi fixture's .pt files are in torch's legacy (non-zip) container.
	d, err := LoadOGBLinkProp(filepath.Join(ogblFixtures, "ogbl_ddi"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "ogbl-ddi" || d.NumNodes != 5 || d.EvalMetric != "hits@20" || d.Graph.NumEdges() != 6 || d.Graph.HasNData("feat") {
		t.Errorf("dataset %v metric %q edges %d", d, d.EvalMetric, d.Graph.NumEdges())
	}
	wantInts(t, "TrainPos", d.TrainPos, []int{3, 2}, []int64{0, 1, 1, 2, 3, 4})
	wantInts(t, "ValPos", d.ValPos, []int{1, 2}, []int64{0, 2})
	wantInts(t, "ValNeg", d.ValNeg, []int{2, 2}, []int64{0, 3, 1, 4})
	wantInts(t, "TestPos", d.TestPos, []int{2, 2}, []int64{2, 3, 0, 4})
	wantInts(t, "TestNeg", d.TestNeg, []int{1, 2}, []int64{1, 3})
	if len(d.PosData) != 0 {
		t.Errorf("PosData %v", d.PosData)
	}
}

func TestOGBLinkPropCitation2Numpy(t *testing.T) {
	// The citation2 fixture's .pt files hold numpy arrays; test.pt's
	// target_node_neg is in Fortran order.
	d, err := LoadOGBLinkProp(filepath.Join(ogblFixtures, "ogbl_citation2"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "ogbl-citation2" || d.EvalMetric != "mrr" || d.ReverseEIDs != nil {
		t.Errorf("name %q metric %q reverse %v", d.Name, d.EvalMetric, d.ReverseEIDs)
	}
	src, dst := d.Graph.Edges()
	wantInts(t, "src", src, []int{5}, []int64{1, 2, 2, 3, 4})
	wantInts(t, "dst", dst, []int{5}, []int64{0, 0, 1, 2, 3})
	wantInts(t, "year", d.Graph.NData("year"), []int{6}, []int64{2000, 2001, 2002, 2003, 2004, 2005})
	if f := d.Graph.NData("feat"); !slices.Equal(f.Shape(), []int{6, 3}) || f.Float32s()[4] != 1 || f.Float32s()[17] != 1 {
		t.Errorf("feat %v %v", f.Shape(), f.Float32s())
	}
	wantInts(t, "TrainPos", d.TrainPos, []int{5, 2}, []int64{1, 0, 2, 0, 2, 1, 3, 2, 4, 3})
	wantInts(t, "ValPos", d.ValPos, []int{1, 2}, []int64{5, 4})
	wantInts(t, "ValNegDst", d.ValNegDst, []int{1, 3}, []int64{0, 1, 2})
	wantInts(t, "TestPos", d.TestPos, []int{2, 2}, []int64{5, 2, 4, 1})
	wantInts(t, "TestNegDst", d.TestNegDst, []int{2, 3}, []int64{0, 3, 4, 0, 2, 5})
	if d.ValNeg != nil || d.TestNeg != nil || d.TrainNeg != nil {
		t.Error("citation2 has no shared negative pairs")
	}
	if s := d.String(); s != "LinkDataset(ogbl-citation2: 6 nodes, train=5, val=1/1x3, test=2/2x3 pos/neg pairs)" {
		t.Errorf("String %q", s)
	}
}

func TestOGBLinkPropOptions(t *testing.T) {
	for dir, want := range map[string]OGBOptions{
		"x/ogbl_collab":    {Name: "ogbl-collab", Split: "time", AddInverseEdge: true},
		"x/ppassoc":        {Name: "ogbl-ppa", Split: "throughput", AddInverseEdge: true},
		"citation-v2":      {Name: "ogbl-citation2", Split: "time"},
		"x/ddi/":           {Name: "ogbl-ddi", Split: "target", AddInverseEdge: true},
		"x/my-link-thing/": {Name: "my-link-thing", AddInverseEdge: true},
	} {
		if got := DefaultOGBLinkOptions(dir); got != want {
			t.Errorf("DefaultOGBLinkOptions(%q) = %+v, want %+v", dir, got, want)
		}
	}
	// An unknown folder: the only split folder, inverse edges, no metric.
	dir := copyFixture(t, "ogbl_ddi")
	other := filepath.Join(filepath.Dir(dir), "mine")
	if err := os.Rename(dir, other); err != nil {
		t.Fatal(err)
	}
	d, err := LoadOGBLinkProp(other)
	if err != nil || d.Name != "mine" || d.EvalMetric != "" || d.ReverseEIDs == nil {
		t.Errorf("unknown folder: %v, %v", d, err)
	}
	// Without inverse edges the graph is the raw edges only.
	d, err = LoadOGBLinkPropWith(other, OGBOptions{Name: "ogbl-ddi"})
	if err != nil || d.Graph.NumEdges() != 3 || d.ReverseEIDs != nil || d.EvalMetric != "hits@20" {
		t.Errorf("no inverse: %v, %v", d, err)
	}
	if _, err := LoadOGBLinkPropWith(other, OGBOptions{Split: "nope"}); !errors.Is(err, ErrMissing) {
		t.Errorf("missing named split: %v", err)
	}
}

// TestOGBLinkPropErrors: a missing split file, damaged .pt files (cut,
// one byte changed, not a torch file) and bad contents are errors naming
// the file.
func TestOGBLinkPropErrors(t *testing.T) {
	for _, name := range []string{"ogbl_collab", "ogbl_ddi", "ogbl_citation2"} {
		split := map[string]string{"ogbl_collab": "time", "ogbl_ddi": "target", "ogbl_citation2": "time"}[name]
		for _, part := range []string{"train", "valid", "test"} {
			dir := copyFixture(t, name)
			p := filepath.Join(dir, "split", split, part+".pt")
			full, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			damage := map[string][]byte{
				"half":      full[:len(full)/2],
				"last byte": full[:len(full)-1],
				"empty":     {},
				"text":      []byte("0,1\n1,2\n"),
				"trailing":  append(slices.Clone(full), 0),
			}
			if zr, err := zip.NewReader(bytes.NewReader(full), int64(len(full))); err == nil {
				// One byte changed in each entry's data (the pickle, every
				// storage): its CRC in the central directory catches it.
				// (Bytes of the padding between entries are in no entry
				// and change nothing that is read.)
				for _, f := range zr.File {
					off, err := f.DataOffset()
					if err != nil || f.UncompressedSize64 == 0 {
						t.Fatalf("%s: entry %s: %v", p, f.Name, err)
					}
					b := slices.Clone(full)
					b[off+int64(f.UncompressedSize64)/2] ^= 1
					damage["byte changed in "+f.Name] = b
				}
			}
			// A legacy file has no checksum: a changed byte is caught only
			// where it breaks the structure (not tested).
			for how, b := range damage {
				if how == "trailing" && bytes.HasPrefix(full, []byte("PK")) {
					continue // zip readers ignore bytes after the central directory
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				_, err := LoadOGBLinkProp(dir)
				if err == nil || !strings.Contains(err.Error(), p) || !errors.Is(err, ErrFormat) {
					t.Errorf("%s %s.pt %s: want an ErrFormat error naming %s, got %v", name, part, how, p, err)
				}
			}
			os.Remove(p)
			if _, err := LoadOGBLinkProp(dir); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s without %s.pt: want ErrMissing naming it, got %v", name, part, err)
			}
		}
	}
	// Every gzipped CSV of every fixture, cut anywhere, is an error naming
	// it (the gzip CRC and length).
	for _, name := range []string{"ogbl_collab", "ogbl_ddi", "ogbl_citation2"} {
		dir := copyFixture(t, name)
		raws, _ := filepath.Glob(filepath.Join(dir, "raw", "*.csv.gz"))
		if len(raws) < 3 {
			t.Fatalf("%s: raw files %v", name, raws)
		}
		for _, p := range raws {
			full, _ := os.ReadFile(p)
			for _, at := range []int{len(full) / 2, len(full) - 1} {
				os.WriteFile(p, full[:at], 0o644)
				if _, err := LoadOGBLinkProp(dir); err == nil || !strings.Contains(err.Error(), p) {
					t.Errorf("%s cut at %d of %d: want an error naming it, got %v", p, at, len(full), err)
				}
			}
			os.WriteFile(p, full, 0o644)
		}
		if _, err := LoadOGBLinkProp(dir); err != nil {
			t.Fatalf("%s restored: %v", name, err)
		}
	}
	// Contents: ids out of range, wrong shapes, an edge list of the wrong
	// length, a missing graph file, a heterogeneous dataset.
	for _, c := range []struct {
		name, file, content string
		kind                error
		inMsg               string
	}{
		{"node range", "raw/edge.csv.gz", "0,1\n1,2\n2,3\n3,4\n0,7\n", ErrFormat, "edge.csv.gz:5: edge 0,7 names a node outside 0..5"},
		{"edge count", "raw/num-edge-list.csv.gz", "4\n", ErrFormat, "more than the 4 rows"},
		{"weight rows", "raw/edge_weight.csv.gz", "1\n2\n", ErrFormat, "2 rows, want 5"},
		{"no edges", "raw/edge.csv.gz", "", ErrMissing, "edge.csv.gz"},
		{"hetero", "raw/triplet-type-list.csv.gz", "0,0,0\n", ErrArgument, "heterogeneous or binary"},
	} {
		dir := copyFixture(t, "ogbl_collab")
		p := filepath.Join(dir, c.file)
		if c.content == "" {
			os.Remove(p)
		} else {
			writeFile(t, p, c.content, true)
		}
		_, err := LoadOGBLinkProp(dir)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.inMsg) {
			t.Errorf("%s: %v; want %v containing %q", c.name, err, c.kind, c.inMsg)
		}
	}
}

// TestOGBLinkPropSplitContents replaces ogbl_ddi's valid.pt by the
// split files of testdata/ogbl/bad, each wrong in one way.
func TestOGBLinkPropSplitContents(t *testing.T) {
	for _, c := range []struct {
		file  string
		kind  error
		inMsg string
	}{
		{"no_positives", ErrFormat, `want the key "edge"`},
		{"edge_shape", ErrFormat, `"edge" has shape [2 1], want (M, 2)`},
		{"edge_range", ErrFormat, `"edge" entry 1 is node 9, outside [0, 5)`},
		{"negative_id", ErrFormat, `is node -1`},
		{"float_ids", ErrFormat, "integer node ids"},
		{"extra_rows", ErrFormat, `"weight" has shape [2]; want one row per positive pair (1)`},
		{"source_target", ErrFormat, "2 source_node but 1 target_node"},
		{"neg_rows", ErrFormat, "2 rows for 1 positive pairs"},
		{"kg", ErrArgument, "knowledge-graph split"},
		{"not_a_dict", ErrFormat, "not a dict of arrays"},
	} {
		dir := copyFixture(t, "ogbl_ddi")
		p := filepath.Join(dir, "split", "target", "valid.pt")
		b, err := os.ReadFile(filepath.Join(ogblFixtures, "bad", c.file+".pt"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, b, 0o644)
		_, err = LoadOGBLinkProp(dir)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.inMsg) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v; want %v naming %s and containing %q", c.file, err, c.kind, p, c.inMsg)
		}
	}
	// int32 ids and float64 extra arrays are converted.
	dir := copyFixture(t, "ogbl_ddi")
	b, _ := os.ReadFile(filepath.Join(ogblFixtures, "bad", "int32_float64.pt"))
	os.WriteFile(filepath.Join(dir, "split", "target", "valid.pt"), b, 0o644)
	d, err := LoadOGBLinkProp(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantInts(t, "int32 ValPos", d.ValPos, []int{1, 2}, []int64{0, 1})
	if w := d.PosData["valid"]["weight"]; w == nil || w.DType() != tensor.Float32 || !slices.Equal(w.Float32s(), []float32{0.5}) {
		t.Errorf("float64 weight %v", w)
	}
}
