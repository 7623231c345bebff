package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

func TestLoadLastFMShared(t *testing.T) {
	d, err := LoadLastFM(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(d)
	if d.NumUsers != 1892 || d.NumItems != 17632 {
		t.Fatalf("users %d artists %d, want 1892 and 17632", d.NumUsers, d.NumItems)
	}
	g := d.Graph
	if got := g.NumEdgesOf("listens"); got != 92834 {
		t.Fatalf("listens edges %d, want 92834", got)
	}
	if got := g.NumEdgesOf("rev-listens"); got != 92834 {
		t.Fatalf("rev-listens edges %d", got)
	}
	if got := g.NumEdgesOf("friends"); got != 25434 {
		t.Fatalf("friends edges %d, want 25434", got)
	}
	// The first row of user_artists.dat: user 2 listened to artist 51 13,883 times.
	src, dst := g.EdgesOf("listens")
	w := g.EDataOf("listens", "weight").Float32s()
	if u, a := d.UserIDs[src.Int64s()[0]], d.ItemIDs[dst.Int64s()[0]]; u != 2 || a != 51 || w[0] != 13883 {
		t.Fatalf("first listen: user %d artist %d weight %g, want 2 51 13883", u, a, w[0])
	}
	if d.ItemNames[0] != "MALICE MIZER" {
		t.Fatalf("artist 1 is %q", d.ItemNames[0])
	}
	tr, va, te := d.TrainPos.Size(0), d.ValPos.Size(0), d.TestPos.Size(0)
	if tr+va+te != 92834 || va < 9000 || te < 9000 {
		t.Fatalf("split %d/%d/%d", tr, va, te)
	}
	if got := d.TrainGraph.NumEdgesOf("listens"); got != tr {
		t.Fatalf("train graph holds %d listens, want %d", got, tr)
	}
	// Splits are disjoint, every held-out item is in training, and
	// the train graph's weights follow its edges.
	trainItems := map[int64]bool{}
	pairs := map[[2]int64]int{}
	for k, p := range []*tensor.Tensor{d.TrainPos, d.ValPos, d.TestPos} {
		v := p.Int64s()
		for i := 0; i < len(v); i += 2 {
			key := [2]int64{v[i], v[i+1]}
			if _, dup := pairs[key]; dup {
				t.Fatalf("pair %v in two splits", key)
			}
			pairs[key] = k
			if k == 0 {
				trainItems[v[i+1]] = true
			} else if !trainItems[v[i+1]] {
				t.Fatalf("held-out item %d has no training interaction", v[i+1])
			}
		}
	}
	// Deterministic.
	d2, err := LoadLastFM(sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	a, b := d.TestPos.Int64s(), d2.TestPos.Int64s()
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("two loads split differently")
		}
	}
	neg, err := d.NegativePairs(d.TestPos, 2, 7, "all")
	if err != nil {
		t.Fatal(err)
	}
	if neg.Size(0) != 2*te {
		t.Fatalf("negatives %v", neg.Shape())
	}
	nv := neg.Int64s()
	for i := 0; i < len(nv); i += 2 {
		if _, ok := pairs[[2]int64{nv[i], nv[i+1]}]; ok {
			t.Fatalf("negative %d %d is an interaction", nv[i], nv[i+1])
		}
	}
	ug, err := d.UserItemGraph()
	if err != nil {
		t.Fatal(err)
	}
	if ug.NumNodes() != 1892+17632 || ug.NumEdges() != 2*tr {
		t.Fatalf("user-item graph %v", ug)
	}
}

// writeLastFM writes a small Last.fm folder and shrinks the published
// counts to it for the test.
func writeLastFM(t *testing.T, artists, ua, uf string) string {
	t.Helper()
	old := lastFMCounts
	t.Cleanup(func() { lastFMCounts = old })
	lastFMCounts.artists, lastFMCounts.listens, lastFMCounts.friends = 3, 4, 2
	dir := t.TempDir()
	for name, s := range map[string]string{"artists.dat": artists, "user_artists.dat": ua, "user_friends.dat": uf} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	fmArtists = "id\tname\turl\tpictureURL\n1\tA\tu\tp\n5\tBj\xc3\xb6rk\tu\tp\n7\tCaf\xe9\tu\tp\n"
	fmUA      = "userID\tartistID\tweight\n2\t1\t10\n2\t5\t3\n9\t5\t1\n9\t7\t4\n"
	fmUF      = "userID\tfriendID\n2\t9\n9\t2\n"
)

