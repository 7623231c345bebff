package repl

import (
	"context"
	"strings"
	"testing"
)

// TestTooManyArgumentsHint: yaegi panics while compiling a call of a
// compiled method with an extra argument; the error says what to look for.
func TestTooManyArgumentsHint(t *testing.T) {
	s := newPreludeSession(t)
	_, err := s.Eval(context.Background(), `g.NData("paper", "feat")`)
	if err == nil || !strings.Contains(err.Error(), "too many arguments or one of the wrong type") {
		t.Fatalf("err = %v", err)
	}
}
