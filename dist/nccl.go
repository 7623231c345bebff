package dist

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ebitengine/purego"

	"github.com/gnnrepl/gnnrepl/internal/dynlib"
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// NCCLUniqueIDBytes is the size of an ncclUniqueId (NCCL_UNIQUE_ID_BYTES
// of nccl.h): the opaque token rank 0 makes with ncclGetUniqueId and every
// rank passes to ncclCommInitRank.
const NCCLUniqueIDBytes = 128

// ncclUniqueID is nccl.h's ncclUniqueId, passed by value to
// ncclCommInitRank (purego passes it as the C ABI does: in memory on
// amd64, by reference on arm64).
type ncclUniqueID struct {
	Internal [NCCLUniqueIDBytes]byte
}

// ncclDataType_t and ncclRedOp_t values of nccl.h (NCCL 2.10 and later:
// ncclBfloat16 and ncclAvg appeared in 2.10).
const (
	ncclInt8     = 0
	ncclUint8    = 1
	ncclInt32    = 2
	ncclUint32   = 3
	ncclInt64    = 4
	ncclUint64   = 5
	ncclFloat16  = 6
	ncclFloat32  = 7
	ncclFloat64  = 8
	ncclBfloat16 = 9

	ncclSum  = 0
	ncclProd = 1
	ncclMax  = 2
	ncclMin  = 3
	ncclAvg  = 4
)

// ncclResults are ncclResult_t's names, by value.
var ncclResults = []string{"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
	"ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress"}

// ncclLibDirs are searched, after the dynamic loader's path, for
// libnccl.so.2; the colon-separated GNNREPL_NCCL_LIB_PATH is searched first.
var ncclLibDirs = []string{
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/usr/local/cuda/lib64",
	"/usr/local/cuda-*/lib64",
	"/usr/local/cuda/targets/*/lib",
	"/usr/local/nccl/lib",
	"/opt/nvidia/nccl/lib",
	"/usr/local/lib/python3*/dist-packages/nvidia/nccl/lib",
	"/usr/lib/python3/dist-packages/nvidia/nccl/lib",
	"/usr/local/lib",
	"/usr/lib64",
}

// ncclLibNames are the sonames tried.
var ncclLibNames = []string{"libnccl.so.2", "libnccl.so"}

// ncclLib is an opened libnccl.
type ncclLib struct {
	path    string
	version int // ncclGetVersion's code

	getVersion     func(*int32) int32
	getUniqueID    func(*ncclUniqueID) int32
	commInitRank   func(*uintptr, int32, ncclUniqueID, int32) int32
	commInitAll    func(*uintptr, int32, *int32) int32
	commDestroy    func(uintptr) int32
	commAbort      func(uintptr) int32
	getErrorString func(int32) string
	allReduce      func(send, recv, count uintptr, dt, op int32, comm, stream uintptr) int32
	broadcast      func(send, recv, count uintptr, dt, root int32, comm, stream uintptr) int32
	allGather      func(send, recv, count uintptr, dt int32, comm, stream uintptr) int32
	groupStart     func() int32
	groupEnd       func() int32
}

var (
	ncclOnce sync.Once
	libNCCL  *ncclLib
	ncclErr  error
)

// loadNCCL opens libnccl once (GNNREPL_NCCL_LIB overrides the search
// with a path) and reads its version.
func loadNCCL() (*ncclLib, error) {
	ncclOnce.Do(func() { libNCCL, ncclErr = openNCCL(os.Getenv("GNNREPL_NCCL_LIB")) })
	return libNCCL, ncclErr
}

