// Package profile records where the time of gnnrepl code goes, op by op, in
// the manner of torch.profiler: Start and Stop (or Run with a closure)
// bracket the code; every public tensor op called in between, and every
// backward closure that Backward runs ("SpMM.backward"), is timed, counted
// and charged the tensor bytes allocated while it ran. The Report prints a
// table sorted by a chosen column, like torch.profiler's
// prof.key_averages().table(sort_by=..., row_limit=...), and writes a Chrome
// trace (chrome://tracing, https://ui.perfetto.dev).
//
//	r := profile.Run(func() { trainEpoch() })
//	fmt.Print(r.Table("self", 10))
//	err := r.WriteChromeTrace("epoch.json")
//
// Times. An op's total time is its wall time from entry to return; it
// includes the ops it calls (CrossEntropy's total includes LogSoftmax and
// NLLLoss). Its self time is its total minus the totals of the ops directly
// nested in it. Bytes are the cumulative tensor bytes allocated on the CPU
// while the op ran (tensor.TotalAllocatedBytes), total and self likewise.
//
// Devices (torch.profiler's ProfilerActivity.CUDA). While a profile runs,
// every op that queues work on a GPU records a pair of CUDA events on the
// device's compute stream around that work (tensor.StartDeviceTiming; the
// events come from a pool), charged to the innermost open op, so the device
// time is self time like the CPU column; Stop (or a full pool) waits for
// the GPU and adds the elapsed times with AddDeviceTime under the op's name
// and device. The table shows device columns (Device total, Device avg, and
// Kernels: the timed stretches) when any was recorded, the trace draws them
// on a track per device, and Report.Memory has every device's allocated,
// peak and reserved bytes at Stop (the table's "Memory:" footer). Event
// times include the stream's idle gaps inside an op (the host preparing
// its next kernel while the GPU waits), so they match the kernels' own
// times when the stream is busy, as it is in a training loop; call
// tensor.Synchronize before Stop to time work still queued. CPU-only runs
// leave the device fields zero and record no events.
//
// Concurrency. The tensor op hook is process wide, so ops called from any
// goroutine are recorded. Go has no cheap goroutine identity, so nesting is
// inferred from one stack of open ops: ops running at the same time on other
// goroutines (a DataLoader worker gathering features while the model trains)
// are still counted and timed correctly, but may be nested under whatever op
// was open, which lowers that op's self time; Report.Overlapped counts the
// ops that did not close in stack order.
//
// The hook costs an op one atomic load when no profiler runs, and about a
// microsecond per op while one runs (BenchmarkProfiledOp).
//
// Error policy (the engine's, see package tensor): misuse in a function
// without an error result (Start while a profile runs, Stop with none
// running, an unknown sort column) panics with a *profile.Error (the
// engine's one type, tensor.Error) wrapping ErrState or ErrArgument (which
// is tensor.ErrArgument); the front ends recover it. File errors from
// WriteChromeTrace are returned, wrapped with the path.
package profile

import (
	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

var (
	// ErrState is wrapped by the panic of Start while a profile runs and of
	// Stop when none runs.
	ErrState = engerr.NewKind("profiler state", nil)
	// ErrArgument is wrapped by the panic for an invalid argument, such as
	// an unknown sort column. It is tensor.ErrArgument, the engine's shared
	// sentinel.
	ErrArgument = engerr.ErrArgument
)

// Error is the engine's error type, tensor.Error (the same type), which
// profile functions panic with on misuse. Its Pkg is "profile", Op the
// function ("Start", "Stop", "Table"), and Kind ErrState or ErrArgument;
// Error() reads "profile.Stop: ...".
type Error = engerr.Error

func panicf(kind error, op, format string, args ...any) {
	engerr.Panicf(kind, "profile", op, format, args...)
}
