package tensor

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/kernels"
)

// Devices. A tensor lives on "cpu" or on a CUDA GPU, "cuda:N" ("cuda" means
// "cuda:0"), as in PyTorch. GPU tensors are made by To; every op runs on
// the device of its inputs and returns its result there, and an op given
// tensors on two devices panics with ErrDevice naming the op and both
// devices (never a silent copy). The GPU code is in the cuda_*.go files; it
// runs the kernels package's PTX kernels and cuBLAS, opened at run time, so
// the same binary runs without a GPU (CUDAAvailable reports false and To
// "cuda" returns an error).

var (
	// ErrCUDA classifies a failure reported by the CUDA driver or cuBLAS
	// while an op ran (errors.Is on the panic value).
	ErrCUDA = engerr.ErrCUDA
	// ErrNotImplemented classifies an op that has no implementation on the
	// device of its inputs; the message names the op and the device.
	ErrNotImplemented = engerr.ErrNotImplemented
	// ErrOutOfMemory classifies a device allocation that failed even after
	// the garbage collector returned unreachable tensors and the cache was
	// emptied (torch.cuda.OutOfMemoryError), and a host allocation beyond
	// the host memory budget (SetMemoryLimit).
	ErrOutOfMemory = engerr.ErrOutOfMemory
)

// notOnDevice panics with ErrNotImplemented for op on device.
func notOnDevice(op, device string) {
	panicf(ErrNotImplemented, op, "not implemented on %s; move the tensors to the CPU with To(\"cpu\")", device)
}

// mustHost panics with ErrDevice when t is not on the CPU, for the methods
// that hand out host slices.
func mustHost(op string, t *Tensor) {
	if t.st.device != "cpu" {
		panicf(ErrDevice, op, "tensor is on %s; its values are not in host memory: call To(\"cpu\") or ToCPU() first", t.st.device)
	}
}

// CUDAAvailable reports whether a CUDA GPU can be used: the driver loads and
// sees at least one device. CUDAStatus says why not.
func CUDAAvailable() bool {
	ok, _ := CUDAStatus()
	return ok
}

var cudaProbe struct {
	once sync.Once
	ok   bool
	why  string
}

// CUDAStatus reports whether CUDA is usable and a line describing the
// driver and first device, or what is missing (kernels.Available).
func CUDAStatus() (ok bool, why string) {
	cudaProbe.once.Do(func() { cudaProbe.ok, cudaProbe.why = kernels.Available() })
	return cudaProbe.ok, cudaProbe.why
}

// To returns t on device ("cpu", "cuda", "cuda:N", "meta"), as torch.Tensor.to:
// t itself when it is already there, else a copy. The copy is
// differentiable: the gradient flows back to t's device. It returns an error
// wrapping ErrDevice for an unknown device string, and the driver's error
// when CUDA is unavailable or the copy fails.
func (t *Tensor) To(device string) (out *Tensor, err error) {
	defer hookOp("To")()
	_, name, err := parseDevice(device)
	if err != nil {
		return nil, err
	}
	if name == t.st.device {
		return t, nil
	}
	err = Catch(func() { out = copyTo(t, name) })
	if err != nil {
		return nil, err
	}
	src := t.st.device
	return record(out, "To", []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{copyTo(g, src)}
	}), nil
}

// ToCPU returns t on the CPU (t itself when it is there), panicking with
// the driver's error if the copy fails. Float32s, Int64s and Bools of a GPU
// tensor need it first.
func (t *Tensor) ToCPU() *Tensor {
	out, err := t.To("cpu")
	if err != nil {
		panic(err)
	}
	return out
}

// copyTo copies t's elements to the canonical device name, without
// autograd. It panics with the device's error.
func copyTo(t *Tensor, name string) *Tensor {
	if name == t.st.device {
		return t.Detach()
	}
	if t.st.device != "cpu" {
		t = download(t) // between devices through the host
		if name == "cpu" {
			return t
		}
	}
	be := mustBackend("To", name)
	out := emptyOn("To", be, t.dtype, false, t.shape...)
	be.Upload(out, t)
	return out
}

// Synchronize waits until every op queued on device has finished
// (torch.cuda.synchronize) and returns the first asynchronous error, for
// example a kernel fault. GPU ops return as soon as their kernels are
// queued, so time them with Synchronize before reading the clock. It does
// nothing for "cpu".
func Synchronize(device string) error {
	be, err := OpenBackend(device)
	if err != nil {
		return err
	}
	return be.Synchronize()
}

// EmptyCache returns the cached, unused blocks of device's caching allocator
// to the driver (torch.cuda.empty_cache), after a garbage collection so that
// the blocks of unreachable tensors are in the cache. MemoryReserved drops to
// about MemoryAllocated. It does nothing for "cpu" or a device not used yet.
func EmptyCache(device string) {
	_, name, err := parseDevice(device)
	if err != nil || name == "cpu" {
		return
	}
	d := cudaIfOpen(name)
	if d == nil {
		return
	}
	collectGarbage()
	d.emptyCache()
}

// MemoryReserved returns the bytes device's caching allocator holds from
// the driver: blocks of live tensors plus cached free blocks
// (torch.cuda.memory_reserved). For "cpu", which has no cache, it is
// MemoryAllocated.
func MemoryReserved(device string) int64 {
	if device == "cpu" {
		return MemoryAllocated("cpu")
	}
	return statsFor(device).reserved.Load()
}

// Free releases t's storage now instead of when the garbage collector
// finds it unreachable: on a GPU its block returns to the caching
// allocator (and MemoryAllocated drops at once). Every tensor sharing the
// storage (views made by Narrow and Reshape, Detach) becomes unusable; an op
// given one panics with ErrDevice. On the CPU, Free does nothing (the
// garbage collector owns host memory).
func (t *Tensor) Free() { releaseStorage(t.st) }

