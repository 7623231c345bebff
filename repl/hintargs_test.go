package repl

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestTooManyArgumentsHint: a call of a compiled method with an extra
// argument is a compile error naming the call (yaegi panicked while
// compiling it), one with an argument of the wrong type is yaegi's
// compile error, and a call the session does not check gets yaegi's panic
// with a hint that says what to look for.
func TestTooManyArgumentsHint(t *testing.T) {
	s := newPreludeSession(t)
	_, err := s.Eval(context.Background(), `g.NData("paper", "feat")`)
	var ce *CompileError
	if !errors.As(err, &ce) || err.Error() != "input:1:18: too many arguments in call to g.NData (have 2, want 1)" {
		t.Fatalf("err = %v", err)
	}
	_, err = s.Eval(context.Background(), `g.NData(1)`)
	if err == nil || !strings.Contains(err.Error(), "input:1:9: cannot convert 1 to string") {
		t.Fatalf("wrong type: err = %v", err)
	}
	// A receiver whose name the cell declares in a block is not checked:
	// yaegi's panic, with the hint.
	_, err = s.Eval(context.Background(), "for _, g := range []int{} {\n\t_ = g\n}\ng.NData(\"paper\", \"feat\")")
	if err == nil || !strings.Contains(err.Error(), "too many arguments or one of the wrong type") {
		t.Fatalf("unchecked: err = %v", err)
	}
}
