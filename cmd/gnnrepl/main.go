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
// --data DIR sets GNNREPL_DATA, the directory dataset loaders read.
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
	"os"
	"os/signal"
	"path/filepath"
	"strings"

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
  --data DIR      data directory for the dataset loaders (sets GNNREPL_DATA)
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
	switch cmd {
	case "":
		return shell(stdin, stdout, stderr)
	case "run":
		return script(args, stdin, stderr)
	case "doctor":
		doctor(stdout, data)
		return 0
	case "kernel":
		if runKernel == nil {
			fmt.Fprintln(stderr, "gnnrepl kernel: the Jupyter kernel is not built into this binary yet")
			return 1
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
