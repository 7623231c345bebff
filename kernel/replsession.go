package kernel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/gnnrepl/gnnrepl/datasets"
	"go/parser"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"

	"github.com/gnnrepl/gnnrepl/builtins/display"
	"github.com/gnnrepl/gnnrepl/repl"
)

// ReplSession adapts a *repl.Session, the yaegi evaluation session the
// terminal shell also uses, to Session. The interpreted program's
// fmt.Print*, log output and fmt.Scan* are routed to the running cell's
// ExecIO (reading stdin sends input_request, one per line); :commands
// (:doc, :vars, :time, :mem, :load, :reset) work in cells as in the shell.
//
// The value of a cell's final expression is shown as text/plain (the
// session's display string) plus the richer MIME types display.Bundle finds
// for it: HTML tables for graphs and tensors, and the MIMEBundle, HTML,
// Markdown, SVG and PNG methods of compiled types. The display package's
// functions (display.HTML, display.Show, progress bars, loss curves) publish
// through the running cell: Execute installs the cell's ExecIO as display's
// publisher, and it stays installed after the cell, so output of goroutines
// the cell left running appears under it.
type ReplSession struct {
	s      *repl.Session
	out    *switchWriter
	err    *switchWriter
	in     *cellInput
	notice string // the prelude's fallback notice, shown with the first cell
}

var (
	_ Session       = (*ReplSession)(nil)
	_ ExprEvaluator = (*ReplSession)(nil)
)

// NewReplSession starts a repl session with opts (repl.DefaultOptions() is
// gnnrepl's configuration); opts.Stdout, Stderr and Stdin are replaced by
// the running cell's streams.
func NewReplSession(opts repl.Options) (*ReplSession, error) {
	rs := &ReplSession{
		out: &switchWriter{w: os.Stdout},
		err: &switchWriter{w: os.Stderr},
		in:  &cellInput{},
	}
	opts.Stdout, opts.Stderr, opts.Stdin = rs.out, rs.err, rs.in
	s, err := repl.New(opts)
	if err != nil {
		return nil, fmt.Errorf("kernel: starting the repl session: %w", err)
	}
	rs.s = s
	// A prelude that fell back to synthetic data says so in the first
	// cell's output, not only in the server's log.
	rs.notice = datasets.TakePreloadNotice()
	return rs, nil
}

// Repl returns the underlying session.
func (r *ReplSession) Repl() *repl.Session { return r.s }

// Execute evaluates code as cell "In[n]", or runs it as a :command.
func (r *ReplSession) Execute(ctx context.Context, code string, cio ExecIO) (map[string]any, error) {
	r.out.set(cio.Stdout())
	r.err.set(cio.Stderr())
	r.in.set(cio)
	display.SetPublisher(display.FromCellIO(cio))
	if r.notice != "" {
		fmt.Fprintln(cio.Stderr(), r.notice)
		r.notice = ""
	}
	if r.s.Busy() && evaluates(code) {
		return nil, errBusy
	}
	var res repl.Result
	var err error
	if repl.IsCommand(code) {
		res, err = r.s.RunCommand(ctx, strings.TrimSpace(code), cio.Stdout())
		if errors.Is(err, repl.ErrQuit) {
			return nil, &replError{name: "Quit", err: errors.New(":quit does nothing in a notebook; use the Kernel menu to shut down or restart")}
		}
	} else {
		res, err = r.s.EvalSource(ctx, fmt.Sprintf("In[%d]", cio.ExecutionCount()), code)
	}
	if err != nil {
		return nil, wrapReplError(err)
	}
	return resultBundle(res), nil
}

// EvalExpr evaluates one expression (execute_request's user_expressions)
// with its output discarded; statements are refused.
func (r *ReplSession) EvalExpr(ctx context.Context, expr string) (map[string]any, error) {
	if _, err := parser.ParseExpr(expr); err != nil {
		return nil, &replError{name: "SyntaxError", err: fmt.Errorf("not an expression: %v", err)}
	}
	if r.s.Busy() {
		return nil, errBusy
	}
	r.out.set(io.Discard)
	r.err.set(io.Discard)
	r.in.set(discardIO{})
	res, err := r.s.Eval(ctx, expr)
	if err != nil {
		return nil, wrapReplError(err)
	}
	if b := resultBundle(res); b != nil {
		return b, nil
	}
	return map[string]any{}, nil
}

// Complete returns the session's completions at byte offset cursor.
func (r *ReplSession) Complete(code string, cursor int) ([]string, int, int) {
	return r.s.Complete(code, cursor)
}

