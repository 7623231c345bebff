package dist

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Comm is a communicator: the ranks of one job and the collectives between
// them (torch.distributed's default process group over the MPI backend).
// A Comm from Init runs over MPI (MPI_COMM_WORLD); the single-process
// communicator World falls back to has size 1, where every collective is the
// identity (a sum or average over one rank) and Send / Recv are errors, so
// that a script written for N ranks runs unchanged in one process.
//
// Collectives are blocking and must be called by every rank in the same
// order with agreeing arguments (sizes, dtypes, root); the checked calls
// (every exported one) compare sizes and dtypes across ranks first and
// return an ErrMPI error on every rank when they differ, instead of a
// hang or a truncated message. Buffers are host memory: tensors must be
// on the CPU. A Comm is safe for use from several goroutines (its calls
// are serialized on the MPI thread), but collectives from two goroutines
// interleave in no defined order.
type Comm struct {
	rank, size, localRank int
	lib                   *mpiLib // nil: the single-process communicator
	note                  string  // why the single-process one was used
	mu                    sync.Mutex
	finalized             bool
}

var (
	worldMu  sync.Mutex
	worldCom *Comm
)

// launchers are the environment variables each launcher sets, tried in
// this order; the rank, size and local rank are read from the first
// launcher whose rank variable is set, so the values never mix two
// launchers' (a job started by mpirun inside a Slurm allocation still has
// SLURM_* variables).
var launchers = []struct {
	name              string
	rank, size, local []string
	requires          string // a further variable that must be set
}{
	{"Open MPI's mpirun", []string{"OMPI_COMM_WORLD_RANK"}, []string{"OMPI_COMM_WORLD_SIZE"}, []string{"OMPI_COMM_WORLD_LOCAL_RANK"}, ""},
	{"MPICH's Hydra (PMI)", []string{"PMI_RANK"}, []string{"PMI_SIZE"}, []string{"MPI_LOCALRANKID", "PMI_LOCAL_RANK"}, ""},
	{"PMIx", []string{"PMIX_RANK"}, []string{"PMIX_SIZE", "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}, []string{"PMIX_LOCAL_RANK", "SLURM_LOCALID"}, ""},
	// Slurm's variables count only inside a job step (srun): the batch
	// script of sbatch has SLURM_PROCID=0 and SLURM_NTASKS=N too, but it
	// is one process.
	{"Slurm's srun", []string{"SLURM_PROCID"}, []string{"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}, []string{"SLURM_LOCALID"}, "SLURM_STEP_ID"},
}

// envRankVars lists every launcher's rank variables, for messages.
var envRankVars = func() []string {
	var v []string
	for _, l := range launchers {
		v = append(v, l.rank...)
	}
	return v
}()

func envInt(vars []string) (int, string, bool) {
	for _, v := range vars {
		if s := os.Getenv(v); s != "" {
			if n, err := strconv.Atoi(s); err == nil && n >= 0 {
				return n, v, true
			}
		}
	}
	return 0, "", false
}

// envLaunch finds the launcher of this process (see launchers) and its
// values; ok false when none set them.
func envLaunch() (launcher string, rank, size, localRank int, localSet, ok bool) {
	for _, l := range launchers {
		r, _, okR := envInt(l.rank)
		if !okR || (l.requires != "" && os.Getenv(l.requires) == "") {
			continue
		}
		s, _, okS := envInt(l.size)
		if !okS || s < 1 {
			s = 1
		}
		lr, _, okL := envInt(l.local)
		if !okL && s == 1 {
			lr = r
		}
		return l.name, r, s, lr, okL, true
	}
	return "", 0, 1, 0, false, false
}

// EnvRank returns the rank, the number of ranks and the local rank (the
// rank among the processes on this host) that the launcher put in the
// environment, and whether a launcher set them: Open MPI's mpirun
// (OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK), MPICH's Hydra mpiexec and
// other PMI launchers (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID or
// PMI_LOCAL_RANK), PMIx (PMIX_RANK), Slurm's srun (SLURM_PROCID,
// SLURM_STEP_NUM_TASKS or SLURM_NTASKS, SLURM_LOCALID; only inside a job
// step, where SLURM_STEP_ID is set, not in sbatch's batch script), tried
// in that order, all three values from the same launcher. It opens no
// library: a script may read it before Init. Without a launcher it
// returns 0, 1, 0, false; a missing local rank is 0 (Init then counts
// the ranks on this host).
func EnvRank() (rank, size, localRank int, launched bool) {
	_, r, s, l, _, ok := envLaunch()
	return r, s, l, ok
}

// Init initializes MPI (MPI_Init_thread, MPI_THREAD_SERIALIZED; every call
// runs on one locked OS thread) on MPI_COMM_WORLD and returns the world
// communicator; later calls return the same Comm. The library is libmpi
// opened at run time: the MPI-5 standard ABI (libmpi_abi.so.0), Open MPI
// (libmpi.so.40) or MPICH (libmpi.so.12), searched in the dynamic loader's
// path, GNNREPL_MPI_LIB_PATH and the usual install directories (the path
// in GNNREPL_MPI_LIB alone when set). Errors (wrapping ErrNoMPI): the
// process was not started by mpirun, mpiexec or srun (no rank in the
// environment, see EnvRank), or no MPI library loads; a failing
// MPI_Init_thread wraps ErrMPI.
func Init() (*Comm, error) {
	worldMu.Lock()
	defer worldMu.Unlock()
	if worldCom != nil && worldCom.lib != nil {
		return worldCom, nil
	}
	return initLocked()
}

func initLocked() (*Comm, error) {
	const op = "Init"
	if _, _, _, launched := EnvRank(); !launched {
		return nil, errf(ErrNoMPI, op, "this process was not started by mpirun, mpiexec or srun (none of %s is set; SLURM_PROCID counts inside an srun step only); run `mpirun -np N gnnrepl run FILE.go` or `srun -n N gnnrepl run FILE.go`, or use dist.World(), which falls back to one rank",
			strings.Join(envRankVars, ", "))
	}
	m, err := loadMPI()
	if err != nil {
		return nil, errf(ErrNoMPI, op, "%v", err)
	}
	var flag, provided int32
	if rc := m.call("MPI_Initialized", uintptr(unsafe.Pointer(&flag))); rc != 0 {
		return nil, errf(ErrMPI, op, "MPI_Initialized: %s", m.errorString(rc))
	}
	if flag == 0 {
		const serialized = 2 // MPI_THREAD_SERIALIZED in every implementation
		if rc := m.call("MPI_Init_thread", 0, 0, serialized, uintptr(unsafe.Pointer(&provided))); rc != 0 {
			return nil, errf(ErrMPI, op, "MPI_Init_thread (%s, %s): error %d", m.version, m.path, rc)
		}
	}
	m.call("MPI_Comm_set_errhandler", m.h.commWorld, m.h.errorsReturn)
	var rank, size int32
	if rc := m.call("MPI_Comm_rank", m.h.commWorld, uintptr(unsafe.Pointer(&rank))); rc != 0 {
		return nil, errf(ErrMPI, op, "MPI_Comm_rank: %s", m.errorString(rc))
	}
	if rc := m.call("MPI_Comm_size", m.h.commWorld, uintptr(unsafe.Pointer(&size))); rc != 0 {
		return nil, errf(ErrMPI, op, "MPI_Comm_size: %s", m.errorString(rc))
	}
	c := &Comm{rank: int(rank), size: int(size), lib: m}
	if _, _, _, l, set, _ := envLaunch(); set {
		c.localRank = l
	} else if lr, err := c.localRankByHost(); err == nil {
		c.localRank = lr
	} else {
		return nil, err
	}
	worldCom = c
	return c, nil
}

// localRankByHost is this rank's index among the ranks on the same host
// (by os.Hostname, all-gathered), for launchers that set no local rank.
func (c *Comm) localRankByHost() (int, error) {
	host, _ := os.Hostname()
	var b [256]byte
	copy(b[:], host)
	all := make([]byte, 256*c.size)
	if rc := c.lib.call("MPI_Allgather", uintptr(unsafe.Pointer(&b[0])), 256, c.lib.h.byte,
		uintptr(unsafe.Pointer(&all[0])), 256, c.lib.h.byte, c.lib.h.commWorld); rc != 0 {
		return 0, c.mpiErr("Init", "MPI_Allgather", rc)
	}
	n := 0
	for r := 0; r < c.rank; r++ {
		if string(all[256*r:256*r+256]) == string(b[:]) {
			n++
		}
	}
	return n, nil
}

// World returns the world communicator: MPI's when the process was started
// by an MPI launcher (Init), and otherwise a single-process communicator
// of size 1 (rank 0), so that the same script runs under `mpirun -np N
// gnnrepl run train.go` and as `gnnrepl run train.go`. When a launcher
// started N > 1 ranks but MPI cannot be initialized, World panics with the
// ErrNoMPI or ErrMPI error (N copies training alone would silently be
// wrong); with N = 1 it falls back and says why in Backend.
func World() *Comm {
	worldMu.Lock()
	defer worldMu.Unlock()
	if worldCom != nil {
		return worldCom
	}
	c, err := initLocked()
	if err == nil {
		return c
	}
	_, size, _, launched := EnvRank()
	if launched && size > 1 {
		panic(err)
	}
	note := "not started by mpirun, mpiexec or srun"
	if launched {
		note = err.Error()
	}
	worldCom = &Comm{size: 1, note: note}
	return worldCom
}

// SetTimeout sets how long any blocking MPI call of this process (a
// collective, Send, Recv, Finalize) may wait for the other ranks before
// this rank gives up on the job: it then prints "rank R of N: MPI_Allreduce
// did not complete within D" and exits with status 1, and the launcher
// ends every rank, so a job whose rank hangs or died fails within D
// instead of waiting forever (torch.distributed's timeout). d <= 0
// disables the watchdog. The default is DefaultTimeout, or the
// GNNREPL_DIST_TIMEOUT environment variable ("90s", "10m" or seconds). It
// applies to the whole process and has no effect on the single-process
// communicator, which never waits.
func (c *Comm) SetTimeout(d time.Duration) { callTimeout.Store(int64(max(d, 0))) }

// Timeout returns the watchdog's limit (0: none); see SetTimeout.
func (c *Comm) Timeout() time.Duration { return time.Duration(callTimeout.Load()) }

// Rank returns this process's rank, 0 <= Rank() < Size().
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of ranks.
func (c *Comm) Size() int { return c.size }

// LocalRank returns the rank among the processes on this host (the GPU
// index in one-process-per-GPU jobs).
func (c *Comm) LocalRank() int { return c.localRank }

// IsMPI reports whether the communicator runs over MPI (false for the
// single-process fallback).
func (c *Comm) IsMPI() bool { return c.lib != nil }

// Backend describes the communicator: the MPI library and version, or the
// single-process fallback and why it was used.
func (c *Comm) Backend() string {
	if c.lib == nil {
		return "single process (size 1): " + c.note
	}
	return fmt.Sprintf("mpi: %s (%s)", c.lib.version, c.lib.path)
}

// String is "dist.Comm{rank 0 of 2, mpi: Open MPI v4.1.4 ...}".
func (c *Comm) String() string {
	return fmt.Sprintf("dist.Comm{rank %d of %d, local rank %d, %s}", c.rank, c.size, c.localRank, c.Backend())
}

// mpiErr is the error of a failed MPI call.
func (c *Comm) mpiErr(op, fn string, rc int) error {
	return c.rankErr(ErrMPI, op, "%s: %s", fn, c.lib.errorString(rc))
}

// ready checks the communicator is usable for op.
func (c *Comm) ready(op string) error {
	if c == nil {
		return errf(ErrArgument, op, "the communicator is nil")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return c.rankErr(ErrMPI, op, "the communicator is finalized")
	}
	return nil
}

// Finalize ends MPI (MPI_Finalize) after a barrier; every later call on the
// communicator is an error. It is a no-op for the single-process
// communicator and when already finalized. gnnrepl run finalizes the world
// communicator when a script returns, so scripts need not call it.
func (c *Comm) Finalize() error {
	if c == nil || c.lib == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return nil
	}
	c.finalized = true
	if rc := c.lib.call("MPI_Finalize"); rc != 0 {
		return c.mpiErr("Finalize", "MPI_Finalize", rc)
	}
	return nil
}

// Abort ends every rank of the job with the exit status code
// (MPI_Abort); it does not return under MPI. For the single-process
// communicator it exits the process with code.
func (c *Comm) Abort(code int) {
	if c != nil && c.lib != nil {
		c.lib.call("MPI_Abort", c.lib.h.commWorld, uintptr(code))
	}
	os.Exit(code)
}

// Shutdown ends the world communicator when MPI was initialized: after a
// script that succeeded (failed false) it finalizes MPI; after one that
// failed, with more than one rank, it aborts the whole job with status 1 so
// that the other ranks do not wait forever in a collective. gnnrepl run
// calls it when a script ends.
func Shutdown(failed bool) {
	worldMu.Lock()
	c := worldCom
	worldMu.Unlock()
	if c == nil || c.lib == nil {
		return
	}
	if failed && c.size > 1 {
		fmt.Fprintf(os.Stderr, "gnnrepl: rank %d of %d failed; aborting the job\n", c.rank, c.size)
		c.Abort(1)
	}
	c.Finalize()
}

// Barrier blocks until every rank has called it (MPI_Barrier).
func (c *Comm) Barrier() error {
	const op = "Barrier"
	if err := c.ready(op); err != nil || c.lib == nil {
		return err
	}
	if rc := c.lib.call("MPI_Barrier", c.lib.h.commWorld); rc != 0 {
		return c.mpiErr(op, "MPI_Barrier", rc)
	}
	return nil
}

// agree checks that every rank passed the same values (sizes, dtype codes,
// root) to a collective: one all-reduce of the values and their negations
// with MPI_MAX. The error, the same on every rank, lists this rank's
// values and the range across ranks.
func (c *Comm) agree(op, what string, vals ...int64) error {
	if c.lib == nil {
		return nil
	}
	buf := make([]int64, 2*len(vals))
	for i, v := range vals {
		buf[2*i], buf[2*i+1] = v, -v
	}
	if rc := c.lib.call("MPI_Allreduce", c.lib.h.inPlace, uintptr(ptr(buf)), uintptr(len(buf)), c.lib.h.int64, c.lib.h.opMax, c.lib.h.commWorld); rc != 0 {
		return c.mpiErr(op, "MPI_Allreduce", rc)
	}
	for i := range vals {
		if buf[2*i] != -buf[2*i+1] {
			var lo, hi []string
			for j := range vals {
				lo = append(lo, strconv.FormatInt(-buf[2*j+1], 10))
				hi = append(hi, strconv.FormatInt(buf[2*j], 10))
			}
			return c.rankErr(ErrMPI, op, "the ranks disagree on %s: this rank has %v, the ranks range from [%s] to [%s]",
				what, vals, strings.Join(lo, " "), strings.Join(hi, " "))
		}
	}
	return nil
}

// reduceOp maps "sum", "avg" (or "mean"), "max", "min" to an MPI op; avg
// is a sum divided by Size afterwards.
func (c *Comm) reduceOp(op, name string, integer bool) (uintptr, bool, error) {
	var h uintptr
	if c.lib != nil {
		switch name {
		case "sum", "avg", "mean":
			h = c.lib.h.opSum
		case "max":
			h = c.lib.h.opMax
		case "min":
			h = c.lib.h.opMin
		}
	}
	switch name {
	case "sum", "max", "min":
		return h, false, nil
	case "avg", "mean":
		if integer {
			return 0, false, c.rankErr(ErrArgument, op, "op %q of int64 values; use \"sum\" and divide", name)
		}
		return h, true, nil
	}
	return 0, false, c.rankErr(ErrArgument, op, "op %q; want \"sum\", \"avg\", \"max\" or \"min\"", name)
}

// allReduceRaw all-reduces n values at p in place.
func (c *Comm) allReduceRaw(op string, p unsafe.Pointer, n int, dt, mop uintptr) error {
	if c.lib == nil || n == 0 {
		return nil
	}
	if !count32(n) {
		return c.rankErr(ErrArgument, op, "%d values exceed MPI's int count", n)
	}
	if rc := c.lib.call("MPI_Allreduce", c.lib.h.inPlace, uintptr(p), uintptr(n), dt, mop, c.lib.h.commWorld); rc != 0 {
		return c.mpiErr(op, "MPI_Allreduce", rc)
	}
	return nil
}

// AllReduceFloat32s reduces buf element-wise over the ranks, in place, with
// op "sum", "avg" (the sum divided by Size, as torch's ReduceOp.AVG),
// "max" or "min" (MPI_Allreduce, MPI_FLOAT). Every rank must pass the same
// length. Summation order is the MPI library's, the same on every rank.
func (c *Comm) AllReduceFloat32s(buf []float32, op string) error {
	const name = "AllReduceFloat32s"
	if err := c.ready(name); err != nil {
		return err
	}
	mop, avg, err := c.reduceOp(name, op, false)
	if err != nil {
		return err
	}
	if err := c.agree(name, "the buffer length", int64(len(buf))); err != nil {
		return err
	}
	return c.allReduceFloat32s(name, buf, mop, avg)
}

func (c *Comm) allReduceFloat32s(name string, buf []float32, mop uintptr, avg bool) error {
	if err := c.allReduceRaw(name, ptr(buf), len(buf), c.dtFloat32(), mop); err != nil {
		return err
	}
	if avg && c.size > 1 {
		s := 1 / float32(c.size)
		for i := range buf {
			buf[i] *= s
		}
	}
	return nil
}

// AllReduceInt64s reduces buf element-wise over the ranks, in place, with
// op "sum", "max" or "min" (MPI_INT64_T); exact.
func (c *Comm) AllReduceInt64s(buf []int64, op string) error {
	const name = "AllReduceInt64s"
	if err := c.ready(name); err != nil {
		return err
	}
	mop, _, err := c.reduceOp(name, op, true)
	if err != nil {
		return err
	}
	if err := c.agree(name, "the buffer length", int64(len(buf))); err != nil {
		return err
	}
	return c.allReduceRaw(name, ptr(buf), len(buf), c.dtInt64(), mop)
}

func (c *Comm) dtFloat32() uintptr {
	if c.lib == nil {
		return 0
	}
	return c.lib.h.float32
}

func (c *Comm) dtInt64() uintptr {
	if c.lib == nil {
		return 0
	}
	return c.lib.h.int64
}

// cpuTensor checks t for op: not nil, on the CPU.
func (c *Comm) cpuTensor(op string, t *tensor.Tensor) error {
	if t == nil {
		return c.rankErr(ErrArgument, op, "the tensor is nil")
	}
	if t.Device() != "cpu" {
		return c.rankErr(engerr.ErrDevice, op, "the tensor is on %s; collectives over MPI take CPU tensors (for CUDA tensors use an NCCL communicator: dist.NewNCCL)", t.Device())
	}
	return nil
}

// AllReduce reduces the CPU tensor t element-wise over the ranks, in place
// (torch.distributed.all_reduce), with op "sum", "avg", "max" or "min".
// dtypes: float32; float16 and bfloat16, reduced in float32 and rounded
// back (nearest, ties to even); int64 (not "avg"). Every rank must pass a
// tensor of the same dtype and number of elements (else ErrMPI on every
// rank). The tensor's autograd history is left alone: reduce gradients or
// detached values.
func (c *Comm) AllReduce(t *tensor.Tensor, op string) error {
	const name = "AllReduce"
	if err := c.ready(name); err != nil {
		return err
	}
	if err := c.cpuTensor(name, t); err != nil {
		return err
	}
	dt := t.DType()
	mop, avg, err := c.reduceOp(name, op, dt == tensor.Int64)
	if err != nil {
		return err
	}
	switch dt {
	case tensor.Float32, tensor.Float16, tensor.BFloat16, tensor.Int64:
	default:
		return c.rankErr(ErrDType, name, "dtype %v; want float32, float16, bfloat16 or int64", dt)
	}
	if err := c.agree(name, "(elements, dtype)", int64(t.Numel()), int64(dt)); err != nil {
		return err
	}
	switch dt {
	case tensor.Float32:
		return c.allReduceFloat32s(name, t.Float32s(), mop, avg)
	case tensor.Int64:
		return c.allReduceRaw(name, ptr(t.Int64s()), t.Numel(), c.dtInt64(), mop)
	}
	var stage *tensor.Tensor
	tensor.NoGrad(func() { stage = t.Detach().Cast(tensor.Float32) })
	if err := c.allReduceFloat32s(name, stage.Float32s(), mop, avg); err != nil {
		return err
	}
	return tensor.Catch(func() { tensor.NoGrad(func() { t.CopyFrom(stage.Cast(dt)) }) })
}

// rawBytes is the host storage of a CPU tensor as bytes.
func rawBytes(t *tensor.Tensor) []byte {
	var p unsafe.Pointer
	switch t.DType().Size() {
	case 4:
		if s := t.Float32s(); len(s) > 0 {
			p = unsafe.Pointer(&s[0])
		}
	case 8:
		if s := t.Int64s(); len(s) > 0 {
			p = unsafe.Pointer(&s[0])
		}
	case 2:
		if s := t.Uint16s(); len(s) > 0 {
			p = unsafe.Pointer(&s[0])
		}
	case 1:
		if t.DType() == tensor.Bool {
			if s := t.Bools(); len(s) > 0 {
				p = unsafe.Pointer(&s[0])
			}
		} else if s := t.Int8s(); len(s) > 0 {
			p = unsafe.Pointer(&s[0])
		}
	}
	if p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(t.Nbytes()))
}

// bcastRaw broadcasts n bytes at p from root.
func (c *Comm) bcastRaw(op string, b []byte, root int) error {
	if c.lib == nil || len(b) == 0 {
		return nil
	}
	if !count32(len(b)) {
		return c.rankErr(ErrArgument, op, "%d bytes exceed MPI's int count", len(b))
	}
	if rc := c.lib.call("MPI_Bcast", uintptr(ptr(b)), uintptr(len(b)), c.lib.h.byte, uintptr(root), c.lib.h.commWorld); rc != 0 {
		return c.mpiErr(op, "MPI_Bcast", rc)
	}
	return nil
}

func (c *Comm) checkRank(op, what string, r int) error {
	if r < 0 || r >= c.size {
		return c.rankErr(ErrArgument, op, "%s %d outside [0, %d)", what, r, c.size)
	}
	return nil
}

// Broadcast copies the CPU tensor t of rank root into t on every other
// rank (torch.distributed.broadcast), in place; any dtype. Every rank must
// pass the same root and a tensor of the same dtype and element count.
// Data-parallel training broadcasts rank 0's initial parameters this way.
func (c *Comm) Broadcast(t *tensor.Tensor, root int) error {
	const name = "Broadcast"
	if err := c.ready(name); err != nil {
		return err
	}
	if err := c.cpuTensor(name, t); err != nil {
		return err
	}
	if err := c.checkRank(name, "root", root); err != nil {
		return err
	}
	if err := c.agree(name, "(elements, dtype, root)", int64(t.Numel()), int64(t.DType()), int64(root)); err != nil {
		return err
	}
	return c.bcastRaw(name, rawBytes(t), root)
}

// BroadcastFloat32s copies rank root's buf into buf on every rank.
func (c *Comm) BroadcastFloat32s(buf []float32, root int) error {
	const name = "BroadcastFloat32s"
	return c.bcastSlice(name, unsafe.Slice((*byte)(ptr(buf)), 4*len(buf)), len(buf), root)
}

// BroadcastInt64s copies rank root's buf into buf on every rank.
func (c *Comm) BroadcastInt64s(buf []int64, root int) error {
	const name = "BroadcastInt64s"
	return c.bcastSlice(name, unsafe.Slice((*byte)(ptr(buf)), 8*len(buf)), len(buf), root)
}

func (c *Comm) bcastSlice(name string, b []byte, n, root int) error {
	if err := c.ready(name); err != nil {
		return err
	}
	if err := c.checkRank(name, "root", root); err != nil {
		return err
	}
	if err := c.agree(name, "(length, root)", int64(n), int64(root)); err != nil {
		return err
	}
	return c.bcastRaw(name, b, root)
}