func openNCCL(override string) (*ncclLib, error) {
	dirs := dynlib.Dirs("GNNREPL_NCCL_LIB_PATH", ncclLibDirs)
	h, path, err := dynlib.Open(override, dirs, ncclLibNames...)
	if err != nil {
		where := "GNNREPL_NCCL_LIB=" + override
		if override == "" {
			where = "the dynamic loader's path, then " + strings.Join(dirs, ":")
		}
		return nil, fmt.Errorf("%w: libnccl.so.2 could not be opened: %v (searched %s); install NCCL (apt-get install libnccl2, or pip's nvidia-nccl-cu12), or set GNNREPL_NCCL_LIB to the library's path or GNNREPL_NCCL_LIB_PATH to directories to search first",
			ErrNoNCCL, err, where)
	}
	l := &ncclLib{path: path}
	for _, f := range []struct {
		fn   any
		name string
	}{
		{&l.getVersion, "ncclGetVersion"},
		{&l.getUniqueID, "ncclGetUniqueId"},
		{&l.commInitRank, "ncclCommInitRank"},
		{&l.commInitAll, "ncclCommInitAll"},
		{&l.commDestroy, "ncclCommDestroy"},
		{&l.commAbort, "ncclCommAbort"},
		{&l.getErrorString, "ncclGetErrorString"},
		{&l.allReduce, "ncclAllReduce"},
		{&l.broadcast, "ncclBroadcast"},
		{&l.allGather, "ncclAllGather"},
		{&l.groupStart, "ncclGroupStart"},
		{&l.groupEnd, "ncclGroupEnd"},
	} {
		sym, err := dynlib.Sym(h, f.name)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v (NCCL 2.10 or later is needed)", ErrNoNCCL, path, err)
		}
		purego.RegisterFunc(f.fn, sym)
	}
	var v int32
	if rc := l.getVersion(&v); rc != 0 {
		return nil, fmt.Errorf("%w: %s: ncclGetVersion: %s", ErrNoNCCL, path, l.errorString(rc))
	}
	l.version = int(v)
	if l.version < 21000 {
		return nil, fmt.Errorf("%w: %s is NCCL %s; gnnrepl needs 2.10 or later (bfloat16, ncclAvg)", ErrNoNCCL, path, ncclVersionString(l.version))
	}
	return l, nil
}

// ncclVersionString decodes ncclGetVersion's code: major*10000 +
// minor*100 + patch since NCCL 2.9, major*1000 + minor*100 + patch before.
func ncclVersionString(code int) string {
	if code >= 10000 {
		return fmt.Sprintf("%d.%d.%d", code/10000, code/100%100, code%100)
	}
	return fmt.Sprintf("%d.%d.%d", code/1000, code/100%10, code%100)
}

func (l *ncclLib) errorString(rc int32) string {
	name := fmt.Sprintf("ncclResult %d", rc)
	if rc >= 0 && int(rc) < len(ncclResults) {
		name = ncclResults[rc]
	}
	if l.getErrorString != nil {
		if s := l.getErrorString(rc); s != "" {
			return fmt.Sprintf("%s (%s)", name, s)
		}
	}
	return name
}

// NCCLVersion opens libnccl.so.2 (without touching a GPU) and returns its
// version ("2.21.5", from ncclGetVersion) and path. The error wraps
// ErrNoNCCL and names libnccl.so.2, the search (the loader's path,
// GNNREPL_NCCL_LIB_PATH, the CUDA and NCCL install directories) and
// GNNREPL_NCCL_LIB, which overrides it.
func NCCLVersion() (version, path string, err error) {
	l, err := loadNCCL()
	if err != nil {
		return "", "", err
	}
	return ncclVersionString(l.version), l.path, nil
}

// NCCL is a communicator over NCCL for CUDA tensors, one GPU per member
// (torch.distributed's NCCL process group): collectives on device memory,
// queued on the stream of the tensors' device (the legacy default stream
// every op of package tensor uses), so they are ordered after the ops that
// produced their inputs and before those that read their outputs. Make
// one per process with NewNCCL (one process per GPU, bootstrapped over
// MPI), or one per local GPU with NewNCCLGroup (one process driving them
// all, for notebooks). Collectives must be called by every member in the
// same order with tensors of the same dtype and size; NCCL itself cannot
// check that, so NCCL.AllReduce and the others first compare sizes over
// the MPI communicator when there is one (NewNCCL), as Comm's do.
type NCCL struct {
	lib    *ncclLib
	comm   uintptr
	rank   int
	size   int
	device string
	mpi    *Comm // the bootstrap communicator (nil for a group)
	mu     sync.Mutex
	closed bool
}

// Rank returns the member's rank in the NCCL communicator.
func (n *NCCL) Rank() int { return n.rank }

// Size returns the number of members.
func (n *NCCL) Size() int { return n.size }

// Device returns the member's GPU, "cuda:N".
func (n *NCCL) Device() string { return n.device }

// String is "dist.NCCL{rank 0 of 2, cuda:0, NCCL 2.21.5}".
func (n *NCCL) String() string {
	return fmt.Sprintf("dist.NCCL{rank %d of %d, %s, NCCL %s}", n.rank, n.size, n.device, ncclVersionString(n.lib.version))
}

