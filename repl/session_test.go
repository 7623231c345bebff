package repl

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/builtins"

	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/traefik/yaegi/interp"
)

// syncBuffer is a bytes.Buffer safe for the interpreter's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Compiled functions for the interrupt tests, exported to the interpreter
// as package testpkg.
var (
	spinIters    atomic.Int64
	spinReturned atomic.Bool
	blockRelease chan struct{}
	marks        atomic.Int64
)

// mark lets interpreted code tell the test it got somewhere.
func mark() { marks.Add(1) }

// spin is an engine-style loop: a batch per iteration, runctx polled
// between batches.
func spin() error {
	spinReturned.Store(false)
	defer spinReturned.Store(true)
	for {
		if err := runctx.Err(); err != nil {
			return err
		}
		spinIters.Add(1)
		time.Sleep(time.Millisecond)
	}
}

// step is one batch of work; interpreted loops call it repeatedly.
func step(n int) int { return n + 1 }

// block ignores runctx and waits for the test to release it.
func block() int { <-blockRelease; return 7 }

// gate blocks until the test closes gateRelease.
var gateRelease = make(chan struct{})

func gate() { <-gateRelease }

// sessionWaiting and sessionDone count the goroutines waiting on
// runctx.Session's context and those that saw it end.
var sessionWaiting, sessionDone atomic.Int64

// waitSession blocks, as a compiled call, until runctx.Session's context
// is cancelled.
func waitSession() {
	ctx := runctx.Session()
	sessionWaiting.Add(1)
	<-ctx.Done()
	sessionDone.Add(1)
}

var testSymbols = interp.Exports{
	"example.com/testpkg/testpkg": {
		"Gate":        reflect.ValueOf(gate),
		"WaitSession": reflect.ValueOf(waitSession),
		"Marks":       reflect.ValueOf(func() int64 { return marks.Load() }),
		"Spin":        reflect.ValueOf(spin),
		"Step":        reflect.ValueOf(step),
		"Block":       reflect.ValueOf(block),
		"Mark":        reflect.ValueOf(mark),
	},
}

func newSession(t *testing.T) (*Session, *syncBuffer, *syncBuffer) {
	t.Helper()
	opts := DefaultOptions()
	opts.Prelude = builtins.PreludeImports
	out, errOut := &syncBuffer{}, &syncBuffer{}
	opts.Stdout, opts.Stderr, opts.Stdin = out, errOut, strings.NewReader("")
	opts.Symbols = append(opts.Symbols, testSymbols)
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, out, errOut
}

func eval(t *testing.T, s *Session, src string) string {
	t.Helper()
	r, err := s.Eval(context.Background(), src)
	if err != nil {
		t.Fatalf("Eval(%q): %v", src, err)
	}
	return r.Text
}

func TestValues(t *testing.T) {
	s, out, _ := newSession(t)
	for _, c := range []struct{ src, want string }{
		{"1 + 2", "3"},
		{`"str"`, `"str"`},
		{"x := 41", ""},
		{"x + 1", "42"},
		{"var m = 1; m", "1"},
		{"math.Sqrt(16)", "4"},
		{"time.Second", "1s"},
		{"[]int{1, 2, 3}", "[1 2 3]"},
		{"type P struct{ A, B int }", ""},
		{"P{1, 2}", "{1 2}"},
		{"func none() {}", ""},
		{"none()", ""},
		{"import \"strconv\"", ""},
		{`strconv.Atoi("12")`, "12, <nil>"},
		{`fmt.Println("printed")`, ""},
		{"var e error\ne", "<nil>"},
		{"len(\"abc\")", "3"},
		{"float64(x) / 2", "20.5"},
		{"make([]int, 1000)", "[" + strings.Repeat("0 ", MaxElems-1) + "0 ...] (len 1000)"},
	} {
		if got := eval(t, s, c.src); got != c.want {
			t.Errorf("Eval(%q) = %q, want %q", c.src, got, c.want)
		}
	}
	if out.String() != "printed\n" {
		t.Errorf("stdout = %q, want %q", out.String(), "printed\n")
	}
}

