package profile

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// MaxEvents is the number of op calls a profile keeps one by one for the
// Chrome trace (about 100 bytes each). Calls beyond it are still counted in
// the Report's Stats; Report.Dropped says how many were left out of Events.
var MaxEvents = 1 << 20

// frame is one op call that has started and not yet returned.
type frame struct {
	name       string
	start      time.Duration // since the session's t0
	startBytes int64
	childDur   time.Duration // totals of the ops nested directly in it
	childBytes int64
	event      int // index in session.events, -1 when not kept
	depth      int
}

type session struct {
	mu         sync.Mutex
	t0         time.Time
	prev       tensor.OpHook // the hook installed before Start, chained
	stopTiming func() error  // ends tensor's device timing (CUDA events)
	timingErr  error
	stack      []*frame
	events     []Event
	devEvents  []DeviceEvent
	stats      map[string]*OpStat
	dropped    int
	overlapped int
	stopped    bool
}

var active atomic.Pointer[session]

// Start begins recording every tensor op until Stop
// (torch.profiler.profile().__enter__). It panics with an *Error wrapping
// ErrState when a profile is already running.
func Start() {
	s := &session{t0: time.Now(), stats: map[string]*OpStat{}}
	if !active.CompareAndSwap(nil, s) {
		panicf(ErrState, "Start", "a profile is already running; call profile.Stop first")
	}
	s.prev = tensor.SetOpHook(s.begin)
	// CUDA time (torch.profiler's ProfilerActivity.CUDA): ops that queue
	// GPU work record event pairs, delivered to addDeviceTime. A failure to
	// start (device timing taken by another user) leaves the CPU profile.
	if stop, err := tensor.StartDeviceTiming(s.addDeviceTime); err == nil {
		s.stopTiming = stop
	} else {
		s.timingErr = err
	}
}

// Stop ends the running profile and returns its Report. Ops still open (Stop
// called from inside an op, or an op on another goroutine) are closed at the
// time of Stop. It panics with an *Error wrapping ErrState when no profile
// runs.
func Stop() *Report {
	s := active.Load()
	if s == nil {
		panicf(ErrState, "Stop", "no profile is running; call profile.Start first")
	}
	tensor.SetOpHook(s.prev)
	if s.stopTiming != nil {
		// Waits for the GPU to reach the last timed op and delivers the
		// pending device times (before the session closes).
		if err := s.stopTiming(); err != nil && s.timingErr == nil {
			s.timingErr = err
		}
	}
	active.Store(nil)
	mem := deviceMemory()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	now, bytes := time.Since(s.t0), tensor.TotalAllocatedBytes("cpu")
	for len(s.stack) > 0 {
		s.closeLocked(len(s.stack)-1, now, bytes)
	}
	r := s.report(now)
	r.Memory = mem
	if s.timingErr != nil {
		r.DeviceTimingError = s.timingErr.Error()
	}
	last.Store(r)
	return r
}

// last is the report of the most recent Stop.
var last atomic.Pointer[Report]

// Last returns the report of the most recently stopped profile, or nil when
// none has stopped: the way to read what a Run recorded before its function
// panicked or was interrupted.
func Last() *Report { return last.Load() }

// Run profiles f and returns the Report (with torch.profiler.profile() as
// prof: f()). When f panics (an interrupted cell included), the profile is
// stopped, its partial report is kept for Last, and the panic goes on.
func Run(f func()) (r *Report) {
	Start()
	done := false
	defer func() {
		if !done {
			Stop()
		}
	}()
	f()
	done = true
	return Stop()
}

// Running reports whether a profile is being recorded.
func Running() bool { return active.Load() != nil }

// Range marks a named region of user code (torch.profiler.record_function):
// it opens a row called name in the running profile and returns the function
// that closes it, for `defer profile.Range("sample")()`. Ops called inside
// are nested in it. With no profile running it costs one atomic load.
func Range(name string) (end func()) {
	s := active.Load()
	if s == nil {
		return func() {}
	}
	return s.open(name)
}

// AddDeviceTime records that the op called name ran on device ("cuda:0")
// for dur, starting at start (CUDA events, converted to wall time by the
// caller). The time is added to the op's DeviceTotal and DeviceCalls and
// drawn on the device's row of the Chrome trace. With no profile running it
// does nothing. It is the entry point for the CUDA launchers.
func AddDeviceTime(name, device string, start time.Time, dur time.Duration) {
	s := active.Load()
	if s == nil {
		return
	}
	s.addDeviceTime(name, device, start, dur)
}

