package checkpoint

import "github.com/gnnrepl/gnnrepl/internal/engerr"

// Error is the engine's error type (tensor.Error): Save, Load, SaveFile
// and LoadFile report bad input with it. Its Pkg is "checkpoint".
type Error = engerr.Error

// Kinds of Error, for errors.Is.
var (
	// ErrFormat: a file that is not a whole, valid safetensors file
	// (truncated, corrupt header, offsets out of range, unknown dtype), or
	// whose checkpoint metadata is malformed.
	ErrFormat = engerr.NewKind("not a valid safetensors checkpoint", nil)
	// ErrState: a checkpoint that does not fit the objects it is loaded
	// into (a missing or mis-shaped parameter, another optimizer, an
	// absent component). Load then changes nothing.
	ErrState = engerr.NewKind("checkpoint does not match the training state", nil)
	// ErrArgument: an invalid argument (a nil component, a tensor dtype
	// safetensors cannot hold). It is tensor.ErrArgument.
	ErrArgument = engerr.ErrArgument
)