// TestMultiLineCell evaluates notebook-style cells mixing imports,
// declarations and statements, with the final expression's value shown.
func TestMultiLineCell(t *testing.T) {
	s, out, _ := newSession(t)
	cell := `import (
	"sort"
	"strings"
)

type item struct {
	name  string
	score float64
}

func top(items []item) string {
	sort.Slice(items, func(i, j int) bool { return items[i].score > items[j].score })
	return strings.ToUpper(items[0].name)
}

items := []item{{"a", 1}, {"b", 3}, {"c", 2}}
var total float64
for i := 0; i < len(items); i++ {
	total += items[i].score
}
if total > 5 {
	fmt.Println("total", total)
}
const scale = 2
best := top(items)
best + strings.Repeat("!", scale)
`
	if got := eval(t, s, cell); got != `"B!!"` {
		t.Errorf("cell value = %q, want %q", got, `"B!!"`)
	}
	if out.String() != "total 6\n" {
		t.Errorf("stdout = %q", out.String())
	}
	// Everything the cell declared persists into the next cell.
	if got := eval(t, s, "x := top([]item{{\"q\", 1}})\nx + best\n"); got != `"QB"` {
		t.Errorf("next cell = %q", got)
	}
	if got := eval(t, s, "total * scale"); got != "12" {
		t.Errorf("total*scale = %q", got)
	}
	// A cell of declarations only shows nothing; functions may refer to
	// each other in any order inside a cell.
	if got := eval(t, s, "func even(n int) bool { if n == 0 { return true }; return odd(n-1) }\nfunc odd(n int) bool { if n == 0 { return false }; return even(n-1) }"); got != "" {
		t.Errorf("declarations showed %q", got)
	}
	if got := eval(t, s, "even(10)"); got != "true" {
		t.Errorf("even(10) = %q", got)
	}
	// A whole file with a package clause runs its main.
	eval(t, s, "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"from main\") }\n")
	if !strings.HasSuffix(out.String(), "from main\n") {
		t.Errorf("file mode: stdout = %q", out.String())
	}
}

func TestCompileErrorPosition(t *testing.T) {
	s, _, _ := newSession(t)
	for _, c := range []struct {
		name, src  string
		line, col  int
		msgContain string
	}{
		{"input", "a := 1\nfmt.Println(a, undefinedName)", 2, 16, "undefined: undefinedName"},
		{"In[3]", "x := 1\n\n  y := \"s\" + x", 3, 8, "mismatched types"},
		{"input", "import \"fmt\"\nfunc f() {\n\tfmt.Println(nope)\n}", 3, 14, "undefined: nope"},
		{"input", "z := 1\ny := z z", 2, 8, "expected ';', found z"},
		{"cell.go", "import \"fmt\"\nvar v = 1\n\nfunc g() int {\n\treturn v + \"x\"\n}", 5, 9, "mismatched types"},
	} {
		_, err := s.EvalSource(context.Background(), c.name, c.src)
		var ce *CompileError
		if !errors.As(err, &ce) {
			t.Errorf("%q: err = %v (%T), want *CompileError", c.src, err, err)
			continue
		}
		if ce.Pos.Filename != c.name || ce.Pos.Line != c.line || ce.Pos.Column != c.col || !strings.Contains(ce.Msg, c.msgContain) {
			t.Errorf("%q: got %s, want %s:%d:%d: ...%s...", c.src, ce, c.name, c.line, c.col, c.msgContain)
		}
	}
	// The session goes on.
	if got := eval(t, s, "1"); got != "1" {
		t.Errorf("after errors: %q", got)
	}
}

