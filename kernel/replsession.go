package kernel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/gnnrepl/gnnrepl/repl"
)

// ReplSession adapts a *repl.Session, the yaegi evaluation session the
// terminal shell also uses, to Session. The interpreted program's
// fmt.Print*, log output and fmt.Scan* are routed to the running cell's
// ExecIO (reading stdin sends input_request, one per line); :commands
// (:doc, :vars, :time, :mem, :load, :reset) work in cells as in the shell.
//
// The value of a cell's final expression is shown as its
// repl.Result.MIMEBundle: text/plain (the session's display string) plus
// the richer MIME types the session finds for it (HTML tables for graphs
// and tensors, and the MIMEBundle, HTML, Markdown, SVG and PNG methods of
// compiled types). The display package's functions (display.HTML,
// display.Show, progress bars, loss curves) publish through the running
// cell: the session's Options.Display is a publisher that sends to the
// cell Execute runs, and it keeps sending there after the cell, so output
// of goroutines the cell left running appears under it; a display.Handle
// keeps updating the cell it first showed in.
type ReplSession struct {
	s      *repl.Session
	out    *switchWriter
	err    *switchWriter
	in     *cellInput
	pub    *cellPublisher
	notice string // the prelude's notices, shown with the first cell
}

var (
	_ Session       = (*ReplSession)(nil)
	_ ExprEvaluator = (*ReplSession)(nil)
	_ Interrupter   = (*ReplSession)(nil)
)

// NewReplSession starts a repl session with opts (repl.DefaultOptions() is
// gnnrepl's configuration); opts.Stdout, Stderr, Stdin and Display are
// replaced by the running cell's streams and display messages.
func NewReplSession(opts repl.Options) (*ReplSession, error) {
	rs := &ReplSession{
		out: &switchWriter{w: os.Stdout},
		err: &switchWriter{w: os.Stderr},
		in:  &cellInput{},
		pub: &cellPublisher{},
	}
	opts.Stdout, opts.Stderr, opts.Stdin, opts.Display = rs.out, rs.err, rs.in, rs.pub
	s, err := repl.New(opts)
	if err != nil {
		return nil, fmt.Errorf("kernel: starting the repl session: %w", err)
	}
	rs.s = s
	// A prelude that fell back to synthetic data says so in the first
	// cell's output, not only in the server's log.
	rs.notice = s.PreludeNotices()
	return rs, nil
}

// Interrupt stops the running cell and every goroutine cells started
// (repl.Session.Interrupt); the kernel calls it on interrupt_request, also
// while no cell runs.
func (r *ReplSession) Interrupt() { r.s.Interrupt() }

// Repl returns the underlying session.
func (r *ReplSession) Repl() *repl.Session { return r.s }

// Execute evaluates code as cell "In[n]", or runs it as a :command.
func (r *ReplSession) Execute(ctx context.Context, code string, cio ExecIO) (map[string]any, error) {
	r.out.set(cio.Stdout())
	r.err.set(cio.Stderr())
	r.in.set(cio)
	r.pub.set(cio)
	if r.notice != "" {
		io.WriteString(cio.Stderr(), r.notice)
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
	return res.MIMEBundle(), nil
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
	r.pub.set(discardIO{})
	res, err := r.s.Eval(ctx, expr)
	if err != nil {
		return nil, wrapReplError(err)
	}
	if b := res.MIMEBundle(); b != nil {
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

// cellPublisher is the session's display publisher (repl.Options.Display):
// it sends to the current cell's ExecIO, and after the cell ends keeps
// sending there, as switchWriter does. Pin gives a display.Handle the cell
// it first showed in. Before the first cell output is dropped.
type cellPublisher struct {
	mu sync.Mutex
	io ExecIO
}

func (p *cellPublisher) set(io ExecIO) {
	p.mu.Lock()
	p.io = io
	p.mu.Unlock()
}

func (p *cellPublisher) cell() execPublisher {
	p.mu.Lock()
	defer p.mu.Unlock()
	return execPublisher{p.io}
}

func (p *cellPublisher) Display(bundle map[string]any, displayID string, update bool) error {
	return p.cell().Display(bundle, displayID, update)
}

func (p *cellPublisher) ClearOutput(wait bool) { p.cell().ClearOutput(wait) }

// Pin returns a publisher that sends to the current cell (display.Pinner).
func (p *cellPublisher) Pin() repl.Publisher { return p.cell() }

// execPublisher publishes through one cell's ExecIO, with no metadata; with
// no cell (a nil io) it drops the output.
type execPublisher struct{ io ExecIO }

func (e execPublisher) Display(bundle map[string]any, displayID string, update bool) error {
	if e.io == nil {
		return nil
	}
	return e.io.Display(bundle, nil, displayID, update)
}

func (e execPublisher) ClearOutput(wait bool) {
	if e.io != nil {
		e.io.ClearOutput(wait)
	}
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
