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

	// errReadFD is a second descriptor of descriptor 2's pipe's read end
	// (close-on-exec, never read here), for the crash watcher; -1 once
	// handed over or closed.
	errReadFD int
	// mu guards restored and watcher.
	mu       sync.Mutex
	restored bool
	watcher  *crashWatcher
}

type capturePipe struct {
	name  string
	fd    int // the redirected descriptor (1 or 2), the pipe's write end
	saved *os.File
	sink  func(name string, p []byte) bool

	mu      sync.Mutex
	waiters map[string]chan struct{}

	// log, on descriptor 2's pipe, receives a copy of the runtime's lines
	// (runtimeLine) before they leave the pipe (readPeek).
	log                  *os.File
	midLine, copyingLine bool
}

// syncPrefix starts every sync marker; markers are syncPrefix, a number,
// and a NUL. NUL bytes do not occur in ordinary text output.
const syncPrefix = "\x00\x1bgnnrepl-sync-"

var syncSeq atomic.Uint64

func captureStdio(sink func(name string, p []byte) bool) (*stdioCapture, error) {
	c := &stdioCapture{errReadFD: -1}
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
		if t.fd == 2 {
			// Control, unlike Fd, leaves the descriptor non-blocking.
			if rc, err := r.SyscallConn(); err == nil {
				rc.Control(func(fd uintptr) {
					if d, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0); err == nil {
						c.errReadFD = d
					}
				})
			}
		}
		p := &capturePipe{name: t.name, fd: t.fd, saved: t.saved, sink: sink, waiters: map[string]chan struct{}{}}
		c.pipes = append(c.pipes, p)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			if t.fd == 2 {
				p.log = c.savedErr
				if p.readPeek(r) {
					return
				}
			}
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

// runtimePrefixes start the lines a fatal runtime error writes to
// descriptor 2 before it copies its report to the crash output: "fatal
// error: stack overflow", "runtime: goroutine stack exceeds 1000000000-byte
// limit", "runtime: out of memory: cannot allocate ...".
var runtimePrefixes = []string{"fatal error: ", "runtime: "}

// readPeek is read for descriptor 2's pipe: each chunk is first copied
// out of the pipe with tee(2), which leaves it there, and the runtime's
// lines in it are written to the server's log (p.log); only then is the
// chunk taken from the pipe and forwarded. A fatal runtime error freezes
// this goroutine at some point of that sequence: either its lines are
// already in the log, or they are still in the pipe, where the crash
// watcher finds them. (Frozen between the log write and the read, a line
// is in the log twice.) It reports false, having read nothing, when tee is
// not available.
func (p *capturePipe) readPeek(r *os.File) bool {
	rc, err := r.SyscallConn()
	if err != nil {
		return false
	}
	var sp [2]int
	if err := unix.Pipe2(sp[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return false
	}
	defer unix.Close(sp[0])
	defer unix.Close(sp[1])
	defer r.Close()
	buf := make([]byte, 32<<10)
	discard := make([]byte, len(buf))
	var pending []byte
	first := true
	for {
		var n int64
		var terr error
		err := rc.Read(func(fd uintptr) bool {
			n, terr = unix.Tee(int(fd), sp[1], len(buf), unix.SPLICE_F_NONBLOCK)
			return terr != unix.EAGAIN
		})
		if first && (terr == unix.EINVAL || terr == unix.ENOSYS) {
			return false
		}
		first = false
		if err != nil || terr != nil || n <= 0 {
			break
		}
		m, err := unix.Read(sp[0], buf[:n])
		if err != nil || m <= 0 {
			break
		}
		p.copyRuntimeLines(buf[:m])
		// Take the chunk out of the pipe: this goroutine is its only reader
		// while the process lives, so its first m bytes are the chunk.
		for got := 0; got < m; {
			var k int
			var rerr error
			err := rc.Read(func(fd uintptr) bool {
				k, rerr = unix.Read(int(fd), discard[:m-got])
				return rerr != unix.EAGAIN
			})
			if err != nil || rerr != nil || k <= 0 {
				break
			}
			got += k
		}
		pending = append(pending, buf[:m]...)
		pending = p.scan(pending)
	}
	if len(pending) > 0 {
		p.emit(pending)
	}
	return true
}

// copyRuntimeLines writes to p.log the parts of b that belong to lines
// starting with a runtimePrefix. A line starts after a newline or a NUL
// (the end of a sync marker); the runtime writes each prefix whole.
func (p *capturePipe) copyRuntimeLines(b []byte) {
	for len(b) > 0 {
		if !p.midLine {
			p.copyingLine = false
			for _, pre := range runtimePrefixes {
				if bytes.HasPrefix(b, []byte(pre)) {
					p.copyingLine = true
				}
			}
		}
		seg := b
		p.midLine = true
		if i := bytes.IndexAny(b, "\n\x00"); i >= 0 {
			seg = b[:i+1]
			p.midLine = false
		}
		if p.copyingLine && seg[len(seg)-1] != 0 {
			p.log.Write(seg)
		}
		b = b[len(seg):]
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
		c.stopWatcher(time.Second)
	})
}
