package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// fakeSession is a Session whose cells are commands, one per line:
//
//	out TEXT       write TEXT\n to stdout        err TEXT   to stderr
//	result TEXT    the cell's value is TEXT      fail MSG   return an error
//	panic MSG      panic                         syntax     a SyntaxError CellError
//	block          wait until interrupted        alloc      the error of a too large allocation
//	input PROMPT   read a line; value "got LINE" password   the same, password=true
//	display ID     display, then update, ID      clear      clear_output(wait=true)
//	late TEXT      a goroutine writes TEXT after the cell returns
//	nan            a value that does not encode as JSON
//	stdout TEXT    TEXT written to the process's os.Stdout (compiled code)
//
// started receives the code of each cell when it starts.
type fakeSession struct {
	started chan string
	late    chan func() // run by the test after the cell returned

	mu       sync.Mutex
	executed []string
}

func newFake() *fakeSession {
	return &fakeSession{started: make(chan string, 64), late: make(chan func(), 4)}
}

type syntaxError struct{ msg string }

func (e *syntaxError) Error() string     { return e.msg }
func (e *syntaxError) ErrorName() string { return "SyntaxError" }
func (e *syntaxError) Traceback() []string {
	return []string{"cell:1:1: " + e.msg}
}

func (f *fakeSession) Execute(ctx context.Context, code string, io ExecIO) (map[string]any, error) {
	f.mu.Lock()
	f.executed = append(f.executed, code)
	f.mu.Unlock()
	select {
	case f.started <- code:
	default:
	}
	var data map[string]any
	for _, line := range strings.Split(code, "\n") {
		cmd, arg, _ := strings.Cut(line, " ")
		switch cmd {
		case "", "//":
		case "out":
			fmt.Fprintln(io.Stdout(), arg)
		case "err":
			fmt.Fprintln(io.Stderr(), arg)
		case "result":
			data = map[string]any{"text/plain": arg}
		case "fail":
			return nil, errors.New(arg)
		case "panic":
			panic(arg)
		case "syntax":
			return nil, &syntaxError{"expected operand, found '}'"}
		case "block":
			<-ctx.Done()
			return nil, fmt.Errorf("stopped: %w", context.Cause(ctx))
		case "alloc":
			return nil, errors.New("runtime error: makeslice: len out of range")
		case "input", "password":
			v, err := io.Input(arg, cmd == "password")
			if err != nil {
				return nil, err
			}
			data = map[string]any{"text/plain": "got " + v}
		case "display":
			if err := io.Display(map[string]any{"text/plain": "first", "text/html": "<b>first</b>"}, nil, arg, false); err != nil {
				return nil, err
			}
			if err := io.Display(map[string]any{"text/plain": "second"}, map[string]any{"k": 1}, arg, true); err != nil {
				return nil, err
			}
		case "clear":
			io.ClearOutput(true)
		case "late":
			w := io.Stdout()
			f.late <- func() { fmt.Fprintln(w, arg) }
		case "nan":
			data = map[string]any{"text/plain": "NaN", "application/json": math.NaN()}
		case "stdout": // compiled code printing to the process's stdout
			fmt.Fprintln(os.Stdout, arg)
		case "fd2": // C code writing to file descriptor 2
			syscall.Write(2, []byte(arg+"\n"))
		case "overflow": // a fatal runtime error with a report far longer than a pipe's buffer
			for range 3000 {
				go func() { select {} }() // every goroutine is in the report
			}
			debug.SetMaxStack(8 << 20)
			data = map[string]any{"text/plain": fmt.Sprint(recurse(0))}
		case "mapwrites": // fatal error: concurrent map writes
			m := map[int]int{}
			for g := range 4 {
				go func() {
					for i := 0; ; i++ {
						m[i%64+g] = i
					}
				}()
			}
			for i := 0; ; i++ {
				m[i%64] = i
			}
		case "oom": // fatal error: runtime: out of memory
			b := make([]byte, 1<<40)
			data = map[string]any{"text/plain": fmt.Sprint(len(b), b[len(b)-1])}
		case "spawn": // a child process of the kernel: its pid
			cmd := exec.Command("sleep", "30")
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			go cmd.Wait()
			data = map[string]any{"text/plain": fmt.Sprint(cmd.Process.Pid)}
		case "badjson":
			data = map[string]any{"text/plain": "bad", "application/json": panicMarshaler{}}
		default:
			return nil, fmt.Errorf("fake: unknown command %q", cmd)
		}
	}
	return data, nil
}

// recurse never returns: it overflows the goroutine stack.
func recurse(n int) int { return recurse(n+1) + 1 }

func (f *fakeSession) EvalExpr(ctx context.Context, expr string) (map[string]any, error) {
	switch expr {
	case "x":
		return map[string]any{"text/plain": "42"}, nil
	case "boom":
		panic("boom")
	}
	return nil, fmt.Errorf("undefined: %s", expr)
}

var fakeWords = []string{"Print", "Printf", "Println", "Sprint", "λfunc", "日本"}

// Complete completes the identifier before cursor from fakeWords; the
// identifier may hold any letters, so byte offsets differ from code points.
func (f *fakeSession) Complete(code string, cursor int) ([]string, int, int) {
	if strings.Contains(code, "PANIC") {
		panic("complete exploded")
	}
	start := cursor
	for start > 0 {
		r, w := utf8.DecodeLastRuneInString(code[:start])
		if !unicode.IsLetter(r) {
			break
		}
		start -= w
	}
	prefix := code[start:cursor]
	var m []string
	for _, w := range fakeWords {
		if strings.HasPrefix(w, prefix) {
			m = append(m, w)
		}
	}
	return m, start, cursor
}

func (f *fakeSession) Inspect(code string, cursor, detail int) (string, bool) {
	if strings.Contains(code, "PANIC") {
		panic("inspect exploded")
	}
	start, end := cursor, cursor
	for start > 0 && isWordByte(code[start-1]) {
		start--
	}
	for end < len(code) && isWordByte(code[end]) {
		end++
	}
	if code[start:end] == "Println" {
		doc := "func Println(a ...any) (n int, err error)"
		if detail > 0 {
			doc += "\n\nPrintln formats using the default formats."
		}
		return doc, true
	}
	return "", false
}

func isWordByte(b byte) bool { return b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

func (f *fakeSession) IsComplete(code string) (string, string) {
	switch {
	case strings.Contains(code, "PANIC"):
		panic("is_complete exploded")
	case strings.Count(code, "{") > strings.Count(code, "}"):
		return "incomplete", "\t"
	case strings.Count(code, "}") > strings.Count(code, "{"):
		return "invalid", ""
	case code == "???":
		return "bogus", "x"
	}
	return "complete", ""
}

// panicMarshaler is a value whose MarshalJSON panics.
type panicMarshaler struct{}

func (panicMarshaler) MarshalJSON() ([]byte, error) { panic("MarshalJSON exploded") }

// waitStarted waits until a cell with this code has started.
func (f *fakeSession) waitStarted(code string) {
	for c := range f.started {
		if c == code {
			return
		}
	}
}
