package repl

import (
	"testing"
)

// TestConstGroupExpansion: const groups whose specs declare several names
// from iota (yaegi: "constant definition loop") mean what the spec says,
// at the top level and in functions, typed or not.
func TestConstGroupExpansion(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "type lvl int\nconst (\n\tlo, loX lvl = iota, iota * 10\n\tmid, midX\n\t_, _\n\thi, hiX\n)")
	if got := eval(t, s, `fmt.Sprint(lo, loX, mid, midX, hi, hiX)`); got != `"0 0 1 10 3 30"` {
		t.Errorf("typed group: %s", got)
	}
	if got := eval(t, s, `fmt.Sprintf("%v", lvl(0) == hi-3)`); got != `"true"` {
		t.Errorf("typed group has type lvl: %s", got)
	}
	eval(t, s, "func flags() string {\n\tconst (\n\t\ta, b = 1 << iota, -iota\n\t\tc, d\n\t\te, f\n\t)\n\treturn fmt.Sprint(a, b, c, d, e, f)\n}")
	if got := eval(t, s, "flags()"); got != `"1 0 2 -1 4 -2"` {
		t.Errorf("group in a function: %s", got)
	}
	// Single-name groups are left to yaegi, iota and repetition included.
	if got := eval(t, s, "const (\n\tk0 = iota * 2\n\tk1\n\tk2\n)\nk0 + k1 + k2"); got != "6" {
		t.Errorf("single-name group: %s", got)
	}
}

// TestDeferredLiteralInLoop: a deferred function literal in a loop sees
// its own iteration's variables (yaegi makes the closure at the return),
// by reference: assignments made after the defer are seen, and the
// literal's own assignments reach the variables.
func TestDeferredLiteralInLoop(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `func rangeLoop() (out []int) {
	for _, v := range []int{1, 2, 3} {
		defer func() { out = append(out, v) }()
	}
	return []int{0}
}

func countLoop() (out []string) {
	for i := 0; i < 6; i++ {
		w := i * 10
		defer func(k string) { out = append(out, fmt.Sprint(k, i, w)) }(fmt.Sprint("k", i))
		w++
		i++
	}
	return nil
}

func byRef() (n int) {
	for i := 0; i < 3; i++ {
		defer func() { n += i }()
	}
	n = 100
	return
}

func inLiteral() []int {
	var out []int
	func() {
		for _, v := range []int{4, 5} {
			defer func() { out = append(out, v) }()
		}
	}()
	return out
}

func recovers() (err error) {
	for i := 0; i < 1; i++ {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("recovered: %v", r)
			}
		}()
	}
	panic("boom")
}`)
	for _, c := range []struct{ src, want string }{
		{"fmt.Sprint(rangeLoop())", `"[0 3 2 1]"`},
		{"fmt.Sprint(countLoop())", `"[k45 41 k23 21 k01 1]"`},
		{"byRef()", "103"},
		{"fmt.Sprint(inLiteral())", `"[5 4]"`},
		{"recovers().Error()", `"recovered: boom"`},
	} {
		if got := eval(t, s, c.src); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
}

// TestDeferredMethodReceiver: a deferred method call of a session type
// evaluates its receiver at the defer: a value receiver is a copy, a
// pointer receiver the variable's address.
func TestDeferredMethodReceiver(t *testing.T) {
	s, out, _ := newSession(t)
	eval(t, s, `type res struct{ name string }

func (r res) Close()   { fmt.Println("close", r.name) }
func (r *res) Flush() { fmt.Println("flush", r.name) }`)
	eval(t, s, `func use() {
	a := res{"a"}
	defer a.Close()
	defer a.Flush()
	p := &res{"p"}
	defer p.Close()
	defer p.Flush()
	var q *res = p
	defer q.Close()
	a.name, p.name = "a2", "p2"
	p = &res{"other"}
}`)
	eval(t, s, "use()")
	want := "close p\nflush p2\nclose p\nflush a2\nclose a\n" // go run's
	if got := out.String(); got != want {
		t.Errorf("use() printed\n%s\nwant\n%s", got, want)
	}
}

