package repl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/builtins"
	"github.com/traefik/yaegi/interp"
)

// evalCells evaluates cells in a new standard-library session and returns
// its standard output; a cell's error fails the test unless wantErr.
func evalCells(t *testing.T, cells ...string) string {
	t.Helper()
	out, errOut := &syncBuffer{}, &syncBuffer{}
	s, err := New(Options{Stdout: out, Stderr: errOut, Stdin: strings.NewReader(""),
		Symbols: []interp.Exports{conformanceSymbols()}, InterruptGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cells {
		if _, err := s.Eval(context.Background(), c); err != nil {
			t.Fatalf("cell %d %q: %v\nstdout so far:\n%s", i+1, c, err, out.String())
		}
	}
	return out.String()
}

// The range-over-function rewrite (rangefunc.go): each case's expected
// output is what `go run` prints for the same code in a main function.
func TestRangeFunc(t *testing.T) {
	const seqs = `import "fmt"

func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func pairs(yield func(string, int) bool) {
	_ = yield("a", 1) && yield("b", 2) && yield("c", 3)
}`
	for _, c := range []struct {
		name  string
		cells []string
		want  string
	}{
		{"continue and break", []string{seqs, `for x := range count(10) {
	if x%2 == 1 {
		continue
	}
	if x > 6 {
		break
	}
	fmt.Print(x, " ")
}
fmt.Println()`}, "0 2 4 6 \n"},
		{"two values, assignment form, no variables", []string{seqs, `var k string
var v int
for k, v = range pairs {
	fmt.Print(k, v, " ")
}
n := 0
for range pairs {
	n++
}
for k := range pairs {
	fmt.Print(k)
}
fmt.Println(k, v, n)`}, "a1 b2 c3 abcc 3 3\n"},
		{"return from the enclosing function", []string{seqs, `func find(want int) (int, string) {
	for x := range count(10) {
		if x == want {
			return x * 10, "found"
		}
	}
	return -1, "missing"
}

func named(want int) (r int, err error) {
	defer func() { r++ }()
	for x := range count(10) {
		if x == want {
			r = x
			return
		}
	}
	return 100, nil
}

func shadowed() (n int, err error) {
	for x := range count(10) {
		n := x * 100
		if x == 2 {
			return n, nil
		}
	}
	return -1, nil
}

func mixed(stop int) (n int) {
	for x := range count(10) {
		n += x
		if x == stop {
			return
		}
		if x > 5 {
			return 1000
		}
	}
	return -1
}

func none(out *[]int) {
	for x := range count(10) {
		if x == 3 {
			return
		}
		*out = append(*out, x)
	}
	*out = append(*out, -1)
}`, `fmt.Println(find(4))
fmt.Println(find(40))
fmt.Println(named(5))
fmt.Println(named(50))
var got []int
none(&got)
fmt.Println(got)
fmt.Println(shadowed())
fmt.Println(mixed(3), mixed(20))`}, "40 found\n-1 missing\n6 <nil>\n101 <nil>\n[0 1 2]\n200 <nil>\n6 1000\n"},
		{"labels and the body's own loops", []string{seqs, `func grid() {
outer:
	for i := range count(4) {
		for j := 0; j < 4; j++ {
			if j == 2 {
				break // the inner loop's
			}
			if i == 1 {
				continue outer
			}
			if i == 3 {
				break outer
			}
			fmt.Print(i, j, " ")
		}
		switch i {
		case 0:
			fmt.Print("zero ")
			break // the switch's
		}
	}
	fmt.Println()
	k := 0
loop:
	for k < 3 {
		k++
		for x := range count(5) {
			if x == 1 {
				continue loop
			}
			fmt.Print("k", k, "x", x, " ")
		}
	}
	fmt.Println()
}`, `grid()`}, "0 0 0 1 zero 2 0 2 1 \nk1x0 k2x0 k3x0 \n"},
		{"nested ranges over functions", []string{seqs, `func nested() int {
	for i := range count(3) {
		for j := range count(3) {
			if i*j == 2 {
				return i*10 + j
			}
		}
	}
	return -1
}`, `fmt.Println(nested())
for i := range count(3) {
	for k, v := range pairs {
		if v > i {
			break
		}
		fmt.Print(i, k, v, " ")
	}
}
fmt.Println()`}, "12\n1a1 2a1 2b2 \n"},
		{"closures see their own iteration", []string{seqs, `var fs []func() int
for x := range count(3) {
	fs = append(fs, func() int { return x })
}
for _, f := range fs {
	fmt.Print(f())
}
fmt.Println()`}, "012\n"},
		{"declared in the unit, iter.Seq and literals", []string{`import ("fmt"; "iter")

func upto(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 1; i <= n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func sum() int {
	t := 0
	for v := range upto(4) {
		t += v
	}
	evens := func(yield func(int, bool) bool) {
		for i := 0; i < 3; i++ {
			if !yield(i, i%2 == 0) {
				return
			}
		}
	}
	for i, e := range evens {
		if e {
			t += 100 * i
		}
	}
	return t
}`, `fmt.Println(sum())`}, "210\n"},
		{"session variable of iterator type", []string{seqs, `var it func(func(int) bool) = count(3)`, `for x := range it {
	fmt.Print(x)
}
fmt.Println()`}, "012\n"},
		{"session types, methods, parameters and generic functions", []string{`import ("fmt"; "iter")

type P struct {
	Name string
	Age  int
}

type People struct{ list []P }

func (ps *People) All() iter.Seq2[int, P] {
	return func(yield func(int, P) bool) {
		for i, p := range ps.list {
			if !yield(i, p) {
				return
			}
		}
	}
}

func people(yield func(P) bool) {
	if yield(P{"ann", 30}) {
		yield(P{"bob", 20})
	}
}

func Filter[T any](seq iter.Seq[T], keep func(T) bool) iter.Seq[T] {
	return func(yield func(T) bool) {
		for v := range seq {
			if keep(v) && !yield(v) {
				return
			}
		}
	}
}

func each(seq func(func(P) bool), f func(P)) {
	for p := range seq {
		f(p)
	}
}`, `ps := &People{list: []P{{"cy", 40}, {"di", 50}}}`, `for i, p := range ps.All() {
	fmt.Print(i, p.Name, " ")
}
for p := range people {
	fmt.Print(p.Name, p.Age, " ")
}
each(people, func(p P) { fmt.Print(p.Age, " ") })
for p := range Filter[P](people, func(p P) bool { return p.Age < 25 }) {
	fmt.Print(p.Name)
}
fmt.Println()`}, "0cy 1di ann30 bob20 30 20 bob\n"},
		{"a program with locals, an aliased import", []string{`package main

import (
	"fmt"
	"maps"
	sl "slices"
)

func main() {
	m := map[string]int{"b": 1, "a": 2}
	for _, k := range sl.Sorted(maps.Keys(m)) {
		fmt.Print(k)
	}
	n := 0
	for _, v := range maps.All(m) {
		n += v
	}
	xs := make([]string, 2)
	for i := range sl.All(xs) {
		n += i
	}
	for v := range sl.Values([]int{10, 20}) {
		n += v
	}
	fmt.Println(n)
}`}, "ab34\n"},
		{"slices and maps iterators", []string{`import ("fmt"; "maps"; "slices")`, `xs := []string{"a", "b", "c"}
for i, v := range slices.Backward(xs) {
	fmt.Print(i, v, " ")
}
m := map[string]int{"x": 1, "y": 2}
for _, k := range slices.Sorted(maps.Keys(m)) {
	fmt.Print(k, m[k], " ")
}
fmt.Println(slices.Collect(slices.Values(xs)), len(maps.Collect(maps.All(m))))`}, "2c 1b 0a x1 y2 [a b c] 2\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := evalCells(t, c.cells...); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// An iterator that calls yield after the loop body broke out panics, as
// in Go.
func TestRangeFuncContinuedIteration(t *testing.T) {
	out, errOut := &syncBuffer{}, &syncBuffer{}
	s, err := New(Options{Stdout: out, Stderr: errOut, Stdin: strings.NewReader(""), Symbols: []interp.Exports{conformanceSymbols()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Eval(context.Background(), `func bad(yield func(int) bool) { yield(1); yield(2) }`); err != nil {
		t.Fatal(err)
	}
	_, err = s.Eval(context.Background(), `for x := range bad { _ = x; break }`)
	if err == nil || !strings.Contains(err.Error(), "range function continued iteration") {
		t.Fatalf("got %v, want the continued-iteration panic", err)
	}
}

// BenchmarkNewSession measures the start of a standard-library session
// (which compiles the source packages slices, maps, cmp and iter).
func BenchmarkNewSession(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := New(Options{Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Stdin: strings.NewReader(""),
			Symbols: []interp.Exports{conformanceSymbols()}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewDefaultSession measures the start of a gnnrepl session
// (DefaultOptions with the prelude's imports).
func BenchmarkNewDefaultSession(b *testing.B) {
	opts := DefaultOptions()
	opts.Prelude = builtins.PreludeImports
	opts.Stdout, opts.Stderr, opts.Stdin = &syncBuffer{}, &syncBuffer{}, strings.NewReader("")
	for i := 0; i < b.N; i++ {
		if _, err := New(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewSessionImportSlices is BenchmarkNewSession plus the first
// import of slices (which compiles the source packages).
func BenchmarkNewSessionImportSlices(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s, err := New(Options{Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Stdin: strings.NewReader(""),
			Symbols: []interp.Exports{conformanceSymbols()}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Eval(context.Background(), `import "slices"`); err != nil {
			b.Fatal(err)
		}
	}
}