// Inspect returns the documentation of the name at byte offset cursor.
// detailLevel is ignored: the session shows the same text at both levels.
func (r *ReplSession) Inspect(code string, cursor, detailLevel int) (string, bool) {
	return r.s.Inspect(code, cursor)
}

// IsComplete is repl.IsComplete.
func (r *ReplSession) IsComplete(code string) (string, string) {
	return repl.IsComplete(code)
}

// errBusy answers every cell while an interrupted cell is still inside a
// compiled call that does not stop on interrupt (time.Sleep, a long BLAS
// call): the session would otherwise wait for that call without a word.
var errBusy = &replError{name: "Busy", err: errors.New("this cell did not run: an interrupted cell is still running a compiled call that cannot be interrupted " +
	"(it stops when that call returns). Run the cell again later, or restart the kernel to stop it now")}

// evaluates reports whether code runs Go in the session: a cell, or the
// :time, :load and :reset commands (the other commands only read).
func evaluates(code string) bool {
	if !repl.IsCommand(code) {
		return true
	}
	f := strings.Fields(code)
	switch f[0] {
	case ":time", ":load", ":reset":
		return true
	}
	return false
}

// replError is a repl error with Jupyter's error fields.
type replError struct {
	name string
	err  error
}

func (e *replError) Error() string     { return e.err.Error() }
func (e *replError) Unwrap() error     { return e.err }
func (e *replError) ErrorName() string { return e.name }

// Traceback is what the terminal shell prints for the error, line by line.
func (e *replError) Traceback() []string {
	var b bytes.Buffer
	repl.PrintError(&b, e.err)
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

// wrapReplError names the repl's typed errors for Jupyter: CompileError,
// Panic (InterpreterError for a panic inside the interpreter itself),
// KeyboardInterrupt, Busy; other errors keep the kernel's default naming.
func wrapReplError(err error) error {
	var ce *repl.CompileError
	var pe *repl.PanicError
	var ie *repl.InterruptedError
	switch {
	case errors.As(err, &ce):
		return &replError{name: "CompileError", err: err}
	case errors.As(err, &pe):
		if pe.Internal {
			return &replError{name: "InterpreterError", err: err}
		}
		return &replError{name: "Panic", err: err}
	case errors.As(err, &ie) && ie.StillRunning:
		return &replError{name: "KeyboardInterrupt", err: fmt.Errorf("%w: the cell is still inside a compiled call that cannot be interrupted; "+
			"later cells report Busy until it returns (restart the kernel to stop it now)", repl.ErrInterrupted)}
	case errors.As(err, &ie):
		return &replError{name: "KeyboardInterrupt", err: err}
	case errors.Is(err, repl.ErrBusy):
		return &replError{name: "Busy", err: err}
	}
	return err
}

// resultBundle is the MIME bundle of a result, or nil for no value:
// text/plain is the session's display string, and a single value adds the
// rich types display.Bundle finds for it.
func resultBundle(res repl.Result) map[string]any {
	if res.Text == "" && len(res.Values) == 0 {
		return nil
	}
	b := map[string]any{}
	if len(res.Values) == 1 {
		for k, v := range richBundle(res.Values[0]) {
			b[k] = v
		}
	}
	b["text/plain"] = res.Text
	return b
}

// richBundle is display.Bundle of a value, without its text/plain; nil for
// an invalid or unexported value, a nil pointer, or when rendering panics.
func richBundle(v reflect.Value) (out map[string]any) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return nil // its methods are not called: the session's text says (T)(nil)
	}
	out = display.Bundle(v.Interface())
	delete(out, "text/plain")
	return out
}

// switchWriter forwards to the current cell's stream. After a cell ends it
// keeps forwarding to that cell's stream, so that output of goroutines the
// cell left running is shown under it.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	w := s.w
	s.mu.Unlock()
	return w.Write(p)
}

// cellInput is the interpreted program's stdin: each line is asked for with
// ExecIO.Input (input_request), so fmt.Scan works in a notebook when the
// front end allows stdin.
type cellInput struct {
	mu  sync.Mutex
	io  ExecIO
	buf []byte
}

func (c *cellInput) set(io ExecIO) {
	c.mu.Lock()
	c.io = io
	c.buf = nil
	c.mu.Unlock()
}

func (c *cellInput) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.buf) == 0 {
		if c.io == nil {
			return 0, io.EOF
		}
		line, err := c.io.Input("", false)
		if err != nil {
			return 0, err
		}
		c.buf = []byte(line + "\n")
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
