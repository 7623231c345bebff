//go:build !linux && !darwin && !freebsd

package repl

func dup(fd int) (int, error) { return 0, ErrCaptureUnsupported }

func dup2(from, to int) error { return ErrCaptureUnsupported }
