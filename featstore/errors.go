package featstore

import (
	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

// Error is the engine's error type, tensor.Error (the same type): featstore
// panics with it on misuse (Gather with a bad id or a short buffer, use
// after Close) and its constructors return it. Its Pkg is "featstore", Op
// names the function or method ("Int8.Gather", "NewHotCache"), Msg says
// what is wrong, naming the argument, and Kind classifies it for errors.Is;
// Error() reads "featstore.Int8.Gather: ...".
type Error = engerr.Error

// Kinds of Error, for errors.Is. ErrIndex, ErrShape and ErrArgument are the
// engine's shared sentinels (tensor.ErrIndex, tensor.ErrShape and
// tensor.ErrArgument are the same values).
var (
	// ErrIndex: a node id outside [0, NumNodes).
	ErrIndex = engerr.ErrIndex
	// ErrShape: a tensor or buffer whose shape or length does not fit.
	ErrShape = engerr.ErrShape
	// ErrArgument: an invalid argument or option (an unknown dtype or
	// norm, a negative hop count, a nil store).
	ErrArgument = engerr.ErrArgument
	// ErrData: feature values a dtype cannot hold (NaN or infinity for
	// int8, a finite value beyond float16's range).
	ErrData = engerr.NewKind("unrepresentable feature value", nil)
	// ErrClosed: a store used after Close.
	ErrClosed = engerr.NewKind("store is closed", nil)
)

func newError(kind error, op, format string, args ...any) *Error {
	return engerr.New(kind, "featstore", op, format, args...)
}

func panicf(kind error, op, format string, args ...any) {
	panic(newError(kind, op, format, args...))
}
