package workers

import (
	"errors"
	"sync/atomic"
	"testing"
)

type typedErr struct{ msg string }

func (e *typedErr) Error() string { return e.msg }

func TestForCoversRange(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		var seen = make([]atomic.Int32, n)
		For(n, 3, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("n=%d: item %d visited %d times", n, i, seen[i].Load())
			}
		}
	}
}

func TestPanicReachesCaller(t *testing.T) {
	want := &typedErr{"bad index 99"}
	got := func() (r any) {
		defer func() { r = recover() }()
		For(1000, 1, func(lo, hi int) {
			if lo == 0 {
				panic(want)
			}
		})
		return nil
	}()
	var e *typedErr
	if err, ok := got.(error); !ok || !errors.As(err, &e) || e != want {
		t.Fatalf("recovered %v, want the worker's typed error", got)
	}
}

func TestGroupWaitsForAll(t *testing.T) {
	var g Group
	var done atomic.Int32
	for i := range 8 {
		g.Go(func() {
			if i == 3 {
				panic("boom")
			}
			done.Add(1)
		})
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want boom", r)
			}
		}()
		g.Wait()
	}()
	if done.Load() != 7 {
		t.Fatalf("%d goroutines finished, want 7", done.Load())
	}
}
