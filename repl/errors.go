package repl

import (
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// ErrInterrupted is matched (with errors.Is) by the error Eval returns when
// the evaluation was cancelled: Ctrl-C in the shell, interrupt_request in
// Jupyter, or the caller's context.
var ErrInterrupted = errors.New("interrupted")

// ErrBusy is returned by Eval when an earlier, interrupted evaluation is still
// running compiled code that does not poll runctx (a long call into a
// library) and the caller's context ended while Eval waited for it.
var ErrBusy = errors.New("an interrupted evaluation is still running")

// ErrQuit is returned by RunCommand for :quit.
var ErrQuit = errors.New("quit")

// CompileError is a syntax or type error in the evaluated source. Pos names
// the cell (the name given to EvalSource, "input" by default), line and
// column of the first error; the cell was not run from that unit on.
type CompileError struct {
	Pos token.Position
	Msg string
	// More holds the further errors the parser reported, if any.
	More []string
}

func (e *CompileError) Error() string {
	if e.Pos.IsValid() {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	return e.Msg
}

// PanicError is a panic raised while the cell ran: by the interpreted code
// (panic("..."), an index out of range, a nil dereference), by compiled code it
// called (a shape mismatch in the engine), or by the interpreter itself.
type PanicError struct {
	// Value is the value passed to panic.
	Value any
	// Stack lists the interpreted call stack, innermost first, as
	// "cell:line:col: function" lines.
	Stack []string
	// GoStack is the Go stack of the goroutine that recovered the panic;
	// it shows where inside compiled code a panic started.
	GoStack []byte
	// Internal is set when the panic came from inside the interpreter (a yaegi
	// limitation or bug) rather than from the program.
	Internal bool
	// Hint suggests a way around a known interpreter limitation, or is empty.
	Hint string
	// Goroutine is set when the panic happened in a goroutine the
	// session's code started: the position ("In[3]:4:2") of its go
	// statement. Stack is then the goroutine's interpreted stack.
	Goroutine string
	// After is set when that goroutine panicked while no cell was running:
	// the error is that of the next cell, which did not run.
	After bool
}

func (e *PanicError) Error() string {
	var b strings.Builder
	switch {
	case e.Internal:
		b.WriteString("interpreter error: ")
	case e.Goroutine != "":
		fmt.Fprintf(&b, "panic in the goroutine started at %s: ", e.Goroutine)
	default:
		b.WriteString("panic: ")
	}
	fmt.Fprint(&b, e.Value)
	for _, s := range e.Stack {
		b.WriteString("\n\t")
		b.WriteString(s)
	}
	if e.After {
		b.WriteString("\n(it panicked after the cell that started it had finished; this cell did not run)")
	}
	if e.Hint != "" {
		b.WriteString("\nhint: ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// InterruptedError reports a cancelled evaluation. It matches ErrInterrupted
// and the context's error (context.Canceled or context.DeadlineExceeded) with
// errors.Is.
type InterruptedError struct {
	// Cause is the context's error.
	Cause error
	// StillRunning is set when the interpreted code had not stopped within
	// Options.InterruptGrace, because it was inside a compiled call that does
	// not poll runctx. It stops at its next interpreted step; the next Eval
	// waits for it.
	StillRunning bool
}

func (e *InterruptedError) Error() string {
	if e.StillRunning {
		return "interrupted (still finishing a compiled call; the next evaluation waits for it)"
	}
	return "interrupted"
}

// Is reports whether target is ErrInterrupted.
func (e *InterruptedError) Is(target error) bool { return target == ErrInterrupted }

// Unwrap returns the context's error.
func (e *InterruptedError) Unwrap() error { return e.Cause }

// maxMoreErrors is how many errors after the first a CompileError lists,
// as go build stops at ten: a binary file given to gnnrepl run is one
// error per NUL byte.
const maxMoreErrors = 9

var posPrefix = regexp.MustCompile(`^(.*?):(\d+):(\d+): (?s:(.*))$`)

// compileError turns an error from the parser or from yaegi's compiler into
// a *CompileError.
func compileError(err error) error {
	var ce *CompileError
	if errors.As(err, &ce) {
		return ce
	}
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		ce := &CompileError{Pos: list[0].Pos, Msg: list[0].Msg}
		ce.Pos.Filename = trimSuffix(ce.Pos.Filename)
		for i, e := range list[1:] {
			if i == maxMoreErrors {
				ce.More = append(ce.More, fmt.Sprintf("too many errors (%d more)", len(list)-1-i))
				break
			}
			ce.More = append(ce.More, cleanNames(e.Error()))
		}
		return ce
	}
	msg := cleanNames(err.Error())
	if m := posPrefix.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		return &CompileError{Pos: token.Position{Filename: m[1], Line: line, Column: col}, Msg: m[4]}
	}
	return &CompileError{Msg: msg}
}

// trimSuffix removes fileSuffix from a file name.
func trimSuffix(name string) string { return strings.TrimSuffix(name, fileSuffix) }

// cleanNames removes fileSuffix from the file names in msg.
func cleanNames(msg string) string {
	msg = strings.ReplaceAll(msg, fileSuffix+":", ":")
	if strings.Contains(msg, "_gnnrepl_") {
		for _, p := range goSourcePackages { // the source packages' private names (privateName)
			msg = strings.ReplaceAll(msg, privateName(p.path, ""), "")
		}
	}
	return msg
}

func interrupted(ctx context.Context) error {
	cause := ctx.Err()
	if cause == nil {
		cause = context.Canceled
	}
	return &InterruptedError{Cause: cause}
}
