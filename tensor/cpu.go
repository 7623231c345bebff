package tensor

import (
	"unsafe"
)

// The CPU backend. Host memory is Go memory: a storage's buffer points at
// the first element of a Go allocation, typed views are made from it
// (Float32s, Int64s, ...), and the garbage collector frees it. The
// primitive kernels are in cpu_*.go, each beside its plain reference loop
// where a fast path differs from it.

// hostBuffer is a storage in host memory.
type hostBuffer struct {
	p     unsafe.Pointer // first element; keeps the allocation alive
	bytes int64
	// charged: allocated by Alloc, so charged to the host memory budget
	// (a tensor wrapping memory its caller made, FromFloat32 of a slice
	// or a mapped file, is not).
	charged bool
}

func (b *hostBuffer) Bytes() int64 { return b.bytes }

// cpuBackend is the "cpu" device.
type cpuBackend struct{}

// cpu is the CPU backend, the reference every other backend is tested
// against.
var cpu = &cpuBackend{}

func init() {
	RegisterBackend(BackendKind{Kind: "cpu", Open: func(int) (Backend, error) { return cpu, nil },
		Status: func() (bool, string) { return true, "BLAS: " + BLASName() }})
}

func (*cpuBackend) Device() string { return "cpu" }

// Alloc returns host memory for n elements of dt: cleared by make, or, for
// a buffer of at least minEmptyBytes that need not be zero, uninitialised
// from the runtime's allocator (Empty).
func (*cpuBackend) Alloc(op string, dt DType, n int, zero bool) Buffer {
	bytes := int64(n) * int64(dt.Size())
	checkHostMemory(op, dt, n, bytes, nil)
	if bytes == 0 {
		return &hostBuffer{}
	}
	var p unsafe.Pointer
	switch {
	case !zero && bytes >= minEmptyBytes:
		// typ nil: memory without pointers, which the collector does not scan.
		p = mallocgc(uintptr(bytes), nil, false)
	case dt.Size() == 8:
		p = unsafe.Pointer(unsafe.SliceData(make([]int64, n)))
	case dt.Size() == 4:
		p = unsafe.Pointer(unsafe.SliceData(make([]float32, n)))
	case dt.Size() == 2:
		p = unsafe.Pointer(unsafe.SliceData(make([]uint16, n)))
	default:
		p = unsafe.Pointer(unsafe.SliceData(make([]byte, n)))
	}
	return &hostBuffer{p: p, bytes: bytes, charged: true}
}

// Release does nothing: the garbage collector owns host memory.
func (*cpuBackend) Release(Buffer) bool { return false }

func (*cpuBackend) Upload(dst, src *Tensor)     { copyElems(dst, 0, src, 0, dst.n) }
func (*cpuBackend) Download(dst, src *Tensor)   { copyElems(dst, 0, src, 0, dst.n) }
func (*cpuBackend) CopyDevice(dst, src *Tensor) { copyElems(dst, 0, src, 0, dst.n) }
func (*cpuBackend) Synchronize() error          { return nil }

// hostStorage wraps n elements of dt at p (Go memory the caller hands
// over) as a CPU storage and counts it.
func hostStorage(p unsafe.Pointer, dt DType, n int) *storage {
	bytes := int64(n) * int64(dt.Size())
	st := &storage{be: cpu, buf: &hostBuffer{p: p, bytes: bytes}, device: "cpu", host: p, n: n, bytes: bytes}
	track(st)
	return st
}

// hostView returns t's elements as a []T (T of t's element size), shared.
func hostView[T any](t *Tensor) []T {
	s := unsafe.Slice((*T)(t.st.host), t.st.n)
	return s[t.off : t.off+t.n : t.off+t.n]
}

// hostAll returns every element of t's storage as a []T.
func hostAll[T any](st *storage) []T { return unsafe.Slice((*T)(st.host), st.n) }