func TestRuntimePanic(t *testing.T) {
	s, _, errOut := newSession(t)
	_, err := s.Eval(context.Background(), "func inner() { panic(\"boom\") }\nfunc outer() { inner() }\nouter()")
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want *PanicError", err, err)
	}
	if pe.Value != "boom" || pe.Internal {
		t.Errorf("panic value %v internal %v", pe.Value, pe.Internal)
	}
	stack := strings.Join(pe.Stack, "\n")
	for _, want := range []string{"input:1:16: main.inner", "input:2:16: main.outer"} {
		if !strings.Contains(stack, want) {
			t.Errorf("stack %q lacks %q", stack, want)
		}
	}
	if strings.Contains(errOut.String(), "panic") {
		t.Errorf("the interpreter's panic lines leaked to stderr: %q", errOut.String())
	}
	_, err = s.Eval(context.Background(), "var xs []int\nxs[3]")
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("index out of range: %v", err)
	}
	if got := eval(t, s, "2 * 21"); got != "42" {
		t.Errorf("after panics: %q", got)
	}
}

// TestInternalPanic: a range over a nil function of an earlier cell
// yielding an anonymous struct (yaegi v0.16.1 panicked with "nil type"
// while compiling it before the checker gave the session its type) panics
// as in Go, and the session goes on.
func TestInternalPanic(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "n := 0")
	eval(t, s, "var seq func(yield func(struct{ A int }) bool)")
	_, err := s.Eval(context.Background(), "for v := range seq { n += v.A }")
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want *PanicError", err, err)
	}
	if pe.Internal || !strings.Contains(err.Error(), "nil pointer dereference") {
		t.Errorf("internal %v: %v", pe.Internal, err)
	}
	if got := eval(t, s, "for i := 0; i < 3; i++ { n += i }\nn"); got != "3" {
		t.Errorf("after the internal panic: %q", got)
	}
}

func evalCancelled(t *testing.T, s *Session, src string, after func()) (Result, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		after()
		cancel()
	}()
	return s.Eval(ctx, src)
}

func TestInterruptInterpretedLoop(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "import \"example.com/testpkg\"\nx := 0\nkeep := \"kept\"")
	marks.Store(0)
	_, err := evalCancelled(t, s, "testpkg.Mark()\nfor { x++ }", func() {
		// Wait until the loop has started: the cell's first statement ran.
		for marks.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
	})
	var ie *InterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) || ie.StillRunning {
		t.Fatalf("err = %v, want a finished interrupt", err)
	}
	x1 := eval(t, s, "x")
	x2 := eval(t, s, "x")
	if x1 != x2 || x1 == "0" {
		t.Errorf("x after the interrupt: %s then %s (the loop must have run and stopped)", x1, x2)
	}
	if got := eval(t, s, "keep"); got != `"kept"` {
		t.Errorf("keep = %s", got)
	}
	// An empty loop, and a loop inside a function, are interruptible too.
	for _, src := range []string{"for {}", "func forever() { for { x-- } }\nforever()"} {
		if _, err := evalCancelled(t, s, src, func() { time.Sleep(20 * time.Millisecond) }); !errors.Is(err, ErrInterrupted) {
			t.Errorf("%q: err = %v", src, err)
		}
	}
	// A blocked channel receive is interruptible.
	if _, err := evalCancelled(t, s, "c := make(chan int)\n<-c", func() { time.Sleep(20 * time.Millisecond) }); !errors.Is(err, ErrInterrupted) {
		t.Errorf("channel receive: err = %v", err)
	}
	if got := eval(t, s, "keep + \"!\""); got != `"kept!"` {
		t.Errorf("after interrupts: %s", got)
	}
}

func TestInterruptCompiledLoop(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `import "example.com/testpkg"`)
	spinIters.Store(0)
	_, err := evalCancelled(t, s, "err := testpkg.Spin()", func() {
		for spinIters.Load() < 3 {
			time.Sleep(time.Millisecond)
		}
	})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	if !spinReturned.Load() {
		t.Error("Eval returned before the compiled loop stopped")
	}
	if runctx.Err() != nil {
		t.Errorf("runctx still cancelled after Eval: %v", runctx.Err())
	}
	// An interpreted loop over compiled batches stops between batches.
	_, err = evalCancelled(t, s, "n := 0\nfor { n = testpkg.Step(n) }", func() { time.Sleep(20 * time.Millisecond) })
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	if got := eval(t, s, "testpkg.Step(1)"); got != "2" {
		t.Errorf("after the interrupt: %s", got)
	}
}