// addDeviceTime is AddDeviceTime for this session (tensor's device timer
// delivers to it while Stop flushes, before the session stops).
func (s *session) addDeviceTime(name, device string, start time.Time, dur time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	st := s.stat(name)
	st.DeviceTotal += dur
	st.DeviceCalls++
	if len(s.devEvents) < MaxEvents {
		s.devEvents = append(s.devEvents, DeviceEvent{Name: name, Device: device, Start: start.Sub(s.t0), Dur: dur})
	}
}

// deviceMemory returns the memory counters of every device seen.
func deviceMemory() []DeviceMemory {
	var out []DeviceMemory
	for _, d := range tensor.MemoryDevices() {
		out = append(out, DeviceMemory{Device: d, Allocated: tensor.MemoryAllocated(d),
			Peak: tensor.MaxMemoryAllocated(d), Reserved: tensor.MemoryReserved(d)})
	}
	return out
}

// begin is the tensor op hook.
func (s *session) begin(op string) func() {
	end := s.open(op)
	if s.prev == nil {
		return end
	}
	endPrev := s.prev(op)
	return func() { end(); endPrev() }
}

func (s *session) open(name string) func() {
	bytes := tensor.TotalAllocatedBytes("cpu")
	s.mu.Lock()
	if s.stopped { // an op that started as Stop ran
		s.mu.Unlock()
		return func() {}
	}
	f := &frame{name: name, start: time.Since(s.t0), startBytes: bytes, event: -1, depth: len(s.stack)}
	if len(s.events) < MaxEvents {
		f.event = len(s.events)
		parent := -1
		if n := len(s.stack); n > 0 {
			parent = s.stack[n-1].event
		}
		s.events = append(s.events, Event{Name: name, Start: f.start, Depth: f.depth, Parent: parent})
	} else {
		s.dropped++
	}
	s.stack = append(s.stack, f)
	s.mu.Unlock()
	return func() { s.close(f) }
}

func (s *session) close(f *frame) {
	now, bytes := time.Since(s.t0), tensor.TotalAllocatedBytes("cpu")
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.stack) - 1; i >= 0; i-- {
		if s.stack[i] == f {
			if i != len(s.stack)-1 {
				s.overlapped++
			}
			s.closeLocked(i, now, bytes)
			return
		}
	}
	// Not found: closed by Stop already, or it belongs to an earlier session.
}

// closeLocked ends stack[i] at time now with the byte counter at bytes.
func (s *session) closeLocked(i int, now time.Duration, bytes int64) {
	f := s.stack[i]
	s.stack = append(s.stack[:i], s.stack[i+1:]...)
	dur := now - f.start
	b := bytes - f.startBytes
	self, selfBytes := dur-f.childDur, b-f.childBytes
	if self < 0 {
		self = 0
	}
	if i > 0 {
		p := s.stack[i-1]
		p.childDur += dur
		p.childBytes += b
	}
	st := s.stat(f.name)
	st.Calls++
	st.Total += dur
	st.Self += self
	st.Bytes += b
	st.SelfBytes += selfBytes
	if f.event >= 0 {
		e := &s.events[f.event]
		e.Dur, e.Self, e.Bytes, e.SelfBytes = dur, self, b, selfBytes
	}
}

func (s *session) stat(name string) *OpStat {
	st := s.stats[name]
	if st == nil {
		st = &OpStat{Name: name}
		s.stats[name] = st
	}
	return st
}

func (s *session) report(wall time.Duration) *Report {
	r := &Report{Start: s.t0, Wall: wall, Events: s.events, DeviceEvents: s.devEvents,
		Dropped: s.dropped, Overlapped: s.overlapped}
	for _, st := range s.stats {
		r.Stats = append(r.Stats, *st)
	}
	sort.Slice(r.Stats, func(i, j int) bool {
		if r.Stats[i].Total != r.Stats[j].Total {
			return r.Stats[i].Total > r.Stats[j].Total
		}
		return r.Stats[i].Name < r.Stats[j].Name
	})
	return r
}
