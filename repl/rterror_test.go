package repl

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

// TestRuntimeErrorText: a run-time error the interpreter raises through
// package reflect reaches the cell as Go's runtime error (issue 14), a
// runtime.Error whose text is Go's (without the index and length where
// reflect does not report them).
func TestRuntimeErrorText(t *testing.T) {
	s, _, _ := newSession(t)
	for _, c := range []struct{ src, want string }{
		{"s := []int{}; s[5] = 1", "runtime error: index out of range"},
		{"arr := [3]int{}; ii := 5; arr[ii] = 1", "runtime error: index out of range"},
		{`str := "ab"; ji := 5; _ = str[ji]`, "runtime error: index out of range"},
		{"func fidx(a []int, i int) int { return a[i] }; fidx(nil, 3)", "runtime error: index out of range"},
		{"s2 := make([]int, 3); _ = s2[:7]", "runtime error: slice bounds out of range"},
		{"s3 := make([]int, 3); lo := 2; _ = s3[lo:1]", "runtime error: slice bounds out of range [2:1]"},
		{"var ip *int; v := *ip; _ = v", "runtime error: invalid memory address or nil pointer dereference"},
		{"var p *struct{ X int }; p.X = 3", "runtime error: invalid memory address or nil pointer dereference"},
		{"zero := 0; _ = 1 / zero", "runtime error: integer divide by zero"},
		{`var m map[string]int; m["a"] = 1`, "assignment to entry in nil map"},
	} {
		_, err := s.Eval(context.Background(), c.src)
		var pe *PanicError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v, want a *PanicError", c.src, err)
			continue
		}
		re, ok := pe.Value.(runtime.Error)
		if !ok {
			t.Errorf("%s: panic value %T %v, want a runtime.Error", c.src, pe.Value, pe.Value)
			continue
		}
		if re.Error() != c.want {
			t.Errorf("%s: %q, want %q", c.src, re.Error(), c.want)
		}
	}
}
