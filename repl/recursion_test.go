package repl

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRecursionLimit: unbounded recursion fails the cell with a
// RecursionError instead of ending the process, in about a second (not the
// quadratic unwinding of a panic through yaegi's frames), the session keeps
// its variables, deferred calls run, deep but bounded recursion within the
// limit runs, :recursion changes the limit, and in a goroutine a deferred
// recover catches it.
func TestRecursionLimit(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "keep := 42\nfunc down(n int) int { return down(n+1) + 1 }\nfunc sum(n int) int {\n\tif n == 0 {\n\t\treturn 0\n\t}\n\treturn n + sum(n-1)\n}")
	_, err := s.Eval(context.Background(), "down(0)")
	var pe *PanicError
	var re *RecursionError
	if !errors.As(err, &pe) || !errors.As(asError(pe.Value), &re) || re.Limit != DefaultRecursionLimit || re.Depth <= re.Limit {
		t.Fatalf("down(0): %v", err)
	}
	if !strings.Contains(err.Error(), "maximum recursion depth exceeded") {
		t.Errorf("message: %v", err)
	}
	if got := eval(t, s, "keep + sum(5000)"); got != "12502542" {
		t.Errorf("after: %s", got)
	}
	// The cell's deferred calls run as the cell's goroutine ends.
	eval(t, s, "cleaned := false")
	if _, err := s.Eval(context.Background(), "func deep() {\n\tdefer func() { cleaned = true }()\n\tdown(0)\n}\ndeep()"); !errors.As(err, &pe) || !errors.As(asError(pe.Value), &re) {
		t.Errorf("deep(): %v", err)
	}
	if got := eval(t, s, "cleaned"); got != "true" {
		t.Errorf("deferred call did not run: cleaned = %s", got)
	}
	var out strings.Builder
	if _, err := s.RunCommand(context.Background(), ":recursion 100", &out); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Eval(context.Background(), "sum(3000)"); !errors.As(err, &pe) {
		t.Errorf("sum(3000) under a limit of 100: %v", err)
	}
	s.RunCommand(context.Background(), ":recursion", &out)
	if !strings.Contains(out.String(), "recursion limit: 100 interpreted calls") {
		t.Errorf(":recursion printed %q", out.String())
	}
	// A goroutine's recursion is stopped too, with a panic (whose cost
	// grows with the square of the depth: a small limit here).
	s.SetRecursionLimit(300)
	_, err = s.Eval(context.Background(), "done := make(chan bool)\ngo func() {\n\tdefer func() { done <- recover() != nil }()\n\tdown(0)\n}()\n<-done")
	if err != nil {
		t.Errorf("goroutine: %v", err)
	}
}

func asError(v any) error {
	if e, ok := v.(error); ok {
		return e
	}
	return nil
}
