package repl

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// yaegi v0.16.1 indexes, slices and dereferences through package reflect,
// so a program's run-time error arrives as reflect's panic ("reflect: slice
// index out of range", "reflect: call of reflect.Value.Field on zero
// Value") where Go raises a runtime.Error ("runtime error: index out of
// range [5] with length 0"). goRuntimeError gives the cell's PanicError
// Go's runtime error instead. reflect does not report the index nor the
// length (its panic has no arguments, and they are not reliably in the Go
// stack), so the message says "index out of range" without them; a
// slice expression's bounds are in the stack (reflect.Value.Slice's
// arguments), and are given when Go's message needs only them ([2:1]).
// Interpreted code that recovers the panic itself still sees reflect's
// value (KNOWN_DIFFERENCES.md).

// RuntimeError is the run-time error of an interpreted program, as Go's
// runtime reports it: Error returns Go's text ("runtime error: index out
// of range"), and it implements runtime.Error. PanicError.Value holds one
// where the interpreter raised the error through package reflect; Reflect
// is reflect's original panic value.
type RuntimeError struct {
	Msg     string // Go's message after "runtime error: "
	Reflect any    // the panic value the interpreter raised
}

func (e *RuntimeError) Error() string { return "runtime error: " + e.Msg }

// RuntimeError marks e as a runtime.Error.
func (e *RuntimeError) RuntimeError() {}

var sliceArgs = regexp.MustCompile(`(?m)^reflect\.Value\.Slice3?\(\{[^}]*\}, (0x[0-9a-f]+), (0x[0-9a-f]+)(?:, (0x[0-9a-f]+))?\)`)

// goRuntimeError returns Go's runtime error for v, a panic value raised by
// package reflect inside the interpreter (goStack is the Go stack of the
// panic), or v itself.
func goRuntimeError(v any, goStack []byte) any {
	switch x := v.(type) {
	case string:
		switch x {
		case "reflect: slice index out of range", "reflect: array index out of range", "reflect: string index out of range":
			return &RuntimeError{Msg: "index out of range", Reflect: v}
		case "reflect.Value.Call: call of nil function":
			return &RuntimeError{Msg: "invalid memory address or nil pointer dereference", Reflect: v}
		case "reflect.Value.Slice: slice index out of bounds", "reflect.Value.Slice: string slice index out of bounds",
			"reflect.Value.Slice3: slice index out of bounds":
			msg := "slice bounds out of range"
			if m := sliceArgs.FindSubmatch(goStack); m != nil && m[3] == nil {
				i, err1 := strconv.ParseInt(string(m[1][2:]), 16, 64)
				j, err2 := strconv.ParseInt(string(m[2][2:]), 16, 64)
				if err1 == nil && err2 == nil && i > j {
					msg = fmt.Sprintf("slice bounds out of range [%d:%d]", i, j)
				}
			}
			return &RuntimeError{Msg: msg, Reflect: v}
		}
	case error:
		var ve *reflect.ValueError
		if errors.As(x, &ve) && ve.Kind == reflect.Invalid {
			switch strings.TrimPrefix(ve.Method, "reflect.Value.") {
			case "Field", "FieldByIndex", "Set", "Elem", "Interface":
				return &RuntimeError{Msg: "invalid memory address or nil pointer dereference", Reflect: v}
			}
		}
	}
	return v
}
