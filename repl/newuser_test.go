package repl

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Regression tests for what the new-user test of the shell found.

// TestErrorResultShown: a final call whose last result is a non-nil error
// shows the error marked as such, and nil pointers never reach a method.
func TestErrorResultShown(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `import "strconv"`)
	for _, c := range []struct{ src, want string }{
		{`strconv.Atoi("x")`, `0, error: strconv.Atoi: parsing "x": invalid syntax`},
		{`strconv.Atoi("5")`, `5, <nil>`},
		{`datasets.Planetoid("nope", "")`, `(*graph.Graph)(nil), error: datasets: invalid argument: unknown Planetoid dataset "nope"`},
		{`ds, err := datasets.LoadPlanetoid("nope", "")`, ``},
		{`ds`, `(*datasets.Dataset)(nil)`},
		{`func load() func() (*datasets.Dataset, error) { return func() (*datasets.Dataset, error) { return datasets.LoadPlanetoid("nope", "") } }
load()()`, `(*datasets.Dataset)(nil), error: datasets: invalid argument`},
	} {
		if got := eval(t, s, c.src); !strings.HasPrefix(got, c.want) {
			t.Errorf("%q = %q, want %q...", c.src, got, c.want)
		}
	}
	// A field read through the nil pointer: yaegi's reflect message, with
	// a hint.
	_, err := s.Eval(context.Background(), "ds.Graph")
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(pe.Hint, "nil pointer") {
		t.Errorf("ds.Graph on a nil ds: %v", err)
	}
}

// TestNilArgumentNamesTheCall: a nil tensor passed to an engine function
// gets a hint naming the function the cell called.
func TestNilArgumentNamesTheCall(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "a, b := tensor.Zeros(2, 3), tensor.Zeros(3, 4)")
	for src, want := range map[string]string{
		"tensor.ReLU(nil)": "inside tensor.ReLU",
		"tensor.Sum(nil)":  "inside tensor.Sum",
	} {
		_, err := s.Eval(context.Background(), src)
		var pe *PanicError
		if !errors.As(err, &pe) || !strings.Contains(pe.Hint, want) {
			t.Errorf("%s: %v (hint %q), want a hint with %q", src, err, pe.Hint, want)
		}
	}
}

// TestNoValueCallShowsNothing: a final call that returns nothing shows
// nothing, also when its function is itself the result of a call (yaegi's
// value is then a stale slot: another variable's value was shown).
func TestNoValueCallShowsNothing(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "other := \"stale\"\ntype T struct{ n int }\nfunc (t *T) Bump() { t.n++ }\nfunc (t *T) Get() (int, error) { return t.n, nil }\nt := &T{}\nfunc mk() *T { return t }")
	for _, c := range []struct{ src, want string }{
		{"mk().Bump()", ""},
		{"x := 1\nmk().Bump()", ""},
		{"func() *T { return t }().Bump()", ""},
		{"mk().Get()", "3, <nil>"},
		{"mk().n", "3"},
		{"tensor.Zeros(2).Shape()", "[2]"},
		{"tensor.Zeros(2).ZeroGrad()", ""},
	} {
		if got := eval(t, s, c.src); got != c.want {
			t.Errorf("%q = %q, want %q", c.src, got, c.want)
		}
	}
}

// TestPanicLineAtTopLevel: the outermost frame of a panic names the
// top-level statement that was running (yaegi names the cell's first
// statement), here and in a file's main.
func TestPanicLineAtTopLevel(t *testing.T) {
	s, _, _ := newSession(t)
	for _, c := range []struct{ src, want string }{
		{"x := 1\nfunc f() {}\nf()\nvar m map[string]int\n\nm[\"a\"] = x", "s.go:6:1: main(...)"},
		{"func g() { panic(\"g\") }\ny := 2\ng()", "s.go:3:1: main(...)"},
		{"package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n\tpanic(\"here\")\n}", "s.go:6:2: main.main(...)"},
	} {
		_, err := s.EvalSource(context.Background(), "s.go", c.src)
		var pe *PanicError
		if !errors.As(err, &pe) || len(pe.Stack) == 0 {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if !strings.Contains(strings.Join(pe.Stack, "\n"), c.want) {
			t.Errorf("%q: stack %q lacks %q", c.src, pe.Stack, c.want)
		}
	}
}

// TestRunLinesPositions: piped lines are named stdin with the stream's
// line numbers, and an unfinished last line is not blamed on the closing
// brace the session adds.
func TestRunLinesPositions(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"x := 1\nfor i := 0; i < 2; i++ {\n\tx += i\n}\n\ny := x + nope\n", "stdin:6:10: undefined: nope\n"},
		{"x := 1\n\nfmt.Println(x\n", "stdin:3:14: missing ',' before newline in argument list\n"},
	} {
		s, _, _ := newSession(t)
		var out, errOut strings.Builder
		if err := RunLines(context.Background(), s, strings.NewReader(c.src), &out, &errOut); err == nil {
			t.Errorf("%q: no error", c.src)
		}
		if errOut.String() != c.want {
			t.Errorf("%q: stderr %q, want %q", c.src, errOut.String(), c.want)
		}
	}
}

// TestAutocastNilFunction: amp.Autocast with a nil function names its
// argument f instead of dereferencing it.
func TestAutocastNilFunction(t *testing.T) {
	s, _, _ := newSession(t)
	_, err := s.Eval(context.Background(), "amp.Autocast(tensor.BFloat16, nil)")
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "amp.Autocast: f, the function to run with autocast on, is nil") {
		t.Errorf("Autocast(dt, nil): %v", err)
	}
	if got := eval(t, s, "amp.IsEnabled()"); got != "false" {
		t.Errorf("autocast left on: %s", got)
	}
}
