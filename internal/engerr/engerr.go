// Package engerr is the error family of the gnnrepl engine packages (tensor,
// graph, sampling, nn, optim, amp, featstore, memplan, profile, datasets,
// graphstore): one error type, one set of sentinel kinds, and Catch, which
// turns an engine panic into an error at an API boundary, as gonum's mat
// package does with mat.Error and mat.Maybe.
//
// Users never import this package: every engine package re-exports what it
// raises (tensor.Error, tensor.ErrShape, ..., tensor.Catch are these very
// values, nn.Error is the same type), so errors.Is(err, tensor.ErrShape)
// holds for a shape error whichever package raised it.
//
// The rule the engine follows (each package's doc states it for itself):
// misuse (a shape, dtype, index, device or argument value that is wrong)
// panics with an *Error whose Kind is one of the sentinels, in a function
// without an error result; a function with an error result reports all its
// bad input through that result instead, wrapping the same kinds; I/O, data
// format, CUDA and protocol failures are returned, wrapped.
package engerr

import (
	"errors"
	"fmt"
)

// Error is the value an engine package panics with on misuse, and the error
// it returns for bad input where a function has an error result. Pkg is the
// raising package ("tensor", "nn"), Op the function or method ("MatMul",
// "SAGEConv.Forward"; it may be empty), Msg says what is wrong, naming the
// shapes or values involved, and Kind classifies it for errors.Is (one of
// the sentinels below or a package's own kind; it may be nil).
//
// Error() reads "tensor.MatMul: shapes [2 3] and [4 5] ...": the package and
// the op joined by a dot, then the message.
type Error struct {
	Pkg  string
	Op   string
	Msg  string
	Kind error
}

// Error implements error: "pkg.Op: Msg", "pkg: Msg" when Op is empty.
func (e *Error) Error() string {
	prefix := e.Pkg
	switch {
	case e.Op == "":
	case prefix == "":
		prefix = e.Op
	default:
		prefix += "." + e.Op
	}
	if prefix == "" {
		return e.Msg
	}
	return prefix + ": " + e.Msg
}

// Unwrap returns the error's Kind, for errors.Is(err, ErrShape).
func (e *Error) Unwrap() error { return e.Kind }

// kind is a sentinel of the family. A kind may refine a parent kind (a
// package's ErrConfig is an ErrArgument): errors.Is then holds for both.
type kind struct {
	text   string
	parent error
}

func (k *kind) Error() string { return k.text }
func (k *kind) Unwrap() error { return k.parent }

// NewKind returns a new sentinel of the family with the given text, for a
// package's own kinds (nn.ErrZeroInDegree, datasets.ErrFormat). When parent
// is not nil, errors.Is(err, parent) holds for every error of the new kind
// too: memplan.ErrConfig is NewKind("memplan: invalid config", ErrArgument).
// Catch converts a panic with an error that wraps any kind made here.
func NewKind(text string, parent error) error { return &kind{text, parent} }

// The sentinels every engine package raises, for errors.Is.
var (
	// ErrShape: tensors or buffers whose shapes or lengths do not fit the
	// op or each other.
	ErrShape = NewKind("shape mismatch", nil)
	// ErrDType: a tensor of a dtype the op does not take.
	ErrDType = NewKind("dtype mismatch", nil)
	// ErrIndex: an index or node id outside its range.
	ErrIndex = NewKind("index out of range", nil)
	// ErrDevice: tensors on two devices, an unknown device, or host access
	// to a tensor in device memory.
	ErrDevice = NewKind("device mismatch", nil)
	// ErrArgument: an argument value that is not a shape: an unknown name
	// (reducer, aggregator, norm, sort column), a number outside its range
	// (a negative probability, a non-positive size), a nil argument, an
	// invalid option or hyperparameter.
	ErrArgument = NewKind("invalid argument", nil)
	// ErrCUDA: a failure reported by the CUDA driver or cuBLAS.
	ErrCUDA = NewKind("cuda error", nil)
	// ErrNotImplemented: an op that has no implementation on the device or
	// for the dtype of its arguments.
	ErrNotImplemented = NewKind("not implemented on this device", nil)
	// ErrOutOfMemory: a device allocation that failed even after the
	// caching allocator emptied its cache (torch.cuda.OutOfMemoryError).
	ErrOutOfMemory = NewKind("out of device memory", nil)
)

// New returns an *Error of the given kind raised by pkg's op, with the
// message formatted as fmt.Sprintf does.
func New(kind error, pkg, op, format string, args ...any) *Error {
	return &Error{Pkg: pkg, Op: op, Msg: fmt.Sprintf(format, args...), Kind: kind}
}

// Panicf panics with New(kind, pkg, op, format, args...).
func Panicf(kind error, pkg, op, format string, args ...any) {
	panic(New(kind, pkg, op, format, args...))
}

// IsEngine reports whether a recovered panic value v is an engine error:
// an error that is or wraps an *Error, or wraps a kind of the family (a
// sentinel above or one made with NewKind). Runtime errors (a nil
// dereference, an index out of a slice's range), plain values (panic("x"))
// and other errors are not.
func IsEngine(v any) bool {
	err, ok := v.(error)
	if !ok {
		return false
	}
	var e *Error
	var k *kind
	return errors.As(err, &e) || errors.As(err, &k)
}

// Catch runs f and returns nil, or the error f panicked with when that is
// an engine error (see IsEngine), so that a caller at an API boundary can
// return misuse as an error:
//
//	err := tensor.Catch(func() { y = tensor.MatMul(a, b) })
//	if errors.Is(err, tensor.ErrShape) { ... }
//
// Any other panic is a bug, not misuse, and Catch does not hide it: it
// panics again with the same value (the runtime.Error of a nil dereference,
// the string of a plain panic), as gonum's mat.Maybe does. It panics again
// from its deferred call, before the stack unwinds, so the goroutine's
// stack trace still shows the frames of the original panic, and Go prints
// the value once, marked "[recovered, repanicked]".
func Catch(f func()) (err error) {
	if f == nil {
		return New(ErrArgument, "tensor", "Catch", "f is nil")
	}
	defer func() {
		if r := recover(); r != nil {
			if !IsEngine(r) {
				panic(r)
			}
			err = r.(error)
		}
	}()
	f()
	return nil
}
