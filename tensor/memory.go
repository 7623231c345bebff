package tensor

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnnrepl/gnnrepl/internal/memwatch"
)

type devStats struct {
	allocated atomic.Int64
	peak      atomic.Int64
	total     atomic.Int64 // cumulative bytes allocated
	count     atomic.Int64 // cumulative allocations
	reserved  atomic.Int64 // bytes held by a device's caching allocator (device.go)
}

var (
	statsMu sync.Mutex
	stats   = map[string]*devStats{}
)

// canonicalStatsDevice is the accounting's name of device ("" is "cpu").
func canonicalStatsDevice(device string) string {
	if device == "" || device == "cpu" {
		return "cpu"
	}
	if _, name, err := parseDevice(device); err == nil {
		return name
	}
	return device
}

func statsFor(device string) *devStats {
	if device == "" {
		device = "cpu"
	}
	if device != "cpu" {
		_, name, err := parseDevice(device)
		if err != nil {
			panicf(ErrDevice, "memory stats", "%v (\"\" is the CPU)", err)
		}
		device = name
	}
	statsMu.Lock()
	defer statsMu.Unlock()
	s := stats[device]
	if s == nil {
		s = &devStats{}
		stats[device] = s
	}
	return s
}

var cpuStats = statsFor("cpu")

// countAlloc records n bytes allocated on device.
func countAlloc(device string, n int64) {
	s := cpuStats
	if device != "cpu" {
		s = statsFor(device)
	}
	cur := s.allocated.Add(n)
	s.total.Add(n)
	s.count.Add(1)
	for {
		p := s.peak.Load()
		if cur <= p || s.peak.CompareAndSwap(p, cur) {
			break
		}
	}
}

func countFree(device string, n int64) {
	s := cpuStats
	if device != "cpu" {
		s = statsFor(device)
	}
	s.allocated.Add(-n)
}

func newStorage(dt DType, n int) *storage { return newStorageOn("New", cpu, dt, n, true) }

// hostCharged is the bytes of live host tensors charged to the host
// memory budget: those the CPU backend allocated (Alloc). MemoryAllocated
// ("cpu") counts more: tensors wrapping memory their caller made
// (FromFloat32 of a slice, graphstore's mapped files, which may exceed
// the machine's memory) and buffers counted with CountBytes.
var hostCharged atomic.Int64

// checkHostMemory refuses a host allocation of n elements of dt (bytes in
// all; shape, when the caller knows it, names the tensor) that would take
// the host tensors the CPU backend allocated (hostCharged) beyond the host
// memory budget (MemoryLimit), or that is larger than the machine's memory: Go
// cannot recover from a failed allocation (the process dies, or the
// kernel's OOM killer ends it), so such a request is refused here, with a
// recoverable ErrOutOfMemory panic. Before refusing it collects garbage,
// so that tensors no longer reachable count back first.
func checkHostMemory(op string, dt DType, n int, bytes int64, shape []int) {
	what := func() string {
		if shape != nil {
			return fmt.Sprintf("%s %v", dt, shape)
		}
		return fmt.Sprintf("%d %s elements", n, dt)
	}
	if limit := hostMemory(); limit > 0 && bytes > limit {
		panicf(ErrOutOfMemory, op, "CPU out of memory: tried to allocate %s (%s), more than this machine's %s of memory",
			FormatBytes(bytes), what(), FormatBytes(limit))
	}
	limit := MemoryLimit()
	if limit <= 0 || bytes == 0 || hostCharged.Load()+bytes <= limit {
		return
	}
	collectHost()
	if used := hostCharged.Load(); used+bytes > limit {
		panicf(ErrOutOfMemory, op, "CPU out of memory: tried to allocate %s (%s); the host memory budget is %s and %s is in use by tensors, %s free "+
			"(free tensors by dropping their variables; tensor.SetMemoryLimit changes the budget)",
			FormatBytes(bytes), what(), FormatBytes(limit), FormatBytes(used), FormatBytes(max(limit-used, 0)))
	}
}

// collectHost runs the garbage collector until the host storages it finds
// unreachable have counted their bytes back: their cleanups run on
// another goroutine after the collection, so it waits for a sentinel's
// cleanup queued behind them.
func collectHost() {
	collectGarbage() // two cycles: objects kept by finalizers go in the second
	done := make(chan struct{})
	s := new([16]byte)
	runtime.AddCleanup(s, func(ch chan struct{}) { close(ch) }, done)
	s = nil
	runtime.GC()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
}

// The host memory budget: memLimitSet is what SetMemoryLimit was given
// (0: the default).
var (
	memLimitSet atomic.Int64
	defLimit    = sync.OnceValue(func() int64 {
		return defaultMemoryLimit(hostMemory(), cgroupMemoryLimit("/proc/self/cgroup", "/sys/fs/cgroup"))
	})
)

