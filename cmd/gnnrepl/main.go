// Command gnnrepl is the interactive Go environment for training graph
// neural networks: a shell, a script runner, a Jupyter kernel and a
// diagnostic, in one binary.
//
//	gnnrepl [--data DIR]                 the interactive shell
//	gnnrepl [--data DIR] run FILE.go     run a script (- or piped stdin: read it from stdin)
//	gnnrepl doctor                       report Go, BLAS, CUDA driver and data directory
//	gnnrepl kernel -f CONNECTION_FILE    the Jupyter kernel (gnnrepl kernel install writes the kernelspec)
//	gnnrepl version
//
// --data DIR sets GNNREPL_DATA, the directory dataset loaders read. With
// --data, the shell and run refuse (status 2) a DIR that does not exist or
// lacks Cora's files (DIR/cora/ind.cora.*), which the session preloads as
// ds and g; without it (GNNREPL_DATA or the user cache directory) a missing
// Cora is replaced by a synthetic graph of the same shape, announced on
// standard error.
//
// gnnrepl kernel install refuses (status 2) to run from a `go run` binary,
// which is deleted when it exits, unless --executable names the binary the
// kernelspec should start.
//
// GNNREPL_BLAS=gonum keeps gonum's pure-Go BLAS even where OpenBLAS exists.
// Exit status: 0 on success, 1 when a script or a piped shell session fails,
// 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/gnnrepl/gnnrepl/internal/memrelease"
	_ "github.com/gnnrepl/gnnrepl/internal/memrelease/early" // re-executes before tensor's init opens OpenBLAS
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/dist"
	"github.com/gnnrepl/gnnrepl/repl"
	"golang.org/x/term"
)

const usage = `usage: gnnrepl [--data DIR] [command]

commands:
  (none)          the interactive shell (reads a script of lines when stdin is not a terminal)
  run FILE.go     run a Go script or file in a session; "-" reads it from stdin
  doctor          report the Go runtime, CPU BLAS, CUDA driver and data directory
  kernel ...      the Jupyter kernel (gnnrepl kernel -f FILE, gnnrepl kernel install)
  version         print the version
  help            print this help

flags (before or after the command):
  --data DIR      data directory for the dataset loaders (sets GNNREPL_DATA); it must
                  exist and hold cora/ (preloaded as ds); without --data a missing Cora
                  is replaced by a synthetic graph, with a notice
`

func main() {
	memrelease.Setup() // done already by package early's init; a no-op then
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command, returning the exit status.
func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	data, args, err := dataFlag(args)
	if err != nil {
		fmt.Fprintln(stderr, "gnnrepl:", err)
		fmt.Fprint(stderr, usage)
		return 2
	}
	if data != "" {
		if abs, err := filepath.Abs(data); err == nil {
			data = abs
		}
		os.Setenv("GNNREPL_DATA", data)
	}
	cmd := ""
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	if data != "" && (cmd == "" || cmd == "run") {
		if err := checkDataDir(data); err != nil {
			fmt.Fprintln(stderr, "gnnrepl:", err)
			return 2
		}
	}
	switch cmd {
	case "":
		return shell(stdin, stdout, stderr)
	case "run":
		if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprint(stdout, "usage: gnnrepl [--data DIR] run FILE.go|-\n\n"+
				"Runs FILE.go (a program with func main, or cells of statements and declarations) in a\n"+
				"session that holds the shell's preloaded names; \"-\" or no FILE reads stdin. The exit\n"+
				"status is 0, 1 on an error (printed with its position), or os.Exit's code.\n")
			return 0
		}
		return script(args, stdin, stderr)
	case "doctor":
		doctor(stdout, data)
		return 0
	case "kernel":
		if runKernel == nil {
			fmt.Fprintln(stderr, "gnnrepl kernel: the Jupyter kernel is not built into this binary yet")
			return 1
		}
		if len(args) > 0 && args[0] == "install" && !hasFlag(args[1:], "executable") {
			if exe, err := os.Executable(); err == nil && goRunBinary(exe) {
				fmt.Fprintf(stderr, "gnnrepl kernel install: this gnnrepl runs from %s, a temporary binary of `go run` "+
					"that is deleted when it exits, so a kernelspec pointing at it would not start; "+
					"build a lasting binary (go build -o ~/bin/gnnrepl ./cmd/gnnrepl, or go install ./cmd/gnnrepl) "+
					"and run its `kernel install`, or pass --executable PATH naming one\n", exe)
				return 2
			}
		}
		return runKernel(args)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "gnnrepl", version())
		return 0
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "gnnrepl: unknown command %q\n", cmd)
	fmt.Fprint(stderr, usage)
	return 2
}

