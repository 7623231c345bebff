package kernel

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/kernel/internal/crashwatch"
)

// TestHelperKernelProcess is the kernel process of TestRunProcess: the
// test binary re-executed, serving the fake session through Command.Run
// (stdout/stderr capture, signals, lazy session).
func TestHelperKernelProcess(t *testing.T) {
	file := os.Getenv("GNNREPL_KERNEL_HELPER")
	if file == "" {
		t.Skip("helper process of TestRunProcess")
	}
	code := Command{NewSession: func() (Session, error) { return newFake(), nil }}.Run([]string{"-f", file})
	os.Exit(code)
}

// freePorts returns n distinct free TCP ports on 127.0.0.1.
func freePorts(t *testing.T, n int) []int {
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// startProcess starts the helper kernel process and a client for it.
func startProcess(t *testing.T) (*exec.Cmd, *testClient, *strings.Builder) {
	t.Helper()
	p := freePorts(t, 5)
	info := ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", ShellPort: p[0], IOPubPort: p[1], StdinPort: p[2], ControlPort: p[3], HBPort: p[4],
		Key: testKey, SignatureScheme: "hmac-sha256", KernelName: "gnnrepl"}
	b, _ := json.Marshal(info)
	file := filepath.Join(t.TempDir(), "kernel-test.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKernelProcess$")
	cmd.Env = append(os.Environ(), "GNNREPL_KERNEL_HELPER="+file)
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	c := dialClient(t, info)
	c.waitSubscribed()
	return cmd, c, stderr
}

func waitExit(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("kernel process: %v", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("kernel process did not exit")
	}
}

func TestRunProcess(t *testing.T) {
	cmd, c, stderr := startProcess(t)
	// Output of compiled code (os.Stdout, file descriptor 2) is captured
	// and delivered, in order, before the cell's idle status.
	reply, pub := c.execute("out interpreted\nstdout compiled\nfd2 from C\nresult 1", nil)
	if reply["status"] != "ok" {
		t.Fatalf("reply %v", reply)
	}
	var streams []string
	for _, m := range pub {
		if m.Header.MsgType == "stream" {
			s := content(t, m)
			streams = append(streams, s["name"].(string)+":"+s["text"].(string))
		}
	}
	joined := strings.Join(streams, "|")
	for _, want := range []string{"stdout:interpreted\n", "compiled\n", "stderr:from C\n"} {
		if !strings.Contains(joined, want) {
			t.Errorf("streams %q lack %q", joined, want)
		}
	}
	// SIGINT (Ctrl-C reaching Jupyter's process group) interrupts the cell
	// and does not kill the kernel.
	id := c.send(c.shell, "execute_request", map[string]any{"code": "block"})
	c.waitIOPub(id, "execute_input")
	for {
		cmd.Process.Signal(os.Interrupt)
		select {
		case m := <-c.shellCh:
			if parentID(m) != id {
				continue
			}
			if r := content(t, m); r["ename"] != "KeyboardInterrupt" {
				t.Errorf("SIGINT reply %v", r)
			}
		case <-time.After(50 * time.Millisecond):
			continue // the cell may not have started yet: signal again
		}
		break
	}
	if reply, _ := c.execute("result alive", nil); reply["status"] != "ok" {
		t.Fatalf("after SIGINT: %v", reply)
	}
	sd := c.send(c.control, "shutdown_request", map[string]any{"restart": false})
	if r := content(t, c.reply(c.controlCh, sd)); r["status"] != "ok" {
		t.Errorf("shutdown_reply %v", r)
	}
	waitExit(t, cmd)
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("kernel stderr:\n%s", stderr.String())
	}
}

func TestRunProcessSIGTERM(t *testing.T) {
	cmd, c, _ := startProcess(t)
	if reply, _ := c.execute("result 1", nil); reply["status"] != "ok" {
		t.Fatalf("reply %v", reply)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, cmd)
}

// TestParentDeath: a kernel started by jupyter_client (JPY_PARENT_PID set)
// exits when its parent dies, leaving no orphan.
func TestParentDeath(t *testing.T) {
	p := freePorts(t, 5)
	info := ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", ShellPort: p[0], IOPubPort: p[1], StdinPort: p[2], ControlPort: p[3], HBPort: p[4], Key: testKey, SignatureScheme: "hmac-sha256"}
	b, _ := json.Marshal(info)
	dir := t.TempDir()
	file := filepath.Join(dir, "kernel.json")
	os.WriteFile(file, b, 0o600)
	pidFile := filepath.Join(dir, "pid")
	// sh is the kernel's parent; it records the kernel's pid and waits.
	sh := exec.Command("sh", "-c", `"$0" -test.run='^TestHelperKernelProcess$' >/dev/null 2>&1 & echo $! > "$1"; wait`, os.Args[0], pidFile)
	sh.Env = append(os.Environ(), "GNNREPL_KERNEL_HELPER="+file, "JPY_PARENT_PID=1")
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	c := dialClient(t, info)
	c.waitSubscribed()
	pb, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(pb), &pid); err != nil {
		t.Fatal(err)
	}
	sh.Process.Kill()
	sh.Wait()
	deadline := time.Now().Add(testTimeout)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the kernel outlived its parent")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processAlive reports whether pid runs (a zombie, exited but not yet
// reaped by whatever adopted it, counts as gone).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}