// TestRewrittenCellRerun: a cell whose declarations the defer and const
// rewrites change runs again unchanged (redeclaration is judged on the
// text as written).
func TestRewrittenCellRerun(t *testing.T) {
	s, _, _ := newSession(t)
	cell := "type bag struct{ n []int }\nfunc (b *bag) fill() (out []int) {\n\tfor _, v := range []int{1, 2} {\n\t\tdefer func() { out = append(out, v) }()\n\t}\n\tx := bag{}\n\tdefer x.show()\n\treturn\n}\nfunc (b bag) show() {}\nconst (\n\tba, bb = iota, iota\n\tbc, bd\n)"
	for i := 0; i < 2; i++ {
		eval(t, s, cell)
	}
	if got := eval(t, s, "fmt.Sprint(new(bag).fill(), bc)"); got != `"[2 1] 1"` {
		t.Errorf("after the second run: %s", got)
	}
}

// TestMethodExpressions: T.M and (*T).M of session types are functions
// taking the receiver first (yaegi: "too many arguments"), variadic and
// multi-result methods included, in the cell that declares the type and
// in later ones.
func TestMethodExpressions(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `type acc struct{ n int }

func (a acc) Get() int                 { return a.n }
func (a *acc) Add(vs ...int)           { for _, v := range vs { a.n += v } }
func (a acc) Split(d int) (int, error) { return a.n / d, nil }

func apply(f func(acc) int, xs []acc) (out []int) {
	for _, x := range xs {
		out = append(out, f(x))
	}
	return
}

func viaApply() []int { return apply(acc.Get, []acc{{7}, {8}}) }`)
	got := evalAll(t, s, "add := (*acc).Add", "a := &acc{1}", "add(a, 2, 3)", "add(a, []int{4}...)",
		"get, pget := acc.Get, (*acc).Get", "q, err := acc.Split(*a, 2)",
		"fmt.Sprint(get(*a), pget(a), q, err, apply(acc.Get, []acc{{7}, {8}}), viaApply())")
	if want := `"10 10 5 <nil> [7 8] [7 8]"`; got != want { // go run's
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestRecoveredError: a recovered compiled error is the error itself
// (yaegi hands it over inside a reflect.Value): r.(error), r == ErrX and
// errors.Is work; a recover without a panic is still nil.
func TestRecoveredError(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `var errX = errors.New("x failed")

func try(v any) (out string) {
	defer func() {
		r := recover()
		e, ok := r.(error)
		out = fmt.Sprint(ok, " ", e, " ", r == errX, " ", errors.Is(e, errX))
	}()
	if v != nil {
		panic(v)
	}
	return "no panic"
}

func none() (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = "recovered"
		}
	}()
	return "none"
}`)
	for _, c := range []struct{ src, want string }{
		{"try(errX)", `"true x failed true true"`},
		{`try(fmt.Errorf("w: %w", errX))`, `"true w: x failed false true"`},
		{`try("boom")`, `"false <nil> false false"`},
		{"none()", `"none"`},
	} {
		if got := eval(t, s, c.src); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
}

// TestTypeSwitchCompiledError: a type switch that binds a variable
// matches a compiled error in `case error:` (yaegi matched nothing), and
// the variable is an error.
func TestTypeSwitchCompiledError(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `var errY = errors.New("y")

func describe(x any) (string, error) {
	switch v := x.(type) {
	case int:
		return fmt.Sprint("int ", v+1), nil
	case error:
		return "error " + v.Error(), v
	}
	return "?", nil
}

func same(x any) bool {
	_, err := describe(x)
	return errors.Is(err, errY)
}`)
	for _, c := range []struct{ src, want string }{
		{"fmt.Sprint(describe(41))", `"int 42<nil>"`},
		{`fmt.Sprint(describe(fmt.Errorf("w: %w", errY)))`, `"error w: yw: y"`},
		{`fmt.Sprint(describe("s"))`, `"?<nil>"`},
		{"same(errY)", "true"},
	} {
		if got := eval(t, s, c.src); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
}
