package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestDataDir(t *testing.T) {
	t.Setenv(DataDirEnv, "/env/data")
	if got := DataDir("/flag/data"); got != "/flag/data" {
		t.Errorf("flag: DataDir = %q", got)
	}
	if got := DataDir(""); got != "/env/data" {
		t.Errorf("env: DataDir = %q", got)
	}
	t.Setenv(DataDirEnv, "")
	if runtime.GOOS == "linux" {
		t.Setenv("XDG_CACHE_HOME", "/xdg/cache")
		if got, want := DataDir(""), filepath.Join("/xdg/cache", "gnnrepl", "data"); got != want {
			t.Errorf("default: DataDir = %q, want %q", got, want)
		}
	}
	c, err := os.UserCacheDir()
	if err == nil {
		if got, want := DataDir(""), filepath.Join(c, "gnnrepl", "data"); got != want {
			t.Errorf("default: DataDir = %q, want %q", got, want)
		}
	}
}

func TestPlanetoidPath(t *testing.T) {
	if got, want := PlanetoidPath("/d", "cora", "test.index"), filepath.Join("/d", "cora", "ind.cora.test.index"); got != want {
		t.Errorf("PlanetoidPath = %q, want %q", got, want)
	}
	specs, err := PlanetoidFiles("PubMed")
	if err != nil || len(specs) != 8 {
		t.Fatalf("PlanetoidFiles = %d specs, %v", len(specs), err)
	}
	if specs[4].Rel != "pubmed/ind.pubmed.allx" || specs[4].Size != 7578385 ||
		len(specs[4].URLs) != len(PlanetoidMirrors) || specs[4].URLs[0] != PlanetoidMirrors[0]+"ind.pubmed.allx" {
		t.Errorf("allx spec %+v", specs[4])
	}
}

func TestCheckPlanetoid(t *testing.T) {
	shared := sharedData(t)
	if err := CheckPlanetoid(shared, "cora"); err != nil {
		t.Fatalf("shared data: %v", err)
	}
	dir := t.TempDir()
	if err := CheckPlanetoid(dir, "cora"); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), filepath.Join(dir, "cora", "ind.cora.x")) || !strings.Contains(err.Error(), "8 of the 8") {
		t.Errorf("empty directory: %v", err)
	}
	for _, s := range PlanetoidSuffixes {
		b, err := os.ReadFile(PlanetoidPath(shared, "cora", s))
		if err != nil {
			t.Fatal(err)
		}
		if s == "graph" {
			b = b[:len(b)-1]
		}
		os.MkdirAll(filepath.Join(dir, "cora"), 0o755)
		os.WriteFile(PlanetoidPath(dir, "cora", s), b, 0o644)
	}
	if err := CheckPlanetoid(dir, "cora"); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), PlanetoidPath(dir, "cora", "graph")) {
		t.Errorf("cut graph file: %v", err)
	}
	if err := CheckPlanetoid(dir, "imdb"); !errors.Is(err, ErrArgument) {
		t.Errorf("unknown name: %v", err)
	}
}
