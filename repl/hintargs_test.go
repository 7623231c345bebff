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
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "input:1:18: too many arguments in call to g.NData\n\thave (string, string)") {
		t.Fatalf("err = %v", err)
	}
	_, err = s.Eval(context.Background(), `g.NData(1)`)
	if err == nil || !strings.Contains(err.Error(), "input:1:9: cannot use 1 (untyped int constant) as string value in argument to g.NData") {
		t.Fatalf("wrong type: err = %v", err)
	}
	// A receiver whose name the cell declares in a block is checked too.
	_, err = s.Eval(context.Background(), "for _, g := range []int{} {\n\t_ = g\n}\ng.NData(\"paper\", \"feat\")")
	if err == nil || !strings.Contains(err.Error(), "input:4:18: too many arguments in call to g.NData") {
		t.Fatalf("shadowing block: err = %v", err)
	}
}
