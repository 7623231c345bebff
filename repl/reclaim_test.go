package repl

import (
	"runtime"
	"testing"
)

// heapMB is the live heap after a collection, in MB.
func heapMB() float64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / 1e6
}

// TestReclaimFreesCellMemory re-runs cells whose temporaries, loop variables
// and redeclared session variables hold a 40 MB tensor each: the session must keep
// at most the one copy a variable still names, not one per run.
func TestReclaimFreesCellMemory(t *testing.T) {
	s, _, _ := newSession(t)
	if _, ok := frameOf(s.in); !ok {
		t.Fatal("yaegi's global frame is not where reclaim.go looks for it (another yaegi version?)")
	}
	if _, _, _, ok := symbolSlots(s.in); !ok {
		t.Fatal("yaegi's scopes are not laid out as reclaim.go expects (another yaegi version?)")
	}
	for _, c := range []struct {
		name, src string
		keep      float64 // MB a variable still names afterwards
	}{
		{"loop variable", "for i := 0; i < 1; i++ {\n\tbuf := tensor.Zeros(10 << 20)\n\t_ = buf\n}", 0},
		{"block variable", "if true {\n\tbuf := tensor.Zeros(10 << 20)\n\t_ = buf\n}", 0},
		{"temporary", "tensor.Sum(tensor.Zeros(10 << 20)).Item()", 0},
		{"indexed temporary", "for i := 0; i < 1; i++ {\n\tts := []*tensor.Tensor{tensor.Zeros(10 << 20)}\n\t_ = ts[0].Shape()\n}", 0},
		{"byte slice and an element of it", "for i := 0; i < 1; i++ {\n\tbuf := make([]byte, 40<<20)\n\tbuf[0] = 1\n}", 0},
		{"redeclared variable", "big := tensor.Zeros(10 << 20)\n_ = big", 42},
		{"closure's frame", "func() {\n\tbuf := tensor.Zeros(10 << 20)\n\t_ = buf\n}()", 0},
	} {
		before := heapMB()
		for range 4 {
			eval(t, s, c.src)
		}
		if grew := heapMB() - before; grew > c.keep+20 {
			t.Errorf("%s: the heap grew %.0f MB over 4 runs of a cell holding 40 MB (want at most %.0f MB)", c.name, grew, c.keep)
		}
	}
	runtime.KeepAlive(s)
}

