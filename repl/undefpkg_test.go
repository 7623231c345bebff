package repl

import (
	"context"
	"strings"
	"testing"
)

// TestUndefinedPackageInType: a type naming a package the session has not
// imported is Go's compile error "undefined: P" at the package name
// (yaegi dereferenced a nil type, traefik/yaegi#1636), and the cell
// declares nothing; once imported, the same cell works.
func TestUndefinedPackageInType(t *testing.T) {
	s, _, _ := newSession(t)
	for _, c := range []struct{ src, want string }{
		{"var sb strings.Builder", "input:1:8: undefined: strings"},
		{"q := strings.Builder{}", "input:1:6: undefined: strings"},
		{"var pq *strings.Builder", "input:1:9: undefined: strings"},
		{"func ff(b bytes.Buffer) {}", "input:1:11: undefined: bytes"},
		{"type W struct{ b bytes.Buffer }", "input:1:18: undefined: bytes"},
		{"m := map[string]*bytes.Buffer{}", "input:1:18: undefined: bytes"},
		{"func g() []bytes.Buffer { return nil }", "input:1:12: undefined: bytes"},
		{"var x any = 1\n_, ok := x.(*bytes.Buffer)", "input:2:14: undefined: bytes"},
		// A tuple define from a call (a new user's strconv.Atoi).
		{`n, err := strconv.Atoi("12")`, "input:1:11: undefined: strconv"},
		{`a, b, ok := strings.Cut("a=b", "=")`, "input:1:13: undefined: strings"},
	} {
		_, err := s.Eval(context.Background(), c.src)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: error %v, want %s", c.src, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "nil pointer") {
			t.Errorf("%q: %v", c.src, err)
		}
	}
	if _, err := s.Eval(context.Background(), "sb"); err == nil {
		t.Error("sb declared by a cell that failed to compile")
	}
	// A local name shadowing nothing imported is not flagged; an import in
	// the same cell counts.
	if got := eval(t, s, "import \"strings\"\nvar sb strings.Builder\nsb.WriteString(\"hi\")\nsb.String()"); got != `"hi"` {
		t.Errorf("after import: %s", got)
	}
	// Tuple defines from calls of imported packages, session variables,
	// locals and receivers are not flagged.
	eval(t, s, "type pair struct{}\nfunc (p pair) two() (int, int) { return 1, 2 }\npr := pair{}")
	for src, want := range map[string]string{
		`a, b, ok := strings.Cut("a=b", "="); fmt.Sprint(a, b, ok)`:           `"abtrue"`,
		`u, v := pr.two(); u + v`:                                             "3",
		`func() int { q := pair{}; u, v := q.two(); return u * v }()`:         "2",
		"func (p pair) sum() int { u, v := p.two(); return u + v }\npr.sum()": "3",
	} {
		if got := eval(t, s, src); got != want {
			t.Errorf("%q = %s, want %s", src, got, want)
		}
	}
}

// TestMisspelledMethodInDefine: a define whose right side calls a method
// that does not exist is the compile error with its position, as the same
// call alone is (yaegi crashed with a nil dereference; found by a new user
// typing `pred := out.Argmax(1)`).
func TestMisspelledMethodInDefine(t *testing.T) {
	s := newPreludeSession(t)
	eval(t, s, "type P struct{}")
	for _, src := range []string{
		"y := tensor.Arange(5).Foo()",
		"var y2 = tensor.Arange(5).Foo()",
		"y3 := tensor.Arange(5).Foo",
		"z := P{}.Foo()",
		"k := 1\nw := tensor.Arange(k).Foo()",
	} {
		_, err := s.Eval(context.Background(), src)
		if err == nil || !strings.Contains(err.Error(), "Foo") || strings.Contains(err.Error(), "nil pointer") || !strings.HasPrefix(err.Error(), "input:") {
			t.Errorf("%q: %v, want a compile error naming Foo with its position", src, err)
		}
	}
}
