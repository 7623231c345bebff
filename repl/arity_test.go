package repl

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestArity: a call of a compiled value's method with too many or too few
// arguments is Go's compile error naming the call and its position (yaegi
// panicked with reflect.Value.Convert and no position), and nothing of the
// cell runs; correct calls run.
func TestArity(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "import \"strings\"")
	eval(t, s, "var sb strings.Builder\nran := 0")
	for _, c := range []struct{ src, want string }{
		{"ran = 1\nsb.WriteString(\"a\", \"b\")", "In[3]:2:21: too many arguments in call to sb.WriteString"},
		{"sb.WriteString()", "In[3]:1:16: not enough arguments in call to sb.WriteString"},
		{`strings.NewReplacer("a", "b").Replace("x", "y")`, `In[3]:1:44: too many arguments in call to strings.NewReplacer("a", "b").Replace`},
		{"r := strings.NewReplacer(\"a\", \"b\")\nran = 1\nr.Replace(\"x\", \"y\")", "In[3]:3:16: too many arguments in call to r.Replace"},
		{"func k() {\n\tsb.WriteString(\"a\", \"b\")\n}", "In[3]:2:22: too many arguments in call to sb.WriteString"},
		{"var w strings.Builder\nw.Grow(1, 2)", "In[3]:2:11: too many arguments in call to w.Grow"},
	} {
		_, err := s.EvalSource(context.Background(), "In[3]", c.src)
		var ce *CompileError
		if !errors.As(err, &ce) || strings.SplitN(err.Error(), "\n", 2)[0] != c.want {
			t.Errorf("%q: err = %v (%T), want %s", c.src, err, err, c.want)
		}
	}
	if got := eval(t, s, "ran"); got != "0" {
		t.Errorf("ran = %s: a cell with a bad call ran", got)
	}
	if got := eval(t, s, "sb.WriteString(\"ok\")\nr2 := strings.NewReplacer(\"o\", \"0\")\nr2.Replace(sb.String())"); got != `"0k"` {
		t.Errorf("correct calls: %s", got)
	}
}

// TestArityOwnTypes: methods of the session's own types are left to yaegi
// (reflect does not know them), also one that shadows a promoted method of
// an embedded compiled type.
func TestArityOwnTypes(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "import \"strings\"")
	eval(t, s, "type W struct {\n\tstrings.Builder\n}\nfunc (w *W) WriteString(a, b string) (int, error) {\n\treturn w.Builder.WriteString(a + b)\n}")
	eval(t, s, "w := &W{}")
	if got := eval(t, s, "w.WriteString(\"a\", \"b\")\nw.String()"); got != `"ab"` {
		t.Errorf("w.String() = %s", got)
	}
}
