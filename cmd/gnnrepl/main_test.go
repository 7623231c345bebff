package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

var binary string

// TestMain builds gnnrepl once for the tests that run it as a process.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gnnrepl-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "gnnrepl")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building gnnrepl: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// command returns gnnrepl with args, in an environment of its own.
func command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(binary, args...)
	cmd.Dir = home
	cmd.Env = append(callerEnv(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"GNNREPL_HISTORY="+filepath.Join(home, "history"),
		"TERM=dumb",
	)
	return cmd
}

// callerEnv is the test's environment without what would make the
// binary's behaviour depend on who runs the tests: GNNREPL_DATA (a
// caller's data directory holding Cora turns the synthetic fallback the
// tests expect into the real dataset). A test that wants it sets it.
func callerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GNNREPL_DATA=") {
			env = append(env, kv)
		}
	}
	return env
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

func TestRunScript(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.go")
	os.WriteFile(good, []byte("import \"strings\"\n\nfunc shout(s string) string { return strings.ToUpper(s) }\n\nmsg := shout(\"ok\")\nfmt.Println(msg)\n"), 0o644)
	cmd := command(t, "run", good)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != "OK\n" {
		t.Errorf("run good.go: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}

	file := filepath.Join(dir, "main.go")
	os.WriteFile(file, []byte("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"from main\")\n}\n"), 0o644)
	out, err := command(t, "run", file).Output()
	if err != nil || string(out) != "from main\n" {
		t.Errorf("run main.go: %v, %q", err, out)
	}
}

func TestRunFailingScript(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, src, want string }{
		{"compile.go", "x := 1\nfmt.Println(x, notDeclared)\nfmt.Println(\"not reached\")\n", "compile.go:2:16: undefined: notDeclared"},
		{"panic.go", "func f() {\n\tpanic(\"broken\")\n}\nfmt.Println(\"before\")\nf()\n", "panic: broken"},
	} {
		path := filepath.Join(dir, c.name)
		os.WriteFile(path, []byte(c.src), 0o644)
		cmd := command(t, "run", path)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if code := exitCode(err); code != 1 {
			t.Errorf("%s: exit status %d (%v), want 1", c.name, code, err)
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s: stderr %q lacks %q", c.name, stderr.String(), c.want)
		}
		if strings.Contains(stdout.String(), "not reached") {
			t.Errorf("%s: ran past the error: %q", c.name, stdout.String())
		}
	}
	if code := exitCode(command(t, "run", filepath.Join(dir, "missing.go")).Run()); code != 1 {
		t.Errorf("missing file: exit status %d", code)
	}
}

func TestRunStdin(t *testing.T) {
	for _, args := range [][]string{{"run", "-"}, {"run"}} {
		cmd := command(t, args...)
		cmd.Stdin = strings.NewReader("a := 6\nb := 7\nfmt.Println(a * b)\n")
		out, err := cmd.Output()
		if err != nil || string(out) != "42\n" {
			t.Errorf("%v: %v, %q", args, err, out)
		}
	}
	cmd := command(t, "run", "-")
	cmd.Stdin = strings.NewReader("var v int = \"s\"\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 1 || !strings.Contains(stderr.String(), "stdin:1:") {
		t.Errorf("failing stdin script: exit %d, stderr %q", code, stderr.String())
	}
}

// TestRunErrorLines: errors of scripts, given as a file, on stdin or piped
// into the shell, name the script's line: a compile error, a panic at top
// level (yaegi itself names the first statement of the cell), an
// unterminated call at the end.
func TestRunErrorLines(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"x := 1\nfor i := 0; i < 2; i++ {\n\tx += i\n}\n\ny := x + notDeclared\n", ":6:10: undefined: notDeclared"},
		{"import \"strings\"\n\nfunc up(s string) string {\n\treturn strings.ToUpper(s)\n}\n\nx := up(\"a\")\nfmt.Println(x)\npanic(\"line 9\")\n", ":9:1: main(...)"},
		{"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n\tvar m map[string]int\n\tm[\"a\"] = 1\n}\n", ":8:2: main.main(...)"},
		{"x := 1\nfmt.Println(x\n", ":2:14: missing ','"},
	} {
		path := filepath.Join(t.TempDir(), "s.go")
		os.WriteFile(path, []byte(c.src), 0o644)
		runs := map[string]*exec.Cmd{"file": command(t, "run", path), "stdin": command(t, "run", "-")}
		if !strings.HasPrefix(c.src, "package") {
			runs["shell"] = command(t)
		}
		for how, cmd := range runs {
			if how != "file" {
				cmd.Stdin = strings.NewReader(c.src)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if code := exitCode(cmd.Run()); code != 1 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("%s %q: exit %d, stderr %q, want %q", how, c.src, code, stderr.String(), c.want)
			}
			if strings.Contains(stderr.String(), "found '}'") {
				t.Errorf("%s %q: an error about the session's own closing brace: %q", how, c.src, stderr.String())
			}
		}
	}
}

