package repl

import (
	"context"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// The source packages are compiled at the first import of one, not when
// the session starts; completion and :doc know their members.
func TestGoSourcePackages(t *testing.T) {
	s, err := New(Options{Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Stdin: strings.NewReader(""), Symbols: []interp.Exports{conformanceSymbols()}})
	if err != nil {
		t.Fatal(err)
	}
	if s.goSources {
		t.Fatal("the source packages were compiled at the session's start")
	}
	if c, _, _ := s.Complete("slices.Sorted", 13); strings.Join(c, " ") != "Sorted SortedFunc SortedStableFunc" {
		t.Errorf("completion of slices.Sorted: %v", c)
	}
	if d, ok := s.Doc("slices.SortFunc"); !ok || !strings.HasPrefix(d, "func SortFunc[E any](x []E, cmp func(a, b E) int)\n\nSortFunc sorts") {
		t.Errorf("Doc(slices.SortFunc) = %q, %v", d, ok)
	}
	if _, err := s.Eval(context.Background(), `import ("fmt"; "slices"; "iter")`); err != nil {
		t.Fatal(err)
	}
	if !s.goSources {
		t.Fatal("importing slices did not compile the source packages")
	}
	// A generic function of the user's named like one of slices' does not
	// share its instances (privateName).
	eval(t, s, `func Max[T int | float64](a, b T) T { if a > b { return a }; return b }`)
	if got := eval(t, s, `fmt.Sprint(Max(1, 2), slices.Max([]int{5, 3}), Max(4, 3))`); got != `"2 5 4"` {
		t.Errorf("Max and slices.Max: %s", got)
	}
	// Errors and stacks name the functions as the user wrote them.
	_, err = s.Eval(context.Background(), `slices.Max([]int{})`)
	if err == nil || !strings.Contains(err.Error(), "slices.Max: empty list") || !strings.Contains(err.Error(), "slices.Max(") || strings.Contains(err.Error(), "_gnnrepl_") {
		t.Errorf("slices.Max of nothing: %v", err)
	}
	// (`var seq iter.Seq[int] = slices.Values(...)` leaves seq nil in
	// yaegi v0.16.1; an assignment works.)
	if got := eval(t, s, "var seq iter.Seq[int]\nseq = slices.Values([]int{1, 2})\nfmt.Sprint(slices.Collect(seq))"); got != `"[1 2]"` {
		t.Errorf("iter.Seq: %s", got)
	}
}

// BenchmarkSlicesSort sorts 10,000 ints in a session with slices.Sort
// (compiled sort.Ints underneath) and slices.SortFunc (sort.Slice calling
// the interpreted comparison).
func BenchmarkSlicesSort(b *testing.B) {
	s, err := New(Options{Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Stdin: strings.NewReader(""), Symbols: []interp.Exports{conformanceSymbols()}})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []string{`import ("math/rand"; "slices")`, "xs := make([]int, 10000)", "r := rand.New(rand.NewSource(1))", "for i := range xs { xs[i] = r.Intn(1000000) }"} {
		if _, err := s.Eval(context.Background(), c); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct{ name, src string }{
		{"Sort", "ys := slices.Clone(xs); slices.Sort(ys)"},
		{"SortFunc", "ys := slices.Clone(xs); slices.SortFunc(ys, func(a, b int) int { return a - b })"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := s.Eval(context.Background(), c.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A define after importing a source package, in a session whose prelude
// declared variables, gets a slot of its own (yaegi gave it a prelude
// variable's: "reflect.Set: value of type int is not assignable").
func TestGoSourcePackagesAfterPrelude(t *testing.T) {
	out := &syncBuffer{}
	s, err := New(Options{Stdout: out, Stderr: &syncBuffer{}, Stdin: strings.NewReader(""), Symbols: []interp.Exports{conformanceSymbols()},
		Prelude: "import \"fmt\"\nload := func(name string) string { return name }\nds := load(\"cora\")\nn := 3"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{`import "slices"`, "q := 1", "xs := []int{3, 1, 2}", "slices.Sort(xs)", `import "maps"`,
		`m := map[string]int{"b": 1, "a": 2}`, "fmt.Println(q, xs, slices.Sorted(maps.Keys(m)), ds, n)"} {
		if _, err := s.Eval(context.Background(), c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	if got, want := out.String(), "1 [1 2 3] [a b] cora 3\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}
