package tensor

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnnrepl/gnnrepl/kernels"
)

// Device timing (torch.profiler's ProfilerActivity.CUDA, measured with CUDA
// events instead of CUPTI). While StartDeviceTiming runs, the time between
// two op boundaries (an op starting or returning, with an op hook
// installed) is one segment, charged to the innermost open op: its self
// time. A segment in which an op queued work on a GPU (the first device
// pointer an op takes, devPtr) gets an event recorded on that device's
// compute stream at that point, and another at the segment's end; CPU-only
// segments record nothing. The events come from a per-device pool; when
// maxTimedSegments segments are pending, or at the stop, the timer waits for
// the last event, reads the elapsed times and hands each segment to the
// sink.
//
// Event times include idle gaps of the stream inside a segment (the host
// preparing a second kernel of the same op while the GPU waits); in a
// training loop the stream is usually backed up, and the times are the
// kernels' own.

// DeviceTimeSink receives one timed stretch of device work: the op it is
// charged to, the device ("cuda:0"), its start (device time mapped onto
// the host clock) and its duration.
type DeviceTimeSink func(op, device string, start time.Time, dur time.Duration)

// maxTimedSegments is the number of pending segments that triggers a flush.
const maxTimedSegments = 4096

// timedStream is a device's compute stream as the timer uses it: the CUDA
// device, or a fake in tests.
type timedStream interface {
	timerName() string
	timerRecord() (timerEvent, error)
	timerSync(e timerEvent) error
	timerElapsed(a, b timerEvent) (time.Duration, error)
	timerRelease(e timerEvent)
}

// timerEvent is an event of a timedStream (a *kernels.Event on a GPU).
type timerEvent any

type timerFrame struct{ op string }

type timedSeg struct {
	op         string
	dev        timedStream
	start, end timerEvent
}

type devRef struct {
	ev   timerEvent
	host time.Time
}

type deviceTimer struct {
	mu      sync.Mutex
	sink    DeviceTimeSink
	stack   []*timerFrame
	open    map[timedStream]timerEvent // devices with work in the current segment
	pending []timedSeg
	refs    map[timedStream]devRef
	err     error // first error of the event calls (reported by the stop)
}

var devTimer atomic.Pointer[deviceTimer]

// StartDeviceTiming starts charging GPU time to tensor ops (see the
// package's op hook, SetOpHook: op boundaries are seen only while a hook is
// installed); sink receives the segments. It returns the function that
// stops the timing, flushes the pending segments to sink and returns the
// first CUDA error met (the times it could read are delivered anyway). It
// returns an error when device timing already runs. The profile package
// calls it in Start. With no timing running, ops pay one atomic load.
func StartDeviceTiming(sink DeviceTimeSink) (stop func() error, err error) {
	if sink == nil {
		return nil, fmt.Errorf("tensor.StartDeviceTiming: sink is nil: %w", ErrArgument)
	}
	t := &deviceTimer{sink: sink, open: map[timedStream]timerEvent{}, refs: map[timedStream]devRef{}}
	if !devTimer.CompareAndSwap(nil, t) {
		return nil, fmt.Errorf("tensor.StartDeviceTiming: device timing already runs: %w", ErrArgument)
	}
	var once sync.Once
	return func() error {
		once.Do(func() { devTimer.CompareAndSwap(t, nil) })
		t.mu.Lock()
		defer t.mu.Unlock()
		t.closeSegmentLocked()
		t.flushLocked()
		for d, r := range t.refs {
			d.timerRelease(r.ev)
		}
		t.refs = map[timedStream]devRef{}
		return t.err
	}, nil
}

// begin is called as op starts (with the op hook): the segment before it
// ends.
func (t *deviceTimer) begin(op string) *timerFrame {
	f := &timerFrame{op: op}
	t.mu.Lock()
	t.closeSegmentLocked()
	t.stack = append(t.stack, f)
	t.mu.Unlock()
	return f
}

// end is called as the op of f returns.
func (t *deviceTimer) end(f *timerFrame) {
	t.mu.Lock()
	t.closeSegmentLocked()
	for i := len(t.stack) - 1; i >= 0; i-- {
		if t.stack[i] == f {
			t.stack = append(t.stack[:i], t.stack[i+1:]...)
			break
		}
	}
	t.mu.Unlock()
}

