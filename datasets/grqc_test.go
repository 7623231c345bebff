package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

func TestCaGrQc(t *testing.T) {
	root := sharedData(t)
	d, err := LoadCaGrQc(root)
	if err != nil {
		t.Fatal(err)
	}
	// README section 11: 5,242 nodes, 13,046 / 1,449 / 1,449 pairs.
	if d.NumNodes != 5242 || d.Graph.NumNodes() != 5242 || d.Graph.NumEdges() != 2*13046 {
		t.Fatalf("%v: graph %v", d, d.Graph)
	}
	if d.TrainPos.Size(0) != 13046 || d.TestPos.Size(0) != 1449 || d.TestNeg.Size(0) != 1449 || d.TrainEIDs.Numel() != 13046 {
		t.Fatalf("split sizes: %v", d)
	}
	if d.TrainNeg != nil || d.ValPos != nil || d.ValNeg != nil {
		t.Errorf("ca-GrQc has no validation split or training negatives")
	}
	// First lines of each file (head -1).
	tp, te, tn := d.TrainPos.Int64s(), d.TestPos.Int64s(), d.TestNeg.Int64s()
	if tp[0] != 4095 || tp[1] != 546 || te[0] != 2138 || te[1] != 1632 || tn[0] != 2138 || tn[1] != 3367 {
		t.Errorf("first pairs %v %v %v", tp[:2], te[:2], tn[:2])
	}
	// Last training line: 2796 504.
	if m := len(tp); tp[m-2] != 2796 || tp[m-1] != 504 {
		t.Errorf("last training pair %v", tp[len(tp)-2:])
	}
	src, dst := d.Graph.Edges()
	s, ds, rev := src.Int64s(), dst.Int64s(), d.ReverseEIDs.Int64s()
	loops := 0
	train := map[[2]int64]bool{}
	for e := range s {
		r := rev[e]
		if s[r] != ds[e] || ds[r] != s[e] || rev[r] != int64(e) {
			t.Fatalf("edge %d (%d->%d): reverse %d is %d->%d", e, s[e], ds[e], r, s[r], ds[r])
		}
		if s[e] == ds[e] {
			loops++
		}
		train[[2]int64{s[e], ds[e]}] = true
	}
	if loops != 20 { // 10 self loops in the file, twice
		t.Errorf("%d self-loop edges, want 20", loops)
	}
	// Train and test do not overlap (README); negatives are not edges.
	for i := 0; i < len(te); i += 2 {
		if train[[2]int64{te[i], te[i+1]}] {
			t.Fatalf("test pair %d-%d is a training edge", te[i], te[i+1])
		}
	}
	for i := 0; i < len(tn); i += 2 {
		if train[[2]int64{tn[i], tn[i+1]}] {
			t.Fatalf("negative pair %d-%d is a training edge", tn[i], tn[i+1])
		}
	}
	// The dataset folder itself works too.
	if d2, err := LoadCaGrQc(filepath.Join(root, CaGrQcFolder)); err != nil || d2.Graph.NumEdges() != 26092 {
		t.Errorf("loading from the folder: %v %v", d2, err)
	}
}

// TestCaGrQcBadFiles cuts and corrupts copies of the real files.
func TestCaGrQcBadFiles(t *testing.T) {
	src := filepath.Join(sharedData(t), CaGrQcFolder)
	files := map[string][]byte{}
	for _, f := range caGrQcFiles {
		b, err := os.ReadFile(filepath.Join(src, f.name))
		if err != nil {
			t.Fatal(err)
		}
		files[f.name] = b
	}
	setup := func(t *testing.T, name string, content []byte) string {
		dir := t.TempDir()
		for n, b := range files {
			if n == name {
				b = content
			}
			if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	train := files["CA-GrQc_train.txt"]
	lines := strings.SplitAfter(string(train), "\n")
	cases := []struct {
		name, file, content, want string
	}{
		// Cut in the middle of the second line, "3213\t2059".
		{"mid-line", "CA-GrQc_train.txt", string(train[:13]), "CA-GrQc_train.txt:2: the last line \"3213\" has no line ending"},
		// Cut at a line boundary: too few pairs.
		{"lines", "CA-GrQc_train.txt", strings.Join(lines[:100], ""), "CA-GrQc_train.txt:100: 100 node pairs, the split has 13046"},
		{"empty", "CA-GrQc_test.txt", "", "CA-GrQc_test.txt: 0 node pairs, the split has 1449"},
		{"fields", "CA-GrQc_test_neg.txt", "1\t2\t3\n", "CA-GrQc_test_neg.txt:1: want two node ids"},
		{"id", "CA-GrQc_test.txt", "1\t2\n3\tx\n", "CA-GrQc_test.txt:2: node ids must be non-negative integers"},
		{"range", "CA-GrQc_test.txt", "1\t5242\n", "CA-GrQc_test.txt:1: node id 5242 is outside [0, 5242)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := setup(t, c.file, []byte(c.content))
			d, err := LoadCaGrQc(dir)
			if d != nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, %v; want an ErrFormat containing %q", d, err, c.want)
			}
		})
	}
	dir := setup(t, "", nil)
	os.Remove(filepath.Join(dir, "CA-GrQc_test_neg.txt"))
	if _, err := LoadCaGrQc(dir); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "CA-GrQc_test_neg.txt") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLinkDatasetPairGraph(t *testing.T) {
	d := &LinkDataset{Name: "x", NumNodes: 4}
	g, err := d.PairGraph(tensor.FromInt64([]int64{0, 1, 3, 2, 1, 1}, 3, 2))
	if err != nil {
		t.Fatal(err)
	}
	s, dst := g.Edges()
	if g.NumNodes() != 4 || !slices.Equal(s.Int64s(), []int64{0, 3, 1}) || !slices.Equal(dst.Int64s(), []int64{1, 2, 1}) {
		t.Errorf("pair graph %v: %v %v", g, s, dst)
	}
	for _, c := range []struct {
		p    *tensor.Tensor
		want string
	}{
		{nil, "pairs is nil"},
		{tensor.FromInt64([]int64{0, 1, 2}, 1, 3), "pairs must be (M, 2) int64 node ids, got int64 [1 3]"},
		{tensor.FromInt64([]int64{0, 1, 2, 4}, 2, 2), "pairs row 1 (2, 4) holds a node id outside [0, 4)"},
	} {
		if _, err := d.PairGraph(c.p); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
