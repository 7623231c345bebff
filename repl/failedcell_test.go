package repl

import (
	"context"
	"strings"
	"testing"
)

// TestFailedCellChangesNothing: a cell that does not compile leaves the
// session's variables as they were (found by trying the shell as a new
// user: a typo after opt := ... replaced the prelude's optimizer).
func TestFailedCellChangesNothing(t *testing.T) {
	s := newPreludeSession(t)
	show := func(expr string) string {
		t.Helper()
		r, err := s.Eval(context.Background(), expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return r.Text
	}
	before := show("opt")
	beforeModel := show("model")
	eval(t, s, "a := 1")
	for _, cell := range []string{
		"opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.1}); opt.Stepp()",
		`model := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: 1433, HiddenFeats: 16, OutFeats: 7}); model.Frward(g, g.NData("feat"))`,
		`a := "str"; a.X()`,
	} {
		if _, err := s.Eval(context.Background(), cell); err == nil {
			t.Fatalf("%s: no error", cell)
		}
	}
	if got := show("opt"); got != before {
		t.Errorf("opt changed by a failed cell: %s, was %s", got, before)
	}
	if got := show("model"); got != beforeModel {
		t.Errorf("model changed by a failed cell: %s, was %s", got, beforeModel)
	}
	if got := show("a"); strings.TrimSpace(got) != "1" {
		t.Errorf("a = %s after a failed cell, want 1", got)
	}
}

// TestFailedCompileIsAtomic: a cell that fails to compile declares
// nothing (issue 14): its new variables do not exist afterwards, the
// session variables it declares again keep their type and value, and the
// fixed cell runs without "already declared". A cell that compiles and
// then panics keeps what its earlier statements did, as in Go.
func TestFailedCompileIsAtomic(t *testing.T) {
	s, _, _ := newSession(t)
	ctx := context.Background()
	fails := func(src, want string) {
		t.Helper()
		_, err := s.Eval(ctx, src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: error %v, want one containing %q", src, err, want)
		}
	}
	eval(t, s, "x := 5")
	fails("y := 7; z := undefinedFn()", "undefined: undefinedFn")
	fails("y", "undefined: y")
	fails("z", "undefined: z")
	fails(`x := "s"; w := undefinedFn()`, "undefined: undefinedFn")
	if got := eval(t, s, "x + 1"); got != "6" {
		t.Errorf("x + 1 = %s after a failed cell, want 6 (x an int, 5)", got)
	}
	if got := eval(t, s, "y := 7; z := 8; y + z"); got != "15" {
		t.Errorf("fixed cell: %s, want 15", got)
	}
	// Declarations: a failing type, function or method declares nothing.
	fails("type P struct{ A int }\nfunc (p P) Get() int { return p.A + undefinedV }", "undefined: undefinedV")
	fails("P{}", "undefined") // yaegi says "undefined type"
	fails("func f() int { return undefinedV }", "undefined: undefinedV")
	fails("f()", "undefined: f")
	if got := eval(t, s, "type P struct{ A int }\nfunc (p P) Get() int { return p.A + 1 }\nfunc f() int { return 2 }\nP{A: 40}.Get() + f()"); got != "43" {
		t.Errorf("fixed declarations: %s, want 43", got)
	}
	// A run-time panic: the statements before it ran.
	fails(`a := 1; b := []int{}; a = 2; _ = b[3]`, "index out of range")
	if got := eval(t, s, "a"); got != "2" {
		t.Errorf("a = %s after a panicking cell, want 2", got)
	}
}
