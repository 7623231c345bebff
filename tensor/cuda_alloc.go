package tensor

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/kernels"
)

// cudaDevice is one GPU as package tensor uses it: the kernels.Device, the
// legacy default stream every op queues on (so ops, copies and the reuse
// of cached blocks are ordered), a cuBLAS handle
// and the caching allocator.
type cudaDevice struct {
	name  string
	dev   *kernels.Device
	s     *kernels.Stream
	stats *devStats

	blasOnce sync.Once
	blas     *kernels.BLAS
	blasErr  error

	// Events of the device timer (cuda_timing.go), reused.
	evMu   sync.Mutex
	evPool []*kernels.Event

	// Caching allocator: free blocks by size class. A block returns here
	// when its storage is freed (Tensor.Free or the storage's finalizer)
	// and is reused by the next allocation of the same class; EmptyCache
	// gives the cached blocks back to the driver.
	mu      sync.Mutex
	cache   map[int64][]kernels.DevicePtr
	cached  int64        // bytes in cache
	sinceGC atomic.Int64 // bytes newly allocated from the driver since the last forced GC
	gcEvery int64
}

var (
	cudaMu   sync.Mutex
	cudaDevs = map[string]*cudaDevice{}
)

// openCUDA returns the device named name ("cuda:N"), opening it on first use.
func openCUDA(name string) (*cudaDevice, error) {
	ord, name, err := parseDevice(name)
	if err != nil {
		return nil, err
	}
	if ord < 0 {
		return nil, fmt.Errorf("tensor: %s is not a CUDA device: %w", name, ErrDevice)
	}
	cudaMu.Lock()
	defer cudaMu.Unlock()
	if d := cudaDevs[name]; d != nil {
		return d, nil
	}
	kd, err := kernels.Open(ord)
	if err != nil {
		return nil, fmt.Errorf("tensor: opening %s: %w", name, err)
	}
	d := &cudaDevice{name: name, dev: kd, s: kd.DefaultStream(), stats: statsFor(name),
		cache: map[int64][]kernels.DevicePtr{}}
	// Force a collection (which returns unreachable tensors' blocks to the
	// cache) after every gcEvery bytes of new driver allocations: the Go
	// collector does not see device memory, only the small storage headers.
	d.gcEvery = 1 << 30
	if tot := int64(kd.Info().TotalMem); tot > 0 && tot/8 < d.gcEvery {
		d.gcEvery = tot / 8
	}
	cudaDevs[name] = d
	return d, nil
}

// mustCUDA is openCUDA for ops: it panics with ErrDevice on failure.
func mustCUDA(op, name string) *cudaDevice {
	d, err := openCUDA(name)
	if err != nil {
		panicf(ErrDevice, op, "%v", err)
	}
	return d
}

// cudaIfOpen returns the device named name if it was opened, else nil.
func cudaIfOpen(name string) *cudaDevice {
	cudaMu.Lock()
	defer cudaMu.Unlock()
	return cudaDevs[name]
}

// must panics with ErrCUDA naming op when err is not nil.
func (d *cudaDevice) must(op string, err error) {
	if err != nil {
		panicf(ErrCUDA, op, "on %s: %v", d.name, err)
	}
}

// blasHandle returns the device's cuBLAS handle, created on first use.
func (d *cudaDevice) blasHandle(op string) *kernels.BLAS {
	d.blasOnce.Do(func() { d.blas, d.blasErr = kernels.NewBLAS(d.dev) })
	d.must(op, d.blasErr)
	return d.blas
}

// roundBlock returns the size class of an n-byte request: multiples of
// 512 bytes below 1 MiB, of 2 MiB above (PyTorch's small and large pools).
func roundBlock(n int64) int64 {
	if n <= 0 {
		return 0
	}
	if n < 1<<20 {
		return (n + 511) &^ 511
	}
	return (n + (2<<20 - 1)) &^ (2<<20 - 1)
}

func (d *cudaDevice) takeCached(b int64) (kernels.DevicePtr, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.cache[b]
	if len(l) == 0 {
		return 0, false
	}
	p := l[len(l)-1]
	d.cache[b] = l[:len(l)-1]
	d.cached -= b
	return p, true
}

