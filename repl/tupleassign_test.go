package repl

import "testing"

// TestTupleAssignWithCompiledCall covers the yaegi bug worked around by
// splitTupleAssigns: a tuple assignment calling a compiled function lost
// its other assignments.
func TestTupleAssignWithCompiledCall(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "import \"math\"")
	cases := []struct{ src, want string }{
		{"a, b := 0.0, 0.0\nv := 1.5\na, b = v, math.Sqrt(4)\n[]float64{a, b}", "[1.5 2]"},
		{"c, d := 0, 0.0\nc, d = 7, math.Sqrt(9)\n[]float64{float64(c), d}", "[7 3]"},
		{"e, f := 1.0, 4.0\ne, f = math.Sqrt(f), e\n[]float64{e, f}", "[2 1]"},
		{"g1, h1 := 0.0, 0.0\nfunc() { w := 2.5; g1, h1 = w, math.Sqrt(16) }()\n[]float64{g1, h1}", "[2.5 4]"},
		{"best, other := 0.0, 0.0\nfor i := 1; i <= 3; i++ { if v := float64(i); v > best { best, other = v, math.Sqrt(v) } }\nbest", "3"},
	}
	for _, c := range cases {
		if got := eval(t, s, c.src); got != c.want {
			t.Errorf("%q: got %q, want %q", c.src, got, c.want)
		}
	}
}

// TestFuncLitCallShowsItsResults: calling a function literal shows nothing
// when it has no results and its values when it has.
func TestFuncLitCallShowsItsResults(t *testing.T) {
	s, _, _ := newSession(t)
	if got := eval(t, s, "x := 0\nfunc() { x = 3 }()"); got != "" {
		t.Errorf("no-result literal call showed %q", got)
	}
	if got := eval(t, s, "func() (int, string) { return x, \"a\" }()"); got != `3, "a"` && got != "3, a" {
		t.Errorf("two-result literal call showed %q", got)
	}
}