// TestInterruptStillRunning: a compiled call that ignores runctx outlasts
// the grace period; the next evaluation waits for it.
func TestInterruptStillRunning(t *testing.T) {
	opts := DefaultOptions()
	opts.Prelude = builtins.PreludeImports
	opts.Stdout, opts.Stderr = &syncBuffer{}, &syncBuffer{}
	opts.Symbols = append(opts.Symbols, testSymbols)
	opts.InterruptGrace = 10 * time.Millisecond
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	eval(t, s, `import "example.com/testpkg"`)
	blockRelease = make(chan struct{})
	_, err = evalCancelled(t, s, "v := testpkg.Block()", func() { time.Sleep(10 * time.Millisecond) })
	var ie *InterruptedError
	if !errors.As(err, &ie) || !ie.StillRunning {
		t.Fatalf("err = %v, want StillRunning", err)
	}
	if !s.Busy() {
		t.Error("Busy() = false while the interrupted call runs")
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Eval(done, "1"); !errors.Is(err, ErrBusy) {
		t.Errorf("Eval while busy: %v, want ErrBusy", err)
	}
	if err := s.Reset(); !errors.Is(err, ErrBusy) {
		t.Errorf("Reset while busy: %v, want ErrBusy", err)
	}
	close(blockRelease)
	if got := eval(t, s, "40 + 2"); got != "42" {
		t.Errorf("after the call finished: %q", got)
	}
	if s.Busy() {
		t.Error("Busy() = true after the call finished")
	}
}

func TestCompletion(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "myVariable := 1\nfunc myFunc() {}\ntype point struct{ Alpha, Beta int }\npt := point{}\nimport \"strings\"")
	for _, c := range []struct {
		src        string
		want       []string
		start, end int
	}{
		{"fmt.Prin", []string{"Print", "Printf", "Println"}, 4, 8},
		{"x := strings.ToU", []string{"ToUpper", "ToUpperSpecial"}, 13, 16},
		{"bytes.Equa", []string{"Equal", "EqualFold"}, 6, 10},
		{"myV", []string{"myVariable"}, 0, 3},
		{"1 + myF", []string{"myFunc"}, 4, 7},
		{"pt.Al", []string{"Alpha"}, 3, 5},
		{":he", []string{":help"}, 0, 3},
		{"runctx.E", []string{"Err"}, 7, 8},
		{"retu", []string{"return"}, 0, 4},
		{"appe", []string{"append"}, 0, 4},
	} {
		got, start, end := s.Complete(c.src, len(c.src))
		if !reflect.DeepEqual(got, c.want) || start != c.start || end != c.end {
			t.Errorf("Complete(%q) = %v [%d,%d), want %v [%d,%d)", c.src, got, start, end, c.want, c.start, c.end)
		}
	}
	// The cursor may sit inside the source.
	src := "fmt.Sp + 1"
	got, start, end := s.Complete(src, 6)
	if !reflect.DeepEqual(got, []string{"Sprint", "Sprintf", "Sprintln"}) || start != 4 || end != 6 {
		t.Errorf("Complete inside = %v [%d,%d)", got, start, end)
	}
}

func TestInspect(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "answer := 42\nfunc double(x int) int { return 2 * x }")
	for _, c := range []struct {
		src    string
		cursor int
		want   string
	}{
		{"runctx.Err()", 9, "func Err() error\n\nErr reports"},
		{"fmt.Println(1)", 5, "func fmt.Println(...interface {}) (int, error)\n\nDocumentation: https://pkg.go.dev/fmt#Println"},
		{"answer + 1", 2, "var answer int = 42"},
		{"double(3)", 6, "func double(int) int"},
		{"math.Pi", 6, "const math.Pi = "},
		{"len(x)", 1, "func len(v Type) int"},
		{":vars", 2, ":vars"},
	} {
		doc, ok := s.Inspect(c.src, c.cursor)
		if !ok || !strings.HasPrefix(doc, c.want) {
			t.Errorf("Inspect(%q, %d) = %q, %v; want prefix %q", c.src, c.cursor, doc, ok, c.want)
		}
	}
	if _, ok := s.Inspect("   ", 1); ok {
		t.Error("Inspect of blanks found something")
	}
}

