package repl

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestCompileErrorListIsBounded: a binary file run as a script is one
// scanner error per NUL byte; the error lists the first ten, as go build
// does, and counts the rest.
func TestCompileErrorListIsBounded(t *testing.T) {
	s, _, _ := newSession(t)
	_, err := s.Eval(context.Background(), strings.Repeat("\x00", 5000))
	ce, ok := errors.AsType[*CompileError](err)
	if !ok {
		t.Fatalf("err %v, want a *CompileError", err)
	}
	if len(ce.More) != maxMoreErrors+1 || !strings.HasPrefix(ce.More[maxMoreErrors], "too many errors (") {
		t.Fatalf("%d more errors, last %q", len(ce.More), ce.More[len(ce.More)-1])
	}
}
