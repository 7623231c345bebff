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

// TestRunProcessFatalError: a fatal runtime error in a cell (here a stack
// overflow whose report, with every goroutine's stack, is far longer than
// the captured stderr pipe's buffer) ends the kernel process promptly, the
// reason in the server's log, so that Jupyter restarts it. Before
// descriptor 2 was made non-blocking the runtime blocked forever writing
// the report into the pipe no goroutine was left to drain.
func TestRunProcessFatalError(t *testing.T) {
	cmd, c, stderr := startProcess(t)
	c.send(c.shell, "execute_request", map[string]any{"code": "overflow"})
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
	// The runtime copies its report to the SetCrashOutput file from the
	// stacks on: the "fatal error: stack overflow" line before them goes
	// to descriptor 2 only. The stacks name the overflow (runtime.newstack
	// above the recursing frames).
	if log := stderr.String(); !strings.Contains(log, "runtime.newstack") || !strings.Contains(log, "kernel.recurse") {
		t.Errorf("the server log lacks the crash report; it has %d bytes: %.500q", len(log), log)
	}
}