func TestLoadLastFMFixture(t *testing.T) {
	d, err := LoadLastFM(writeLastFM(t, fmArtists, fmUA, fmUF))
	if err != nil {
		t.Fatal(err)
	}
	if d.NumUsers != 2 || d.NumItems != 3 || d.Graph.NumEdgesOf("friends") != 2 {
		t.Fatalf("%v", d)
	}
	if d.ItemNames[1] != "Björk" || d.ItemNames[2] != "Café" {
		t.Fatalf("names %q (UTF-8 kept, Latin-1 decoded)", d.ItemNames)
	}
	if w := d.Graph.EDataOf("rev-listens", "weight").Float32s(); w[3] != 4 {
		t.Fatalf("weights %v", w)
	}
}

func TestLoadLastFMErrors(t *testing.T) {
	cases := []struct {
		name, artists, ua, uf, want string
		missing                     bool
	}{
		{"truncated last line", fmArtists, fmUA[:len(fmUA)-1], fmUF, "user_artists.dat:5: the last line", false},
		{"truncated at a line", fmArtists, fmUA[:strings.LastIndex(fmUA[:len(fmUA)-1], "\n")+1], fmUF, "user_artists.dat:4: 3 rows, the published file has 4", false},
		{"bad header", fmArtists, "user\tartist\tweight\n" + fmUA[strings.Index(fmUA, "\n")+1:], fmUF, "user_artists.dat:1: the header", false},
		{"column count", fmArtists, strings.Replace(fmUA, "2\t5\t3", "2\t5", 1), fmUF, "user_artists.dat:3: 2 fields", false},
		{"bad weight", fmArtists, strings.Replace(fmUA, "2\t5\t3", "2\t5\tx", 1), fmUF, "user_artists.dat:3: userID, artistID and weight", false},
		{"undeclared artist", fmArtists, strings.Replace(fmUA, "9\t7\t4", "9\t8\t4", 1), fmUF, "user_artists.dat:5: artist id 8 is not declared", false},
		{"duplicate pair", fmArtists, strings.Replace(fmUA, "9\t7\t4", "9\t5\t4", 1), fmUF, "user_artists.dat:5: user 9 and artist 5 appear twice", false},
		{"unknown friend", fmArtists, fmUA, strings.Replace(fmUF, "9\t2", "9\t3", 1), "user_friends.dat:3: user id 3 has no listening record", false},
		{"duplicate artist", strings.Replace(fmArtists, "7\tCaf", "5\tCaf", 1), fmUA, fmUF, "artists.dat:4: artist id 5 is declared twice", false},
		{"artist columns", strings.Replace(fmArtists, "1\tA\tu\tp", "1\tA\tu", 1), fmUA, fmUF, "artists.dat:2: 3 fields", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := LoadLastFM(writeLastFM(t, c.artists, c.ua, c.uf))
			if d != nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an ErrFormat containing %q", err, c.want)
			}
		})
	}
	dir := writeLastFM(t, fmArtists, fmUA, fmUF)
	os.Remove(filepath.Join(dir, "user_friends.dat"))
	if _, err := LoadLastFM(dir); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "user_friends.dat") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestRecDatasetArgumentErrors(t *testing.T) {
	d, err := LoadLastFM(writeLastFM(t, fmArtists, fmUA, fmUF))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    func() error
		want string
	}{
		{"pairs nil", func() error { _, err := d.PairGraph(nil); return err }, "pairs is nil"},
		{"pairs shape", func() error { _, err := d.PairGraph(tensor.FromInt64([]int64{0, 1, 2})); return err }, "(M, 2) int64"},
		{"pairs range", func() error { _, err := d.PairGraph(tensor.FromInt64([]int64{0, 3}, 1, 2)); return err }, "row 0 (0, 3) is outside"},
		{"k", func() error { _, err := d.NegativePairs(d.TrainPos, 0, 0, "all"); return err }, "k = 0"},
		{"k > items", func() error { _, err := d.NegativePairs(d.TrainPos, d.NumItems+1, 0, "all"); return err }, "more than the"},
		{"exclude", func() error { _, err := d.NegativePairs(d.TrainPos, 1, 0, "test"); return err }, `exclude = "test"`},
	} {
		if err := c.f(); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrArgument containing %q", c.name, err, c.want)
		}
	}
}

// BenchmarkLoadLastFM parses the three files and builds both graphs and
// the split.
func BenchmarkLoadLastFM(b *testing.B) {
	dir := sharedData(b)
	for i := 0; i < b.N; i++ {
		if _, err := LoadLastFM(dir); err != nil {
			b.Fatal(err)
		}
	}
}
