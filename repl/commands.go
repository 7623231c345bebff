package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

type command struct {
	name, args, help string
}

var commands = []command{
	{":help", "", "List the commands."},
	{":doc", "NAME", "Show the documentation of NAME: a package member (tensor.Zeros, fmt.Println), a method (tensor.Tensor.Reshape), a field (nn.GCNOptions.HiddenFeats), a variable or its field or method (model, model.Layers, model.Forward)."},
	{":vars", "", "List the session's variables with their types and values."},
	{":time", "CODE", "Run CODE and print its wall time and the memory it allocated on the Go heap."},
	{":mem", "", "Print tensor memory per device (allocated, peak)."},
	{":load", "FILE", "Run the Go source in FILE in this session (a script of statements, or a file with a package clause)."},
	{":recursion", "[N]", "Show or set the recursion limit: the interpreted calls a goroutine may have on its stack before a RecursionError (default 10000; 0 for none)."},
	{":reset", "", "Forget every variable, function, type and import, and run the prelude again."},
	{":quit", "", "Leave the shell (Ctrl-D does too)."},
}

func findCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// IsCommand reports whether src is a :command rather than Go source.
func IsCommand(src string) bool {
	return strings.HasPrefix(strings.TrimSpace(src), ":")
}

// Var describes a session variable or constant.
type Var struct {
	Name  string
	Kind  string // "var" or "const"
	Type  string
	Value string // display string, cut to 80 bytes
}

// Vars lists the session's variables and constants (those the prelude
// and the cells declared) sorted by name. It waits for a running Eval.
func (s *Session) Vars() []Var {
	s.mu.Lock()
	g := s.in.Globals()
	s.mu.Unlock()
	var out []Var
	for name, v := range g {
		if strings.HasPrefix(name, "_") || !v.IsValid() {
			continue
		}
		kind := s.kind(name)
		if kind == "" {
			kind = "var"
		}
		val := strings.Join(strings.Fields(Format(v)), " ") // one line per variable
		if len(val) > 80 {
			val = val[:77] + "..."
		}
		out = append(out, Var{Name: name, Kind: kind, Type: typeString(v), Value: val})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RunCommand runs a :command line (see :help) and writes what it prints to
// out. It returns the result of the code :time runs, ErrQuit for :quit, and
// an error for an unknown command or a failing one.
func (s *Session) RunCommand(ctx context.Context, line string, out io.Writer) (Result, error) {
	line = strings.TrimSpace(line)
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case ":vars", ":mem", ":reset", ":quit", ":q":
		if arg != "" {
			return Result{}, fmt.Errorf("%s takes no argument (got %q)", name, arg)
		}
	}
	switch name {
	case ":help", ":h", ":?":
		tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
		for _, c := range commands {
			fmt.Fprintf(tw, "%s %s\t%s\n", c.name, c.args, c.help)
		}
		fmt.Fprintln(tw, "Ctrl-C\tinterrupt the running code (or clear the line)")
		fmt.Fprintln(tw, "Tab\tcomplete names, package members, fields and methods")
		fmt.Fprintln(tw, "errors\tv := must.Dataset(datasets.LoadPlanetoid(\"cora\", \"\")) is the value or fails the cell (must.OK(err) for any call)")
		return Result{}, tw.Flush()
	case ":doc":
		if arg == "" {
			return Result{}, errors.New(":doc needs a NAME, e.g. :doc fmt.Println")
		}
		d, ok := s.Doc(arg)
		if !ok {
			return Result{}, fmt.Errorf(":doc: %s", s.docMiss(arg))
		}
		fmt.Fprintln(out, d)
		return Result{}, nil
	case ":vars":
		tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
		for _, v := range s.Vars() {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Name, v.Type, v.Value)
		}
		return Result{}, tw.Flush()
	case ":time":
		if arg == "" {
			return Result{}, errors.New(":time needs code to run, e.g. :time f(x)")
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		res, err := s.Eval(ctx, arg)
		wall := time.Since(t0)
		runtime.ReadMemStats(&after)
		if _, notRun := errors.AsType[*CompileError](err); notRun {
			return res, err // it did not run: no time to report
		}
		fmt.Fprintf(out, "time: %v, allocated: %s in %d allocations\n", wall.Round(time.Microsecond),
			bytesString(after.TotalAlloc-before.TotalAlloc), after.Mallocs-before.Mallocs)
		return res, err
	case ":mem":
		if s.opts.MemStats == nil {
			fmt.Fprintln(out, "no memory statistics (the tensor package does not provide them)")
			return Result{}, nil
		}
		fmt.Fprintln(out, strings.TrimRight(s.opts.MemStats(), "\n"))
		return Result{}, nil
	case ":load":
		if arg == "" {
			return Result{}, errors.New(":load needs a FILE")
		}
		b, err := os.ReadFile(arg)
		if err != nil {
			return Result{}, fmt.Errorf(":load: %w", err)
		}
		return s.EvalSource(ctx, arg, string(b))
	case ":reset":
		if err := s.Reset(); err != nil {
			return Result{}, fmt.Errorf(":reset: %w", err)
		}
		fmt.Fprintln(out, "session reset")
		return Result{}, nil
	case ":recursion":
		if arg == "" {
			n := s.frames.limit.Load()
			if n <= 0 {
				fmt.Fprintln(out, "recursion limit: none")
			} else {
				fmt.Fprintf(out, "recursion limit: %d interpreted calls\n", n)
			}
			return Result{}, nil
		}
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return Result{}, fmt.Errorf(":recursion needs a number of calls, 0 for no limit (got %q)", arg)
		}
		s.SetRecursionLimit(n)
		return Result{}, nil
	case ":quit", ":q", ":exit":
		return Result{}, ErrQuit
	}
	return Result{}, fmt.Errorf("unknown command %s (try :help)", name)
}

func bytesString(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.2f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