// goRunBinary reports whether exe is a binary that `go run` built: it
// lies in a go-build work directory (…/go-build123/b001/exe/NAME), which
// go run removes when the program exits, or in Go's build cache.
func goRunBinary(exe string) bool {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(exe)), "/")
	for i := 0; i+2 < len(parts); i++ {
		if strings.HasPrefix(parts[i], "go-build") && parts[i+2] == "exe" && i+4 == len(parts) {
			return true
		}
	}
	caches := []string{os.Getenv("GOCACHE")}
	if c, err := os.UserCacheDir(); err == nil {
		caches = append(caches, filepath.Join(c, "go-build"))
	}
	for _, c := range caches {
		if c != "" && c != "off" && strings.HasPrefix(filepath.Clean(exe), filepath.Clean(c)+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// hasFlag reports whether args set the flag name (-name, --name, with
// "=value" or not).
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimLeft(a, "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// checkDataDir refuses a data directory given with --data that does not
// exist or lacks the Cora files the session preloads (as ds and g): only a
// session started without --data falls back to a synthetic graph, and says
// so (datasets.Preload).
func checkDataDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--data %s: no such directory", dir)
	case err != nil:
		return fmt.Errorf("--data %s: %v", dir, err)
	case !st.IsDir():
		return fmt.Errorf("--data %s: not a directory", dir)
	}
	if err := datasets.CheckPlanetoid(dir, "cora"); err != nil {
		return fmt.Errorf("--data %s lacks the Cora dataset that the session preloads as ds and g: %v; "+
			"put the eight ind.cora.* files in %s (gnnrepl doctor lists what the directory holds), "+
			"or leave out --data (setting %s=%s instead) to start with a synthetic Cora-shaped graph",
			dir, err, filepath.Join(dir, "cora"), datasets.DataDirEnv, dir)
	}
	return nil
}

// dataFlag takes --data DIR (or -data, --data=DIR) out of args wherever
// it is, except after a "--" or inside the kernel's own arguments.
func dataFlag(args []string) (data string, rest []string, err error) {
	fs := flag.NewFlagSet("gnnrepl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&data, "data", "", "data directory")
	var tail []string
	for len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "-version", "--version":
			// Spelled as flags but run as commands (see run).
			tail = append(tail, args...)
			return data, tail, nil
		}
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return data, []string{"help"}, nil
			}
			return "", nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		tail = append(tail, args[0])
		if args[0] == "kernel" || args[0] == "--" {
			tail = append(tail, args[1:]...)
			break
		}
		args = args[1:]
	}
	return data, tail, nil
}

// newSession starts the standard session; the prelude may take a moment
// (it loads the default graph).
func newSession(stdout, stderr io.Writer) (*repl.Session, error) {
	setupEngine()
	opts := repl.DefaultOptions()
	opts.Stdout, opts.Stderr = stdout, stderr
	return repl.New(opts)
}

func shell(stdin *os.File, stdout, stderr io.Writer) int {
	// The shell ends a line the cell's output left open before its prompt.
	stdout, stderr = repl.NewLineEndWriter(stdout), repl.NewLineEndWriter(stderr)
	s, err := newSession(stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "gnnrepl:", err)
		return 1
	}
	err = repl.RunShell(s, repl.ShellOptions{
		In: stdin, Out: stdout, Err: stderr,
		Banner: "gnnrepl " + version() + " — Go for graph neural networks. :help lists the commands, Ctrl-D quits.",
	})
	if err != nil {
		// RunShell has printed evaluation errors already.
		var ce *repl.CompileError
		var pe *repl.PanicError
		if !errors.As(err, &ce) && !errors.As(err, &pe) && !errors.Is(err, repl.ErrInterrupted) {
			fmt.Fprintln(stderr, "gnnrepl:", err)
		}
		return 1
	}
	return 0
}

// script runs `gnnrepl run FILE`: the whole file is one cell (a script of
// statements and declarations, or a Go file whose main runs).
func script(args []string, stdin *os.File, stderr io.Writer) int {
	var name string
	var src []byte
	var err error
	switch {
	case len(args) > 1:
		fmt.Fprintln(stderr, "gnnrepl run: one FILE at most")
		return 2
	case len(args) == 1 && args[0] != "-":
		name = args[0]
		src, err = os.ReadFile(name)
	case len(args) == 0 && term.IsTerminal(int(stdin.Fd())):
		fmt.Fprintln(stderr, "gnnrepl run: give a FILE, or - to read the script from stdin")
		return 2
	default:
		if term.IsTerminal(int(stdin.Fd())) {
			fmt.Fprintln(stderr, "gnnrepl run: reading the script from stdin; end it with Ctrl-D")
		}
		name = "stdin"
		src, err = io.ReadAll(stdin)
	}
	if err != nil {
		fmt.Fprintln(stderr, "gnnrepl run:", err)
		return 1
	}
	s, err := newSession(os.Stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "gnnrepl:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := s.EvalSource(ctx, name, string(src)); err != nil {
		// os.Exit(code) in a script (yaegi makes it a panic, so that a
		// session survives it) ends gnnrepl run with that code, as the
		// compiled program would.
		if pe, ok := errors.AsType[*repl.PanicError](err); ok {
			if msg, ok := pe.Value.(string); ok {
				var code int
				if n, _ := fmt.Sscanf(msg, "os.Exit(%d)", &code); n == 1 && msg == fmt.Sprintf("os.Exit(%d)", code) {
					dist.Shutdown(code != 0)
					return code
				}
			}
		}
		repl.PrintError(stderr, err)
		// Under mpirun, a failing rank ends the whole job (MPI_Abort)
		// rather than leave the others waiting in a collective.
		dist.Shutdown(true)
		return 1
	}
	dist.Shutdown(false)
	return 0
}

func version() string {
	v := buildVersion
	if info := buildInfo(); info != "" {
		v += " (" + info + ")"
	}
	return strings.TrimSpace(v)
}
