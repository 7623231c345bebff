package kernel

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// term is a program running on a pseudo-terminal, read as a user would.
type term struct {
	t   *testing.T
	f   *os.File
	mu  sync.Mutex
	out bytes.Buffer
	pos int // expect searches output after pos
}

func (tm *term) read() {
	buf := make([]byte, 4096)
	for {
		n, err := tm.f.Read(buf)
		tm.mu.Lock()
		tm.out.Write(buf[:n])
		tm.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// expect waits until s appears in the output after the previous match.
func (tm *term) expect(s string) {
	tm.t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		tm.mu.Lock()
		all := tm.out.String()
		i := strings.Index(all[tm.pos:], s)
		if i >= 0 {
			tm.pos += i + len(s)
		}
		tm.mu.Unlock()
		if i >= 0 {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("terminal: %q did not appear; output:\n%s", s, all)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (tm *term) send(s string) {
	tm.t.Helper()
	if _, err := tm.f.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

// TestJupyterConsole runs a few cells interactively in `jupyter console
// --kernel` on a pseudo-terminal: a declaration, an expression with its
// Out prompt, printed output, an error, and exit with Ctrl-D, after which
// the console shuts the kernel down.
func TestJupyterConsole(t *testing.T) {
	needJupyter(t, "jupyter_console")
	_, jp := buildKernelBinary(t, "gnnrepl-console")
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "jupyter", "console", "--kernel", "gnnrepl-console", "--simple-prompt",
		"--no-confirm-exit")
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+jp, "JUPYTER_RUNTIME_DIR="+t.TempDir(), "JUPYTER_CONFIG_DIR="+t.TempDir(), "PYDEVD_DISABLE_FILE_VALIDATION=1")
	cmd.WaitDelay = 5 * time.Second
	f, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tm := &term{t: t, f: f}
	go tm.read()

	tm.expect("In [1]: ")
	tm.send("x := 6 * 7\r")
	tm.expect("In [2]: ")
	tm.send("x + 0\r")
	tm.expect("Out[2]: 42")
	tm.expect("In [3]: ")
	tm.send(`fmt.Println("hello from", "Go")` + "\r")
	tm.expect("hello from Go")
	tm.expect("In [4]: ")
	tm.send(`panic("boom")` + "\r")
	tm.expect("boom")
	tm.expect("In [")
	tm.send(`fmt.Sprint("still", " alive")` + "\r")
	tm.expect(`"still alive"`)
	tm.expect("In [")
	tm.send("\x04") // Ctrl-D: leave; the console shuts the kernel down
	if err := cmd.Wait(); err != nil {
		tm.mu.Lock()
		t.Fatalf("jupyter console: %v\n%s", err, tm.out.String())
	}
}
