package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// movieLensItem is one u.item line: id, a title, dates, URL and 19 flags.
func movieLensItem(id int, title string, genre int) string {
	flags := make([]string, 19)
	for i := range flags {
		flags[i] = "0"
	}
	flags[genre] = "1"
	return fmt.Sprintf("%d|%s|01-Jan-1995||http://us.imdb.com/M/title-exact?x|%s\n", id, title, strings.Join(flags, "|"))
}

// The items are written out of id order; 0xE9 is Latin-1 for é.
var (
	mlItems = movieLensItem(3, "Les Mis\xe9rables (1995)", 8) + movieLensItem(1, "Toy Story (1995)", 3) + movieLensItem(2, "GoldenEye (1995)", 1)
	mlData  = "196\t1\t3\t881250949\n186\t3\t5\t891717742\n196\t2\t1\t878887116\n22\t3\t4\t880606923\n186\t1\t2\t886397596\n"
	mlInfo  = "3 users\n3 items\n5 ratings\n"
)

func writeMovieLens(t *testing.T, items, data, info string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), MovieLens100KFolder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"u.item": items, "u.data": data}
	if info != "" {
		files["u.info"] = info
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Dir(dir)
}

func TestLoadMovieLens100K(t *testing.T) {
	d, err := LoadMovieLens100K(writeMovieLens(t, mlItems, mlData, mlInfo))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(d)
	if d.NumUsers != 3 || d.NumItems != 3 || d.Graph.NumEdgesOf("rates") != 5 {
		t.Fatalf("%v", d)
	}
	if d.ItemNames[2] != "Les Misérables (1995)" || d.ItemNames[0] != "Toy Story (1995)" {
		t.Fatalf("titles %q: want ascending ids, Latin-1 decoded", d.ItemNames)
	}
	if fmt.Sprint(d.UserIDs) != "[22 186 196]" || fmt.Sprint(d.ItemIDs) != "[1 2 3]" {
		t.Fatalf("ids %v %v", d.UserIDs, d.ItemIDs)
	}
	src, dst := d.Graph.EdgesOf("rates")
	r := d.Graph.EDataOf("rates", "rating").Float32s()
	ts := d.Graph.EDataOf("rev-rates", "timestamp").Int64s()
	// Line 2: user 186 rated movie 3 five stars at 891717742.
	if src.Int64s()[1] != 1 || dst.Int64s()[1] != 2 || r[1] != 5 || ts[1] != 891717742 {
		t.Fatalf("edge 1: %d %d %g %d", src.Int64s()[1], dst.Int64s()[1], r[1], ts[1])
	}
	g := d.Graph.NDataOf("movie", "genre")
	if g.Size(1) != 19 || g.Float32s()[2*19+8] != 1 || g.Float32s()[0*19+3] != 1 {
		t.Fatalf("genre flags %v", g.Shape())
	}
	// Without u.info the counts are not checked.
	if _, err := LoadMovieLens100K(writeMovieLens(t, mlItems, mlData, "")); err != nil {
		t.Fatal(err)
	}
}

func TestLoadMovieLens100KErrors(t *testing.T) {
	cut := mlData[:strings.LastIndex(mlData[:len(mlData)-1], "\n")+1]
	cases := []struct{ name, items, data, info, want string }{
		{"truncated last line", mlItems, mlData[:len(mlData)-3], "", "u.data:5: the last line"},
		{"truncated at a line", mlItems, cut, mlInfo, "u.data:4: 4 rows, the published file has 5"},
		{"item truncated", mlItems[:len(mlItems)-4], mlData, "", "u.item:3: the last line"},
		{"field count", mlItems, strings.Replace(mlData, "186\t3\t5\t891717742", "186\t3\t5", 1), "", "u.data:2: 3 fields"},
		{"bad rating", mlItems, strings.Replace(mlData, "186\t3\t5\t", "186\t3\t6\t", 1), "", "u.data:2: rating 6 is outside 1..5"},
		{"bad id", mlItems, strings.Replace(mlData, "186\t3\t5\t", "18x\t3\t5\t", 1), "", `u.data:2: field 1 (user id) is "18x"`},
		{"bad timestamp", mlItems, strings.Replace(mlData, "891717742", "-1", 1), "", "u.data:2: field 4 (timestamp)"},
		{"undeclared item", mlItems, strings.Replace(mlData, "22\t3\t", "22\t4\t", 1), "", "u.data:4: item id 4 is not declared"},
		{"duplicate rating", mlItems, strings.Replace(mlData, "186\t1\t2", "186\t3\t2", 1), "", "u.data:5: user 186 rated movie 3 twice"},
		{"item fields", strings.Replace(mlItems, "|01-Jan-1995|", "|", 1), mlData, "", "u.item:1: 23 fields"},
		{"genre flag", strings.Replace(mlItems, "|0\n", "|2\n", 1), mlData, "", "u.item:1: genre flag 18"},
		{"duplicate item", strings.Replace(mlItems, "2|GoldenEye", "1|GoldenEye", 1), mlData, "", "u.item:3: movie id 1 is declared twice"},
		{"info", mlItems, mlData, "3 users\n4 items\n", "u.item:3: 3 rows, the published file has 4"},
		{"info line", mlItems, mlData, "3 users\nmany items\n", "u.info:2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := LoadMovieLens100K(writeMovieLens(t, c.items, c.data, c.info))
			if d != nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an ErrFormat containing %q", err, c.want)
			}
		})
	}
	if _, err := LoadMovieLens100K(t.TempDir()); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "u.item") {
		t.Fatalf("missing files: %v", err)
	}
}
