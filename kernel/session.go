package kernel

import (
	"context"
	"errors"
	"io"
)

// Session is what the kernel drives: one evaluation session (one
// interpreter and its variables) that lives as long as the kernel process.
// The kernel calls Execute from one goroutine at a time, and Complete,
// Inspect and IsComplete only between executions (all from the shell
// goroutine), so a Session needs no locking of its own for these calls.
//
// Offsets are byte offsets into code (UTF-8). The kernel converts the
// protocol's cursor positions, counted in Unicode code points, to bytes
// before calling and converts the results back.
//
// Panics in any method are recovered by the kernel and reported as errors.
type Session interface {
	// Execute runs one cell. Output goes to io while the cell runs. It
	// returns the MIME bundle of the cell's value (for example
	// {"text/plain": "2"}), or nil when the cell has no value. ctx is
	// cancelled on interrupt_request and on shutdown; Execute should then
	// return promptly with an error wrapping ctx.Err(). An error that
	// implements CellError supplies Jupyter's ename and traceback.
	Execute(ctx context.Context, code string, io ExecIO) (data map[string]any, err error)

	// Complete returns the candidates for the text before cursor and the
	// byte range [start, end) of code they replace.
	Complete(code string, cursor int) (matches []string, start, end int)

	// Inspect returns the documentation of the symbol at cursor as plain
	// text, and whether a symbol was found. detailLevel is 0 or 1 (1 asks
	// for more, for example the source).
	Inspect(code string, cursor, detailLevel int) (text string, found bool)

	// IsComplete reports whether code is ready to run: status is
	// "complete", "incomplete" (indent is then the suggested indentation of
	// the next line), "invalid" or "unknown".
	IsComplete(code string) (status, indent string)
}

// ExprEvaluator is implemented by a Session that can evaluate a single
// expression without running statements; the kernel uses it for
// execute_request's user_expressions. Without it, the kernel runs each
// expression with Execute and output discarded.
type ExprEvaluator interface {
	EvalExpr(ctx context.Context, expr string) (data map[string]any, err error)
}

// Interrupter is implemented by a Session whose work can outlive a cell
// (goroutines a cell started). The kernel calls Interrupt on every
// interrupt_request (and SIGINT), after cancelling the running cell's
// context if a cell runs, so that an interrupt stops that work also while
// the kernel is idle. It must return promptly and be safe to call at any
// time from any goroutine.
type Interrupter interface {
	Interrupt()
}

// ExecIO is the running cell's connection to the front end. All methods are
// safe for concurrent use, including by goroutines the cell started, and
// stay usable after the cell ends (late output is attributed to the cell,
// as ipykernel does).
type ExecIO interface {
	// Stdout and Stderr stream text to the front end as "stream"
	// messages, in the order written across both, in chunks flushed at
	// least every 50 ms while the cell runs and at its end.
	Stdout() io.Writer
	Stderr() io.Writer

	// Display publishes a MIME bundle as display_data. With a non-empty
	// displayID the output can be replaced later: update=true sends
	// update_display_data for that id instead. metadata may be nil.
	// Update without a displayID is an error.
	Display(data, metadata map[string]any, displayID string, update bool) error

	// ClearOutput clears the cell's output; with wait the front end clears
	// only when the next output arrives (flicker-free animations).
	ClearOutput(wait bool)

	// Input asks the front end for one line of input (input_request on
	// the stdin channel) and blocks until the reply, an interrupt or
	// shutdown. It fails with ErrStdinNotAllowed when the request did not
	// set allow_stdin.
	Input(prompt string, password bool) (string, error)

	// ExecutionCount is the cell's execution count (its In[n]); for a
	// request that does not store history, the current counter.
	ExecutionCount() int
}

// CellError is implemented by errors that carry Jupyter's error fields. The
// kernel reports other errors with ename "Error" (or "KeyboardInterrupt" for
// an interrupted cell), evalue err.Error() and a one-line traceback.
type CellError interface {
	error
	// ErrorName is the ename: a short class of error ("SyntaxError",
	// "Panic", "KeyboardInterrupt").
	ErrorName() string
	// Traceback is the list of traceback lines shown to the user.
	Traceback() []string
}

// ErrStdinNotAllowed is returned by ExecIO.Input when the execute_request
// did not allow stdin, or when the cell is silent.
var ErrStdinNotAllowed = errors.New("kernel: the front end does not accept input requests (allow_stdin is false)")

// ErrInterrupted is the error reported for a cell stopped by
// interrupt_request. Its ename is "KeyboardInterrupt", the name Jupyter
// front ends know.
var ErrInterrupted = errors.New("interrupted by the front end (interrupt_request)")