func TestIsComplete(t *testing.T) {
	for _, c := range []struct{ src, status, indent string }{
		{"", Complete, ""},
		{"x := 1", Complete, ""},
		{"func f() {", Incomplete, "\t"},
		{"func f() {\n\tif true {", Incomplete, "\t\t"},
		{"func f() {\n}", Complete, ""},
		{"x := []int{1,", Incomplete, "\t"},
		{"fmt.Println(", Incomplete, "\t"},
		{"x := 1 +", Incomplete, ""},
		{"s := `raw", Incomplete, ""},
		{"/* comment", Incomplete, ""},
		{"x := )", Invalid, ""},
		{"x := 1 +* 2", Complete, ""}, // 1 + *2 parses
		{"func 1()", Invalid, ""},
		{"x := 1\ny := x x", Invalid, ""},
		{":help", Complete, ""},
		{"import \"fmt\"\nfmt.Println(1)", Complete, ""},
		{"var m = 1; m", Complete, ""},
		{"for i := 0; i < 3; i++ {\n}\n", Complete, ""},
	} {
		status, indent := IsComplete(c.src)
		if status != c.status || indent != c.indent {
			t.Errorf("IsComplete(%q) = %s %q, want %s %q", c.src, status, indent, c.status, c.indent)
		}
	}
}

func TestVarsAndReset(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "alpha := 1.5\nvar names = []string{\"a\"}\nconst k = 3")
	vars := s.Vars()
	got := map[string]Var{}
	for _, v := range vars {
		got[v.Name] = v
	}
	if v := got["alpha"]; v.Type != "float64" || v.Value != "1.5" || v.Kind != "var" {
		t.Errorf("alpha = %+v", v)
	}
	if v := got["names"]; v.Type != "[]string" || v.Value != `[a]` {
		t.Errorf("names = %+v", v)
	}
	if v := got["k"]; v.Kind != "const" {
		t.Errorf("k = %+v", v)
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Eval(context.Background(), "alpha"); err == nil {
		t.Error("alpha survived Reset")
	}
	if got := eval(t, s, "math.Sqrt(4)"); got != "2" {
		t.Errorf("prelude after Reset: %q", got)
	}
}

func TestCommands(t *testing.T) {
	s, _, _ := newSession(t)
	var out bytes.Buffer
	run := func(line string) (Result, error) {
		out.Reset()
		return s.RunCommand(context.Background(), line, &out)
	}
	if _, err := run(":help"); err != nil || !strings.Contains(out.String(), ":doc NAME") {
		t.Errorf(":help: %v %q", err, out.String())
	}
	if _, err := run(":doc runctx.Context"); err != nil || !strings.HasPrefix(out.String(), "func Context() context.Context") {
		t.Errorf(":doc: %v %q", err, out.String())
	}
	eval(t, s, "w := 7")
	if _, err := run(":vars"); err != nil || !strings.Contains(out.String(), "w  int  7") {
		t.Errorf(":vars: %v %q", err, out.String())
	}
	if r, err := run(":time w * 6"); err != nil || r.Text != "42" || !strings.HasPrefix(out.String(), "time: ") || !strings.Contains(out.String(), "allocated: ") {
		t.Errorf(":time: %v %q %q", err, r.Text, out.String())
	}
	if _, err := run(":mem"); err != nil || out.Len() == 0 {
		t.Errorf(":mem: %v %q", err, out.String())
	}
	if _, err := run(":quit"); !errors.Is(err, ErrQuit) {
		t.Errorf(":quit: %v", err)
	}
	if _, err := run(":nope"); err == nil {
		t.Error(":nope succeeded")
	}
	if _, err := run(":load /nonexistent/file.go"); err == nil {
		t.Error(":load of a missing file succeeded")
	}
}

func TestInternalsFound(t *testing.T) {
	if !yaegi.ok {
		t.Fatal("yaegi's Interpreter layout changed: interrupts can no longer wait for the interpreted code (update run.go)")
	}
}

