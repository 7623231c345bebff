package datasets

import (
	"os"
	"path/filepath"
	"runtime"
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