// TestRunStdinTerminal: `gnnrepl run` on a terminal asks for a FILE or "-",
// and with "-" says that it reads the script from stdin.
func TestRunStdinTerminal(t *testing.T) {
	cmd := command(t, "run")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(tty) // EIO once the process has exited
	tty.Close()
	if code := exitCode(cmd.Wait()); code != 2 || !strings.Contains(string(out), "give a FILE, or - to read the script from stdin") {
		t.Errorf("run on a terminal: exit %d, output %q", code, out)
	}

	cmd = command(t, "run", "-")
	tty, err = pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	term := &terminal{t: t, tty: tty}
	go io.Copy(term, tty)
	term.expect("reading the script from stdin; end it with Ctrl-D")
	tty.Write([]byte("fmt.Println(6 * 7)\n\x04"))
	term.expect("42")
	if err := cmd.Wait(); err != nil {
		t.Errorf("run - on a terminal: %v", err)
	}
}

// TestPipedShell: the shell with a piped stdin reads lines without prompts,
// prints values, and stops with status 1 at the first error.
func TestPipedShell(t *testing.T) {
	cmd := command(t)
	cmd.Stdin = strings.NewReader("x := 3\nfunc sq(n int) int {\n\treturn n * n\n}\nsq(x)\n:vars\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// :vars lists the preloaded variables too; x is the last, as sorted.
	if got := string(out); !strings.HasPrefix(got, "9\nds ") || !strings.Contains(got, "\nsampler ") || !strings.HasSuffix(got, "x        int                       3\n") {
		t.Errorf("stdout %q", got)
	}

	cmd = command(t)
	cmd.Stdin = strings.NewReader("y := 1\ny + undefinedThing\nfmt.Println(\"not reached\")\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	// Positions are the stream's lines.
	if !strings.Contains(stderr.String(), "stdin:2:5: undefined: undefinedThing") || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

func TestDoctor(t *testing.T) {
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "cora"), 0o755)
	os.WriteFile(filepath.Join(data, "cora", "ind.cora.x"), []byte("x"), 0o644)
	out, err := command(t, "--data", data, "doctor").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Go runtime", "backend cpu     available: BLAS: ", "backend meta", "Freed memory    lazy (MADV_FREE", "CUDA driver", "\nMPI  ", "\nNCCL  ", "\nMETIS  ", "data directory  " + data + " (--data)", "cora (1 files, 1 B)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	cmd := command(t, "doctor")
	cmd.Env = append(cmd.Env, "GNNREPL_DATA="+data)
	out, _ = cmd.Output()
	if !strings.Contains(string(out), data+" (GNNREPL_DATA)") {
		t.Errorf("doctor with GNNREPL_DATA:\n%s", out)
	}
}

func TestDataFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		data string
		rest []string
	}{
		{nil, "", nil},
		{[]string{"--data", "d", "run", "f.go"}, "d", []string{"run", "f.go"}},
		{[]string{"run", "--data=d", "f.go"}, "d", []string{"run", "f.go"}},
		{[]string{"doctor", "-data", "d"}, "d", []string{"doctor"}},
		{[]string{"kernel", "-f", "c.json"}, "", []string{"kernel", "-f", "c.json"}},
	} {
		data, rest, err := dataFlag(c.args)
		if err != nil || data != c.data || !reflect.DeepEqual(rest, c.rest) {
			t.Errorf("dataFlag(%q) = %q %q %v, want %q %q", c.args, data, rest, err, c.data, c.rest)
		}
	}
	if _, _, err := dataFlag([]string{"--bogus"}); err == nil {
		t.Error("dataFlag accepted --bogus")
	}
	if code := run([]string{"--bogus"}, os.Stdin, io.Discard, io.Discard); code != 2 {
		t.Errorf("usage error: exit %d, want 2", code)
	}
	// run exports --data as GNNREPL_DATA; t.Setenv restores it for the
	// commands later tests start.
	t.Setenv("GNNREPL_DATA", os.Getenv("GNNREPL_DATA"))
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"--data", "d", "-h"}, {"--version"}} {
		var out bytes.Buffer
		if code := run(args, os.Stdin, &out, io.Discard); code != 0 || out.Len() == 0 {
			t.Errorf("gnnrepl %q: exit %d, stdout %q; want 0 and the usage or version", args, code, out.String())
		}
	}
}

