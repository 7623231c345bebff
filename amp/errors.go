package amp

import (
	"errors"
	"fmt"
)

// Error is the value amp panics with on misuse and the error LoadStateDict
// returns. Op names the function or method ("GradScaler.Step"), Msg says
// what is wrong, and Kind classifies it for errors.Is.
type Error struct {
	Op   string
	Msg  string
	Kind error
}

// Error implements error.
func (e *Error) Error() string { return "amp." + e.Op + ": " + e.Msg }

// Unwrap returns the error's Kind.
func (e *Error) Unwrap() error { return e.Kind }

// Kinds of Error, for errors.Is.
var (
	// ErrOption: an invalid option or argument (a growth factor not above
	// 1, an autocast dtype other than float16 or bfloat16).
	ErrOption = errors.New("invalid option")
	// ErrState: a call out of order (Unscale or Step twice before Update,
	// Update before any Step), or a state dict that does not fit.
	ErrState = errors.New("invalid state")
)

func panicf(kind error, op, format string, args ...any) {
	panic(&Error{Op: op, Msg: fmt.Sprintf(format, args...), Kind: kind})
}
