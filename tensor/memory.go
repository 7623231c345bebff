package tensor

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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

// checkHostMemory refuses an allocation of n elements of dt (bytes in all)
// larger than the machine's memory: Go cannot recover from a failed
// allocation (the process dies), so such a request is refused here.
func checkHostMemory(op string, dt DType, n int, bytes int64) {
	if limit := hostMemory(); limit > 0 && bytes > limit {
		panicf(ErrOutOfMemory, op, "%d %s elements need %s, more than this machine's %s of memory",
			n, dt, FormatBytes(bytes), FormatBytes(limit))
	}
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
	switch st.buf.(type) {
	case *hostBuffer, metaBuffer:
		runtime.AddCleanup(st, releaseHost, hostRelease{st.device, st.bytes, st.id})
	default:
		runtime.SetFinalizer(st, releaseStorage)
	}
}

// hostRelease is what a host storage's cleanup needs (it must not point
// at the storage itself).
type hostRelease struct {
	device string
	bytes  int64
	id     uint64
}

func releaseHost(r hostRelease) {
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