// alloc returns a block of at least n bytes and its size class.
func (d *cudaDevice) alloc(op string, n int64) (kernels.DevicePtr, int64) {
	b := roundBlock(n)
	if b == 0 {
		return 0, 0
	}
	if p, ok := d.takeCached(b); ok {
		return p, b
	}
	if d.sinceGC.Load() >= d.gcEvery {
		d.sinceGC.Store(0)
		collectGarbage()
		if p, ok := d.takeCached(b); ok {
			return p, b
		}
	}
	p, err := d.dev.Alloc(int(b))
	if err != nil {
		// Out of memory: collect unreachable tensors, give the cache back
		// and try once more.
		collectGarbage()
		if p, ok := d.takeCached(b); ok {
			return p, b
		}
		d.emptyCache()
		p, err = d.dev.Alloc(int(b))
		if err != nil {
			panicf(ErrOutOfMemory, op, "cannot allocate %s on %s (allocated %s, reserved %s): %v; "+
				"memplan.Predict(memplan.Config{..., Device: \"cuda\"}) predicts a training peak and memplan.Suggest finds a setting that fits a budget",
				FormatBytes(b), d.name, FormatBytes(d.stats.allocated.Load()), FormatBytes(d.stats.reserved.Load()), err)
		}
	}
	d.sinceGC.Add(b)
	d.stats.reserved.Add(b)
	return p, b
}

// release returns block p of size class b to the cache. It is called by
// finalizers, so it makes no CUDA call.
func (d *cudaDevice) release(p kernels.DevicePtr, b int64) {
	if b == 0 {
		return
	}
	d.mu.Lock()
	d.cache[b] = append(d.cache[b], p)
	d.cached += b
	d.mu.Unlock()
}

// emptyCache frees every cached block (after the queued work that may still
// use a just-released block has finished).
func (d *cudaDevice) emptyCache() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cached == 0 {
		return
	}
	_ = d.dev.Synchronize()
	sizes := make([]int64, 0, len(d.cache))
	for b := range d.cache {
		sizes = append(sizes, b)
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	for _, b := range sizes {
		for _, p := range d.cache[b] {
			if d.dev.Free(p) == nil {
				d.stats.reserved.Add(-b)
			}
		}
		delete(d.cache, b)
	}
	d.cached = 0
}

// cudaBuf is a storage on a GPU: a block of the device's caching
// allocator.
type cudaBuf struct {
	cuda  *cudaDevice // nil for fake devices made by tests
	ptr   kernels.DevicePtr
	block int64 // bytes of the allocator block (a size class)
	freed bool

	// Value bounds of an int64 storage, recorded when it was uploaded, so
	// index ops can check their indices without reading the device.
	bounded bool
	lo, hi  int64
}

func (b *cudaBuf) Bytes() int64 { return b.block }

// cudaBufOf returns st's GPU buffer, nil for a storage of another device.
func cudaBufOf(st *storage) *cudaBuf {
	b, _ := st.buf.(*cudaBuf)
	return b
}

func init() {
	RegisterBackend(BackendKind{Kind: "cuda", Ordinals: true,
		Open:   func(n int) (Backend, error) { return openCUDA("cuda:" + strconv.Itoa(n)) },
		Status: cudaBackendStatus})
}

// cudaBackendStatus is the cuda kind's line in gnnrepl doctor: the
// driver, its devices and cuBLAS, as the loader that runs the ops finds
// them (GNNREPL_CUDA_LIB_PATH first).
func cudaBackendStatus() (bool, string) {
	ok, why := CUDAStatus()
	if !ok {
		return false, "CUDA driver: " + why
	}
	blas := "cuBLAS not found"
	if p, err := kernels.BLASPath(); err == nil {
		blas = "cuBLAS " + p
	}
	return true, why + "; " + blas
}

// Device returns the device's name, "cuda:N".
func (d *cudaDevice) Device() string { return d.name }

// Alloc returns a block for n elements of dt from the caching allocator
// (cleared with a memset when zero is set).
func (d *cudaDevice) Alloc(op string, dt DType, n int, zero bool) Buffer {
	bytes := int64(n) * int64(dt.Size())
	p, b := d.alloc(op, bytes)
	buf := &cudaBuf{cuda: d, ptr: p, block: b}
	if zero && bytes > 0 {
		d.must(op, d.dev.Memset8(p, 0, int(bytes)))
	}
	return buf
}