// terminal is a gnnrepl process on a pseudo-terminal, with its output
// collected as it comes.
type terminal struct {
	t    *testing.T
	tty  *os.File
	cmd  *exec.Cmd // the process on the terminal (startShell)
	mu   sync.Mutex
	out  bytes.Buffer
	seen int // output before this offset has been matched already
}

func (term *terminal) Write(p []byte) (int, error) {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.out.Write(p)
}

func (term *terminal) send(s string) {
	term.t.Helper()
	if _, err := term.tty.Write([]byte(s)); err != nil {
		term.t.Fatalf("writing %q: %v", s, err)
	}
}

// expect waits for want to appear in the output after what earlier calls
// matched. The deadline only guards against a hung process.
func (term *terminal) expect(want string) {
	term.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		term.mu.Lock()
		s := term.out.String()
		i := strings.Index(s[term.seen:], want)
		if i >= 0 {
			term.seen += i + len(want)
		}
		term.mu.Unlock()
		if i >= 0 {
			return
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("no %q in the output after offset %d:\n%s", want, term.seen, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestShellPTY drives the interactive shell through a pseudo-terminal, as a
// person would: lines, a multi-line function, tab completion, Ctrl-C during
// a long interpreted loop and at the prompt, :quit.
func TestShellPTY(t *testing.T) {
	cmd := command(t)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	term := &terminal{t: t, tty: tty}
	copied := make(chan struct{})
	go func() { io.Copy(term, tty); close(copied) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
		}
	}()

	term.expect("gnn> ")
	term.send("x := 20\r")
	term.expect("gnn> ")
	term.send("func add(a, b int) int {\r")
	term.expect("...> ")
	term.send("return a + b\r")
	term.expect("...> ")
	term.send("}\r")
	term.expect("gnn> ")
	term.send("add(x, 22)\r")
	term.expect("42")
	term.expect("gnn> ")

	// Ctrl-C during a long interpreted loop: the prompt comes back and the
	// session keeps its variables.
	term.send("n := 0\r")
	term.expect("gnn> ")
	term.send("fmt.Println(\"looping\"); for { n++ }\r")
	term.expect("looping")
	time.Sleep(100 * time.Millisecond)
	term.send("\x03")
	term.expect("interrupted")
	term.expect("gnn> ")
	term.send("x + 1\r")
	term.expect("21")
	term.send("n > 0\r")
	term.expect("true")
	term.expect("gnn> ")

	// Ctrl-C at the prompt clears the line.
	term.send("this is not go")
	term.send("\x03")
	term.expect("gnn> ")
	term.send("x * 2\r")
	term.expect("40")
	term.expect("gnn> ")

	// Tab completes a session function.
	term.send("ad\t")
	term.send("(1, 2)\r")
	term.expect("3")
	term.expect("gnn> ")

	// An error prints with its position and the session goes on.
	term.send("x + undefinedName\r")
	term.expect("input:1:5: undefined: undefinedName")
	term.expect("gnn> ")

	term.send(":quit\r")
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the shell did not exit after :quit")
	}
	hist, err := os.ReadFile(filepath.Join(cmd.Dir, "history"))
	if err != nil || !strings.Contains(string(hist), "add(x, 22)") {
		t.Errorf("history file: %v %q", err, hist)
	}
}

// TestDoctorUsesCUDALoaderPath checks that doctor reports what the engine's
// CUDA loader finds, with the loader's own settings: a broken libcuda.so.1
// named by GNNREPL_LIBCUDA is the library doctor names (whether or not the
// machine has a driver the dynamic loader would find).
func TestDoctorUsesCUDALoaderPath(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "libcuda.so.1")
	os.WriteFile(fake, []byte("not a shared object"), 0o644)
	cmd := command(t, "doctor")
	cmd.Env = append(cmd.Env, "GNNREPL_LIBCUDA="+fake)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "backend cuda") || !strings.Contains(string(out), fake) {
		t.Errorf("doctor does not report the loader's search of %s:\n%s", fake, out)
	}
}

