package repl

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// hidden is a compiled type of a package the test sessions do not import.
type hidden struct{ N int }

var hiddenSymbols = interp.Exports{
	"example.com/hiddenpkg/hiddenpkg": {
		"List": reflect.ValueOf(func() []hidden { return []hidden{{1}, {2}} }),
	},
}

// evalAll evaluates cells in order and fails at the first error.
func evalAll(t *testing.T, s *Session, cells ...string) string {
	t.Helper()
	got := ""
	for _, c := range cells {
		got = eval(t, s, c)
	}
	return got
}

// TestTopLevelIndexDefines covers yaegi v0.16.1's failures on variables
// defined at cell top level from an index of a compiled slice or map
// ("constant definition loop", a nil dereference inside yaegi) and on var
// declarations initialized from another cell's variables ("variable
// definition loop"), and on comma-ok defines at top level ("nil type"), which the session
// rewrites (compileFix, varsOnly).
func TestTopLevelIndexDefines(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `import "strings"`)
	eval(t, s, "model := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: 4, HiddenFeats: 3, OutFeats: 2})")
	eval(t, s, "cmp := &memplan.Comparison{Rows: []memplan.Row{{EpochSeconds: 1}, {EpochSeconds: 2}, {EpochSeconds: 3}}}")
	eval(t, s, "ps := model.Parameters()")
	for _, c := range []struct {
		cells []string
		want  string
	}{
		{[]string{"p := model.Parameters()[0]", "p.Shape()"}, "[3]"},
		{[]string{"p1 := ps[0]\np1.Shape()"}, "[3]"},
		{[]string{"x := cmp.Rows[2].EpochSeconds", "x"}, "3"},
		{[]string{"r := cmp.Rows[1]\nr.EpochSeconds"}, "2"},
		{[]string{"n := ps[1].Shape()", "n"}, "[4 3]"},
		{[]string{"sh := ps[1].Shape()\nd := sh[0] + 1\nd"}, "5"},
		{[]string{"qs := model.Parameters()\nq := qs[len(qs)-1]\nq.Shape()"}, "[3 2]"},
		{[]string{"w, v := strings.Fields(\"a b\")[1], 7\nw"}, `"b"`},
		{[]string{"var wp = ps[1]", "wp.Shape()"}, "[4 3]"},
		{[]string{"var tp *tensor.Tensor = ps[0]\ntp.Shape()"}, "[3]"},
		{[]string{"a := 1", "var b = a + 1", "b"}, "2"},
		{[]string{"m := map[string][]int{\"k\": {5}}", "e := m[\"k\"][0]", "e"}, "5"},
		{[]string{"mv, ok := m[\"k\"]", "fmt.Sprint(mv, ok)"}, `"[5] true"`},
		{[]string{"var i interface{} = 3", "iv, ok := i.(int)\niv + 1"}, "4"},
		{[]string{"ch := make(chan *tensor.Tensor, 1)\nch <- ps[0]", "cv, ok := <-ch", "cv.Shape()"}, "[3]"},
		{[]string{"tm := map[string]*tensor.Tensor{\"w\": ps[1]}\n_, ok := tm[\"w\"]\nok"}, "true"},
	} {
		if got := evalAll(t, s, c.cells...); got != c.want {
			t.Errorf("%q = %q, want %q", c.cells, got, c.want)
		}
	}
}

// TestTopLevelDefineErrors: an undefined name in such a define is named (yaegi
// says "constant definition loop"), and a type the session cannot write
// gets an error that says what to write instead.
func TestTopLevelDefineErrors(t *testing.T) {
	s, _, _ := newSession(t)
	_, err := s.EvalSource(context.Background(), "In[1]", "x := 1\nz := undefinedThing + 1")
	var ce *CompileError
	if !errors.As(err, &ce) || ce.Msg != "undefined: undefinedThing" || ce.Pos.Line != 2 || ce.Pos.Column != 6 || ce.Pos.Filename != "In[1]" {
		t.Errorf("undefined name: %v", err)
	}
	if _, err := s.Eval(context.Background(), "var y = notDeclared"); !strings.Contains(err.Error(), "undefined: notDeclared") {
		t.Errorf("undefined name in a var: %v", err)
	}

	opts := DefaultOptions()
	opts.Prelude = ""
	opts.Stdout, opts.Stderr = &syncBuffer{}, &syncBuffer{}
	opts.Symbols = append(opts.Symbols, hiddenSymbols)
	s, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	eval(t, s, `import "example.com/hiddenpkg"`)
	_, err = s.Eval(context.Background(), "h := hiddenpkg.List()[1]")
	if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "cannot infer the type of h") || !strings.Contains(ce.Msg, "cannot be written in a cell") || !strings.Contains(ce.Msg, "put the code in a function") {
		t.Errorf("unwritable type: %v", err)
	}
	// The workaround it gives works.
	if got := eval(t, s, "hs := hiddenpkg.List()\nvar h = hs[1:]\nh[0].N"); got != "2" {
		t.Errorf("workaround: %q", got)
	}
}

// TestTupleDefineInBlocks covers yaegi v0.16.1's "undefined: a" for a tuple
// define in a block nested in a top-level statement, and its internal
// error on a top-level type switch that binds a variable (wrapTupleBlocks).
func TestTupleDefineInBlocks(t *testing.T) {
	s, out, _ := newSession(t)
	eval(t, s, "import \"strconv\"\nfunc two() (int, error) { return 2, nil }\ngot := 0\nvar x interface{} = 3\nm := map[string]int{\"k\": 4}\nch := make(chan int, 1)")
	for _, c := range []struct{ src, want string }{
		{"if true { a, err := strconv.Atoi(\"7\"); got = a; _ = err }", "7"},
		{"for i := 0; i < 2; i++ { a, b := two(); got += a; _ = b }", "11"},
		{"if true { var a, b = two(); got = a; _ = b }", "2"},
		{"if true { v, ok := m[\"k\"]; if ok { got = v } }", "4"},
		{"{ v, ok := x.(int); if ok { got = v } }", "3"},
		{"ch <- 5\nif true { v, ok := <-ch; if ok { got = v } }", "5"},
		{"switch { default: a, _ := two(); got = a * 10 }", "20"},
		{"select { case ch <- 6: default: }\nselect { case v, ok := <-ch: if ok { got = v } }", "6"},
		{"switch v := x.(type) { case int: got = v + 30 }", "33"},
		{"outer: for i := 0; i < 3; i++ { for { a, _ := two(); got = a + i; if i == 1 { break outer }; continue outer } }", "3"},
		{"err := errors.New(\"outer\")\nif true { a, err := two(); got = a; _ = err }\nerr.Error()", "2"},
	} {
		if !strings.Contains(c.src, "errors.") {
			eval(t, s, c.src)
		} else {
			eval(t, s, "import \"errors\"")
			if got := eval(t, s, c.src); got != `"outer"` {
				t.Errorf("%q changed the outer err: %q", c.src, got)
			}
		}
		if got := eval(t, s, "got"); got != c.want {
			t.Errorf("%q: got = %s, want %s", c.src, got, c.want)
		}
	}
	// Statements whose meaning a function literal would change are left as
	// they were.
	if got := eval(t, s, "fmt.Println(\"before\")\nif true { defer fmt.Println(\"deferred\"); got = 1 }\nfmt.Println(\"after\")"); got != "" {
		t.Errorf("defer cell showed %q", got)
	}
	if o := out.String(); !strings.HasSuffix(o, "before\nafter\ndeferred\n") {
		t.Errorf("defer ran in the wrong place: %q", o)
	}
}
