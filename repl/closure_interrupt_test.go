package repl

import (
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// blocksEntered counts the calls of testpkg.BlockCounted that have begun:
// a goroutine inside one is in a compiled call, where an interrupt cannot
// stop it.
var blocksEntered atomic.Int64

func init() {
	testSymbols["example.com/testpkg/testpkg"]["BlockCounted"] = reflect.ValueOf(func() int {
		blocksEntered.Add(1)
		return block()
	})
}

// interruptInBlock evaluates src, which starts a goroutine that calls
// testpkg.BlockCounted and then loops, and interrupts it once that
// goroutine is inside the call. Interrupting after a fixed delay instead
// raced with the goroutine's start: on a busy machine it had not reached
// its first step when the interrupt came, so (as designed, GoBegin) it
// never ran, and live goroutines were 0.
func interruptInBlock(t *testing.T, s *Session, src string) {
	t.Helper()
	n := blocksEntered.Load()
	_, err := evalCancelled(t, s, src, func() {
		for blocksEntered.Load() == n {
			time.Sleep(time.Millisecond)
		}
	})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("%s: err = %v, want an interrupt", src, err)
	}
}

// waitNoLive waits until no goroutine started by a cell runs.
func waitNoLive(t *testing.T, s *Session) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); s.live.Load() != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the goroutine did not end (live %d)", s.live.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestClosuresAfterInterrupt: function literals made before an interrupt
// still run after it (found by trying the session as a new user: after any
// Ctrl-C, every earlier `f := func...` returned zero values without
// running, so a training helper silently returned a nil model). The run id
// is put back once no interpreted code runs (stopper.revive); a goroutine
// still alive after the interrupt defers that until it has ended.
func TestClosuresAfterInterrupt(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "import \"example.com/testpkg\"\nimport \"sort\"")
	eval(t, s, "x := 0")
	eval(t, s, "one := func() int { return 1 }")
	eval(t, s, "var two = func() int { return 2 }")
	eval(t, s, "three := func() func() int { k := 3; return func() int { return k } }()")
	eval(t, s, "less := func(a, b int) bool { return a < b }")
	interrupt := func(src string) { t.Helper(); interruptAfterMark(t, s, src) }
	check := func(when string) {
		t.Helper()
		got := eval(t, s, `xs := []int{3, 1, 2}; sort.Slice(xs, func(i, j int) bool { return less(xs[i], xs[j]) }); fmt.Sprint(one(), two(), three(), xs)`)
		if got != `"1 2 3 [1 2 3]"` {
			t.Errorf("%s: %s, want \"1 2 3 [1 2 3]\"", when, got)
		}
	}
	interrupt("testpkg.Mark()\nfor { x++ }")
	check("after an interrupted loop")
	interrupt("func() { testpkg.Mark(); for { x = one() + x } }()")
	check("after an interrupt inside a call of one")
	// A goroutine blocked in a compiled call outlives the interrupt: the
	// closures work again once it has ended.
	blockRelease = make(chan struct{})
	eval(t, s, "done := make(chan int, 1)")
	interruptInBlock(t, s, "go func() { done <- testpkg.BlockCounted() }()\nfor { x++ }")
	if s.live.Load() != 1 {
		t.Fatalf("live goroutines = %d, want 1 (blocked in Block)", s.live.Load())
	}
	close(blockRelease)
	waitNoLive(t, s)
	check("after the goroutine ended")

	// One that has not stopped when the grace ends: the session says so,
	// and the literals made from then on keep working after it ends.
	s.opts.InterruptGrace = 100 * time.Millisecond
	blockRelease = make(chan struct{})
	interruptInBlock(t, s, "go func() { done <- testpkg.BlockCounted() }()\nfor { x++ }")
	_, errOut := s.opts.Stdout, s.opts.Stderr.(*syncBuffer)
	eval(t, s, "later := func() int { return 5 }")
	if !strings.Contains(errOut.String(), "did not stop at the interrupt") {
		t.Errorf("no notice of the goroutine that did not stop: %q", errOut.String())
	}
	close(blockRelease)
	waitNoLive(t, s)
	if got := eval(t, s, "later()"); got != "5" {
		t.Errorf("later() = %s after the goroutine ended, want 5", got)
	}
}
