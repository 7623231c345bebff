// Package atomicfile writes whole files atomically: a reader (or a crash)
// sees the old file or the new one, never a part.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to a temporary file in path's directory, sets its
// permissions to perm, syncs it, renames it to path and syncs the
// directory (os.WriteFile's contract, made atomic: temp file, fsync,
// rename). On error the temporary file is removed and path is untouched;
// the error is the *os.PathError (or *os.LinkError) of the step that
// failed.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // makes the rename durable; some file systems refuse, which loses nothing written
		d.Close()
	}
	return nil
}
