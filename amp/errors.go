package amp

import (
	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

// Error is the engine's error type, tensor.Error (the same type): amp panics
// with it on misuse, and LoadStateDict returns it. Its Pkg is "amp", Op
// names the function or method ("GradScaler.Step"), Msg says what is wrong,
// and Kind classifies it for errors.Is; Error() reads
// "amp.GradScaler.Step: ...".
type Error = engerr.Error

// Kinds of Error, for errors.Is.
var (
	// ErrOption: an invalid option or argument (a growth factor not above
	// 1, an autocast dtype other than float16 or bfloat16, a nil loss or
	// optimizer). It is tensor.ErrArgument under amp's older name.
	ErrOption = engerr.ErrArgument
	// ErrState: a call out of order (Unscale or Step twice before Update,
	// Update before any Step), or a state dict that does not fit.
	ErrState = engerr.NewKind("invalid state", nil)
)

func panicf(kind error, op, format string, args ...any) {
	engerr.Panicf(kind, "amp", op, format, args...)
}
