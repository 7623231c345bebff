package tensor

import (
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Backends. A tensor's storage belongs to one Backend, the device it lives
// on: "cpu" (host memory; the reference loops and the fast paths),
// "cuda:N" (an NVIDIA GPU through the kernels package, opened at run
// time) or "meta" (PyTorch's meta device: shapes and dtypes, no data).
// An op is written once: it validates its arguments, applies autocast,
// allocates its output on its inputs' device and calls that device's
// Backend for the arithmetic; its gradient is written with tensor ops, so
// it runs wherever the tensors are.
//
// A backend is registered by device kind with RegisterBackend; the kind
// is the part of a device name before ':' ("cuda" in "cuda:1"). Devices
// are opened on first use.

// Buffer is a backend's memory for one storage: host memory, a block of a
// GPU's caching allocator, or nothing on the meta device.
type Buffer interface {
	// Bytes returns the bytes the buffer holds against its device's
	// memory accounting (a GPU counts its allocator's block size).
	Bytes() int64
}

// Backend is one device's implementation of storage and of the primitive
// kernels the ops call. The primitive families are declared beside the ops
// that call them (ops_*.go); Backend is their union. Every method receives
// tensors that live on the backend's device, are contiguous and have the
// shapes and dtypes the calling op checked; outputs are allocated by the
// caller. A method panics with a *Error (errors.Is ErrNotImplemented,
// ErrCUDA, ...) naming the op when it cannot run.
type Backend interface {
	CoreBackend
	ElementwiseKernels // elementwise.go: binary, unary, activations, casts, fills
	MatMulKernels      // matmul.go: GEMM, AddMM
	SparseKernels      // sparse.go: SpMM, SDDMM, edge softmax, segments
	IndexKernels       // index.go: gathers, scatters, copies of rows, transpose
	ReduceKernels      // reduce.go, softmax.go: sums, arg-max, softmax, losses
	RandomKernels      // random.go: dropout
	StepKernels        // step.go: optimizer updates
}

// CoreBackend is storage: allocation and copies between devices.
type CoreBackend interface {
	// Device returns the canonical device name ("cpu", "cuda:0", "meta").
	Device() string
	// Alloc returns memory for n elements of dt, cleared to zero when
	// zero is set. It panics with ErrOutOfMemory naming op when the
	// device cannot hold it.
	Alloc(op string, dt DType, n int, zero bool) Buffer
	// Release gives buf back to the device at once (Tensor.Free); the
	// garbage collector releases unreachable buffers otherwise. It reports
	// whether buf was released now (false when it was already, or when the
	// device frees memory only through the collector).
	Release(buf Buffer) bool
	// Upload copies the CPU tensor src into dst (same dtype and size) on
	// this device; Download copies src on this device into the CPU
	// tensor dst; CopyDevice copies between two tensors of this device.
	Upload(dst, src *Tensor)
	Download(dst, src *Tensor)
	CopyDevice(dst, src *Tensor)
	// Synchronize waits for the work queued on the device and returns
	// its first asynchronous error.
	Synchronize() error
}

// BackendKind opens the devices of one kind: open(-1) for a device named
// by its kind alone ("cpu", "meta"), open(N) for "kind:N".
type BackendKind struct {
	Kind string
	// Open returns the backend of device ordinal n (-1: the device has
	// no ordinal; "cuda" alone means ordinal 0 when Ordinals is set).
	Open func(n int) (Backend, error)
	// Ordinals is set for kinds whose devices are numbered ("cuda:N").
	Ordinals bool
	// Variants are the names a device of a kind without ordinals may
	// carry after ':' ("meta:cuda"); Open receives the index of the variant
	// in Variants.
	Variants []string
	// Status describes what the kind found ("OpenBLAS 0.3.21", "driver
	// 13.0, 1 GPU: NVIDIA H200", "not found: libcuda.so.1") and whether
	// it can open devices; gnnrepl doctor prints it.
	Status func() (ok bool, detail string)
}

var registry struct {
	mu    sync.Mutex
	kinds map[string]*BackendKind
	open  map[string]Backend // canonical device name -> opened backend
}

// RegisterBackend registers the devices of k.Kind; a second registration of
// the same kind replaces the first (for tests). It panics with ErrArgument
// semantics (ErrShape today) when k has no Kind or Open.
func RegisterBackend(k BackendKind) {
	if k.Kind == "" || k.Open == nil || strings.Contains(k.Kind, ":") {
		panicf(ErrArgument, "RegisterBackend", "a backend kind needs a name without ':' and an Open function, got %q", k.Kind)
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.kinds == nil {
		registry.kinds = map[string]*BackendKind{}
		registry.open = map[string]Backend{}
	}
	kk := k
	registry.kinds[k.Kind] = &kk
	for name := range registry.open {
		if kindOf(name) == k.Kind {
			delete(registry.open, name)
		}
	}
}

// BackendInfo describes one registered backend kind.
type BackendInfo struct {
	Kind   string // "cpu", "cuda", "meta"
	OK     bool   // it can open devices on this machine
	Detail string // what it found, or what is missing
}

// Backends returns the registered backend kinds, sorted, each with what it
// found on this machine (gnnrepl doctor prints them).
func Backends() []BackendInfo {
	registry.mu.Lock()
	kinds := make([]*BackendKind, 0, len(registry.kinds))
	for _, k := range registry.kinds {
		kinds = append(kinds, k)
	}
	registry.mu.Unlock()
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].Kind < kinds[j].Kind })
	out := make([]BackendInfo, len(kinds))
	for i, k := range kinds {
		out[i] = BackendInfo{Kind: k.Kind, OK: true}
		if k.Status != nil {
			out[i].OK, out[i].Detail = k.Status()
		}
	}
	return out
}

