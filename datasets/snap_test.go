package datasets

import (
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestSNAPEmailEnron(t *testing.T) {
	path := filepath.Join(sharedData(t), "snap-email-enron", "email-Enron.txt.gz")
	el, err := ReadSNAP(path)
	if err != nil {
		t.Fatal(err)
	}
	if el.NumNodes != 36692 || len(el.Src) != 367662 || el.HeaderNodes != 36692 || el.HeaderEdges != 367662 {
		t.Fatalf("email-Enron: %d nodes, %d edges (header %d, %d)", el.NumNodes, len(el.Src), el.HeaderNodes, el.HeaderEdges)
	}
	if el.Src[0] != 0 || el.Dst[0] != 1 || el.Src[1] != 1 || el.Dst[1] != 0 {
		t.Errorf("first edges %d->%d, %d->%d; want 0->1, 1->0", el.Src[0], el.Dst[0], el.Src[1], el.Dst[1])
	}
	// README section 5: all distinct, no self loops, every (u,v) has (v,u).
	pairs := make(map[[2]int64]bool, len(el.Src))
	for i := range el.Src {
		if el.Src[i] == el.Dst[i] {
			t.Fatalf("self loop at line %d", i)
		}
		pairs[[2]int64{el.Src[i], el.Dst[i]}] = true
	}
	if len(pairs) != 367662 {
		t.Errorf("%d distinct pairs, want 367662", len(pairs))
	}
	for p := range pairs {
		if !pairs[[2]int64{p[1], p[0]}] {
			t.Fatalf("edge %v has no reverse", p)
		}
	}
	g, err := SNAP(path)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != 36692 || g.NumEdges() != 367662 {
		t.Errorf("graph %v", g)
	}
}

func writeFile(t testing.TB, path, content string, gz bool) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if gz {
		w := gzip.NewWriter(f)
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSNAPFormats(t *testing.T) {
	dir := t.TempDir()
	// Header count keeps two trailing nodes without edges; CRLF, spaces,
	// blank lines and a gzip file whose name does not say so.
	p := writeFile(t, filepath.Join(dir, "a.txt"), "# Directed graph\r\n# Nodes: 6 Edges: 3\r\n# FromNodeId\tToNodeId\r\n0\t1\r\n\r\n1   2\r\n 3 0 \r\n", true)
	el, err := ReadSNAP(p)
	if err != nil {
		t.Fatal(err)
	}
	if el.NumNodes != 6 || len(el.Src) != 3 || el.Src[2] != 3 || el.Dst[2] != 0 {
		t.Errorf("parsed %+v", el)
	}
	// No header: max id + 1. A header smaller than the ids is ignored.
	p = writeFile(t, filepath.Join(dir, "b.txt"), "# Nodes: 2\n5 7\n", false)
	if el, err := ReadSNAP(p); err != nil || el.NumNodes != 8 {
		t.Errorf("node count %v %v", el, err)
	}
	p = writeFile(t, filepath.Join(dir, "c.txt"), "0 1\n", false)
	if el, err := ReadSNAP(p); err != nil || el.NumNodes != 2 || el.HeaderNodes != -1 {
		t.Errorf("no header: %+v %v", el, err)
	}
	for _, c := range []struct{ content, want string }{
		{"0 1\n1 2 3\n", "c.txt:2: want two node ids"},
		{"# c\n0 1\n1 x\n", "c.txt:3: node ids must be non-negative"},
		{"0 1\n-1 2\n", "c.txt:2:"},
		{"# Nodes: 3 Edges: 2\n0 1\n", "c.txt:1: the header states 2 edges but the file holds 1"},
	} {
		p := writeFile(t, filepath.Join(dir, "c.txt"), c.content, false)
		el, err := ReadSNAP(p)
		if el != nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, %v; want an ErrFormat containing %q", c.content, el, err, c.want)
		}
	}
	// A truncated gzip file is an error, not a partial graph.
	full := filepath.Join(dir, "full.gz")
	writeFile(t, full, strings.Repeat("1 2\n", 100000), true)
	data, _ := os.ReadFile(full)
	trunc := filepath.Join(dir, "trunc.gz")
	os.WriteFile(trunc, data[:len(data)/2], 0o644)
	if g, err := SNAP(trunc); g != nil || err == nil || !strings.Contains(err.Error(), "trunc.gz") {
		t.Errorf("truncated gzip: %v %v", g, err)
	}
	if _, err := SNAP(filepath.Join(dir, "none.txt")); !errors.Is(err, ErrMissing) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// writeGz writes content gzipped to path.
func writeGz(tb testing.TB, path, content string) { writeFile(tb, path, content, true) }

// TestPrefetchStopsOnError reads a multi-megabyte gzip file whose third line
// is bad: the error comes back and the decompressing goroutine ends.
func TestPrefetchStopsOnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.txt.gz")
	writeFile(t, p, "0 1\n1 2\nbad\n"+strings.Repeat("12345 67890\n", 1<<20), true)
	before := runtime.NumGoroutine()
	for i := 0; i < 5; i++ {
		if _, err := ReadSNAP(p); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "big.txt.gz:3:") {
			t.Fatalf("got %v", err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after, %d before", n, before)
	}
}
