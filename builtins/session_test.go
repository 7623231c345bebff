package builtins

import (
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// TestSessionNames evaluates code as a session does (yaegi with Symbols and
// PreludeImports): the method forms of tensor ops work, and an excluded name
// is undefined.
func TestSessionNames(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(Symbols); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(PreludeImports); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval(`tensor.Ones(2, 3).MatMul(tensor.Full(2, 3, 4)).T().Sum().Item()`)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Interface().(float64); got != 48 {
		t.Errorf("ones(2,3) @ full(2, 3, 4), summed = %v, want 48", got)
	}
	for _, src := range []string{`tensor.SetOpHook(nil)`, `tensor.CountBytes("cpu", 1)`, `runctx.Set(nil)`} {
		if _, err := i.Eval(src); err == nil || !strings.Contains(err.Error(), "has no symbol") {
			t.Errorf("%s: error %v, want one saying it has no symbol", src, err)
		}
	}
}