// SetMemoryLimit sets the host memory budget of tensors to bytes and
// returns the previous setting. An allocation of a CPU tensor (New, Empty,
// an op's result) that would take the bytes of the live CPU tensors so
// allocated beyond the budget first collects garbage, then, if it still does not
// fit, panics with ErrOutOfMemory naming the request (bytes, dtype and
// shape), the budget and the bytes in use, the way PyTorch reports "CUDA
// out of memory. Tried to allocate ...": the session recovers the panic
// and keeps its variables, instead of the process growing until the
// operating system kills it.
//
// Tensors wrapping memory their caller made (FromFloat32 of a Go slice, a
// graphstore's memory-mapped sections, which may exceed the machine's
// memory) are not charged to the budget, nor buffers counted with
// CountBytes, though MemoryAllocated("cpu") counts them.
//
// bytes > 0 is the budget; 0 restores the default, DefaultMemoryLimit;
// bytes < 0 removes the budget (only a tensor larger than the machine's
// memory is refused). Since it returns the previous setting (0 for the
// default),
//
//	defer tensor.SetMemoryLimit(tensor.SetMemoryLimit(1 << 30))
//
// sets a budget for a while and restores the one before. GPU memory is
// bounded by the device itself (see EmptyCache).
func SetMemoryLimit(bytes int64) int64 {
	if bytes < 0 {
		bytes = -1
	}
	return memLimitSet.Swap(bytes)
}

// MemoryLimit returns the host memory budget in force, in bytes: the one
// SetMemoryLimit set, or DefaultMemoryLimit; 0 when there is none.
func MemoryLimit() int64 {
	switch v := memLimitSet.Load(); {
	case v > 0:
		return v
	case v < 0:
		return 0
	}
	return DefaultMemoryLimit()
}

// DefaultMemoryLimit returns the default host memory budget: 90% of the
// smaller of the machine's memory (/proc/meminfo MemTotal) and the
// memory limit of the process's cgroup (cgroup v2 memory.max, v1
// memory.limit_in_bytes, of its cgroup and those above it), whichever
// are known and set; 0 when neither is known.
func DefaultMemoryLimit() int64 { return defLimit() }

// defaultMemoryLimit is 90% of the smaller of the known (positive) limits.
func defaultMemoryLimit(limits ...int64) int64 {
	var m int64
	for _, l := range limits {
		if l > 0 && (m == 0 || l < m) {
			m = l
		}
	}
	return m / 10 * 9
}

// cgroupMemoryLimit returns the smallest memory limit set on the cgroup
// named in selfCgroup (a /proc/self/cgroup file) or one above it, under
// the cgroup file systems mounted at root (v2 at root, v1's memory
// controller at root/memory), or 0 when none is set or the files are
// missing.
func cgroupMemoryLimit(selfCgroup, root string) int64 {
	b, err := os.ReadFile(selfCgroup)
	if err != nil {
		return 0
	}
	var best int64
	try := func(dir, file string, p string) {
		for {
			if l := readCgroupLimit(filepath.Join(dir, p, file)); l > 0 && (best == 0 || l < best) {
				best = l
			}
			if p == "/" || p == "." || p == "" {
				return
			}
			p = filepath.Dir(p)
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[0] == "0" && f[1] == "":
			try(root, "memory.max", f[2])
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			try(filepath.Join(root, "memory"), "memory.limit_in_bytes", f[2])
		}
	}
	return best
}

// readCgroupLimit reads a memory.max or memory.limit_in_bytes file: a
// number of bytes, "max" (none), or v1's "no limit" (a number near 2^63).
func readCgroupLimit(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v <= 0 || v >= 1<<62 {
		return 0
	}
	return v
}

// track counts st's bytes now and releases them when the garbage collector
// frees st. Host and meta storages use a cleanup, not a finalizer: a
// finalizer would keep st and its arrays alive for one more collection
// after it runs, so under a steady stream of batches the heap would grow to
// twice what is live. A device storage (a GPU block) uses a finalizer, which
// returns its block to the device's cache; collectGarbage waits for them.
func track(st *storage) {
	if st.bytes == 0 {
		return
	}
	st.id = storageIDs.Add(1)
	countAlloc(st.device, st.bytes)
	memwatch.Alloc(st.device, st.id, st.bytes)
	switch b := st.buf.(type) {
	case *hostBuffer:
		if b.charged {
			hostCharged.Add(st.bytes)
		}
		runtime.AddCleanup(st, releaseHost, hostRelease{st.device, st.bytes, st.id, b.charged})
	case metaBuffer:
		runtime.AddCleanup(st, releaseHost, hostRelease{st.device, st.bytes, st.id, false})
	default:
		runtime.SetFinalizer(st, releaseStorage)
	}
}

// hostRelease is what a host storage's cleanup needs (it must not point
// at the storage itself).
type hostRelease struct {
	device  string
	bytes   int64
	id      uint64
	charged bool // to the host memory budget (hostCharged)
}