func (n *NCCL) err(kind error, op, format string, args ...any) error {
	return engerr.New(kind, "dist", op, "NCCL rank %d of %d (%s): %s", n.rank, n.size, n.device, fmt.Sprintf(format, args...))
}

// NewNCCL makes this process's member of an NCCL communicator over the
// ranks of comm (nil: World()), one process per GPU: rank 0 makes an
// ncclUniqueId (ncclGetUniqueId), comm broadcasts its 128 bytes over MPI,
// and every rank calls ncclCommInitRank on device ("" is
// "cuda:<comm.LocalRank()>", the usual one-GPU-per-rank mapping). Every
// rank of comm must call it. Errors: no NCCL library (ErrNoNCCL, on every
// rank alike: the ranks agree before initializing), no such CUDA device
// (ErrDevice), a failing NCCL call (ErrNCCL naming it and the rank).
func NewNCCL(comm *Comm, device string) (*NCCL, error) {
	const op = "NewNCCL"
	if comm == nil {
		comm = World()
	}
	if err := comm.ready(op); err != nil {
		return nil, err
	}
	if device == "" {
		device = fmt.Sprintf("cuda:%d", comm.LocalRank())
	}
	l, lerr := loadNCCL()
	// Every rank learns whether every rank has NCCL before any of them
	// waits in ncclCommInitRank for the others.
	ok := int64(1)
	if lerr != nil {
		ok = 0
	}
	flags := []int64{ok}
	if err := comm.AllReduceInt64s(flags, "min"); err != nil {
		return nil, err
	}
	if lerr != nil {
		return nil, comm.rankErr(ErrNoNCCL, op, "%v", lerr)
	}
	if flags[0] == 0 {
		return nil, comm.rankErr(ErrNoNCCL, op, "another rank has no usable libnccl.so.2 (its error is in its output)")
	}
	var id ncclUniqueID
	var rc int32
	if comm.Rank() == 0 {
		rc = l.getUniqueID(&id)
	}
	status := []int64{int64(rc)}
	if err := comm.BroadcastInt64s(status, 0); err != nil {
		return nil, err
	}
	if status[0] != 0 {
		return nil, comm.rankErr(ErrNCCL, op, "ncclGetUniqueId on rank 0: %s", l.errorString(int32(status[0])))
	}
	if err := comm.bcastRaw(op, id.Internal[:], 0); err != nil {
		return nil, err
	}
	n := &NCCL{lib: l, rank: comm.Rank(), size: comm.Size(), device: device, mpi: comm}
	err := tensor.WithCUDAContext(device, func() error {
		if rc := l.commInitRank(&n.comm, int32(n.size), id, int32(n.rank)); rc != 0 {
			return n.err(ErrNCCL, op, "ncclCommInitRank: %s", l.errorString(rc))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// NCCLGroup is the NCCL communicator of one process driving several GPUs
// (ncclCommInitAll; the notebook's single-process multi-GPU case): one
// member per device, and collectives that take one tensor per member and
// run as one NCCL group call.
type NCCLGroup struct {
	members []*NCCL
}

// NewNCCLGroup makes an NCCL communicator over devices ("cuda:0",
// "cuda:1", ...) in this process (ncclCommInitAll): member i drives
// devices[i]. Errors: no devices or a device named twice (ErrArgument), no
// NCCL (ErrNoNCCL), a device that cannot be opened (ErrDevice), a failing
// ncclCommInitAll (ErrNCCL).
func NewNCCLGroup(devices []string) (*NCCLGroup, error) {
	const op = "NewNCCLGroup"
	if len(devices) == 0 {
		return nil, errf(ErrArgument, op, "no devices")
	}
	ords := make([]int32, len(devices))
	seen := map[string]bool{}
	for i, d := range devices {
		var k int
		if _, err := fmt.Sscanf(d, "cuda:%d", &k); err != nil || k < 0 || fmt.Sprintf("cuda:%d", k) != d {
			return nil, errf(ErrArgument, op, "devices[%d] = %q; want \"cuda:N\"", i, d)
		}
		if seen[d] {
			return nil, errf(ErrArgument, op, "devices[%d] = %q is named twice", i, d)
		}
		seen[d] = true
		ords[i] = int32(k)
	}
	l, err := loadNCCL()
	if err != nil {
		return nil, errf(ErrNoNCCL, op, "%v", err)
	}
	comms := make([]uintptr, len(devices))
	// Open every device (and make the first current) so that the CUDA
	// runtime inside NCCL finds their primary contexts.
	for _, d := range devices[1:] {
		if err := tensor.WithCUDAContext(d, func() error { return nil }); err != nil {
			return nil, err
		}
	}
	err = tensor.WithCUDAContext(devices[0], func() error {
		if rc := l.commInitAll(&comms[0], int32(len(devices)), &ords[0]); rc != 0 {
			return errf(ErrNCCL, op, "ncclCommInitAll over %v: %s", devices, l.errorString(rc))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g := &NCCLGroup{}
	for i, d := range devices {
		g.members = append(g.members, &NCCL{lib: l, comm: comms[i], rank: i, size: len(devices), device: d})
	}
	return g, nil
}

// Members returns the group's members, member i on devices[i].
func (g *NCCLGroup) Members() []*NCCL { return g.members }

// Size returns the number of members (devices).
func (g *NCCLGroup) Size() int { return len(g.members) }

// ncclType maps a tensor dtype to NCCL's.
func ncclType(dt tensor.DType) (int32, bool) {
	switch dt {
	case tensor.Float32:
		return ncclFloat32, true
	case tensor.Float16:
		return ncclFloat16, true
	case tensor.BFloat16:
		return ncclBfloat16, true
	case tensor.Int64:
		return ncclInt64, true
	case tensor.Int8:
		return ncclInt8, true
	case tensor.Bool:
		return ncclUint8, true
	}
	return 0, false
}

// ncclOp maps "sum", "avg" ("mean"), "max", "min", "prod" to NCCL's op.
func ncclOp(name string, dt tensor.DType) (int32, error) {
	switch name {
	case "sum":
		return ncclSum, nil
	case "prod":
		return ncclProd, nil
	case "max":
		return ncclMax, nil
	case "min":
		return ncclMin, nil
	case "avg", "mean":
		if dt == tensor.Int64 || dt == tensor.Int8 || dt == tensor.Bool {
			return 0, fmt.Errorf("op %q of %v values; use \"sum\" and divide", name, dt)
		}
		return ncclAvg, nil
	}
	return 0, fmt.Errorf("op %q; want \"sum\", \"avg\", \"max\", \"min\" or \"prod\"", name)
}

// operand checks t for a collective of member n and returns its device
// address, stream and NCCL dtype.
func (n *NCCL) operand(op string, t *tensor.Tensor) (ptr, stream uintptr, dt int32, err error) {
	if n == nil {
		return 0, 0, 0, errf(ErrArgument, op, "the NCCL communicator is nil")
	}
	n.mu.Lock()
	closed := n.closed
	n.mu.Unlock()
	if closed {
		return 0, 0, 0, n.err(ErrNCCL, op, "the communicator was destroyed")
	}
	if t == nil {
		return 0, 0, 0, n.err(ErrArgument, op, "the tensor is nil")
	}
	if t.Device() != n.device {
		return 0, 0, 0, n.err(engerr.ErrDevice, op, "the tensor is on %s; this member drives %s", t.Device(), n.device)
	}
	dt, ok := ncclType(t.DType())
	if !ok {
		return 0, 0, 0, n.err(ErrDType, op, "dtype %v has no NCCL type", t.DType())
	}
	ptr, stream, err = t.CUDAPointer()
	if err != nil {
		return 0, 0, 0, n.err(engerr.ErrDevice, op, "%v", err)
	}
	return ptr, stream, dt, nil
}

// agree compares the members' (elements, dtype) over the bootstrap MPI
// communicator, when there is one.
func (n *NCCL) agree(op string, vals ...int64) error {
	if n.mpi == nil {
		return nil
	}
	return n.mpi.agree(op, "(elements, dtype, root)", vals...)
}

// run queues calls with the member's device current, inside one NCCL group
// when there are several.
func runNCCL(l *ncclLib, device string, calls []func() int32, what []string) error {
	return tensor.WithCUDAContext(device, func() error {
		if len(calls) > 1 {
			if rc := l.groupStart(); rc != 0 {
				return fmt.Errorf("ncclGroupStart: %s", l.errorString(rc))
			}
		}
		var first error
		for i, c := range calls {
			if rc := c(); rc != 0 && first == nil {
				first = fmt.Errorf("%s: %s", what[i], l.errorString(rc))
			}
		}
		if len(calls) > 1 {
			if rc := l.groupEnd(); rc != 0 && first == nil {
				first = fmt.Errorf("ncclGroupEnd: %s", l.errorString(rc))
			}
		}
		return first
	})
}

// AllReduce reduces the CUDA tensor t element-wise over the members, in
// place (torch.distributed.all_reduce with the NCCL backend; ncclAllReduce
// on t's device and stream), with op "sum", "avg" (ncclAvg), "max", "min"
// or "prod". dtypes: float32, float16, bfloat16 (reduced by NCCL in their
// own precision), int64, int8, bool (as uint8). Every member must pass a
// tensor of the same dtype and element count; with an MPI bootstrap
// (NewNCCL) that is checked first, an ErrMPI error on every rank. The call
// returns once the work is queued: later ops on the device see the result.
func (n *NCCL) AllReduce(t *tensor.Tensor, op string) error {
	const name = "NCCL.AllReduce"
	p, s, dt, err := n.operand(name, t)
	if err != nil {
		return err
	}
	o, err := ncclOp(op, t.DType())
	if err != nil {
		return n.err(ErrArgument, name, "%v", err)
	}
	if err := n.agree(name, int64(t.Numel()), int64(t.DType()), 0); err != nil {
		return err
	}
	if err := runNCCL(n.lib, n.device, []func() int32{func() int32 {
		return n.lib.allReduce(p, p, uintptr(t.Numel()), dt, o, n.comm, s)
	}}, []string{"ncclAllReduce"}); err != nil {
		return n.err(ErrNCCL, name, "%v", err)
	}
	return nil
}

// allReduceMany all-reduces every tensor of ts (all on this member's
// device, of NCCL dtypes) in place with op, as one NCCL group: NCCL fuses
// the calls, which is DDP's bucketing. The members must pass the same
// list of sizes.
func (n *NCCL) allReduceMany(name string, ts []*tensor.Tensor, op string) error {
	calls := make([]func() int32, 0, len(ts))
	what := make([]string, 0, len(ts))
	sizes := []int64{int64(len(ts))}
	for i, t := range ts {
		p, s, dt, err := n.operand(name, t)
		if err != nil {
			return err
		}
		o, err := ncclOp(op, t.DType())
		if err != nil {
			return n.err(ErrArgument, name, "%v", err)
		}
		cnt := uintptr(t.Numel())
		calls = append(calls, func() int32 { return n.lib.allReduce(p, p, cnt, dt, o, n.comm, s) })
		what = append(what, fmt.Sprintf("ncclAllReduce of tensor %d", i))
		sizes = append(sizes, int64(t.Numel()))
	}
	if n.mpi != nil {
		if err := n.mpi.agree(name, "(tensor count, sizes)", sizes...); err != nil {
			return err
		}
	}
	if err := runNCCL(n.lib, n.device, calls, what); err != nil {
		return n.err(ErrNCCL, name, "%v", err)
	}
	return nil
}

// Broadcast copies root's CUDA tensor t into t on every member, in place
// (ncclBroadcast); any dtype of AllReduce's.
func (n *NCCL) Broadcast(t *tensor.Tensor, root int) error {
	const name = "NCCL.Broadcast"
	p, s, dt, err := n.operand(name, t)
	if err != nil {
		return err
	}
	if root < 0 || root >= n.size {
		return n.err(ErrArgument, name, "root %d outside [0, %d)", root, n.size)
	}
	if err := n.agree(name, int64(t.Numel()), int64(t.DType()), int64(root)); err != nil {
		return err
	}
	if err := runNCCL(n.lib, n.device, []func() int32{func() int32 {
		return n.lib.broadcast(p, p, uintptr(t.Numel()), dt, int32(root), n.comm, s)
	}}, []string{"ncclBroadcast"}); err != nil {
		return n.err(ErrNCCL, name, "%v", err)
	}
	return nil
}

// AllGather concatenates every member's CUDA tensor t along dimension 0,
// in rank order, into a new tensor on t's device (ncclAllGather):
// (Size*rows, ...). Every member must pass the same shape.
func (n *NCCL) AllGather(t *tensor.Tensor) (*tensor.Tensor, error) {
	const name = "NCCL.AllGather"
	p, s, dt, err := n.operand(name, t)
	if err != nil {
		return nil, err
	}
	if err := n.agree(name, int64(t.Numel()), int64(t.DType()), 0); err != nil {
		return nil, err
	}
	shape := append([]int{}, t.Shape()...)
	if len(shape) == 0 {
		shape = []int{1}
	}
	shape[0] *= n.size
	var out *tensor.Tensor
	if err := tensor.Catch(func() { out = tensor.EmptyOn(n.device, t.DType(), shape...) }); err != nil {
		return nil, n.err(engerr.ErrDevice, name, "%v", err)
	}
	q, _, err := out.CUDAPointer()
	if err != nil {
		return nil, n.err(engerr.ErrDevice, name, "%v", err)
	}
	if err := runNCCL(n.lib, n.device, []func() int32{func() int32 {
		return n.lib.allGather(p, q, uintptr(t.Numel()), dt, n.comm, s)
	}}, []string{"ncclAllGather"}); err != nil {
		return nil, n.err(ErrNCCL, name, "%v", err)
	}
	return out, nil
}

// Destroy frees the communicator (ncclCommDestroy); later calls are
// errors. Destroying twice is a no-op.
func (n *NCCL) Destroy() error {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	var rc int32
	err := tensor.WithCUDAContext(n.device, func() error { rc = n.lib.commDestroy(n.comm); return nil })
	if err == nil && rc != 0 {
		err = n.err(ErrNCCL, "NCCL.Destroy", "ncclCommDestroy: %s", n.lib.errorString(rc))
	}
	return err
}

// groupTensors checks one tensor per member.
func (g *NCCLGroup) groupTensors(op string, ts []*tensor.Tensor) error {
	if g == nil {
		return errf(ErrArgument, op, "the group is nil")
	}
	if len(ts) != len(g.members) {
		return errf(ErrArgument, op, "%d tensors for %d members; pass one per device", len(ts), len(g.members))
	}
	for i, t := range ts {
		if t == nil {
			return errf(ErrArgument, op, "tensor %d is nil", i)
		}
		if t.Numel() != ts[0].Numel() || t.DType() != ts[0].DType() {
			return errf(ErrShape, op, "tensor %d has %d elements of %v, tensor 0 %d of %v", i, t.Numel(), t.DType(), ts[0].Numel(), ts[0].DType())
		}
	}
	return nil
}

// AllReduce reduces ts[i] (on member i's device) element-wise over the
// members, in place, as one NCCL group (ncclGroupStart, ncclAllReduce per
// member, ncclGroupEnd); ops and dtypes as NCCL.AllReduce.
func (g *NCCLGroup) AllReduce(ts []*tensor.Tensor, op string) error {
	const name = "NCCLGroup.AllReduce"
	if err := g.groupTensors(name, ts); err != nil {
		return err
	}
	o, err := ncclOp(op, ts[0].DType())
	if err != nil {
		return errf(ErrArgument, name, "%v", err)
	}
	calls := make([]func() int32, len(ts))
	what := make([]string, len(ts))
	for i, m := range g.members {
		p, s, dt, err := m.operand(name, ts[i])
		if err != nil {
			return err
		}
		m, n := m, uintptr(ts[i].Numel())
		calls[i] = func() int32 { return m.lib.allReduce(p, p, n, dt, o, m.comm, s) }
		what[i] = "ncclAllReduce on " + m.device
	}
	if err := runNCCL(g.members[0].lib, g.members[0].device, calls, what); err != nil {
		return errf(ErrNCCL, name, "%v", err)
	}
	return nil
}

// Broadcast copies ts[root] into every ts[i], as one NCCL group.
func (g *NCCLGroup) Broadcast(ts []*tensor.Tensor, root int) error {
	const name = "NCCLGroup.Broadcast"
	if err := g.groupTensors(name, ts); err != nil {
		return err
	}
	if root < 0 || root >= len(g.members) {
		return errf(ErrArgument, name, "root %d outside [0, %d)", root, len(g.members))
	}
	calls := make([]func() int32, len(ts))
	what := make([]string, len(ts))
	for i, m := range g.members {
		p, s, dt, err := m.operand(name, ts[i])
		if err != nil {
			return err
		}
		m, n := m, uintptr(ts[i].Numel())
		calls[i] = func() int32 { return m.lib.broadcast(p, p, n, dt, int32(root), m.comm, s) }
		what[i] = "ncclBroadcast on " + m.device
	}
	if err := runNCCL(g.members[0].lib, g.members[0].device, calls, what); err != nil {
		return errf(ErrNCCL, name, "%v", err)
	}
	return nil
}

// Destroy frees every member's communicator.
func (g *NCCLGroup) Destroy() error {
	var errs []string
	for _, m := range g.members {
		if err := m.Destroy(); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return errf(ErrNCCL, "NCCLGroup.Destroy", "%s", strings.Join(errs, "; "))
	}
	return nil
}
