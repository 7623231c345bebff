//go:build !linux

package kernel

import (
	"errors"
	"os"
	"time"
)

type stdioCapture struct {
	savedOut, savedErr *os.File
}

func captureStdio(func(string, []byte) bool) (*stdioCapture, error) {
	return nil, errors.New("capturing stdout/stderr is implemented on Linux only")
}

func (c *stdioCapture) sync(time.Duration) {}

func (c *stdioCapture) restore() {}

func (c *stdioCapture) startWatcher() error { return nil }
