package datasets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnnrepl/gnnrepl/runctx"
)

// FileSpec describes one published data file: where it goes under the data
// directory, its pinned size and sha256, and the URLs it can be downloaded
// from (tried in order).
type FileSpec struct {
	Rel    string   // path relative to the data directory, e.g. "cora/ind.cora.x"
	Size   int64    // size in bytes
	SHA256 string   // lowercase hex sha256 of the file's bytes
	URLs   []string // public download URLs, tried in order
}

// HTTPClient performs downloads of missing data files. Replace it to use a
// proxy or custom transport; tests point it (and the mirror list) at a local
// server. Requests carry the running evaluation's context (package runctx), so
// an interrupt cancels a download.
var HTTPClient = &http.Client{Timeout: 10 * time.Minute}

// DownloadLog receives one line per download started. Set it to io.Discard
// to silence it.
var DownloadLog io.Writer = os.Stderr

// ensureFile returns the verified bytes of spec's file under dir. A file on
// disk must have the pinned size and sha256, otherwise the error (wrapping
// ErrChecksum) names it as corrupt or truncated. A missing file is
// downloaded from spec.URLs to a temporary file in the same folder, verified,
// and renamed into place; when that fails the error (wrapping ErrMissing)
// says which file is missing, where it was looked for, and how to provide it.
func ensureFile(dir string, spec FileSpec) ([]byte, error) {
	path := filepath.Join(dir, filepath.FromSlash(spec.Rel))
	b, err := os.ReadFile(path)
	if err == nil {
		if err := verify(b, spec); err != nil {
			return nil, fmt.Errorf("%w: %s is corrupt or truncated (%v); delete it to download it again, or replace it with the original file", ErrChecksum, path, err)
		}
		return b, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("datasets: reading %s: %w", path, err)
	}
	b, derr := download(runctx.Context(), path, spec)
	if derr != nil {
		return nil, fmt.Errorf("%w: %s was not found (looked for %s) and could not be downloaded: %v; "+
			"to provide it, download it from %s and save it as %s, "+
			"or set %s (or the data-directory flag) to a directory that holds %s",
			ErrMissing, filepath.Base(path), path, derr,
			firstOr(spec.URLs, "its public source"), path, DataDirEnv, filepath.FromSlash(spec.Rel))
	}
	return b, nil
}

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}

// verify checks b against spec's pinned size and sha256; the error describes
// the mismatch.
func verify(b []byte, spec FileSpec) error {
	sum := sha256.Sum256(b)
	got := hex.EncodeToString(sum[:])
	if int64(len(b)) != spec.Size || got != spec.SHA256 {
		return fmt.Errorf("%d bytes with sha256 %s, want %d bytes with sha256 %s",
			len(b), got, spec.Size, spec.SHA256)
	}
	return nil
}

// download fetches spec from its URLs in order, verifies the bytes, writes
// them to a temporary file next to path and renames it to path. It returns the
// verified bytes or an error listing every attempt.
func download(ctx context.Context, path string, spec FileSpec) ([]byte, error) {
	if len(spec.URLs) == 0 {
		return nil, errors.New("no download URL is known")
	}
	var errs []string
	for _, url := range spec.URLs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if DownloadLog != nil {
			fmt.Fprintf(DownloadLog, "datasets: downloading %s (%d bytes) from %s\n", filepath.Base(path), spec.Size, url)
		}
		b, err := fetch(ctx, url, spec.Size)
		if err == nil {
			err = verify(b, spec)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", url, err))
			continue
		}
		if err := writeAtomic(path, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return nil, errors.New(strings.Join(errs, "; "))
}

// fetch GETs url and returns its body, reading at most limit+1 bytes so an
// unexpectedly large response cannot exhaust memory (verify then rejects it).
func fetch(ctx context.Context, url string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := HTTPClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP status %s", resp.Status)
	}
	var buf bytes.Buffer
	if limit > 0 {
		buf.Grow(int(limit))
	}
	if _, err := io.Copy(&buf, io.LimitReader(resp.Body, limit+1)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeAtomic writes b to a temporary file in path's folder (creating the
// folder) and renames it to path, so a reader never sees a partial file.
func writeAtomic(path string, b []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.part")
	if err != nil {
		return fmt.Errorf("creating a temporary file in %s: %w", dir, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", tmp, path, err)
	}
	return nil
}
