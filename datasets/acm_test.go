package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadACM(t *testing.T) {
	d, err := LoadACM(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(d)
	g := d.Graph
	for nt, n := range map[string]int{ACMPaper: 4019, ACMAuthor: 7167, ACMSubject: 60} {
		if got := g.NumNodesOf(nt); got != n {
			t.Errorf("%s: %d nodes, want %d", nt, got, n)
		}
	}
	for et, n := range map[string]int{ACMPaperAuthor: 13407, ACMAuthorPaper: 13407, ACMPaperSubject: 4019, ACMSubjectPaper: 4019} {
		if got := g.NumEdgesOf(et); got != n {
			t.Errorf("%s: %d edges, want %d", et, got, n)
		}
	}
	if len(g.CanonicalETypes()) != 4 {
		t.Errorf("%d canonical etypes, want 4", len(g.CanonicalETypes()))
	}
	pf, af := g.NDataOf(ACMPaper, "feat"), g.NDataOf(ACMAuthor, "feat")
	if s := pf.Shape(); s[0] != 4019 || s[1] != 1902 {
		t.Errorf("paper feat shape %v", s)
	}
	if s := af.Shape(); s[0] != 7167 || s[1] != 1902 {
		t.Errorf("author feat shape %v", s)
	}
	nnz, ones := 0, 0
	for _, v := range pf.Float32s() {
		if v != 0 {
			nnz++
		}
		if v == 1 {
			ones++
		}
	}
	nnzA := 0
	for _, v := range af.Float32s() {
		if v != 0 {
			nnzA++
		}
	}
	t.Logf("paper features: %d nonzeros (%d ones); author features: %d nonzeros", nnz, ones, nnzA)
	if nnz != 340377 {
		t.Errorf("paper features: %d nonzeros, want 340,377", nnz)
	}
	counts := make([]int, 3)
	for _, l := range d.Labels.Int64s() {
		counts[l]++
	}
	if counts[0] != 1993 || counts[1] != 965 || counts[2] != 1061 {
		t.Errorf("class counts %v, want [1993 965 1061]", counts)
	}
	if d.TrainIdx.Size(0) != 60 || d.ValIdx.Size(0) != 1000 || d.TestIdx.Size(0) != 1000 {
		t.Errorf("split sizes %d/%d/%d, want 60/1000/1000", d.TrainIdx.Size(0), d.ValIdx.Size(0), d.TestIdx.Size(0))
	}
	per := make([]int, 3)
	labels := d.Labels.Int64s()
	for _, i := range d.TrainIdx.Int64s() {
		per[labels[i]]++
	}
	if per[0] != 20 || per[1] != 20 || per[2] != 20 {
		t.Errorf("train labels per class %v, want 20 each", per)
	}
	seen := map[int64]string{}
	for name, idx := range map[string][]int64{"train": d.TrainIdx.Int64s(), "val": d.ValIdx.Int64s(), "test": d.TestIdx.Int64s()} {
		for _, i := range idx {
			if s, ok := seen[i]; ok {
				t.Fatalf("paper %d is in %s and %s", i, s, name)
			}
			seen[i] = name
		}
	}
	d60, err := LoadACMSplit(sharedData(t), 60)
	if err != nil {
		t.Fatal(err)
	}
	if d60.TrainIdx.Size(0) != 180 {
		t.Errorf("60-per-class train size %d", d60.TrainIdx.Size(0))
	}
	if _, err := LoadACMSplit(sharedData(t), 30); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "labelsPerClass") {
		t.Errorf("labelsPerClass 30: %v", err)
	}
}

// copyACM copies the ACM files into a temporary folder, cutting file cut
// to its first keep bytes (keep < 0: unchanged).
func copyACM(t *testing.T, cut string, keep int) string {
	t.Helper()
	src := filepath.Join(sharedData(t), ACMFolder)
	if _, err := os.Stat(src); err != nil {
		t.Skipf("ACM data absent: %v", err)
	}
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == cut && keep >= 0 {
			b = b[:keep]
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestLoadACMTruncated(t *testing.T) {
	for _, c := range []struct {
		file string
		keep int
	}{
		{"pa.txt", 1000},   // whole lines lost
		{"pa.txt", 128121}, // last newline lost
		{"ps.txt", 30000},  // cut mid-line
		{"p_feat.npz", 400000},
		{"a_feat.npz", 100},
		{"labels.npy", 20000},
		{"test_20.npy", 4000},
		{"train_20.npy", 0},
	} {
		dir := copyACM(t, c.file, c.keep)
		_, err := LoadACM(dir)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.file) {
			t.Errorf("%s cut to %d bytes: got %v, want ErrFormat naming the file", c.file, c.keep, err)
		}
	}
	dir := copyACM(t, "", -1)
	if err := os.Remove(filepath.Join(dir, "ps.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadACM(dir); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "ps.txt") {
		t.Errorf("missing ps.txt: %v", err)
	}
}
