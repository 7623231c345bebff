//go:build unix

package graphstore

import (
	"os"
	"syscall"
)

// mmap maps the first n bytes of f privately (copy-on-write; the file is
// never written).
func mmap(f *os.File, n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	return syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
}

func munmap(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return syscall.Munmap(b)
}
