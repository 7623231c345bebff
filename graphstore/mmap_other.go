//go:build !unix

package graphstore

import (
	"io"
	"os"
)

// mmap reads the file into memory where memory-mapping is not available.
func mmap(f *os.File, n int) ([]byte, error) {
	b := make([]byte, n)
	_, err := io.ReadFull(io.NewSectionReader(f, 0, int64(n)), b)
	return b, err
}

func munmap([]byte) error { return nil }