// TestRunProcessFatalError: a fatal runtime error in a cell ends the kernel
// process promptly, its whole report in the server's log, so that Jupyter
// restarts it. The stack overflow's report, with every goroutine's stack,
// is far longer than the captured stderr pipe's buffer: before descriptor
// 2 was made non-blocking the runtime blocked forever writing it into the
// pipe no goroutine was left to drain. The reason ("fatal error: ...")
// goes to descriptor 2 only, before the runtime copies to the crash
// output: the crash watcher takes it from the pipe.
func TestRunProcessFatalError(t *testing.T) {
	for _, tc := range []struct {
		code string
		want []string
	}{
		{"overflow", []string{"runtime: goroutine stack exceeds", "fatal error: stack overflow", "runtime.newstack", "kernel.recurse"}},
		{"mapwrites", []string{"fatal error: concurrent map writes", "goroutine "}},
		{"oom", []string{"fatal error: runtime: out of memory", "\ngoroutine "}},
	} {
		t.Run(tc.code, func(t *testing.T) {
			cmd, c, stderr := startProcess(t)
			watcher := waitWatcher(t, cmd.Process.Pid)
			c.send(c.shell, "execute_request", map[string]any{"code": tc.code})
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("the kernel exited with status 0 after a fatal error")
				}
			case <-time.After(testTimeout):
				t.Fatal("the kernel process hangs after a fatal runtime error")
			}
			waitGone(t, watcher)
			log := stderr.String()
			for _, w := range tc.want {
				if !strings.Contains(log, w) {
					t.Errorf("the server log lacks %q; it has %d bytes: %.800q", w, len(log), log)
				}
			}
			// The reason comes first, and the report once: the watcher
			// cut the report's copy from what it took out of the pipe.
			if i, j := strings.Index(log, "fatal error:"), strings.Index(log, "\ngoroutine "); i < 0 || j < i {
				t.Errorf("the reason does not precede the stacks: %.800q", log)
			}
			if n := strings.Count(log, "[running]:"); n != 1 {
				t.Errorf("the log has %d copies of the crashing goroutine's stack: %.800q", n, log)
			}
		})
	}
}

// waitWatcher returns the pid of the crash watcher of the kernel process
// kpid once it runs.
func waitWatcher(t *testing.T, kpid int) int {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		if pid := findWatcher(kpid); pid > 0 {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the kernel started no crash watcher")
	return 0
}

// findWatcher returns the pid of a child of kpid whose command line is
// the crash watcher's, or 0.
func findWatcher(kpid int) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		var state string
		var ppid int
		if i < 0 {
			continue
		}
		if _, err := fmt.Sscan(string(b[i+1:]), &state, &ppid); err != nil || ppid != kpid {
			continue
		}
		cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cl), crashwatch.Arg) {
			return pid
		}
	}
	return 0
}

// waitGone fails unless pid has ended within a second.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the crash watcher %d outlived the kernel by a second", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCrashWatcherDescriptors: the crash watcher holds only the read ends
// of the crash pipe and of descriptor 2's pipe (never its write end, no
// socket of the kernel), a process a cell starts does not inherit the
// crash pipe, and the watcher ends with the kernel.
func TestCrashWatcherDescriptors(t *testing.T) {
	cmd, c, stderr := startProcess(t)
	kpid := cmd.Process.Pid
	watcher := waitWatcher(t, kpid)
	kernelErr := fdTarget(t, kpid, 2)
	fds := openFDs(t, watcher)
	if len(fds) != 5 {
		t.Errorf("the watcher has descriptors %v, want 0-4", fds)
	}
	crashPipe := fds[crashwatch.WatchFD]
	if fds[crashwatch.StderrFD] != kernelErr {
		t.Errorf("watcher descriptor %d is %s, want the kernel's descriptor 2 %s", crashwatch.StderrFD, fds[crashwatch.StderrFD], kernelErr)
	}
	for fd, target := range fds {
		if strings.HasPrefix(target, "socket:") {
			t.Errorf("the watcher holds a socket (descriptor %d)", fd)
		}
		if (target == kernelErr || target == crashPipe) && fdWritable(t, watcher, fd) {
			t.Errorf("the watcher holds a write end of %s (descriptor %d)", target, fd)
		}
	}
	reply, pub := c.execute("spawn", nil)
	var child int
	for _, m := range pub {
		if m.Header.MsgType == "execute_result" {
			data, _ := content(t, m)["data"].(map[string]any)
			fmt.Sscan(fmt.Sprint(data["text/plain"]), &child)
		}
	}
	if child == 0 {
		t.Fatalf("spawn: %v", reply)
	}
	defer syscall.Kill(child, syscall.SIGKILL)
	for fd, target := range openFDs(t, child) {
		if target == crashPipe {
			t.Errorf("a process the kernel started inherited the crash pipe (descriptor %d)", fd)
		}
	}
	sd := c.send(c.control, "shutdown_request", map[string]any{"restart": false})
	c.reply(c.controlCh, sd)
	waitExit(t, cmd)
	waitGone(t, watcher)
	if strings.Contains(stderr.String(), "crash watcher") {
		t.Errorf("kernel stderr:\n%s", stderr.String())
	}
}

// openFDs returns pid's open descriptors and what they refer to.
func openFDs(t *testing.T, pid int) map[int]string {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]string{}
	for _, e := range ents {
		var fd int
		fmt.Sscan(e.Name(), &fd)
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd)); err == nil {
			m[fd] = target
		}
	}
	return m
}

func fdTarget(t *testing.T, pid, fd int) string {
	t.Helper()
	s, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fdWritable reports whether pid's descriptor fd was opened for writing.
func fdWritable(t *testing.T, pid, fd int) bool {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", pid, fd))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			var flags int
			fmt.Sscanf(strings.TrimSpace(v), "%o", &flags)
			return flags&syscall.O_ACCMODE != syscall.O_RDONLY
		}
	}
	return false
}
