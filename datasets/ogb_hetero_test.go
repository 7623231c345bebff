package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// magFixture writes a small dataset in ogbn-mag's raw layout: 3 authors,
// 4 papers, 2 fields of study, 3 relations, paper features, labels and
// years, and the split folder "time".
func magFixture(t *testing.T, over map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ogbn_mag")
	w := "raw/relations/author___writes___paper/"
	c := "raw/relations/paper___cites___paper/"
	h := "raw/relations/paper___has_topic___field_of_study/"
	files := map[string]string{
		"raw/num-node-dict.csv.gz":               "author,field_of_study,paper\n3,2,4\n",
		"raw/triplet-type-list.csv.gz":           "author,writes,paper\npaper,cites,paper\npaper,has_topic,field_of_study\n",
		w + "edge.csv.gz":                        "0,0\n0,1\n1,2\n2,3\n2,0\n",
		w + "num-edge-list.csv.gz":               "5\n",
		c + "edge.csv.gz":                        "1,0\n2,0\n3,1\n",
		c + "num-edge-list.csv.gz":               "3\n",
		h + "edge.csv.gz":                        "0,0\n1,1\n2,1\n3,0\n",
		h + "num-edge-list.csv.gz":               "4\n",
		"raw/node-feat/paper/node-feat.csv.gz":   "0.5,1\n0,0\n-1,2\n3,4\n",
		"raw/node-label/paper/node-label.csv.gz": "1\n0\n2\n1\n",
		"raw/node_year/paper/node_year.csv.gz":   "2010\n2011\n2018\n2019\n",
		"split/time/paper/train.csv.gz":          "0\n1\n",
		"split/time/paper/valid.csv.gz":          "2\n",
		"split/time/paper/test.csv.gz":           "3\n",
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

func TestOGBNodePropHetero(t *testing.T) {
	d, err := LoadOGBNodePropHetero(magFixture(t, nil), "time")
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	if got := g.NTypes(); !slices.Equal(got, []string{"author", "field_of_study", "paper"}) {
		t.Errorf("ntypes %v", got)
	}
	for et, n := range map[string]int{"writes": 5, "cites": 3, "has_topic": 4} {
		if g.NumEdgesOf(et) != n {
			t.Errorf("%s: %d edges, want %d", et, g.NumEdgesOf(et), n)
		}
	}
	src, dst := g.EdgesOf("writes")
	if !slices.Equal(src.Int64s(), []int64{0, 0, 1, 2, 2}) || !slices.Equal(dst.Int64s(), []int64{0, 1, 2, 3, 0}) {
		t.Errorf("writes edges %v -> %v", src.Int64s(), dst.Int64s())
	}
	if f := g.NDataOf("paper", "feat"); !slices.Equal(f.Shape(), []int{4, 2}) || f.Float32s()[4] != -1 {
		t.Errorf("paper feat %v %v", f.Shape(), f.Float32s())
	}
	if y := g.NDataOf("paper", "year").Int64s(); !slices.Equal(y, []int64{2010, 2011, 2018, 2019}) {
		t.Errorf("year %v", y)
	}
	if d.PredictCategory != "paper" || d.NumClasses != 3 || !slices.Equal(d.Labels.Int64s(), []int64{1, 0, 2, 1}) {
		t.Errorf("category %q, %d classes, labels %v", d.PredictCategory, d.NumClasses, d.Labels.Int64s())
	}
	if !slices.Equal(d.TrainIdx.Int64s(), []int64{0, 1}) || !slices.Equal(d.ValIdx.Int64s(), []int64{2}) || !slices.Equal(d.TestIdx.Int64s(), []int64{3}) {
		t.Errorf("split %v %v %v", d.TrainIdx.Int64s(), d.ValIdx.Int64s(), d.TestIdx.Int64s())
	}
	// The only split folder is found without its name.
	if _, err := LoadOGBNodePropHetero(magFixture(t, nil), ""); err != nil {
		t.Error(err)
	}
	// The homogeneous loader points here.
	if _, err := OGBNodeProp(magFixture(t, nil)); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "LoadOGBNodePropHetero") {
		t.Errorf("OGBNodeProp on a heterograph: %v", err)
	}
}

func TestOGBNodePropHeteroErrors(t *testing.T) {
	c := "raw/relations/paper___cites___paper/"
	for name, tc := range map[string]struct {
		over map[string]string
		file string
		kind error
	}{
		"edge file cut":       {map[string]string{c + "edge.csv.gz": "1,0\n2,0\n"}, c + "edge.csv.gz", ErrFormat},
		"id out of range":     {map[string]string{c + "edge.csv.gz": "1,0\n2,0\n4,1\n"}, c + "edge.csv.gz", ErrFormat},
		"features cut":        {map[string]string{"raw/node-feat/paper/node-feat.csv.gz": "0.5,1\n0,0\n"}, "node-feat.csv.gz", ErrFormat},
		"unknown type":        {map[string]string{"raw/triplet-type-list.csv.gz": "author,writes,book\n"}, "triplet-type-list", ErrFormat},
		"count header only":   {map[string]string{"raw/num-node-dict.csv.gz": "author,field_of_study,paper\n"}, "num-node-dict", ErrFormat},
		"relation missing":    {map[string]string{c + "edge.csv.gz": ""}, c + "edge.csv.gz", ErrMissing},
		"split id too large":  {map[string]string{"split/time/paper/test.csv.gz": "9\n"}, "test.csv.gz", ErrFormat},
		"labels of two types": {map[string]string{"raw/node-label/author/node-label.csv.gz": "0\n0\n0\n"}, "node-label", ErrFormat},
	} {
		_, err := LoadOGBNodePropHetero(magFixture(t, tc.over), "time")
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.file) {
			t.Errorf("%s: got %v, want %v naming %s", name, err, tc.kind, tc.file)
		}
	}
	// A gzip stream cut in the middle.
	dir := magFixture(t, nil)
	p := filepath.Join(dir, c+"edge.csv.gz")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b[:len(b)-6], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOGBNodePropHetero(dir, "time"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "edge.csv.gz") {
		t.Errorf("cut gzip: %v", err)
	}
}