func releaseHost(r hostRelease) {
	if r.charged {
		hostCharged.Add(-r.bytes)
	}
	countFree(r.device, r.bytes)
	memwatch.Free(r.device, r.id, r.bytes)
}

// storageIDs numbers the counted storages, for internal/memwatch.
var storageIDs atomic.Uint64

// releaseStorage gives a device storage's buffer back to its backend and
// its bytes back to the accounting, once (Tensor.Free, then the finalizer).
func releaseStorage(st *storage) {
	if st.be.Release(st.buf) {
		countFree(st.device, st.bytes)
		memwatch.Free(st.device, st.id, st.bytes)
	}
}

// MemoryAllocated returns the bytes held by live tensors on device ("cpu",
// "cuda:0", ...). A tensor's bytes are released when the garbage collector
// frees it; call runtime.GC first for an exact reading.
func MemoryAllocated(device string) int64 { return statsFor(device).allocated.Load() }

// MaxMemoryAllocated returns the peak of MemoryAllocated on device since the
// start or the last ResetPeakMemoryStats.
//
// It is not deterministic by itself: bytes are counted when a tensor is
// allocated and released when the garbage collector frees it (or, on a
// GPU, at Tensor.Free), so the peak after ordinary code includes garbage
// not yet collected and varies with collection timing from run to run: an
// upper bound of the peak of reachable tensors. For a peak that is the
// same on every run, and comparable across configurations, use
// memplan.Measure, which collects garbage at the start and end of every op
// so that the peak counts exactly the reachable tensors, as PyTorch's
// reference counting would free them (TestMeasureDeterministic in memplan
// checks it).
func MaxMemoryAllocated(device string) int64 { return statsFor(device).peak.Load() }

// ResetPeakMemoryStats sets the peak of device to its current allocation.
// As in the other memory functions, device "" is the CPU, "cuda" is
// "cuda:0", and an unknown name panics with ErrDevice.
func ResetPeakMemoryStats(device string) {
	s := statsFor(device)
	s.peak.Store(s.allocated.Load())
}

// CountBytes adds n bytes (negative to release) to device's accounting. It is
// for engine buffers that are not tensors (sampler and loader buffers), so
// that peaks cover them too.
func CountBytes(device string, n int64) {
	memwatch.Count(canonicalStatsDevice(device), n)
	if n >= 0 {
		countAlloc(device, n)
	} else {
		countFree(device, -n)
	}
}

// MemoryDevices returns the devices the memory counters have seen, sorted:
// "cpu" and every device a tensor was allocated on or whose counters were
// read ("cuda:0").
func MemoryDevices() []string {
	statsMu.Lock()
	devs := make([]string, 0, len(stats))
	for d := range stats {
		devs = append(devs, d)
	}
	statsMu.Unlock()
	sort.Strings(devs)
	return devs
}

// MemorySummary returns a short table of allocated, peak and cumulative
// bytes for every device seen, after a garbage collection.
func MemorySummary() string {
	runtime.GC()
	runtime.GC() // finalizers queued by the first cycle run before the second
	statsMu.Lock()
	devs := make([]string, 0, len(stats))
	for d := range stats {
		devs = append(devs, d)
	}
	statsMu.Unlock()
	sort.Strings(devs)
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %12s %12s %12s %14s %10s\n", "device", "allocated", "peak", "reserved", "total alloc", "allocs")
	for _, d := range devs {
		s := statsFor(d)
		reserved := "-" // the CPU has no caching allocator
		if d != "cpu" {
			reserved = FormatBytes(s.reserved.Load())
		}
		fmt.Fprintf(&b, "%-8s %12s %12s %12s %14s %10d\n", d, FormatBytes(s.allocated.Load()),
			FormatBytes(s.peak.Load()), reserved, FormatBytes(s.total.Load()), s.count.Load())
	}
	return b.String()
}

// FormatBytes renders n bytes with a binary unit (B, KiB, MiB, GiB).
func FormatBytes(n int64) string {
	f := float64(n)
	switch {
	case n < 1<<10 && n > -(1<<10):
		return fmt.Sprintf("%d B", n)
	case n < 1<<20 && n > -(1<<20):
		return fmt.Sprintf("%.1f KiB", f/(1<<10))
	case n < 1<<30 && n > -(1<<30):
		return fmt.Sprintf("%.1f MiB", f/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", f/(1<<30))
}

var (
	hostMemOnce sync.Once
	hostMem     int64
)

// hostMemory returns the machine's total memory in bytes from
// /proc/meminfo (MemTotal), or 0 when it is unknown.
func hostMemory() int64 {
	hostMemOnce.Do(func() {
		b, err := os.ReadFile("/proc/meminfo")
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					hostMem = kb * 1024
				}
			}
		}
	})
	return hostMem
}
