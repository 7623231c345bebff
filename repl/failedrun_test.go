package repl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestInterruptedAssignmentAssignsNothing: Ctrl-C during `m = train(m)`
// leaves m as it was (found by trying the shell as a new user: the
// interrupted call's zero result was written into m, losing a model), at
// the top level, in a loop (the last completed iteration's value stands),
// for tuples and fields, and for a compiled call that returns when
// interrupted.
func TestInterruptedAssignmentAssignsNothing(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "import \"example.com/testpkg\"\nimport \"errors\"\nx := 0\nh := 7\nname := \"kept\"\ntype P struct{ V int }\np := &P{V: 5}\ne := errors.New(\"old\")")
	interrupt := func(src string) { t.Helper(); interruptAfterMark(t, s, src) }
	interrupt("h = func() int { testpkg.Mark(); for { x++ } }()")
	interrupt("h, name = func() (int, string) { testpkg.Mark(); for { x++ } }()")
	interrupt("p.V = func() int { testpkg.Mark(); for { x++ } }()")
	interrupt("testpkg.Mark()\ne = testpkg.Spin()")
	for expr, want := range map[string]string{"h": "7", "name": `"kept"`, "p.V": "5", "e.Error()": `"old"`} {
		if got := eval(t, s, expr); got != want {
			t.Errorf("%s = %s after an interrupted assignment, want %s", expr, got, want)
		}
	}
	interrupt("for i := 0; ; i++ { h = func() int { if i < 3 { return 10 + i }; testpkg.Mark(); for { x++ } }() }")
	if got := eval(t, s, "h"); got != "12" {
		t.Errorf("h = %s after a loop interrupted in its 4th iteration, want 12", got)
	}
	// Assignments that complete still assign, blanks included.
	eval(t, s, "_, name = func() (int, string) { return 1, \"new\" }()\nh = testpkg.Step(h)")
	if got := eval(t, s, "name + fmt.Sprint(h)"); got != `"new13"` {
		t.Errorf("after completed assignments: %s", got)
	}
}

// TestFailedDefineKeepsVariable: a define or var declaration whose right
// side panics declares nothing: an existing session variable keeps its
// type and value (found by a new user: `model := nn.NewGraphSAGE(bad
// options)` left model nil), a new one does not exist, and the statements
// of the cell before the failing one keep their effect, as in Go.
func TestFailedDefineKeepsVariable(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "n := 42\nvar hv = \"hv\"")
	for _, cell := range []string{
		"n := []int{1}[5]",
		`n := func() string { panic("no") }()`,
		`var hv = func() int { panic("no") }()`,
		"k := 3\nfresh := []int{}[1]\nn := 7",
	} {
		if _, err := s.Eval(context.Background(), cell); err == nil {
			t.Fatalf("%q: no error", cell)
		}
	}
	if got := eval(t, s, "n + 1"); got != "43" {
		t.Errorf("n + 1 = %s, want 43 (n an int of value 42)", got)
	}
	if got := eval(t, s, "hv + \"!\""); got != `"hv!"` {
		t.Errorf("hv = %s, want \"hv!\"", got)
	}
	if got := eval(t, s, "k"); got != "3" {
		t.Errorf("k = %s: the statement before the failing one ran", got)
	}
	if _, err := s.Eval(context.Background(), "fresh"); err == nil || !strings.Contains(err.Error(), "undefined: fresh") {
		t.Errorf("fresh after its define failed: err = %v, want undefined", err)
	}
	// The name can be declared again afterwards.
	if got := eval(t, s, "fresh := 1\nfresh"); got != "1" {
		t.Errorf("fresh := 1 after the failure: %s", got)
	}
}

// TestMainRunsOnce: a func main declared in a cell (or a loaded program)
// runs once, when declared, not again before every later cell (yaegi
// appends main to every program compiled in package main); calling main()
// runs it again.
func TestMainRunsOnce(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "runs := 0")
	eval(t, s, "func main() { runs++ }")
	eval(t, s, "x := 1")
	eval(t, s, "x++")
	if got := eval(t, s, "runs"); got != "1" {
		t.Errorf("main ran %s times, want once", got)
	}
	eval(t, s, "main()")
	eval(t, s, "func main() { runs += 10 }")
	if got := eval(t, s, "runs"); got != "12" {
		t.Errorf("runs = %s after main() and a new main, want 12", got)
	}
}

// interruptAfterMark evaluates src in s and interrupts it 20 ms after it
// has called testpkg.Mark, failing t unless the cell ends interrupted.
func interruptAfterMark(t *testing.T, s *Session, src string) {
	t.Helper()
	marks.Store(0)
	_, err := evalCancelled(t, s, src, func() {
		for marks.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
	})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("%s: err = %v, want an interrupt", src, err)
	}
}
