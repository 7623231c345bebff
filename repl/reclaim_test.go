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
// and redeclared session variables hold 40 MB each: the session must keep
// at most the one copy a variable still names, not one per run.
func TestReclaimFreesCellMemory(t *testing.T) {
	s, _, _ := newSession(t)
	if _, ok := frameOf(s.in); !ok {
		t.Fatal("yaegi's global frame is not where reclaim.go looks for it (another yaegi version?)")
	}
	if _, _, ok := symbolSlots(s.in); !ok {
		t.Fatal("yaegi's scopes are not laid out as reclaim.go expects (another yaegi version?)")
	}
	for _, c := range []struct {
		name, src string
		keep      float64 // MB a variable still names afterwards
	}{
		{"loop variable", "for i := 0; i < 1; i++ {\n\tbuf := make([]byte, 40<<20)\n\tbuf[0] = 1\n}", 0},
		{"block variable", "if true {\n\tbuf := make([]byte, 40<<20)\n\t_ = buf\n}", 0},
		{"temporary", "len(make([]byte, 40<<20))", 0},
		{"redeclared variable", "big := make([]byte, 40<<20)\nbig[1] = 2", 42},
		{"closure's frame", "func() {\n\tbuf := make([]byte, 40<<20)\n\t_ = buf\n}()", 0},
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
	} {
		if got := eval(t, s, c.src); got != c.want {
			t.Errorf("%q shows %q, want %q", c.src, got, c.want)
		}
	}
}