// work notes that the current segment queues work on d, recording the
// segment's start event on d the first time.
func (t *deviceTimer) work(d timedStream) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.open[d]; ok {
		return
	}
	if _, ok := t.refs[d]; !ok {
		if !t.refLocked(d) {
			return
		}
	}
	e, err := d.timerRecord()
	if err != nil {
		t.fail(err)
		return
	}
	t.open[d] = e
}

// refLocked records d's reference event: a point of its stream matched with
// the host clock (the stream is drained first, so the event completes as
// soon as it is recorded).
func (t *deviceTimer) refLocked(d timedStream) bool {
	e, err := d.timerRecord()
	if err == nil {
		err = d.timerSync(e)
	}
	if err != nil {
		t.fail(err)
		return false
	}
	t.refs[d] = devRef{ev: e, host: time.Now()}
	return true
}

func (t *deviceTimer) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// closeSegmentLocked ends the current segment on every device it queued
// work on.
func (t *deviceTimer) closeSegmentLocked() {
	if len(t.open) == 0 {
		return
	}
	op := "(no op)"
	if n := len(t.stack); n > 0 {
		op = t.stack[n-1].op
	}
	for d, start := range t.open {
		delete(t.open, d)
		e, err := d.timerRecord()
		if err != nil {
			t.fail(err)
			d.timerRelease(start)
			continue
		}
		t.pending = append(t.pending, timedSeg{op: op, dev: d, start: start, end: e})
	}
	if len(t.pending) >= maxTimedSegments {
		t.flushLocked()
	}
}

// flushLocked waits for the pending segments' events, hands their times to
// the sink and returns the events to their pools; each device's reference
// point is then renewed, which keeps the float32 milliseconds of
// cuEventElapsedTime short.
func (t *deviceTimer) flushLocked() {
	if len(t.pending) == 0 {
		return
	}
	synced := map[timedStream]bool{}
	for i := len(t.pending) - 1; i >= 0; i-- { // the last event of each device first
		s := t.pending[i]
		if !synced[s.dev] {
			synced[s.dev] = true
			if err := s.dev.timerSync(s.end); err != nil {
				t.fail(err)
			}
		}
	}
	for _, s := range t.pending {
		ref := t.refs[s.dev]
		off, err1 := s.dev.timerElapsed(ref.ev, s.start)
		dur, err2 := s.dev.timerElapsed(s.start, s.end)
		if err1 == nil && err2 == nil {
			t.sink(s.op, s.dev.timerName(), ref.host.Add(off), dur)
		} else {
			t.fail(firstErr(err1, err2))
		}
		s.dev.timerRelease(s.start)
		s.dev.timerRelease(s.end)
	}
	t.pending = t.pending[:0]
	for d := range synced {
		if r, ok := t.refs[d]; ok {
			delete(t.refs, d)
			d.timerRelease(r.ev)
			t.refLocked(d)
		}
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// noteDeviceWork is devPtr's hook: one atomic load when no timing runs.
func noteDeviceWork(d *cudaDevice) {
	if t := devTimer.Load(); t != nil && d != nil {
		t.work(d)
	}
}

// The CUDA device as a timedStream: events on its compute stream (the
// legacy default stream every op queues on), from a pool.

func (d *cudaDevice) timerName() string { return d.name }

func (d *cudaDevice) timerRecord() (timerEvent, error) {
	d.evMu.Lock()
	var e *kernels.Event
	if n := len(d.evPool); n > 0 {
		e = d.evPool[n-1]
		d.evPool = d.evPool[:n-1]
	}
	d.evMu.Unlock()
	if e == nil {
		var err error
		if e, err = d.dev.NewEvent(); err != nil {
			return nil, err
		}
	}
	if err := e.Record(d.s); err != nil {
		d.timerRelease(e)
		return nil, err
	}
	return e, nil
}

func (d *cudaDevice) timerSync(e timerEvent) error { return e.(*kernels.Event).Synchronize() }

func (d *cudaDevice) timerElapsed(a, b timerEvent) (time.Duration, error) {
	ms, err := kernels.ElapsedMs(a.(*kernels.Event), b.(*kernels.Event))
	if err != nil {
		return 0, err
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

func (d *cudaDevice) timerRelease(e timerEvent) {
	d.evMu.Lock()
	d.evPool = append(d.evPool, e.(*kernels.Event))
	d.evMu.Unlock()
}