// TestDataDirExplicit: --data naming a missing directory, or one without
// Cora, is an error naming the directory and what is missing; without
// --data, a missing Cora falls back to a synthetic graph and says so.
func TestDataDirExplicit(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.go")
	os.WriteFile(script, []byte("fmt.Println(ds.Name)\n"), 0o644)
	missing := filepath.Join(dir, "no-such-dir")
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(filepath.Join(empty, "cora"), 0o755)
	os.WriteFile(filepath.Join(empty, "cora", "ind.cora.x"), []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--data", missing, "run", script}, []string{"--data " + missing + ": no such directory"}},
		{[]string{"--data", script, "run", script}, []string{script + ": not a directory"}},
		{[]string{"--data", empty, "run", script}, []string{"--data " + empty + " lacks the Cora dataset", filepath.Join(empty, "cora", "ind.cora.")}},
		{[]string{"--data", missing}, []string{"no such directory"}}, // the shell too
	} {
		cmd := command(t, c.args...)
		cmd.Stdin = strings.NewReader("1+1\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if code := exitCode(cmd.Run()); code != 2 || stdout.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, want 2 and nothing", c.args, code, stdout.String())
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, stderr.String(), w)
			}
		}
	}
	// The same directory through GNNREPL_DATA (no --data): the synthetic
	// fallback, announced on stderr.
	cmd := command(t, "run", script)
	cmd.Env = append(cmd.Env, "GNNREPL_DATA="+empty)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != "synthetic-cora\n" || !strings.Contains(stderr.String(), "using a synthetic graph") {
		t.Errorf("GNNREPL_DATA without cora: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	// No directory at all (an empty user cache): the same.
	cmd = command(t, "run", script)
	stdout.Reset()
	stderr.Reset()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != "synthetic-cora\n" || !strings.Contains(stderr.String(), "using a synthetic graph") {
		t.Errorf("no data directory: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	// The shared data's Cora with --data: loaded.
	shared := sharedDataDir(t)
	if out, err := command(t, "--data", shared, "run", script).Output(); err != nil || string(out) != "cora\n" {
		t.Errorf("--data %s: %v, %q", shared, err, out)
	}
}

// TestKernelInstallFromGoRun: kernel install from a binary in a go run work
// directory is refused and asks for --executable; with --executable it
// installs.
func TestKernelInstallFromGoRun(t *testing.T) {
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/tmp/go-build950208260/b001/exe/gnnrepl", true},
		{"/var/folders/x/T/go-build1/b001/exe/gnnrepl", true},
		{"/home/u/go/bin/gnnrepl", false},
		{"/tmp/go-build-notes/gnnrepl", false},
	} {
		if got := goRunBinary(c.path); got != c.want {
			t.Errorf("goRunBinary(%q) = %v, want %v", c.path, got, c.want)
		}
	}
	if !hasFlag([]string{"--user", "--executable=/x"}, "executable") || !hasFlag([]string{"-executable", "/x"}, "executable") || hasFlag([]string{"--user"}, "executable") {
		t.Error("hasFlag")
	}
	// The test binary copied where go run would put it.
	exe := filepath.Join(t.TempDir(), "go-build123", "b001", "exe", "gnnrepl")
	os.MkdirAll(filepath.Dir(exe), 0o755)
	b, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	prefix := t.TempDir()
	cmd := command(t, "kernel", "install", "--prefix", prefix)
	cmd.Path = exe
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 2 || !strings.Contains(stderr.String(), "--executable") || !strings.Contains(stderr.String(), "go run") {
		t.Errorf("install from go run: exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(prefix, "share", "jupyter", "kernels", "gnnrepl", "kernel.json")); err == nil {
		t.Error("a kernelspec was written")
	}
	cmd = command(t, "kernel", "install", "--prefix", prefix, "--executable", binary)
	cmd.Path = exe
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("install --executable: %v: %s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(prefix, "share", "jupyter", "kernels", "gnnrepl", "kernel.json")); err != nil || !strings.Contains(string(b), binary) {
		t.Errorf("kernel.json: %v %s", err, b)
	}
}

// TestShellPTYOpenLine: output without a trailing newline is ended before
// the next prompt (readline would draw over it), and a cell without output
// gets no blank line.
func TestShellPTYOpenLine(t *testing.T) {
	term, exited := startShell(t, 160)
	term.expect("gnn> ")
	term.send("x := 1\r")
	term.expect("gnn> ")
	term.send("fmt.Print(\"partial\", x)\r")
	term.expect("partial1")
	term.expect("gnn> ")
	term.send("print(\"to-stderr\")\r")
	term.expect("to-stderr")
	term.expect("gnn> ")
	term.send(":quit\r")
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatal("the shell did not exit after :quit")
	}
	term.mu.Lock()
	out := term.out.String()
	term.mu.Unlock()
	segment := func(after string) string {
		i := strings.LastIndex(out, after) // the line as entered, after its redraws
		if i < 0 {
			t.Fatalf("no %q in %q", after, out)
		}
		rest := out[i+len(after):]
		j := strings.Index(rest, "gnn> ")
		if j < 0 {
			t.Fatalf("no prompt after %q in %q", after, out)
		}
		return rest[:j]
	}
	if s := segment("partial1"); !strings.Contains(s, "\n") {
		t.Errorf("no newline between the open output and the prompt: %q", s)
	}
	if s := segment("to-stderr\")"); strings.Count(s, "\n") < 2 {
		t.Errorf("stderr output without a newline not ended: %q in %q", s, out)
	}
	if s := segment("x := 1"); strings.Count(s, "\n") > 1 {
		t.Errorf("a blank line after a cell without output: %q", s)
	}
}

// TestRunOsExit: os.Exit(code) in a script is the exit status of gnnrepl
// run, as of the compiled program (the session makes it a panic).
func TestRunOsExit(t *testing.T) {
	dir := t.TempDir()
	for src, want := range map[string]int{"fmt.Println(1)\nos.Exit(3)\nfmt.Println(2)\n": 3, "os.Exit(0)\n": 0} {
		path := filepath.Join(dir, "exit.go")
		os.WriteFile(path, []byte(src), 0o644)
		var stdout bytes.Buffer
		cmd := command(t, "run", path)
		cmd.Stdout = &stdout
		if code := exitCode(cmd.Run()); code != want {
			t.Errorf("%q: exit status %d, want %d", src, code, want)
		}
		if strings.Contains(stdout.String(), "2") {
			t.Errorf("%q: ran past os.Exit: %q", src, stdout.String())
		}
	}
}

// TestShellSIGINTIdle: a SIGINT that reaches the shell between cells (a
// Ctrl-C typed just as a cell ends, before the prompt's raw mode) stops
// the goroutines cells left running, as Ctrl-C at the prompt does; it was
// dropped before the next cell.
func TestShellSIGINTIdle(t *testing.T) {
	term, exited := startShell(t, 160)
	term.expect("gnn> ")
	term.send("import \"sync/atomic\"\r")
	term.expect("gnn> ")
	term.send("var cnt int64; go func() { for { atomic.AddInt64(&cnt, 1) } }()\r")
	term.expect("gnn> ")
	// The goroutine is running before the signal (one not yet started
	// when an interrupt comes belongs to the next run).
	term.send("for atomic.LoadInt64(&cnt) == 0 { time.Sleep(time.Millisecond) }; fmt.Println(\"run\" + \"ning\")\r")
	term.expect("running")
	term.expect("gnn> ")
	term.cmd.Process.Signal(os.Interrupt)
	time.Sleep(200 * time.Millisecond)
	term.send("a := atomic.LoadInt64(&cnt); time.Sleep(300 * time.Millisecond); fmt.Println(\"delta\", atomic.LoadInt64(&cnt)-a)\r")
	term.expect("delta 0")
	term.expect("gnn> ")
	term.send(":quit\r")
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatal("the shell did not exit after :quit")
	}
}

// startShell starts the shell on a pseudo-terminal cols wide with args,
// and returns the terminal and the channel its exit arrives on; the
// process is killed at the end of the test if it is still running.
func startShell(t *testing.T, cols uint16, args ...string) (*terminal, chan error) {
	t.Helper()
	cmd := command(t, args...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, tty: tty, cmd: cmd}
	go io.Copy(term, tty)
	exited := make(chan error, 1)
	done := make(chan struct{})
	go func() { exited <- cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
		tty.Close()
	})
	return term, exited
}

