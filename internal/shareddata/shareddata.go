// Package shareddata locates the real datasets tests read: ../shared/data
// next to the module root, or $GNNREPL_SHARED_DATA. Only tests import it.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the shared data folder and skips the test only when the
// folder is absent (any other error fails it).
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("GNNREPL_SHARED_DATA")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := os.Stat(filepath.Join(wd, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(wd)
			if parent == wd {
				t.Fatal("go.mod not found above the test directory")
			}
			wd = parent
		}
		dir = filepath.Join(wd, "..", "shared", "data")
	}
	if _, err := os.Stat(dir); err != nil {
		if os.IsNotExist(err) {
			t.Skipf("shared data folder %s is absent", dir)
		}
		t.Fatal(err)
	}
	return dir
}
