package dist

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

// Error is the engine's one error type (tensor.Error); dist reports bad
// input and failed MPI or METIS calls with it. Its message names the
// function, the rank and, for a failed library call, the C entry point:
// "dist.AllReduce: rank 1 of 2: MPI_Allreduce: MPI_ERR_TRUNCATE: ...".
type Error = engerr.Error

var (
	// ErrNoMPI: the process was not started by an MPI launcher (mpirun,
	// mpiexec, srun), or no usable MPI library was found.
	ErrNoMPI = engerr.NewKind("dist: MPI not available", nil)
	// ErrMPI: an MPI call failed, or ranks disagreed on a collective's
	// arguments (sizes, dtypes, root).
	ErrMPI = engerr.NewKind("dist: MPI call failed", nil)
	// ErrNoMETIS: libmetis could not be opened.
	ErrNoMETIS = engerr.NewKind("dist: METIS not available", nil)
	// ErrMETIS: a METIS call failed.
	ErrMETIS = engerr.NewKind("dist: METIS call failed", nil)
	// ErrNoNCCL: libnccl.so.2 could not be opened (or is older than 2.10).
	ErrNoNCCL = engerr.NewKind("dist: NCCL not available", nil)
	// ErrNCCL: an NCCL call failed.
	ErrNCCL = engerr.NewKind("dist: NCCL call failed", nil)
	// ErrCheckpoint: SaveCheckpoint or LoadCheckpoint failed on some rank
	// (every rank gets an error of this kind; the failing rank's also
	// wraps package checkpoint's error).
	ErrCheckpoint = engerr.NewKind("dist: checkpoint failed", nil)
	// ErrTimeout: a collective did not complete within the communicator's
	// timeout (SetTimeout, GNNREPL_DIST_TIMEOUT).
	ErrTimeout = engerr.NewKind("dist: collective timed out", nil)
	// ErrArgument: an argument value out of range or of the wrong kind
	// (the same sentinel as tensor.ErrArgument).
	ErrArgument = engerr.ErrArgument
	// ErrShape: buffers whose lengths do not fit (tensor.ErrShape).
	ErrShape = engerr.ErrShape
	// ErrDType: a tensor of a dtype the call does not take (tensor.ErrDType).
	ErrDType = engerr.ErrDType
)

// errf returns an *Error of kind raised by op.
func errf(kind error, op, format string, args ...any) error {
	return engerr.New(kind, "dist", op, format, args...)
}

// rankErr is an *Error naming the communicator's rank.
func (c *Comm) rankErr(kind error, op, format string, args ...any) error {
	return engerr.New(kind, "dist", op, "rank %d of %d: %s", c.rank, c.size, fmt.Sprintf(format, args...))
}
