package repl

import "testing"

// TestTopLevelTupleDefineInFunctions: the README's pattern, a top-level
// loader, err := ... read by a declared function called from a loop and
// from another function (yaegi panicked: "reflect: call of
// reflect.Value.Method on zero Value"), also comma-ok defines and
// defines of a cell's own type.
func TestTopLevelTupleDefineInFunctions(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "import \"strconv\"\nxb, errb := strconv.Atoi(\"7\")")
	eval(t, s, "func use() int {\n\tif errb != nil {\n\t\treturn -1\n\t}\n\treturn xb\n}\nfunc outer() int {\n\tt := 0\n\tfor i := 0; i < 3; i++ {\n\t\tt += use()\n\t}\n\treturn t\n}")
	if got := eval(t, s, "outer()"); got != "21" {
		t.Errorf("outer() = %s, want 21", got)
	}
	eval(t, s, "m := map[string]int{\"a\": 1}\nva, ok := m[\"a\"]\ntype pt struct{ x int }\np, q := pt{1}, &pt{2}")
	if got := eval(t, s, "func peek() int {\n\tif !ok {\n\t\treturn 0\n\t}\n\treturn va + p.x + q.x\n}\nfunc twice() int { return peek() + peek() }\ntwice()"); got != "8" {
		t.Errorf("twice() = %s, want 8", got)
	}
	// Defined again with other types.
	eval(t, s, "xb, errb := \"s\", 3")
	if got := eval(t, s, "xb + strconv.Itoa(errb)"); got != `"s3"` {
		t.Errorf("redefined: %s", got)
	}
}

// TestInterfaceArguments: a call's result of a cell's type passed straight
// to an interface parameter, of compiled and of interpreted functions, is
// the interface value (yaegi passed the bare value: fmt printed &{3}
// instead of String(), nn.Module parameters panicked).
func TestInterfaceArguments(t *testing.T) {
	s, out, _ := newSession(t)
	eval(t, s, "type T struct{ n int }\nfunc (t *T) String() string { return fmt.Sprintf(\"T(%d)\", t.n) }\nfunc mk() *T { return &T{3} }\nfunc describe(s fmt.Stringer) string { return s.String() }")
	eval(t, s, "fmt.Println(mk(), 1)\nfmt.Printf(\"%v %s\\n\", mk(), describe(mk()))")
	if got := out.String(); got != "T(3) 1\nT(3) T(3)\n" {
		t.Errorf("output %q", got)
	}
	if got := eval(t, s, "func twice() string { return describe(mk()) + fmt.Sprint(mk()) }\ntwice()"); got != `"T(3)T(3)"` {
		t.Errorf("twice() = %s", got)
	}
}

// TestSelectContinue: a continue that ends a select clause continues the
// loop (yaegi left it: 1 of 5 values was counted), and a type named T is
// the user's (the session's generic min and max no longer name their type
// parameter T).
func TestSelectContinue(t *testing.T) {
	s, _, _ := newSession(t)
	src := "c := make(chan int, 5)\nfor i := range 5 {\n\tc <- i\n}\nn := 0\nfor {\n\tselect {\n\tcase <-c:\n\t\tn++\n\t\tcontinue\n\tdefault:\n\t}\n\tbreak\n}\nn"
	if got := eval(t, s, src); got != "5" {
		t.Errorf("n = %s, want 5", got)
	}
	eval(t, s, "type T int\nvar v T = 4\nx := []T{1, 2}")
	if got := eval(t, s, "fmt.Sprint(T(3), x, v, min(v, 2))"); got != `"3 [1 2] 4 2"` {
		t.Errorf("type T: %s", got)
	}
}
