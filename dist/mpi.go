package dist

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/internal/dynlib"
)

// mpiLibDirs are searched, after the dynamic loader's path, for libmpi; the
// colon-separated GNNREPL_MPI_LIB_PATH is searched first.
var mpiLibDirs = []string{
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu/openmpi/lib",
	"/usr/lib/x86_64-linux-gnu/mpich/lib",
	"/usr/lib64/openmpi/lib",
	"/usr/lib64/mpich/lib",
	"/opt/openmpi/lib",
	"/usr/local/lib",
	"/usr/lib64",
}

// mpiLibNames are the sonames tried, in order: the MPI-5 standard ABI,
// Open MPI 4 and 5 (libmpi.so.40), MPICH (libmpi.so.12, libmpich.so.12).
var mpiLibNames = []string{"libmpi_abi.so.0", "libmpi.so.40", "libmpi.so.12", "libmpich.so.12", "libmpi.so"}

// Implementations, by the handle convention of their C ABI.
const (
	implOpenMPI = "Open MPI"
	implMPICH   = "MPICH"
)

// handles is the one table of an implementation's handle values: Open MPI's
// are addresses of global objects (found with dlsym), MPICH's are integer
// constants from its mpi.h. Every value is passed to MPI as one argument
// register.
type handles struct {
	commWorld    uintptr
	float32      uintptr // MPI_FLOAT
	int64        uintptr // MPI_INT64_T
	int32        uintptr // MPI_INT
	byte         uintptr // MPI_BYTE
	opSum        uintptr
	opMax        uintptr
	opMin        uintptr
	errorsReturn uintptr // MPI_ERRORS_RETURN
	inPlace      uintptr // MPI_IN_PLACE
	statusIgnore uintptr // MPI_STATUS_IGNORE
	statusSize   int     // sizeof(MPI_Status)
	statusSource int     // byte offset of MPI_SOURCE in MPI_Status
	anySource    int     // MPI_ANY_SOURCE
}

// openMPIHandles looks Open MPI's predefined objects up in the library.
func openMPIHandles(lib uintptr) (handles, error) {
	h := handles{inPlace: 1, statusIgnore: 0, statusSize: 24, statusSource: 0, anySource: -1}
	for _, s := range []struct {
		dst  *uintptr
		name string
	}{
		{&h.commWorld, "ompi_mpi_comm_world"},
		{&h.float32, "ompi_mpi_float"},
		{&h.int64, "ompi_mpi_int64_t"},
		{&h.int32, "ompi_mpi_int"},
		{&h.byte, "ompi_mpi_byte"},
		{&h.opSum, "ompi_mpi_op_sum"},
		{&h.opMax, "ompi_mpi_op_max"},
		{&h.opMin, "ompi_mpi_op_min"},
		{&h.errorsReturn, "ompi_mpi_errors_return"},
	} {
		p, err := dynlib.Sym(lib, s.name)
		if err != nil {
			return h, err
		}
		*s.dst = p
	}
	return h, nil
}

// mpichHandles are MPICH's integer handles (mpi.h of MPICH 3 and 4; Intel
// MPI and MVAPICH share them).
var mpichHandles = handles{
	commWorld:    0x44000000,
	float32:      0x4c00040a,
	int64:        0x4c00083a,
	int32:        0x4c000405,
	byte:         0x4c00010d,
	opSum:        0x58000003,
	opMax:        0x58000001,
	opMin:        0x58000002,
	errorsReturn: 0x54000001,
	inPlace:      ^uintptr(0), // (void *) -1
	statusIgnore: 1,
	statusSize:   20,
	statusSource: 8,
	anySource:    -2,
}

// The MPI functions used, by name.
var mpiFuncNames = []string{
	"MPI_Get_library_version", "MPI_Initialized", "MPI_Finalized", "MPI_Init_thread",
	"MPI_Finalize", "MPI_Abort", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_set_errhandler",
	"MPI_Error_string", "MPI_Barrier", "MPI_Bcast", "MPI_Allreduce", "MPI_Allgather",
	"MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Send", "MPI_Recv", "MPI_Get_count",
}

// mpiLib is an opened MPI library. Every call into it runs on one locked OS
// thread (the one that called MPI_Init_thread), so the library may be used
// from any goroutine: calls are serialized.
type mpiLib struct {
	path    string
	version string // MPI_Get_library_version's first line
	impl    string // implOpenMPI or implMPICH
	fn      map[string]uintptr
	h       handles
	calls   chan func()
}

var (
	libOnce sync.Once
	libMPI  *mpiLib
	libErr  error
)

// loadMPI opens libmpi once (GNNREPL_MPI_LIB overrides the search with a
// path) and reads its version; it does not initialize MPI.
func loadMPI() (*mpiLib, error) {
	libOnce.Do(func() { libMPI, libErr = openMPI() })
	return libMPI, libErr
}

