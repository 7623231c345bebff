package kernel

import (
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/gnnrepl/gnnrepl/kernel/internal/crashwatch"
	"golang.org/x/sys/unix"
)

// crashWatcher is the running crash watcher process (package
// kernel/internal/crashwatch): it writes a fatal runtime error's first
// lines, which the runtime sends to descriptor 2 only, to the server's log.
type crashWatcher struct {
	pid  int
	done chan struct{} // closed when the watcher has exited and been reaped
}

// watcherEnv is added to the watcher's environment: the gnnrepl binary
// does not re-execute itself for it (internal/memrelease).
const watcherEnv = "GNNREPL_MADVISE=keep"

// startWatcher starts the crash watcher and makes the crash pipe the
// runtime's crash output (in place of savedErr). On an error the crash
// output stays savedErr: the report's stacks still reach the log, its
// first line does not. It does nothing after restore.
func (c *stdioCapture) startWatcher() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.restored || c.watcher != nil {
		return nil
	}
	if c.errReadFD < 0 {
		return fmt.Errorf("no descriptor of the stderr pipe")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("crash watcher: %w", err)
	}
	// Both ends close-on-exec: only the watcher gets the read end (as
	// crashwatch.WatchFD), and the write end stays in this process alone.
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return fmt.Errorf("crash watcher: pipe: %w", err)
	}
	null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return fmt.Errorf("crash watcher: %w", err)
	}
	env := append(os.Environ(), watcherEnv)
	files := []uintptr{uintptr(null), uintptr(null), c.savedErr.Fd(), uintptr(p[0]), uintptr(c.errReadFD)}
	// /proc/self/exe is this executable even if its file was replaced or
	// removed since it started.
	pid, err := syscall.ForkExec("/proc/self/exe", []string{exe, crashwatch.Arg}, &syscall.ProcAttr{Env: env, Files: files})
	unix.Close(null)
	unix.Close(p[0])
	if err != nil {
		unix.Close(p[1])
		return fmt.Errorf("crash watcher: start %s: %w", exe, err)
	}
	crash := os.NewFile(uintptr(p[1]), "crash-pipe")
	// SetCrashOutput keeps its own close-on-exec duplicate, blocking, so
	// the report is never dropped; the watcher sees end of file when it is
	// closed (restore) or when this process exits.
	err = debug.SetCrashOutput(crash, debug.CrashOptions{})
	crash.Close()
	if err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		return fmt.Errorf("crash watcher: SetCrashOutput: %w", err)
	}
	w := &crashWatcher{pid: pid, done: make(chan struct{})}
	c.watcher = w
	go c.reap(w)
	return nil
}

// reap waits for the watcher's exit; a watcher that dies while the capture
// is on (killed by someone) gives the crash output back to savedErr.
func (c *stdioCapture) reap(w *crashWatcher) {
	defer close(w.done)
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(w.pid, &ws, 0, nil)
		if err == syscall.ECHILD {
			// Reaped by someone else (a wait for any child): the watcher
			// may still run; poll until it is gone.
			for syscall.Kill(w.pid, 0) == nil {
				time.Sleep(time.Second)
			}
			break
		}
		if err != syscall.EINTR {
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.restored {
		debug.SetCrashOutput(c.savedErr, debug.CrashOptions{})
		fmt.Fprintf(c.savedErr, "[gnnrepl kernel] the crash watcher (pid %d) exited (%v); a fatal error's first line will be missing from this log\n", w.pid, ws)
	}
}

// stopWatcher ends the watcher (at restore): closing the crash output is
// the end of file it waits for. It waits at most d for the watcher's exit.
func (c *stdioCapture) stopWatcher(d time.Duration) {
	c.mu.Lock()
	c.restored = true
	w := c.watcher
	debug.SetCrashOutput(nil, debug.CrashOptions{})
	if c.errReadFD >= 0 {
		unix.Close(c.errReadFD)
		c.errReadFD = -1
	}
	c.mu.Unlock()
	if w == nil {
		return
	}
	select {
	case <-w.done:
	case <-time.After(d):
	}
}
