package featstore

import (
	"errors"
	"fmt"
)

// Error is the value featstore panics with on misuse (Gather with a bad id
// or a short buffer, use after Close) and the error its constructors return.
// Op names the function or method ("Int8.Gather", "NewHotCache"), Msg says
// what is wrong, naming the argument, and Kind classifies it for errors.Is.
type Error struct {
	Op   string
	Msg  string
	Kind error
}

// Error implements error.
func (e *Error) Error() string { return "featstore." + e.Op + ": " + e.Msg }

// Unwrap returns the error's Kind.
func (e *Error) Unwrap() error { return e.Kind }

// Kinds of Error, for errors.Is.
var (
	// ErrIndex: a node id outside [0, NumNodes).
	ErrIndex = errors.New("node id out of range")
	// ErrShape: a tensor or buffer whose shape or length does not fit.
	ErrShape = errors.New("shape mismatch")
	// ErrArgument: an invalid argument or option (an unknown dtype or
	// norm, a negative hop count, a nil store).
	ErrArgument = errors.New("invalid argument")
	// ErrData: feature values a dtype cannot hold (NaN or infinity for
	// int8, a finite value beyond float16's range).
	ErrData = errors.New("unrepresentable feature value")
	// ErrClosed: a store used after Close.
	ErrClosed = errors.New("store is closed")
)

func newError(kind error, op, format string, args ...any) *Error {
	return &Error{Op: op, Msg: fmt.Sprintf(format, args...), Kind: kind}
}

func panicf(kind error, op, format string, args ...any) {
	panic(newError(kind, op, format, args...))
}
