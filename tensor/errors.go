package tensor

import "github.com/gnnrepl/gnnrepl/internal/engerr"

// Error is the engine's one error type, which every engine package (tensor,
// graph, sampling, nn, optim, amp, featstore, profile, datasets, ...) panics
// with on misuse; nn.Error, graph.Error and the others are this same type.
// Its fields:
//
//	Pkg  string // the raising package: "tensor", "nn"
//	Op   string // the op or method: "MatMul", "SAGEConv.Forward"
//	Msg  string // what is wrong, with the shapes involved
//	Kind error  // ErrShape, ErrDType, ErrIndex, ErrDevice, ErrArgument, ...
//
// Error() reads "tensor.MatMul: ...": Pkg and Op, then Msg; errors.Is(err,
// ErrShape) tests the Kind, and errors.As(err, &e) with e a *Error finds it
// inside a wrapping error.
type Error = engerr.Error

// The kinds of Error, for errors.Is. They are shared by every engine
// package: a shape error raised by nn or featstore is errors.Is(err,
// ErrShape) too. ErrCUDA, ErrNotImplemented and ErrOutOfMemory are with the
// devices (device.go).
var (
	// ErrShape: shapes that do not fit the op or each other.
	ErrShape = engerr.ErrShape
	// ErrDType: a tensor of a dtype the op does not take.
	ErrDType = engerr.ErrDType
	// ErrIndex: an index outside its range (IndexSelect, Narrow, targets).
	ErrIndex = engerr.ErrIndex
	// ErrDevice: tensors on two devices, an unknown device, or host access
	// to a tensor in device memory.
	ErrDevice = engerr.ErrDevice
	// ErrArgument: an argument value that is not a shape: an unknown name
	// (a reducer, an aggregator, a sort column), a number outside its range
	// (a negative probability, a non-positive size), a nil argument, an
	// invalid option.
	ErrArgument = engerr.ErrArgument
)

// panicf panics with an *Error of the given kind raised by tensor's op.
func panicf(kind error, op, format string, args ...any) {
	engerr.Panicf(kind, "tensor", op, format, args...)
}

// Catch runs f and returns nil, or the error f panicked with when that is an
// engine error (an *Error from any engine package, or an error wrapping one
// of the kinds such as ErrShape), so that a caller at an API boundary can
// return misuse as an error:
//
//	err := tensor.Catch(func() { y = tensor.MatMul(a, b) })
//	if errors.Is(err, tensor.ErrShape) { ... }
//
// Any other panic is a bug, not misuse, and Catch does not turn it into an
// error: a runtime error (a nil dereference, a slice index out of range) or
// a plain panic("...") panics again with the same value, from Catch's
// deferred call before the stack unwinds, so the stack trace still shows
// where it happened (gonum's mat.Maybe does the same).
func Catch(f func()) error { return engerr.Catch(f) }
