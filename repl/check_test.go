package repl

import (
	"context"
	"errors"
	"go/types"
	"strings"
	"testing"
)

// TestTypeCheckedCell: a cell is type-checked as a whole before any of it
// runs: Go's own error and position, nothing of the cell runs (an earlier
// unit's output, a define, a declaration), and the session keeps working.
func TestTypeCheckedCell(t *testing.T) {
	s, out, _ := newSession(t)
	eval(t, s, "n := 1")
	for _, c := range []struct{ src, want string }{
		{"fmt.Println(\"ran\")\nn = 2\nvar z int = \"s\"", `In[2]:3:13: cannot use "s" (untyped string constant) as int value in variable declaration`},
		{"fmt.Println(\"ran\")\nfunc f() int { return \"x\" }", `In[2]:2:23: cannot use "x" (untyped string constant) as int value in return statement`},
		{"n = 3\nm := undefinedThing + 1", "In[2]:2:6: undefined: undefinedThing"},
		{"xc := tensor.Zeros(2).To(\"cuda\")", "In[2]:1:7: assignment mismatch: 1 variable but tensor.Zeros(2).To returns 2 values"},
		{"func h() {\n\tunused := 1\n}", "In[2]:2:2: declared and not used: unused"},
		{"type Q struct{ a int }\nq := Q{b: 1}", "In[2]:2:8: unknown field b in struct literal of type Q"},
	} {
		_, err := s.EvalSource(context.Background(), "In[2]", c.src)
		var ce *CompileError
		if !errors.As(err, &ce) || strings.SplitN(err.Error(), "\n", 2)[0] != c.want {
			t.Errorf("%q: err = %v, want %s", c.src, err, c.want)
		}
	}
	if got := eval(t, s, "n"); got != "1" {
		t.Errorf("n = %s: a cell that does not type-check ran", got)
	}
	if strings.Contains(out.String(), "ran") {
		t.Errorf("output of a cell that does not type-check: %q", out.String())
	}
	for _, name := range []string{"z", "f", "m", "Q", "q", "xc", "h"} {
		if _, err := s.Eval(context.Background(), name); err == nil {
			t.Errorf("%s is declared by a cell that did not type-check", name)
		}
	}
	// A REPL accepts a bare expression, an unused top-level variable and
	// an import the cell does not use; later cells see them.
	eval(t, s, "import \"strconv\"\nk := 5\nk * 2\nv := strconv.Itoa(7)")
	if got := eval(t, s, "func use() int { return len(v) + k }\nfunc outer() int { t := 0; for i := 0; i < 3; i++ { t += use() }; return t }\nouter()"); got != "18" {
		t.Errorf("top-level variables used in functions: %s, want 18", got)
	}
	// Methods declared in a later cell on a type of an earlier one, and a
	// variable of that type made before.
	eval(t, s, "type acc struct{ n int }\na := acc{n: 2}")
	if got := eval(t, s, "func (x acc) twice() int { return 2 * x.n }\na.twice()"); got != "4" {
		t.Errorf("a.twice() = %s", got)
	}
	if got := eval(t, s, "func (x acc) thrice() int { return 3 * x.n }\nacc{n: 5}.thrice() + a.twice()"); got != "19" {
		t.Errorf("later method = %s", got)
	}
}

// TestHalfDefinedAfterPanic: a define before the statement that panicked
// is a whole session variable afterwards (its type too), and the
// panicking statement's define is not.
func TestHalfDefinedAfterPanic(t *testing.T) {
	s, _, _ := newSession(t)
	_, err := s.Eval(context.Background(), "bq := []int{1, 2, 3}\nvar idx []int\nbad := idx[5]")
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a panic", err)
	}
	if got := eval(t, s, "len(bq)"); got != "3" {
		t.Errorf("len(bq) = %s", got)
	}
	if got := eval(t, s, "bq[0] + bq[2]"); got != "4" {
		t.Errorf("bq[0] + bq[2] = %s", got)
	}
	if _, err := s.Eval(context.Background(), "bad"); err == nil || !strings.Contains(err.Error(), "undefined: bad") {
		t.Errorf("bad after its panic: %v", err)
	}
}

// TestCellReturn: a return at a cell's top level ends the cell; what ran
// before it stays.
func TestCellReturn(t *testing.T) {
	s, out, _ := newSession(t)
	eval(t, s, "r := 1\nif r > 0 {\n\tfmt.Println(\"before\")\n\treturn\n}\nr = 2\nfmt.Println(\"after\")")
	if got := out.String(); got != "before\n" {
		t.Errorf("output %q", got)
	}
	if got := eval(t, s, "r"); got != "1" {
		t.Errorf("r = %s", got)
	}
	if _, err := s.Eval(context.Background(), "return 1"); err == nil || !strings.Contains(err.Error(), "too many return values") {
		t.Errorf("return 1: %v", err)
	}
}

// TestScopeLayout: the fields check.go reaches in go/types (see
// scopeElems) are still there.
func TestScopeLayout(t *testing.T) {
	sc := types.NewScope(types.Universe, 0, 0, "test")
	o := types.NewVar(0, nil, "x", types.Typ[types.Int])
	sc.Insert(o)
	scopeRemove(sc, "x")
	if sc.Lookup("x") != nil {
		t.Fatal("scopeRemove left x")
	}
	types.NewScope(sc, 0, 0, "child")
	dropChildren(sc)
	if sc.NumChildren() != 0 {
		t.Fatal("dropChildren left a child")
	}
}

// TestLoweringsDocumented: each lowering pass has a name, a doc and a run
// function.
func TestLoweringsDocumented(t *testing.T) {
	for _, l := range lowerings {
		if l.name == "" || len(l.doc) < 40 || l.run == nil {
			t.Errorf("lowering %q: name, doc and run required", l.name)
		}
	}
}
