package datasets

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// copyPlanetoid copies dataset name's files from the shared folder into a
// fresh data directory, leaving out the suffixes in skip.
func copyPlanetoid(t *testing.T, shared, name string, skip ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, suf := range PlanetoidSuffixes {
		if slices.Contains(skip, suf) {
			continue
		}
		b, err := os.ReadFile(PlanetoidPath(shared, name, suf))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(PlanetoidPath(dir, name, suf), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// noPartFiles fails if a temporary download file was left in dir/name.
func noPartFiles(t *testing.T, dir, name string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(dir, name, ".*.part"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestTruncatedFileIsAnError(t *testing.T) {
	shared := sharedData(t)
	noNetwork(t)
	dir := copyPlanetoid(t, shared, "cora")
	path := PlanetoidPath(dir, "cora", "graph")
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := LoadPlanetoidRaw(dir, "cora")
	if err == nil || d != nil {
		t.Fatal("truncated ind.cora.graph loaded without error")
	}
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "corrupt or truncated") {
		t.Errorf("error %q does not wrap ErrChecksum or name %s as corrupt or truncated", err, path)
	}
	// The truncated file is reported, never replaced.
	if got, _ := os.ReadFile(path); len(got) != len(b)/2 {
		t.Error("the truncated file was modified")
	}
}

func TestCorruptFileIsAnError(t *testing.T) {
	shared := sharedData(t)
	noNetwork(t)
	dir := copyPlanetoid(t, shared, "citeseer")
	path := PlanetoidPath(dir, "citeseer", "allx")
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 0x01 // same size, one bit flipped
	os.WriteFile(path, b, 0o644)
	_, err := LoadPlanetoidRaw(dir, "CiteSeer")
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "ind.citeseer.allx") {
		t.Errorf("error %v, want ErrChecksum naming ind.citeseer.allx", err)
	}
}

func TestMissingFileWithoutNetwork(t *testing.T) {
	shared := sharedData(t)
	noNetwork(t)
	dir := copyPlanetoid(t, shared, "cora", "ty")
	_, err := LoadPlanetoidRaw(dir, "cora")
	if !errors.Is(err, ErrMissing) {
		t.Fatalf("error %v, want ErrMissing", err)
	}
	msg := err.Error()
	for _, want := range []string{"ind.cora.ty", PlanetoidPath(dir, "cora", "ty"), "GNNREPL_DATA", "127.0.0.1:1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	noPartFiles(t, dir, "cora")
	if _, err := os.Stat(PlanetoidPath(dir, "cora", "ty")); !os.IsNotExist(err) {
		t.Error("a file was created for the failed download")
	}
}

func TestMissingDirectoryWithoutNetwork(t *testing.T) {
	noNetwork(t)
	dir := filepath.Join(t.TempDir(), "nothing-here")
	_, err := LoadPlanetoidRaw(dir, "pubmed")
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "ind.pubmed.") {
		t.Fatalf("error %v, want ErrMissing naming a pubmed file", err)
	}
}

func TestUnknownDataset(t *testing.T) {
	_, err := LoadPlanetoidRaw(t.TempDir(), "arxiv")
	if !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "arxiv") {
		t.Errorf("error %v, want ErrArgument naming arxiv", err)
	}
	if _, err := PlanetoidFiles("Cora"); err != nil {
		t.Errorf("PlanetoidFiles(Cora): %v", err)
	}
}

// fileServer serves the shared Planetoid files at /<file name> on
// 127.0.0.1, passing each body through mutate, and counts requests.
func fileServer(t *testing.T, shared string, mutate func([]byte) []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		file := strings.TrimPrefix(r.URL.Path, "/")
		parts := strings.SplitN(file, ".", 3) // ind, name, suffix
		if len(parts) != 3 || parts[0] != "ind" || strings.Contains(file, "/") {
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(PlanetoidPath(shared, parts[1], parts[2]))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(mutate(b))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestDownloadFromLocalServer(t *testing.T) {
	shared := sharedData(t)
	noNetwork(t)
	srv, requests := fileServer(t, shared, func(b []byte) []byte { return b })
	// A dead mirror first, then the working one: the loader falls back.
	PlanetoidMirrors = []string{srv.URL + "/missing/", srv.URL + "/"}
	dir := copyPlanetoid(t, shared, "cora", "allx", "graph", "test.index")

	got, err := LoadPlanetoidRaw(dir, "cora")
	if err != nil {
		t.Fatal(err)
	}
	if requests.Load() != 6 {
		t.Errorf("%d requests, want 6 (3 files, 2 mirrors each)", requests.Load())
	}
	for _, suf := range []string{"allx", "graph", "test.index"} {
		a, _ := os.ReadFile(PlanetoidPath(dir, "cora", suf))
		b, _ := os.ReadFile(PlanetoidPath(shared, "cora", suf))
		if !bytes.Equal(a, b) {
			t.Errorf("downloaded ind.cora.%s differs from the original", suf)
		}
	}
	noPartFiles(t, dir, "cora")
	want, err := LoadPlanetoidRaw(shared, "cora")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Features, want.Features) || !slices.Equal(got.Src, want.Src) ||
		!slices.Equal(got.Labels, want.Labels) {
		t.Error("dataset loaded after download differs from the shared copy")
	}

	// Second load: everything is present, nothing is fetched.
	before := requests.Load()
	if _, err := LoadPlanetoidRaw(dir, "cora"); err != nil {
		t.Fatal(err)
	}
	if requests.Load() != before {
		t.Error("files were downloaded again although present")
	}
}

func TestDownloadIntoEmptyDataDir(t *testing.T) {
	shared := sharedData(t)
	noNetwork(t)
	srv, _ := fileServer(t, shared, func(b []byte) []byte { return b })
	PlanetoidMirrors = []string{srv.URL + "/"}
	dir := filepath.Join(t.TempDir(), "cache", "gnnrepl", "data")
	if err := EnsurePlanetoid(dir, "citeseer"); err != nil {
		t.Fatal(err)
	}
	d, err := LoadPlanetoidRaw(dir, "citeseer")
	if err != nil {
		t.Fatal(err)
	}
	if d.NumNodes != 3327 {
		t.Errorf("NumNodes = %d", d.NumNodes)
	}
}

func TestDownloadChecksumMismatch(t *testing.T) {
	shared := sharedData(t)
	noNetwork(t)
	srv, _ := fileServer(t, shared, func(b []byte) []byte {
		c := bytes.Clone(b)
		c[len(c)-2] ^= 0xff // same size, wrong content
		return c
	})
	PlanetoidMirrors = []string{srv.URL + "/"}
	dir := copyPlanetoid(t, shared, "cora", "x")
	_, err := LoadPlanetoidRaw(dir, "cora")
	if !errors.Is(err, ErrMissing) {
		t.Fatalf("error %v, want ErrMissing", err)
	}
	for _, want := range []string{"ind.cora.x", "sha256", "GNNREPL_DATA"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := os.Stat(PlanetoidPath(dir, "cora", "x")); !os.IsNotExist(err) {
		t.Error("a file failing its checksum was saved")
	}
	noPartFiles(t, dir, "cora")
}

func TestDownloadHTTPError(t *testing.T) {
	shared := sharedData(t)
	noNetwork(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	}))
	defer srv.Close()
	PlanetoidMirrors = []string{srv.URL + "/"}
	dir := copyPlanetoid(t, shared, "pubmed", "y")
	_, err := LoadPlanetoidRaw(dir, "pubmed")
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "410") {
		t.Errorf("error %v, want ErrMissing mentioning HTTP 410", err)
	}
}
