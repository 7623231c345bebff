package nn

import (
	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

// Error is the engine's error type, tensor.Error (the same type): nn panics
// with it on misuse, and LoadStateDict and CheckZeroInDegree return it. Its
// Pkg is "nn", Op names the layer and method ("GraphConv",
// "SAGEConv.Forward"), Msg says what is wrong, and Kind classifies it for
// errors.Is; Error() reads "nn.SAGEConv.Forward: ...".
type Error = engerr.Error

// Kinds of Error, for errors.Is. ErrShape and ErrArgument are the engine's
// shared sentinels (tensor.ErrShape, tensor.ErrArgument are the same
// values), so errors.Is(err, tensor.ErrShape) holds for nn's shape errors.
var (
	// ErrOption: an invalid constructor option (a non-positive size, an
	// unknown aggregator or norm, a dropout outside [0, 1)) or a nil
	// argument. It is tensor.ErrArgument under nn's older name.
	ErrOption = engerr.ErrArgument
	// ErrShape: features whose shape or dtype does not fit the layer or the
	// graph (tensor.ErrShape).
	ErrShape = engerr.ErrShape
	// ErrZeroInDegree: some destination nodes have no in-edges and the layer
	// was not built with AllowZeroInDegree (DGL raises DGLError).
	ErrZeroInDegree = engerr.NewKind("zero in-degree nodes", nil)
	// ErrState: a state dict that does not match the module or optimizer.
	ErrState = engerr.NewKind("state dict mismatch", nil)
)

func newError(kind error, op, format string, args ...any) *Error {
	return engerr.New(kind, "nn", op, format, args...)
}

func panicf(kind error, op, format string, args ...any) {
	panic(newError(kind, op, format, args...))
}