// Release returns buf's block to the cache (it makes no CUDA call, so
// finalizers may call it) and reports whether it was still held.
func (d *cudaDevice) Release(buf Buffer) bool {
	ds := buf.(*cudaBuf)
	if ds.freed {
		return false
	}
	ds.freed = true
	if ds.block > 0 && ds.cuda != nil {
		ds.cuda.release(ds.ptr, ds.block)
	}
	ds.ptr = 0
	return ds.block > 0
}

// Upload copies the CPU tensor src into dst on d; an int64 dst records
// src's value bounds for index checks.
func (d *cudaDevice) Upload(dst, src *Tensor) {
	if src.n == 0 {
		return
	}
	d.must("To", d.dev.CopyHtoD(devPtr("To", dst), src.st.host, src.n*src.dtype.Size()))
	runtime.KeepAlive(src)
	if src.dtype == Int64 && dst.off == 0 && dst.n == dst.st.n {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, x := range src.Int64s() {
			lo, hi = min(lo, x), max(hi, x)
		}
		ds := cudaBufOf(dst.st)
		ds.bounded, ds.lo, ds.hi = true, lo, hi
	} else if ds := cudaBufOf(dst.st); ds != nil {
		ds.bounded = false
	}
}

// Download copies src on d into the CPU tensor dst.
func (d *cudaDevice) Download(dst, src *Tensor) {
	if src.n == 0 {
		return
	}
	b := unsafe.Slice((*byte)(dst.st.host), dst.st.n*dst.dtype.Size())[dst.off*dst.dtype.Size():][:dst.n*dst.dtype.Size()]
	d.must("To", d.dev.DownloadBytes(b, devPtr("To", src)))
}

// CopyDevice copies between two tensors on d.
func (d *cudaDevice) CopyDevice(dst, src *Tensor) {
	if b := src.n * src.dtype.Size(); b > 0 {
		d.must("CopyFrom", d.dev.CopyDtoD(devPtr("CopyFrom", dst), devPtr("CopyFrom", src), b))
	}
	// A whole copy keeps the source's recorded index bounds.
	ds, ss := cudaBufOf(dst.st), cudaBufOf(src.st)
	whole := dst.off == 0 && dst.n == dst.st.n && src.off == 0 && src.n == src.st.n
	ds.bounded = whole && ss.bounded
	ds.lo, ds.hi = ss.lo, ss.hi
}

// Synchronize waits for the device's queued work.
func (d *cudaDevice) Synchronize() error { return d.dev.Synchronize() }

// newStorage returns device storage for n elements of dt (not cleared),
// counted in MemoryAllocated by its block size, released to the cache by
// Tensor.Free or its finalizer.
func (d *cudaDevice) newStorage(op string, dt DType, n int) *storage {
	return d.newRaw(op, int64(n)*int64(dt.Size()))
}

// newRaw returns device storage of bytes bytes (see newStorage).
func (d *cudaDevice) newRaw(op string, bytes int64) *storage {
	p, b := d.alloc(op, bytes)
	st := &storage{be: d, buf: &cudaBuf{cuda: d, ptr: p, block: b}, device: d.name, n: int(bytes), bytes: b}
	track(st)
	return st
}

// empty returns an uninitialised device tensor.
func (d *cudaDevice) empty(op string, dt DType, shape []int) *Tensor {
	return emptyOn(op, d, dt, false, shape...)
}

// zeros returns a device tensor filled with zero bytes.
func (d *cudaDevice) zeros(op string, dt DType, shape []int) *Tensor {
	t := d.empty(op, dt, shape)
	if bytes := t.n * dt.Size(); bytes > 0 {
		d.must(op, d.dev.Memset8(cudaBufOf(t.st).ptr, 0, bytes))
	}
	return t
}

// upload copies a CPU tensor to a new tensor on d.
func (d *cudaDevice) upload(op string, t *Tensor) *Tensor {
	out := d.empty(op, t.dtype, t.shape)
	d.Upload(out, t)
	return out
}

// uploadRaw copies host bytes into a new storage of d, for graph structure.
func (d *cudaDevice) uploadRaw(op string, bytes int, src unsafe.Pointer) *storage {
	st := d.newRaw(op, int64(bytes))
	if bytes > 0 {
		d.must(op, d.dev.CopyHtoD(cudaBufOf(st).ptr, src, bytes))
	}
	return st
}