func openMPI() (*mpiLib, error) {
	// UCX (the transport of MPICH and of Open MPI's pml ucx) installs
	// SIGSEGV / SIGBUS handlers that turn a Go nil-pointer panic, which
	// the Go runtime recovers from, into a fatal crash; keep them off
	// unless the user asked for them.
	if _, ok := os.LookupEnv("UCX_HANDLE_ERRORS"); !ok {
		os.Setenv("UCX_HANDLE_ERRORS", "none")
	}
	lib, path, err := dynlib.Open(os.Getenv("GNNREPL_MPI_LIB"), dynlib.Dirs("GNNREPL_MPI_LIB_PATH", mpiLibDirs), mpiLibNames...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoMPI, err)
	}
	m := &mpiLib{path: path, fn: map[string]uintptr{}, calls: make(chan func())}
	for _, n := range mpiFuncNames {
		p, err := dynlib.Sym(lib, n)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrNoMPI, path, err)
		}
		m.fn[n] = p
	}
	go m.serve()
	buf := make([]byte, 8192) // >= MPI_MAX_LIBRARY_VERSION_STRING of every implementation
	var n int32
	m.do(func() {
		dynlib.Call(m.fn["MPI_Get_library_version"], uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)))
	})
	full := string(buf[:max(0, min(int(n), len(buf)))])
	full = strings.TrimRight(full, "\x00 \n")
	m.version, _, _ = strings.Cut(strings.TrimSpace(full), "\n")
	m.version = strings.Join(strings.Fields(strings.TrimRight(m.version, ", ")), " ")
	switch {
	case strings.Contains(full, "Open MPI"):
		m.impl = implOpenMPI
		if m.h, err = openMPIHandles(lib); err != nil {
			return nil, fmt.Errorf("%w: %s (%s): %v", ErrNoMPI, path, m.version, err)
		}
	case strings.Contains(full, "MPICH"), strings.Contains(full, "Intel(R) MPI"), strings.Contains(full, "MVAPICH"):
		m.impl = implMPICH
		m.h = mpichHandles
	default:
		return nil, fmt.Errorf("%w: %s: unknown MPI implementation %q (gnnrepl supports Open MPI and MPICH)", ErrNoMPI, path, m.version)
	}
	return m, nil
}

// serve runs the library's calls on one locked OS thread.
func (m *mpiLib) serve() {
	runtime.LockOSThread()
	for f := range m.calls {
		f()
	}
}

// do runs f on the MPI thread and waits for it.
func (m *mpiLib) do(f func()) {
	done := make(chan struct{})
	m.calls <- func() { f(); close(done) }
	<-done
}

// call calls the MPI function name on the MPI thread and returns its error
// code (MPI_SUCCESS is 0). Pointers to Go memory may be passed converted to
// uintptr in the argument list: the directive keeps them alive and in place
// until the call returns.
//
//go:uintptrescapes
func (m *mpiLib) call(name string, args ...uintptr) int {
	fn := m.fn[name]
	var rc int
	if d := time.Duration(callTimeout.Load()); d > 0 && watchedCalls[name] {
		t := time.AfterFunc(d, func() { timedOut(name, d) })
		m.do(func() { rc = dynlib.Call(fn, args...) })
		t.Stop()
		return rc
	}
	m.do(func() { rc = dynlib.Call(fn, args...) })
	return rc
}

// DefaultTimeout is how long a collective or point-to-point call may block
// before the rank gives up on the job (torch.distributed's default
// timeout of 30 minutes); GNNREPL_DIST_TIMEOUT ("90s", "10m", or seconds;
// "0" for none) and Comm.SetTimeout change it.
const DefaultTimeout = 30 * time.Minute

// callTimeout is the watchdog's limit in nanoseconds (0: none).
var callTimeout atomic.Int64

// watchedCalls are the MPI calls that wait for other ranks.
var watchedCalls = map[string]bool{
	"MPI_Barrier": true, "MPI_Bcast": true, "MPI_Allreduce": true, "MPI_Allgather": true,
	"MPI_Allgatherv": true, "MPI_Alltoall": true, "MPI_Alltoallv": true, "MPI_Send": true,
	"MPI_Recv": true, "MPI_Finalize": true,
}

func init() {
	d := DefaultTimeout
	if v := os.Getenv("GNNREPL_DIST_TIMEOUT"); v != "" {
		if p, err := parseTimeout(v); err == nil {
			d = p
		} else {
			fmt.Fprintf(os.Stderr, "gnnrepl: GNNREPL_DIST_TIMEOUT=%q: %v; using %v\n", v, err, d)
		}
	}
	callTimeout.Store(int64(d))
}

// parseTimeout reads a Go duration or a number of seconds.
func parseTimeout(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 90s or 10m, or seconds")
	}
	return d, nil
}

// timedOut ends this rank when an MPI call has blocked longer than the
// timeout: the call cannot be cancelled, so the process exits (status 1)
// after saying why, and the launcher, seeing a rank end without
// MPI_Finalize, ends every other rank.
func timedOut(name string, d time.Duration) {
	r, n, _, _ := EnvRank()
	fmt.Fprintf(os.Stderr, "gnnrepl: rank %d of %d: %s did not complete within %v (the dist timeout, GNNREPL_DIST_TIMEOUT): a rank is stuck or dead; %v; exiting\n",
		r, n, name, d, ErrTimeout)
	os.Exit(1)
}

// errorString is MPI_Error_string of code.
func (m *mpiLib) errorString(code int) string {
	buf := make([]byte, 1024)
	var n int32
	if m.call("MPI_Error_string", uintptr(code), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n))) != 0 {
		return fmt.Sprintf("MPI error %d", code)
	}
	return fmt.Sprintf("%s (%d)", strings.TrimRight(string(buf[:max(0, min(int(n), len(buf)))]), "\x00"), code)
}

// ptr is the address of the first element of a non-empty slice, or nil;
// convert it to uintptr in the argument list of call.
func ptr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// count32 checks that n fits MPI's int counts.
func count32(n int) bool { return n >= 0 && n <= math.MaxInt32 }