// TestRunHelp: `gnnrepl run --help` prints the run command's usage (it
// tried to open a file named --help).
func TestRunHelp(t *testing.T) {
	out, err := command(t, "run", "--help").Output()
	if err != nil || !strings.HasPrefix(string(out), "usage: gnnrepl [--data DIR] run FILE.go") {
		t.Errorf("run --help: %v, %q", err, out)
	}
}

// TestRunStdlibImports: a script imports unsafe, syscall and os/exec (the
// tables yaegi keeps apart from its stdlib), and syscall.Exit ends gnnrepl
// run with its code, as os.Exit does.
func TestRunStdlibImports(t *testing.T) {
	path := filepath.Join(t.TempDir(), "imports.go")
	os.WriteFile(path, []byte(`package main

import (
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"
)

type pair struct {
	a int32
	b int64
}

func main() {
	var p pair
	fmt.Println(unsafe.Sizeof(p), unsafe.Alignof(p.b))
	x := 42
	*(*int)(unsafe.Pointer(&x)) = 7
	fmt.Println(x, syscall.Getpid() == syscall.Getpid(), syscall.SIGKILL)
	out, err := exec.Command("sh", "-c", "echo from sh").Output()
	fmt.Printf("%q %v\n", out, err)
	syscall.Exit(3)
	fmt.Println("not reached")
}
`), 0o644)
	cmd := command(t, "run", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(cmd.Run())
	want := "16 8\n7 true killed\n\"from sh\\n\" <nil>\n"
	if code != 3 || stdout.String() != want {
		t.Errorf("exit status %d, stdout %q (stderr %q); want 3, %q", code, stdout.String(), stderr.String(), want)
	}
}
