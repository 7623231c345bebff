package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnsureFile exercises download, verification and the error messages on
// a small synthetic file served from 127.0.0.1 (no shared data needed).
func TestEnsureFile(t *testing.T) {
	noNetwork(t)
	content := []byte("0123456789abcdef\n")
	sum := sha256.Sum256(content)
	served := content
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/f.bin" {
			http.NotFound(w, r)
			return
		}
		w.Write(served)
	}))
	defer srv.Close()
	spec := FileSpec{Rel: "sub/f.bin", Size: int64(len(content)), SHA256: hex.EncodeToString(sum[:]),
		URLs: []string{srv.URL + "/nope", srv.URL + "/f.bin"}}
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f.bin")

	// Wrong bytes from every mirror: error, nothing saved.
	served = []byte("0123456789abcdeX\n")
	_, err := ensureFile(dir, spec)
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "sha256") || !strings.Contains(err.Error(), "404") {
		t.Errorf("wrong content: error %v", err)
	}
	// Too long a body is cut at Size+1 and rejected.
	served = append(append([]byte{}, content...), make([]byte, 1<<20)...)
	if _, err := ensureFile(dir, spec); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "18 bytes") {
		t.Errorf("long body: error %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("a file failing its checksum was saved")
	}

	// Right bytes: downloaded (second mirror), saved, returned.
	served = content
	b, err := ensureFile(dir, spec)
	if err != nil || string(b) != string(content) {
		t.Fatalf("ensureFile = %q, %v", b, err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(content) {
		t.Errorf("saved %q", got)
	}
	noPartFiles(t, dir, "sub")

	// Present and intact: no request needed.
	srv.Close()
	if _, err := ensureFile(dir, spec); err != nil {
		t.Errorf("present file: %v", err)
	}
	// Present but truncated: ErrChecksum naming the file.
	os.WriteFile(path, content[:5], 0o644)
	_, err = ensureFile(dir, spec)
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "corrupt or truncated") {
		t.Errorf("truncated: error %v", err)
	}
}
