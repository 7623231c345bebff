// Package memwatch follows the engine's memory accounting of a set of
// devices together, for memplan: the bytes allocated since a Watcher
// started and still live, summed over its devices, their high-water mark,
// and, at that mark, how the live bytes split by the phase that allocated
// them (the dataset, the model, sampling, forward, backward, the optimizer).
//
// tensor reports every storage it allocates and frees (with an id, so that
// frees of storages allocated before the Watcher started are ignored) and
// every tensor.CountBytes (buffers that are not tensors; no identity).
// One Watcher is active at a time; with none, the reports cost one atomic
// load.
package memwatch

import (
	"sync"
	"sync/atomic"
)

// NumPhases bounds the phase labels a Watcher splits by.
const NumPhases = 8

// Snapshot is the accounting at one moment.
type Snapshot struct {
	// Live is the bytes allocated since Start and still live, summed over
	// the devices.
	Live int64
	// ByPhase splits the live storages' bytes by the phase that was
	// current when each was allocated.
	ByPhase [NumPhases]int64
	// Counted is the part of Live reported through tensor.CountBytes.
	Counted int64
	// Op is the label set by SetOp, and Phase the phase, when the
	// snapshot was taken.
	Op    string
	Phase int
}

// Watcher sums the accounting of its devices from Start to Stop.
type Watcher struct {
	devs map[string]bool

	mu    sync.Mutex
	phase int
	op    string
	live  map[uint64]entry
	cur   Snapshot
	peak  Snapshot
	peaks int64 // how many times the peak rose
}

type entry struct {
	bytes int64
	phase int
}

var active atomic.Pointer[Watcher]

// Start makes a Watcher of devices (canonical names: "cpu", "meta",
// "meta:cuda", "cuda:0") the active one, replacing any other, and returns
// it.
func Start(devices ...string) *Watcher {
	w := &Watcher{devs: map[string]bool{}, live: map[uint64]entry{}}
	for _, d := range devices {
		w.devs[d] = true
	}
	active.Store(w)
	return w
}

// Stop ends w's watching (when it is still the active Watcher).
func (w *Watcher) Stop() { active.CompareAndSwap(w, nil) }

// SetPhase sets the phase later allocations are attributed to (0 <= p <
// NumPhases).
func (w *Watcher) SetPhase(p int) {
	w.mu.Lock()
	w.phase = min(max(p, 0), NumPhases-1)
	w.mu.Unlock()
}

// SetOp sets the label recorded with a new peak (the op running).
func (w *Watcher) SetOp(op string) {
	w.mu.Lock()
	w.op = op
	w.mu.Unlock()
}

// Current returns the accounting now.
func (w *Watcher) Current() Snapshot {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur
}

// Peak returns the accounting at its high-water mark, and how many times
// the mark rose (to tell whether it moved since an earlier call).
func (w *Watcher) Peak() (Snapshot, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak, w.peaks
}

// rise records a new high-water mark; w.mu is held.
func (w *Watcher) rise() {
	if w.cur.Live > w.peak.Live {
		w.peak = w.cur
		w.peak.Op, w.peak.Phase = w.op, w.phase
		w.peaks++
	}
}

// Alloc reports a storage of n bytes allocated on device.
func Alloc(device string, id uint64, n int64) {
	w := active.Load()
	if w == nil || !w.devs[device] {
		return
	}
	w.mu.Lock()
	w.live[id] = entry{n, w.phase}
	w.cur.Live += n
	w.cur.ByPhase[w.phase] += n
	w.rise()
	w.mu.Unlock()
}

// Free reports that storage id (n bytes on device) was released.
func Free(device string, id uint64, n int64) {
	w := active.Load()
	if w == nil || !w.devs[device] {
		return
	}
	w.mu.Lock()
	if e, ok := w.live[id]; ok {
		delete(w.live, id)
		w.cur.Live -= e.bytes
		w.cur.ByPhase[e.phase] -= e.bytes
	}
	w.mu.Unlock()
}

// Count reports n bytes (negative: released) counted on device without a
// storage (tensor.CountBytes).
func Count(device string, n int64) {
	w := active.Load()
	if w == nil || !w.devs[device] {
		return
	}
	w.mu.Lock()
	w.cur.Live += n
	w.cur.Counted += n
	w.rise()
	w.mu.Unlock()
}
