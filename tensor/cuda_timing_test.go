package tensor

import (
	"errors"
	"testing"
	"time"
)

// fakeStream is a timedStream whose events read a test clock.
type fakeStream struct {
	name            string
	clock           time.Duration
	recorded, freed int
	failRecord      bool
}

type fakeEvent struct{ at time.Duration }

func (f *fakeStream) timerName() string { return f.name }
func (f *fakeStream) timerRecord() (timerEvent, error) {
	if f.failRecord {
		return nil, errors.New("fake record failure")
	}
	f.recorded++
	return &fakeEvent{f.clock}, nil
}
func (f *fakeStream) timerSync(timerEvent) error { return nil }
func (f *fakeStream) timerElapsed(a, b timerEvent) (time.Duration, error) {
	return b.(*fakeEvent).at - a.(*fakeEvent).at, nil
}
func (f *fakeStream) timerRelease(timerEvent) { f.freed++ }

type seg struct {
	op, dev string
	dur     time.Duration
}

func TestDeviceTimingSelfSegments(t *testing.T) {
	prev := SetOpHook(func(string) func() { return func() {} })
	defer SetOpHook(prev)
	var got []seg
	var starts []time.Time
	stop, err := StartDeviceTiming(func(op, dev string, start time.Time, dur time.Duration) {
		got = append(got, seg{op, dev, dur})
		starts = append(starts, start)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := StartDeviceTiming(func(string, string, time.Time, time.Duration) {}); err == nil {
		t.Fatal("a second StartDeviceTiming succeeded")
	}
	f := &fakeStream{name: "cuda:7", clock: 100}
	tm := devTimer.Load()
	endOuter := hookOp("Outer")
	f.clock = 110
	tm.work(f) // Outer queues a kernel at 110
	tm.work(f) // a second pointer of the same segment: no new event
	f.clock = 115
	endInner := hookOp("Inner") // Outer's segment ends: 5
	f.clock = 120
	tm.work(f)
	f.clock = 127
	endInner() // Inner: 7
	f.clock = 130
	hookOp("CPUOnly")() // no device work: nothing recorded
	f.clock = 140
	tm.work(f)
	f.clock = 144
	endOuter() // Outer again: 4
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	want := []seg{{"Outer", "cuda:7", 5}, {"Inner", "cuda:7", 7}, {"Outer", "cuda:7", 4}}
	if len(got) != len(want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("segment %d = %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
	if d := starts[1].Sub(starts[0]); d != 10 {
		t.Errorf("Inner starts %v after Outer's first segment, want 10ns", d)
	}
	if f.recorded != f.freed {
		t.Errorf("%d events recorded, %d returned to the pool", f.recorded, f.freed)
	}
	if devTimer.Load() != nil {
		t.Fatal("the timer is still installed after stop")
	}
	tm.work(f) // after stop: the old timer is not reachable from devPtr; direct calls are harmless
	if _, err := StartDeviceTiming(nil); err == nil {
		t.Fatal("StartDeviceTiming(nil) succeeded")
	}
}

func TestDeviceTimingFlushesWhenFull(t *testing.T) {
	prev := SetOpHook(func(string) func() { return func() {} })
	defer SetOpHook(prev)
	n := 0
	stop, err := StartDeviceTiming(func(op, dev string, start time.Time, dur time.Duration) {
		if op != "K" || dur != 2 {
			t.Errorf("segment %s %v", op, dur)
		}
		n++
	})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeStream{name: "cuda:0"}
	tm := devTimer.Load()
	for i := 0; i < maxTimedSegments+10; i++ {
		end := hookOp("K")
		tm.work(f)
		f.clock += 2
		end()
		f.clock++
	}
	if n < maxTimedSegments {
		t.Errorf("%d segments delivered before stop, want a flush at %d", n, maxTimedSegments)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if n != maxTimedSegments+10 {
		t.Errorf("%d segments delivered, want %d", n, maxTimedSegments+10)
	}
	if f.recorded != f.freed {
		t.Errorf("%d events recorded, %d returned", f.recorded, f.freed)
	}
}

func TestDeviceTimingReportsEventErrors(t *testing.T) {
	prev := SetOpHook(func(string) func() { return func() {} })
	defer SetOpHook(prev)
	stop, err := StartDeviceTiming(func(string, string, time.Time, time.Duration) { t.Error("a segment despite failing events") })
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeStream{name: "cuda:0", failRecord: true}
	end := hookOp("K")
	devTimer.Load().work(f)
	end()
	if err := stop(); err == nil || err.Error() != "fake record failure" {
		t.Fatalf("stop = %v, want the record failure", err)
	}
}

func TestDeviceTimingOffCostsNothing(t *testing.T) {
	if devTimer.Load() != nil {
		t.Fatal("device timing runs with no profile")
	}
	noteDeviceWork(nil) // no timer, no device: nothing
}