func kindOf(name string) string {
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return name[:i]
	}
	return name
}

// registeredKinds names the registered kinds for error messages.
func registeredKinds() string {
	var ks []string
	for _, b := range Backends() {
		ks = append(ks, b.Kind)
	}
	return strings.Join(ks, ", ")
}

// parseDevice returns the canonical name of a device string and its
// ordinal (-1 for a device without one). It returns an error wrapping
// ErrDevice for a malformed name or a kind no backend registered.
func parseDevice(device string) (ordinal int, name string, err error) {
	kind, num, hasNum := strings.Cut(device, ":")
	registry.mu.Lock()
	k := registry.kinds[kind]
	registry.mu.Unlock()
	if k == nil || kind == "" {
		return 0, "", engerr.New(ErrDevice, "tensor", "", "unknown device %q (registered backends: %s; a GPU is \"cuda\" or \"cuda:N\")",
			device, registeredKinds())
	}
	if !k.Ordinals {
		if !hasNum {
			return -1, kind, nil
		}
		for i, v := range k.Variants {
			if num == v {
				return i, device, nil
			}
		}
		return 0, "", engerr.New(ErrDevice, "tensor", "", "unknown device %q (%s takes no ordinal)", device, kind)
	}
	if !hasNum {
		return 0, kind + ":0", nil
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || num != strconv.Itoa(n) {
		return 0, "", engerr.New(ErrDevice, "tensor", "", "unknown device %q (want %q or \"%s:N\" with N >= 0)", device, kind, kind)
	}
	return n, kind + ":" + num, nil
}

// ParseDevice returns the canonical name of a device string: "cpu",
// "meta", or "cuda:N" for "cuda" (N = 0) and "cuda:N". It returns an error
// wrapping ErrDevice for anything else, naming the registered backends.
func ParseDevice(device string) (string, error) {
	_, name, err := parseDevice(device)
	return name, err
}

// OpenBackend returns the backend of device (opening it on first use), or
// an error wrapping ErrDevice for an unknown device and the backend's
// error when it cannot be opened (no GPU, no driver).
func OpenBackend(device string) (Backend, error) {
	ord, name, err := parseDevice(device)
	if err != nil {
		return nil, err
	}
	registry.mu.Lock()
	if b := registry.open[name]; b != nil {
		registry.mu.Unlock()
		return b, nil
	}
	k := registry.kinds[kindOf(name)]
	registry.mu.Unlock()
	b, err := k.Open(ord)
	if err != nil {
		return nil, err
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if old := registry.open[name]; old != nil {
		return old, nil
	}
	registry.open[name] = b
	return b, nil
}

// mustBackend is OpenBackend for ops: it panics with ErrDevice naming op.
func mustBackend(op, device string) Backend {
	if device == "cpu" {
		return cpu
	}
	b, err := OpenBackend(device)
	if err != nil {
		panicf(ErrDevice, op, "%v", err)
	}
	return b
}

// backendOf returns the backend all non-nil ts live on (the CPU when there
// are none); tensors on two devices make it panic with ErrDevice naming op
// and both devices.
func backendOf(op string, ts ...*Tensor) Backend {
	var be Backend = cpu
	first := true
	for _, t := range ts {
		if t == nil {
			continue
		}
		if first {
			be, first = t.st.be, false
			continue
		}
		if t.st.be != be {
			panicf(ErrDevice, op, "tensors on %s and %s", be.Device(), t.st.device)
		}
	}
	return be
}

// storage owns the elements of one or more tensors (views share it): a
// backend buffer holding n elements of one dtype. Its bytes are counted
// against its device while it is reachable.
type storage struct {
	be     Backend
	buf    Buffer
	device string         // be.Device(), kept for the fast checks of ops
	host   unsafe.Pointer // the first element, for storage in host memory; nil elsewhere
	n      int            // elements
	bytes  int64          // counted bytes (buf.Bytes())
	id     uint64         // set by track, for internal/memwatch
	// density is, on a meta storage, the fraction of nonzeros of the data
	// it stands for (SetMetaDensity), 0 when unknown.
	density float64
}

// emptyOn returns an uninitialised tensor of dt and shape on be (zeroed
// when zero is set).
func emptyOn(op string, be Backend, dt DType, zero bool, shape ...int) *Tensor {
	if dt.Size() == 0 {
		panicf(ErrDType, op, "unknown dtype %d (want tensor.Float32, Float16, BFloat16, Int8, Int64 or Bool)", int(dt))
	}
	n := numel(shape)
	if be == Backend(cpu) {
		checkHostMemory(op, dt, n, int64(n)*int64(dt.Size()), shape)
	}
	return &Tensor{shape: append([]int(nil), shape...), dtype: dt, st: newStorageOn(op, be, dt, n, zero), n: n}
}

// newStorageOn allocates n elements of dt on be and counts them.
func newStorageOn(op string, be Backend, dt DType, n int, zero bool) *storage {
	buf := be.Alloc(op, dt, n, zero)
	st := &storage{be: be, buf: buf, device: be.Device(), n: n, bytes: buf.Bytes()}
	if hb, ok := buf.(*hostBuffer); ok {
		st.host = hb.p
	}
	track(st)
	return st
}

// EmptyOn returns a tensor of dtype dt and the given shape on device whose
// elements are not initialised (torch.empty(..., device=device)); ZerosOn
// clears them. They panic with ErrDevice for an unknown device or one that
// cannot be opened, ErrDType for an unknown dtype and ErrOutOfMemory when
// the device cannot hold the tensor.
func EmptyOn(device string, dt DType, shape ...int) *Tensor {
	return emptyOn("EmptyOn", mustBackend("EmptyOn", device), dt, false, shape...)
}

// ZerosOn returns a zero-filled tensor of dt and shape on device
// (torch.zeros(..., device=device)); see EmptyOn.
func ZerosOn(device string, dt DType, shape ...int) *Tensor {
	return emptyOn("ZerosOn", mustBackend("ZerosOn", device), dt, true, shape...)
}

// TensorBuffer returns the backend buffer behind t and the element offset
// of t's first element in it, for backends implemented outside this
// package. It is plumbing, not part of the session's API.
func TensorBuffer(t *Tensor) (buf Buffer, offset int) { return t.st.buf, t.off }

// notNil panics with ErrArgument naming the first nil tensor of op's
// arguments, given as name, tensor pairs ("a", a, "b", b).
func notNil(op string, args ...any) {
	for i := 0; i+1 < len(args); i += 2 {
		if t, _ := args[i+1].(*Tensor); t == nil {
			panicf(ErrArgument, op, "%s is nil", args[i])
		}
	}
}

// notNilAdj panics with ErrArgument when a graph op's adjacency is nil.
func notNilAdj(op string, adj *Adj) {
	if adj == nil {
		panicf(ErrArgument, op, "adj is nil")
	}
}
