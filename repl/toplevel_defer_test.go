package repl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A defer in a loop at a cell's top level is a compile error naming its
// position (yaegi ran the loop forever); in a function it works.
func TestLoopDeferAtTopLevel(t *testing.T) {
	s, out, _ := newSession(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, src := range []string{
		"for i := 0; i < 2; i++ { defer fmt.Println(\"d\", i) }",
		"for i := range 3 {\n\tif i > 0 {\n\t\tdefer func() { fmt.Println(i) }()\n\t}\n}",
	} {
		_, err := s.Eval(ctx, src)
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "defer inside a loop") {
			t.Errorf("%q: err %v, want the defer-in-loop compile error", src, err)
		}
	}
	if ctx.Err() != nil {
		t.Fatal("a refused cell ran")
	}
	eval(t, s, "func() { for i := 0; i < 2; i++ { defer fmt.Println(\"w\", i) } }()")
	eval(t, s, "for i := range 2 { func() { defer fmt.Println(\"f\", i) }() }")
	if got := out.String(); !strings.Contains(got, "w 1\nw 0\nf 0\nf 1\n") {
		t.Errorf("output %q", got)
	}
}