// TestReclaimKeepsSemantics checks that released slots are only those no
// later code reads: closures and goroutines made by a cell keep their
// captured variables, functions see a variable declared again (with the
// same type) and its later assignments, pointers stay valid.
func TestReclaimKeepsSemantics(t *testing.T) {
	s, _, _ := newSession(t)
	for _, c := range []struct{ src, want string }{
		{"x := 1", ""},
		{"func getX() int { return x }", ""},
		{"getX()", "1"},
		{"x := 2", ""},
		{"getX()", "2"},
		{"x = 3", ""},
		{"getX()", "3"},
		{"y := 1", ""},
		{"func getY() int { return y }", ""},
		{"y := \"now a string\"", ""},
		{"getY()", "1"},
		{"var fs []func() int", ""},
		{"for i := 0; i < 3; i++ {\n\tv := (i + 1) * 10\n\tfs = append(fs, func() int { return v })\n}", ""},
		{"fs[2]()", "30"},
		{"ch := make(chan []int, 1)\ngo_ := make(chan bool)\nif true {\n\tdata := []int{4, 5, 6}\n\tgo func() {\n\t\t<-go_\n\t\tch <- data\n\t}()\n}", ""},
		{"close(go_)\nlen(<-ch)", "3"},
		{"n := 5\npn := &n", ""},
		{"n = 6", ""},
		{"*pn", "6"},
		{"type P struct{ a []int }\np := P{}", ""},
		{"p.a = append(p.a, 1, 2)", ""},
		{"len(p.a)", "2"},
		{"m := map[string][]float64{}\nfor k := 0; k < 3; k++ {\n\trow := make([]float64, 4)\n\tm[string(rune('a'+k))] = row\n}", ""},
		{"len(m[\"c\"])", "4"},
		// Receivers of interpreted methods are read when the method runs.
		{"type T struct{ n int }\nfunc (t T) Get() int { return t.n }\nfunc (t *T) Inc() int { t.n++; return t.n }\nfunc mk(n int) T { return T{n: n} }", ""},
		{"mv := mk(7).Get", ""},
		{"mv()", "7"},
		{"mv2 := mk(8).Get\nmv2()", "8"},
		{"mp := (&T{n: 5}).Inc", ""},
		{"mp()", "6"},
		{"var mb func() int\nif true {\n\tb := T{n: 42}\n\tmb = b.Get\n}", ""},
		{"mb()", "42"},
		{"type S struct{ v string }\nfunc (s S) String() string { return \"S:\" + s.v }", ""},
		{"var st fmt.Stringer = S{v: \"x\"}", ""},
		{"len(fmt.Sprint(st))", "3"},
		{"list := []fmt.Stringer{S{v: \"in-slice\"}}", ""},
		{"len(list[0].String())", "10"},
		{"type W struct{ n int }\nfunc (w *W) run(out chan int) { out <- w.n }\nout := make(chan int, 1)", ""},
		{"go (&W{n: 4}).run(out)", ""},
		{"<-out", "4"},
		// The user's types over engine types, compiled structs or basic
		// types are receivers too.
		{"type Batch []*tensor.Tensor\nfunc (b Batch) N() int { return len(b) }", ""},
		{"mvb := Batch([]*tensor.Tensor{tensor.Ones(1), tensor.Ones(2)}).N", ""},
		{"mvb()", "2"},
		{"type TM map[string]*tensor.Tensor\nfunc (m TM) Get(k string) *tensor.Tensor { return m[k] }", ""},
		{"mvm := TM{\"a\": tensor.Ones(2)}.Get", ""},
		{"len(mvm(\"a\").Float32s())", "2"},
		{"type SM map[string]int\nfunc (m SM) String() string { return fmt.Sprint(len(m)) }", ""},
		{"var sst fmt.Stringer = SM{\"a\": 1, \"b\": 2}", ""},
		{"fmt.Sprint(sst) == \"2\"", "true"},
		{"type Rep []*tensor.Tensor\nfunc (r Rep) Send(c chan int) { time.Sleep(50 * time.Millisecond); c <- len(r) }\nch3 := make(chan int, 1)", ""},
		{"go Rep{tensor.Ones(1), tensor.Ones(2)}.Send(ch3)", ""},
		{"<-ch3", "2"},
		{"type Cfg sampling.LoaderOptions\nfunc (c Cfg) BS() int { return c.BatchSize }\nfunc (c *Cfg) PBS() int { return c.BatchSize }", ""},
		{"mvc := Cfg{BatchSize: 7}.BS", ""},
		{"mvc()", "7"},
		{"pvc := (&Cfg{BatchSize: 9}).PBS", ""},
		{"pvc()", "9"},
		{"type Counter int\nfunc (c *Counter) Inc() int { *c++; return int(*c) }\nvar incs []func() int\nvar ptrs []*Counter", ""},
		{"for i := 0; i < 1; i++ {\n\tvar c Counter\n\tincs = append(incs, c.Inc)\n\tptrs = append(ptrs, &c)\n}", ""},
		{"incs[0]()", "1"},
		{"incs[0]()", "2"},
		{"int(*ptrs[0])", "2"},
		{"type TS []*tensor.Tensor\nfunc (t *TS) Add(x *tensor.Tensor) int { *t = append(*t, x); return len(*t) }\nvar adds func(*tensor.Tensor) int", ""},
		{"for i := 0; i < 1; i++ {\n\tvar ts TS\n\tadds = ts.Add\n\tadds(tensor.Ones(1))\n}", ""},
		{"adds(tensor.Ones(1))", "2"},
		// Unnamed structs embedding the user's type, generic instances.
		{"type MyT struct{ N int }\nfunc (m MyT) String() string { return fmt.Sprintf(\"MyT(%d)\", m.N) }", ""},
		{"var s3 fmt.Stringer = struct{ MyT }{MyT{25}}", ""},
		{"s3.String() == \"MyT(25)\"", "true"},
		{"type Box[T any] struct{ v T }\nfunc (b Box[T]) String() string { return fmt.Sprint(\"Box:\", b.v) }", ""},
		{"bs := []fmt.Stringer{Box[int]{7}}", ""},
		{"bs[0].String() == \"Box:7\"", "true"},
		// A variable of the user's type declared again is a new variable:
		// values made from the old one keep it.
		{"mt := MyT{1}\nstr := mt.String\nvar s4 fmt.Stringer = mt", ""},
		{"mt := MyT{100}", ""},
		{"str() == \"MyT(1)\" && s4.String() == \"MyT(1)\"", "true"},
		// A top-level defer runs once, at the end of its own cell.
		{"cnt := 0", ""},
		{"defer func() { cnt++ }()", ""},
		{"cnt", "1"},
		{"1 + 1", "2"},
		{"cnt", "1"},
	} {
		if got := eval(t, s, c.src); got != c.want {
			t.Errorf("%q shows %q, want %q", c.src, got, c.want)
		}
	}
}