// TestGoroutinePanic: a panic in a goroutine the cell started is reported
// instead of killing the process; go statements keep their semantics.
func TestGoroutinePanic(t *testing.T) {
	s, _, _ := newSession(t)
	// The goroutine closes done while it unwinds, so the cell may end
	// before the session's recover runs: the panic then fails the next cell.
	_, err := s.Eval(context.Background(), "done := make(chan bool)\ngo func() {\n\tdefer close(done)\n\tpanic(\"in goroutine\")\n}()\n<-done")
	if err == nil {
		for i := 0; err == nil && i < 100; i++ {
			_, err = s.Eval(context.Background(), "0")
			time.Sleep(10 * time.Millisecond)
		}
	}
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Goroutine != "input:2:1" || !strings.Contains(err.Error(), "panic in the goroutine started at input:2:1: in goroutine") {
		t.Errorf("err = %v", err)
	}
	// Arguments are evaluated when the go statement runs; untyped
	// constants keep their type; methods, variadic calls and nested go
	// statements work. (A fresh session: the goroutine above may still be
	// unwinding, and yaegi's global frame is not safe against a goroutine
	// reading it while a new cell grows it.)
	s, _, _ = newSession(t)
	eval(t, s, "import \"sync\"")
	cell := `type acc struct{ mu sync.Mutex; sum float32 }
func (a *acc) add(x float32, ws ...int) { a.mu.Lock(); a.sum += x * float32(len(ws)); a.mu.Unlock() }
func (a *acc) addDone(x float32, wg *sync.WaitGroup, ws ...int) { defer wg.Done(); a.add(x, ws...) }
a := &acc{}
var wg sync.WaitGroup
vals := []int{1, 1}
for i := 0; i < 4; i++ {
	wg.Add(1)
	go func(k int) {
		defer wg.Done()
		a.add(float32(k), vals...)
	}(i)
}
wg.Add(1)
go func() {
	defer wg.Done()
	var inner sync.WaitGroup
	inner.Add(1)
	go a.addDone(0.5, &inner, 1, 2)
	inner.Wait()
}()
wg.Wait()
a.sum`
	if got := eval(t, s, cell); got != "13" {
		t.Errorf("sum = %s, want 13", got)
	}
}

// TestRedeclare: re-running a cell is fine; a changed type or method is
// an error rather than a silently stale definition; functions, variables
// and constants are simply redefined.
func TestRedeclare(t *testing.T) {
	s, _, _ := newSession(t)
	cell := "type pt struct{ X int }\nfunc (p pt) get() int { return p.X }\nfunc f() int { return 1 }\nvar v = 1\npt{3}.get() + f() + v"
	for i := 0; i < 2; i++ {
		if got := eval(t, s, cell); got != "5" {
			t.Fatalf("run %d: %s", i, got)
		}
	}
	if got := eval(t, s, "func f() int { return 10 }\nvar v = 20\nf() + v"); got != "30" {
		t.Errorf("redefined f and v: %s", got)
	}
	for _, src := range []string{"type pt struct{ X, Y int }", "func (p pt) get() int { return 2 * p.X }"} {
		_, err := s.Eval(context.Background(), src)
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "already declared in this session with another definition") || ce.Pos.Line != 1 {
			t.Errorf("%q: err = %v", src, err)
		}
	}
	if got := eval(t, s, "pt{4}.get()"); got != "4" {
		t.Errorf("after the rejected redefinitions: %s", got)
	}
}

// TestRedeclareRewritten: a cell whose methods the session rewrites (a
// closure over a loop variable, goSemantics) can be run again: the
// declarations are compared as the user wrote them.
func TestRedeclareRewritten(t *testing.T) {
	s, _, _ := newSession(t)
	cell := "type bag struct{ n []int }\nfunc (b *bag) fill() (out []func() int) {\n\tfor _, v := range []int{1, 2} {\n\t\tout = append(out, func() int { return v })\n\t}\n\treturn\n}\nlen(new(bag).fill())"
	for i := 0; i < 2; i++ {
		if got := eval(t, s, cell); got != "2" {
			t.Fatalf("run %d: %s", i, got)
		}
	}
}
