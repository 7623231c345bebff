package datasets

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGNNBenchmarkNPZ(t *testing.T) {
	dir := filepath.Join(sharedData(t), "gnnbench-npz")
	for _, c := range []struct {
		name                            string
		nodes, rawEntries, edges, loops int
		feats, nnz, classes             int
		counts                          []int
		classNames                      []string
	}{
		{"cora", 2708, 5429, 10556, 0, 1433, 49216, 7, []int{298, 418, 818, 426, 217, 180, 351},
			[]string{"Case_Based", "Genetic_Algorithms", "Neural_Networks", "Probabilistic_Methods", "Reinforcement_Learning", "Rule_Learning", "Theory"}},
		{"citeseer", 3312, 4715, 9072, 124, 3703, 105165, 6, []int{249, 596, 701, 508, 668, 590},
			[]string{"AI", "Agents", "DB", "HCI", "IR", "ML"}},
	} {
		path := filepath.Join(dir, c.name+".npz")
		arrs, err := ReadNPZ(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(arrs["adj_indices"].Int64) != c.rawEntries || !slices.Equal(arrs["class_names"].Strings, c.classNames) {
			t.Errorf("%s: %d adjacency entries, classes %v", c.name, len(arrs["adj_indices"].Int64), arrs["class_names"].Strings)
		}
		loops := 0
		ip, ix := arrs["adj_indptr"].Int64, arrs["adj_indices"].Int64
		for i := 0; i+1 < len(ip); i++ {
			for p := ip[i]; p < ip[i+1]; p++ {
				if ix[p] == int64(i) {
					loops++
				}
			}
		}
		if loops != c.loops {
			t.Errorf("%s: %d self loops stored, want %d", c.name, loops, c.loops)
		}

		d, err := GNNBenchmarkNPZ(path)
		if err != nil {
			t.Fatal(err)
		}
		g := d.Graph
		if d.Name != c.name || g.NumNodes() != c.nodes || g.NumEdges() != c.edges || d.NumFeatures != c.feats || d.NumClasses != c.classes {
			t.Errorf("%s: %v", c.name, d)
		}
		src, dst := g.Edges()
		s, dd := src.Int64s(), dst.Int64s()
		pairs := map[[2]int64]bool{}
		for i := range s {
			if s[i] == dd[i] {
				t.Fatalf("%s: self loop kept", c.name)
			}
			if i > 0 && (s[i] < s[i-1] || s[i] == s[i-1] && dd[i] <= dd[i-1]) {
				t.Fatalf("%s: edges not sorted and distinct at %d", c.name, i)
			}
			pairs[[2]int64{s[i], dd[i]}] = true
		}
		for p := range pairs {
			if !pairs[[2]int64{p[1], p[0]}] {
				t.Fatalf("%s: %v has no reverse", c.name, p)
			}
		}
		nnz := 0
		for _, v := range g.NData("feat").Float32s() {
			if v != 0 {
				if v != 1 {
					t.Fatalf("%s: feature value %g", c.name, v)
				}
				nnz++
			}
		}
		counts := make([]int, c.classes)
		for _, y := range g.NData("label").Int64s() {
			counts[y]++
		}
		if nnz != c.nnz || !slices.Equal(counts, c.counts) {
			t.Errorf("%s: %d non-zeros, class counts %v", c.name, nnz, counts)
		}
		if d.TrainIdx.Numel() != 20*c.classes || d.ValIdx.Numel() != 500 || d.TestIdx.Numel() != 1000 {
			t.Errorf("%s: split %d/%d/%d", c.name, d.TrainIdx.Numel(), d.ValIdx.Numel(), d.TestIdx.Numel())
		}
	}
}

// TestGNNBenchmarkCoraMatchesLINQS checks README section 6's claim that the
// npz labels and adjacency agree with the original LINQS files: node_names
// are paper ids, and class_names[label] is the class in cora.content;
// A[cited, citing] = 1 holds exactly the rows of cora.cites.
func TestGNNBenchmarkCoraMatchesLINQS(t *testing.T) {
	shared := sharedData(t)
	arrs, err := ReadNPZ(filepath.Join(shared, "gnnbench-npz", "cora.npz"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(shared, "cora-linqs", "cora.content"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	class := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		class[fs[0]] = fs[len(fs)-1]
	}
	names, labels, cn := arrs["node_names"].Strings, arrs["labels"].Int64, arrs["class_names"].Strings
	for i, id := range names {
		if class[id] != cn[labels[i]] {
			t.Fatalf("node %d (paper %s): npz class %s, cora.content %s", i, id, cn[labels[i]], class[id])
		}
	}
	cites, err := os.ReadFile(filepath.Join(shared, "cora-linqs", "cora.cites"))
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int64{}
	for i, id := range names {
		pos[id] = int64(i)
	}
	want := map[[2]int64]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(cites)), "\n") {
		fs := strings.Fields(l)
		want[[2]int64{pos[fs[0]], pos[fs[1]]}] = true
	}
	ip, ix := arrs["adj_indptr"].Int64, arrs["adj_indices"].Int64
	got := 0
	for i := 0; i+1 < len(ip); i++ {
		for p := ip[i]; p < ip[i+1]; p++ {
			if !want[[2]int64{int64(i), ix[p]}] {
				t.Fatalf("A[%d, %d] is not a cora.cites row", i, ix[p])
			}
			got++
		}
	}
	if got != len(want) {
		t.Errorf("%d adjacency entries, %d citations", got, len(want))
	}
}

func TestGNNBenchmarkNPZErrors(t *testing.T) {
	dir := t.TempDir()
	good := map[string][]byte{
		"adj_data":     npyBytes(1, "<f4", "(2,)", le(float32(1), float32(1))),
		"adj_indices":  npyBytes(1, "<i4", "(2,)", le(int32(1), int32(2))),
		"adj_indptr":   npyBytes(1, "<i4", "(4,)", le(int32(0), int32(1), int32(2), int32(2))),
		"adj_shape":    npyBytes(1, "<i8", "(2,)", le(int64(3), int64(3))),
		"attr_data":    npyBytes(1, "<f4", "(1,)", le(float32(2))),
		"attr_indices": npyBytes(1, "<i4", "(1,)", le(int32(1))),
		"attr_indptr":  npyBytes(1, "<i4", "(4,)", le(int32(0), int32(0), int32(1), int32(1))),
		"attr_shape":   npyBytes(1, "<i8", "(2,)", le(int64(3), int64(2))),
		"labels":       npyBytes(1, "<i8", "(3,)", le(int64(0), int64(1), int64(1))),
	}
	p := filepath.Join(dir, "tiny.npz")
	writeNPZ(t, p, good, false)
	// Too few nodes for the default split: an error naming the file.
	if _, err := GNNBenchmarkNPZ(p); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "tiny.npz") {
		t.Errorf("tiny dataset: %v", err)
	}
	for _, c := range []struct {
		key  string
		data []byte
		want string
	}{
		{"adj_indices", npyBytes(1, "<i4", "(2,)", le(int32(1), int32(7))), "adj_indices[1] = 7 is outside [0, 3)"},
		{"adj_indptr", npyBytes(1, "<i4", "(4,)", le(int32(0), int32(2), int32(1), int32(2))), "adj_indptr decreases at row 1"},
		{"attr_shape", npyBytes(1, "<i8", "(2,)", le(int64(4), int64(2))), "attr: indptr"},
		{"labels", npyBytes(1, "<f4", "(3,)", le(float32(0), float32(1), float32(1))), `array "labels" has dtype <f4`},
		{"adj_shape", npyBytes(1, "<i8", "(2,)", le(int64(3), int64(4))), "not square"},
	} {
		m := map[string][]byte{}
		for k, v := range good {
			m[k] = v
		}
		m[c.key] = c.data
		writeNPZ(t, p, m, false)
		if d, err := GNNBenchmarkNPZ(p); d != nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want ErrFormat containing %q", c.key, err, c.want)
		}
	}
	m := map[string][]byte{}
	for k, v := range good {
		if k != "labels" {
			m[k] = v
		}
	}
	writeNPZ(t, p, m, false)
	if _, err := GNNBenchmarkNPZ(p); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), `no array "labels"`) {
		t.Errorf("missing labels: %v", err)
	}
}
