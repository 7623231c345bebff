package datasets

import (
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"io"
	"testing"
)

// sharedData returns the shared data folder (internal/shareddata).
func sharedData(t testing.TB) string { return shareddata.Dir(t) }

// noNetwork makes any download attempt fail fast against a closed local
// port and silences the download log for the duration of the test.
func noNetwork(t testing.TB) {
	t.Helper()
	oldM, oldLog := PlanetoidMirrors, DownloadLog
	PlanetoidMirrors = []string{"http://127.0.0.1:1/"}
	DownloadLog = io.Discard
	t.Cleanup(func() { PlanetoidMirrors, DownloadLog = oldM, oldLog })
}
