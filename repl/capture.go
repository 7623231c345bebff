package repl

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// FDCapture redirects the process's standard output and error file
// descriptors (1 and 2) into pipes copied to writers; see CaptureFDs.
type FDCapture struct {
	// Stdout and Stderr are duplicates of the original descriptors 1 and
	// 2, valid until Restore: write here what must not be captured (the
	// kernel's own log).
	Stdout, Stderr *os.File

	readers []*os.File
	wg      sync.WaitGroup
	once    sync.Once
	err     error
}

// ErrCaptureUnsupported is returned by CaptureFDs where descriptors cannot
// be redirected (systems other than Linux, macOS and FreeBSD).
var ErrCaptureUnsupported = errors.New("repl: redirecting file descriptors is not supported on this system")

// CaptureFDs sends everything the process writes to file descriptors 1
// and 2 to stdout and stderr until Restore: compiled code that prints to
// os.Stdout or os.Stderr, C libraries, the Go runtime. Interpreted code's
// fmt.Print* goes to the session's Options.Stdout; when that is os.Stdout, it
// is captured too. A Jupyter kernel wraps each execution in CaptureFDs and
// Restore.
//
// The capture is process-wide: every goroutine's writes to descriptors 1
// and 2 are captured, so the caller logs to the returned Stdout or Stderr
// meanwhile. Writes to stdout and stderr are copied by two goroutines, so
// their relative order is not kept. Not safe to nest.
func CaptureFDs(stdout, stderr io.Writer) (*FDCapture, error) {
	c := &FDCapture{}
	saved := make([]*os.File, 2)
	for i, fd := range []int{1, 2} {
		d, err := dup(fd)
		if err != nil {
			closeAll(saved[:i])
			return nil, err
		}
		saved[i] = os.NewFile(uintptr(d), []string{"/dev/stdout", "/dev/stderr"}[i])
	}
	c.Stdout, c.Stderr = saved[0], saved[1]
	for i, w := range []io.Writer{stdout, stderr} {
		r, pw, err := os.Pipe()
		if err == nil {
			err = dup2(int(pw.Fd()), i+1)
			pw.Close()
		}
		if err != nil {
			if r != nil {
				r.Close()
			}
			c.restoreFDs()
			closeAll(c.readers)
			closeAll(saved)
			return nil, err
		}
		c.readers = append(c.readers, r)
		c.wg.Add(1)
		go func(r *os.File, w io.Writer) {
			defer c.wg.Done()
			io.Copy(w, r)
		}(r, w)
	}
	return c, nil
}

func (c *FDCapture) restoreFDs() error {
	err1 := dup2(int(c.Stdout.Fd()), 1)
	err2 := dup2(int(c.Stderr.Fd()), 2)
	return errors.Join(err1, err2)
}

// Restore puts descriptors 1 and 2 back and waits (up to a second, in
// case a child process still holds the pipes) until everything written
// before has been copied. It may be called more than once.
func (c *FDCapture) Restore() error {
	c.once.Do(func() {
		c.err = c.restoreFDs()
		done := make(chan struct{})
		go func() { c.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
		closeAll(c.readers)
		closeAll([]*os.File{c.Stdout, c.Stderr})
	})
	return c.err
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}