// ZerosLike returns a tensor of t's shape and dtype on t's device, filled
// with zeros (torch.zeros_like); optimizers make their state with it.
func ZerosLike(t *Tensor) *Tensor {
	defer hookOp("ZerosLike")()
	return emptyOn("ZerosLike", t.st.be, t.dtype, true, t.shape...)
}

// download copies a device tensor to a new CPU tensor.
func download(t *Tensor) *Tensor {
	out := Empty(t.dtype, t.shape...)
	t.st.be.Download(out, t)
	return out
}

// devPtr returns the device address of t's first element; it panics with
// ErrDevice when the storage was freed.
func devPtr(op string, t *Tensor) kernels.DevicePtr {
	ds := cudaBufOf(t.st)
	if ds == nil || ds.freed {
		panicf(ErrDevice, op, "tensor of shape %v on %s was freed (Tensor.Free)", t.shape, t.st.device)
	}
	noteDeviceWork(ds.cuda)
	return ds.ptr.Add(t.off * t.dtype.Size())
}

// cudaOf returns the CUDA device of t, panicking for a fake or freed one.
func cudaOf(op string, t *Tensor) *cudaDevice {
	ds := cudaBufOf(t.st)
	if ds == nil || ds.cuda == nil {
		panicf(ErrDevice, op, "tensor is on %s, which has no CUDA device behind it", t.st.device)
	}
	return ds.cuda
}

// collectGarbage runs the garbage collector and waits (up to a second) until
// the finalizers it queued, which return device blocks to the cache, have
// run.
func collectGarbage() {
	for round := 0; round < 2; round++ {
		done := make(chan struct{})
		s := new([16]byte)
		runtime.SetFinalizer(s, func(*[16]byte) { close(done) })
		s = nil
		runtime.GC()
		select {
		case <-done:
		case <-time.After(time.Second):
			return
		}
	}
}

// Matmul precision (torch.set_float32_matmul_precision).
var matmulPrecision atomic.Int32 // 0 highest, 1 high, 2 medium

// SetFloat32MatmulPrecision sets how float32 MatMul runs on a GPU, as
// torch.set_float32_matmul_precision: "highest" (float32 products, the
// default), "high" (TF32 tensor cores, 10-bit mantissa, float32
// accumulation) or "medium" (operands rounded to bfloat16, tensor cores,
// float32 accumulation and output). The CPU always computes in float32. It
// panics with ErrShape on another value.
func SetFloat32MatmulPrecision(p string) {
	switch p {
	case "highest":
		matmulPrecision.Store(0)
	case "high":
		matmulPrecision.Store(1)
	case "medium":
		matmulPrecision.Store(2)
	default:
		panicf(ErrArgument, "SetFloat32MatmulPrecision", "precision must be \"highest\", \"high\" or \"medium\", got %q", p)
	}
}

// Float32MatmulPrecision returns the setting of SetFloat32MatmulPrecision.
func Float32MatmulPrecision() string {
	return [...]string{"highest", "high", "medium"}[matmulPrecision.Load()]
}

// int64Bounds returns the smallest and largest value of an int64 tensor,
// from the bounds recorded at upload for a device tensor, else by reading
// it (a device read synchronizes).
func int64Bounds(op string, t *Tensor) (lo, hi int64) {
	var vals []int64
	if ds := cudaBufOf(t.st); ds != nil {
		if ds.bounded {
			return ds.lo, ds.hi
		}
		vals = download(t).Int64s()
	} else {
		vals = t.Int64s()
	}
	lo, hi = math.MaxInt64, math.MinInt64
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// checkDevIndex checks a 1-D int64 index on any device against [0, n),
// panicking with ErrIndex naming the first position outside it: on the
// CPU by reading it, on a GPU without reading it when its bounds were
// recorded at upload (else it reads the index, a synchronization). The
// values of a meta index are unknown and not checked.
func checkDevIndex(op string, idx *Tensor, n int) {
	if idx.dtype != Int64 || idx.Dim() != 1 {
		panicf(ErrDType, op, "index must be a 1-D int64 tensor, got %s of shape %v", idx.dtype, idx.shape)
	}
	if idx.n == 0 || isMeta(idx) {
		return
	}
	if idx.st.device == "cpu" {
		checkIndex(op, idx, n)
		return
	}
	lo, hi := int64Bounds(op, idx)
	if lo >= 0 && hi < int64(n) {
		return
	}
	checkIndex(op, download(idx), n) // panics naming the position
	// The recorded bounds cover the whole storage, wider than this view.
}

// checkDevValues checks the values of an int64 tensor on any device
// against [0, n), as checkDevIndex does, panicking with ErrIndex "<what> v
// at position i is outside [0, n)" for the first one outside: on the CPU
// by reading it, on a GPU from the bounds recorded at upload (else, or when
// they are outside, by reading it back). Meta values are not checked.
func checkDevValues(op, what string, t *Tensor, n int) {
	if t.n == 0 || isMeta(t) {
		return
	}
	if lo, hi := int64Bounds(op, t); lo >= 0 && hi < int64(n) {
		return
	}
	if t.st.device != "cpu" {
		t = download(t)
	}
	for i, v := range t.Int64s() {
		if v < 0 || v >= int64(n) {
			panicf(ErrIndex, op, "%s %d at position %d is outside [0, %d)", what, v, i, n)
		}
	}
}

// isMeta reports whether t is on a meta device (no values to check).
func isMeta(t *Tensor) bool {
	_, ok := t.st.be.(*metaBackend)
	return ok
}
