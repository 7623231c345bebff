package datasets

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// sharedData returns the shared data folder (../shared/data relative to the
// module root, or $GNNREPL_SHARED_DATA) and skips the test only when it is
// absent.
func sharedData(t testing.TB) string {
	t.Helper()
	if v := os.Getenv("GNNREPL_SHARED_DATA"); v != "" {
		return mustExist(t, v)
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
	return mustExist(t, filepath.Join(dir, "..", "shared", "data"))
}

func mustExist(t testing.TB, dir string) string {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		if os.IsNotExist(err) {
			t.Skipf("shared data folder %s is absent", dir)
		}
		t.Fatal(err)
	}
	return dir
}

// noNetwork makes any download attempt fail fast against a closed local
// port and silences the download log for the duration of the test.
func noNetwork(t testing.TB) {
	t.Helper()
	oldM, oldLog := PlanetoidMirrors, DownloadLog
	PlanetoidMirrors = []string{"http://127.0.0.1:1/"}
	DownloadLog = io.Discard
	t.Cleanup(func() { PlanetoidMirrors, DownloadLog = oldM, oldLog })
}
