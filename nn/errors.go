package nn

import (
	"errors"
	"fmt"
)

// Error is the value nn panics with on misuse, and the error LoadStateDict
// and CheckZeroInDegree return. Op names the layer and method ("GraphConv",
// "SAGEConv.Forward"), Msg says what is wrong, and Kind classifies it for
// errors.Is.
type Error struct {
	Op   string
	Msg  string
	Kind error
}

// Error implements error.
func (e *Error) Error() string { return "nn." + e.Op + ": " + e.Msg }

// Unwrap returns the error's Kind.
func (e *Error) Unwrap() error { return e.Kind }

// Kinds of Error, for errors.Is.
var (
	// ErrOption: an invalid constructor option (a non-positive size, an
	// unknown aggregator or norm, a dropout outside [0, 1)).
	ErrOption = errors.New("invalid option")
	// ErrShape: features whose shape does not fit the layer or the graph.
	ErrShape = errors.New("shape mismatch")
	// ErrZeroInDegree: some destination nodes have no in-edges and the layer
	// was not built with AllowZeroInDegree (DGL raises DGLError).
	ErrZeroInDegree = errors.New("zero in-degree nodes")
	// ErrState: a state dict that does not match the module or optimizer.
	ErrState = errors.New("state dict mismatch")
)

func newError(kind error, op, format string, args ...any) *Error {
	return &Error{Op: op, Msg: fmt.Sprintf(format, args...), Kind: kind}
}

func panicf(kind error, op, format string, args ...any) {
	panic(newError(kind, op, format, args...))
}
