package kernel

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// stdioCapture redirects file descriptors 1 and 2 into pipes whose readers
// hand the bytes to sink; output sink refuses goes to the original
// descriptors, kept as savedOut and savedErr.
//
// sync makes the capture deterministic at cell boundaries: it writes a
// marker into each pipe and waits until the reader reaches it, so that all
// output written before the cell returned is delivered before the cell's
// reply.
type stdioCapture struct {
	savedOut, savedErr *os.File
	// origStderr is os.Stderr before the capture; pollStderr the pollable
	// file on descriptor 2 it is replaced with (nonBlockingStderr).
	origStderr, pollStderr *os.File
	pipes                  []*capturePipe
	wg                     sync.WaitGroup
	once                   sync.Once
}

type capturePipe struct {
	name  string
	fd    int // the redirected descriptor (1 or 2), the pipe's write end
	saved *os.File
	sink  func(name string, p []byte) bool

	mu      sync.Mutex
	waiters map[string]chan struct{}
}

// syncPrefix starts every sync marker; markers are syncPrefix, a number,
// and a NUL. NUL bytes do not occur in ordinary text output.
const syncPrefix = "\x00\x1bgnnrepl-sync-"

var syncSeq atomic.Uint64

func captureStdio(sink func(name string, p []byte) bool) (*stdioCapture, error) {
	c := &stdioCapture{}
	outFD, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("dup stdout: %w", err)
	}
	errFD, err := unix.Dup(2)
	if err != nil {
		unix.Close(outFD)
		return nil, fmt.Errorf("dup stderr: %w", err)
	}
	unix.CloseOnExec(outFD)
	unix.CloseOnExec(errFD)
	c.savedOut = os.NewFile(uintptr(outFD), "stdout")
	c.savedErr = os.NewFile(uintptr(errFD), "stderr")
	for _, t := range []struct {
		fd    int
		name  string
		saved *os.File
	}{{1, "stdout", c.savedOut}, {2, "stderr", c.savedErr}} {
		r, w, err := os.Pipe()
		if err != nil {
			c.restore()
			return nil, fmt.Errorf("pipe for %s: %w", t.name, err)
		}
		if err := unix.Dup3(int(w.Fd()), t.fd, 0); err != nil {
			r.Close()
			w.Close()
			c.restore()
			return nil, fmt.Errorf("redirect %s: %w", t.name, err)
		}
		w.Close() // the descriptor t.fd is now the only write end
		p := &capturePipe{name: t.name, fd: t.fd, saved: t.saved, sink: sink, waiters: map[string]chan struct{}{}}
		c.pipes = append(c.pipes, p)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			p.read(r)
		}()
	}
	c.nonBlockingStderr()
	return c, nil
}

// keptStderr holds every pollable stderr file made by nonBlockingStderr
// for the life of the process: an unreachable *os.File's cleanup would
// close descriptor 2.
var keptStderr []*os.File

// A fatal runtime error (stack overflow, concurrent map writes, out of
// memory) stops every goroutine, the pipes' readers included, and then
// writes its report to descriptor 2 before the copy SetCrashOutput sends
// to the saved stderr (runtime.writeErrData). With a blocking pipe on
// descriptor 2 a report longer than the pipe's buffer hangs the process
// forever, heartbeat answered by no one. So descriptor 2's pipe is made
// non-blocking: the runtime's writes that do not fit are dropped and the
// process dies, its whole report in the server's log. os.Stderr and the
// log package then write through a pollable file on descriptor 2, which
// waits for room instead of failing with EAGAIN as the original
// (blocking-mode) os.Stderr would.
func (c *stdioCapture) nonBlockingStderr() {
	if err := unix.SetNonblock(2, true); err != nil {
		return
	}
	c.origStderr = os.Stderr
	c.pollStderr = os.NewFile(2, "/dev/stderr")
	keptStderr = append(keptStderr, c.pollStderr)
	os.Stderr = c.pollStderr
	log.SetOutput(os.Stderr)
}

// read forwards the pipe's bytes, cutting out sync markers.
func (p *capturePipe) read(r *os.File) {
	defer r.Close()
	buf := make([]byte, 32<<10)
	var pending []byte // bytes not yet forwarded: a possible partial marker
	for {
		n, err := r.Read(buf)
		if n > 0 {
			pending = append(pending, buf[:n]...)
			pending = p.scan(pending)
		}
		if err != nil {
			if len(pending) > 0 {
				p.emit(pending)
			}
			return
		}
	}
}

// scan forwards data up to the last byte that cannot start a marker,
// releasing the waiters of complete markers, and returns the rest.
func (p *capturePipe) scan(data []byte) []byte {
	for {
		i := bytes.Index(data, []byte(syncPrefix))
		if i < 0 {
			break
		}
		end := bytes.IndexByte(data[i+len(syncPrefix):], 0)
		if end < 0 {
			p.emit(data[:i])
			return append([]byte(nil), data[i:]...) // marker not complete yet
		}
		p.emit(data[:i])
		token := string(data[i : i+len(syncPrefix)+end+1])
		p.mu.Lock()
		if ch, ok := p.waiters[token]; ok {
			close(ch)
			delete(p.waiters, token)
		}
		p.mu.Unlock()
		data = data[i+len(syncPrefix)+end+1:]
	}
	// Keep a tail that may be the beginning of a marker.
	keep := 0
	for k := min(len(syncPrefix)-1, len(data)); k > 0; k-- {
		if bytes.HasSuffix(data, []byte(syncPrefix[:k])) {
			keep = k
			break
		}
	}
	p.emit(data[:len(data)-keep])
	return append([]byte(nil), data[len(data)-keep:]...)
}

func (p *capturePipe) emit(b []byte) {
	if len(b) == 0 {
		return
	}
	b = append([]byte(nil), b...)
	if !p.sink(p.name, b) {
		p.saved.Write(b)
	}
}

// sync waits (at most d) until everything written to the descriptors
// before the call has been handed to the sink.
func (c *stdioCapture) sync(d time.Duration) {
	deadline := time.Now().Add(d)
	for _, p := range c.pipes {
		token := syncPrefix + strconv.FormatUint(syncSeq.Add(1), 10) + "\x00"
		ch := make(chan struct{})
		p.mu.Lock()
		p.waiters[token] = ch
		p.mu.Unlock()
		if _, err := unix.Write(p.fd, []byte(token)); err != nil {
			p.mu.Lock()
			delete(p.waiters, token)
			p.mu.Unlock()
			continue
		}
		select {
		case <-ch:
		case <-time.After(time.Until(deadline)):
			p.mu.Lock()
			delete(p.waiters, token)
			p.mu.Unlock()
		}
	}
}

// restore puts the original descriptors back, which closes the pipes' write
// ends, and waits for the readers to drain them.
func (c *stdioCapture) restore() {
	c.once.Do(func() {
		unix.Dup3(int(c.savedOut.Fd()), 1, 0)
		unix.Dup3(int(c.savedErr.Fd()), 2, 0)
		if c.origStderr != nil {
			os.Stderr = c.origStderr
			log.SetOutput(os.Stderr)
		}
		// A child process that inherited the pipe may hold it open; do not
		// wait for it forever.
		done := make(chan struct{})
		go func() { c.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	})
}
