package memplan

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// interruptAfter makes runctx's context one that is cancelled at the n-th
// tensor op, as a Ctrl-C in the middle of the work would, and returns the
// function that undoes it.
func interruptAfter(n int64) func() {
	ctx, cancel := context.WithCancel(context.Background())
	restore := runctx.Set(ctx)
	var ops atomic.Int64
	prev := tensor.SetOpHook(func(string) func() {
		if ops.Add(1) == n {
			cancel()
		}
		return nil
	})
	return func() { tensor.SetOpHook(prev); restore(); cancel() }
}

// TestInterrupted: Measure, Compare and Suggest stop at the next step when
// the running evaluation is cancelled, returning the context's error and
// no value.
func TestInterrupted(t *testing.T) {
	d := dataset(t, "powerlaw")
	cases := seedCases(d, 2, []int{10, 5})
	for _, c := range []Case{cases[0], cases[1]} {
		t0 := time.Now()
		undo := interruptAfter(5)
		m, err := Measure(c.Config, 1000)
		undo()
		t.Logf("%s: %v", c.Name, time.Since(t0))
		if !errors.Is(err, context.Canceled) || m.Steps != 0 {
			t.Errorf("Measure %s: %v, %+v; want the context's error and no measurement", c.Name, err, m)
		}
	}
	t0 := time.Now()
	undo := interruptAfter(5)
	cmp, err := Compare(cases, CompareOptions{MeasureSteps: 1000})
	undo()
	t.Logf("Compare: %v", time.Since(t0))
	if !errors.Is(err, context.Canceled) || cmp != nil {
		t.Errorf("Compare: %v, %v; want the context's error and nil", err, cmp)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	restore := runctx.Set(ctx)
	cfg, p, err := Suggest(cases[0].Config, 1)
	restore()
	if !errors.Is(err, context.Canceled) || p.Peak != 0 || cfg.Dataset != d {
		t.Errorf("Suggest: %v, peak %d", err, p.Peak)
	}
}
