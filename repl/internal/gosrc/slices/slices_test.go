package slices_test

import (
	"cmp"
	"math"
	"math/rand"
	"reflect"
	std "slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/repl/internal/gosrc/slices"
)

// The session's slices against the standard library's, on seeded random
// inputs (the interpreted behaviour is checked by the conformance corpus).
func TestAgainstStdlib(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	type pair struct{ k, i int }
	for iter := 0; iter < 300; iter++ {
		n := rng.Intn(300)
		s := make([]int, n)
		for i := range s {
			s[i] = rng.Intn(20)
		}
		a, b := std.Clone(s), slices.Clone(s)
		std.Sort(a)
		slices.Sort(b)
		if !std.Equal(a, b) {
			t.Fatalf("Sort(%v) = %v, want %v", s, b, a)
		}
		ps := make([]pair, n)
		for i := range ps {
			ps[i] = pair{s[i], i}
		}
		byK := func(x, y pair) int { return cmp.Compare(x.k, y.k) }
		pa, pb := std.Clone(ps), std.Clone(ps)
		std.SortStableFunc(pa, byK)
		slices.SortStableFunc(pb, byK)
		if !std.Equal(pa, pb) {
			t.Fatalf("SortStableFunc(%v) = %v, want %v", ps, pb, pa)
		}
		// SortFunc (sort.Slice) leaves equal elements as the standard
		// library's pdqsort does.
		pc, pd := std.Clone(ps), std.Clone(ps)
		std.SortFunc(pc, byK)
		slices.SortFunc(pd, byK)
		if !std.Equal(pc, pd) {
			t.Fatalf("SortFunc(%v) = %v, standard library %v", ps, pd, pc)
		}
		i8 := make([]int8, n) // the interpreted merge sort (not []int)
		for i := range i8 {
			i8[i] = int8(s[i])
		}
		j8 := std.Clone(i8)
		std.Sort(i8)
		slices.Sort(j8)
		if !std.Equal(i8, j8) {
			t.Fatalf("Sort(%v) = %v, want %v", s, j8, i8)
		}
		target := rng.Intn(22) - 1
		i1, f1 := std.BinarySearch(a, target)
		i2, f2 := slices.BinarySearch(a, target)
		if i1 != i2 || f1 != f2 {
			t.Fatalf("BinarySearch(%v, %d) = %d %v, want %d %v", a, target, i2, f2, i1, f1)
		}
		if n > 0 {
			if std.Max(s) != slices.Max(s) || std.Min(s) != slices.Min(s) {
				t.Fatalf("Max/Min(%v)", s)
			}
			i, j := rng.Intn(n+1), rng.Intn(n+1)
			if i > j {
				i, j = j, i
			}
			check := func(name string, want, got []int) {
				t.Helper()
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("%s(%v, %d, %d) = %v, want %v", name, s, i, j, got, want)
				}
			}
			check("Delete", std.Delete(std.Clone(s), i, j), slices.Delete(std.Clone(s), i, j))
			check("Insert", std.Insert(std.Clone(s), i, 7, 8, 9), slices.Insert(std.Clone(s), i, 7, 8, 9))
			check("Insert with room", std.Insert(append(make([]int, 0, n+5), s...), i, 7, 8), slices.Insert(append(make([]int, 0, n+5), s...), i, 7, 8))
			check("Replace", std.Replace(std.Clone(s), i, j, 1, 2), slices.Replace(std.Clone(s), i, j, 1, 2))
			check("Compact", std.Compact(std.Clone(a)), slices.Compact(std.Clone(a)))
			odd := func(x int) bool { return x%2 == 1 }
			check("DeleteFunc", std.DeleteFunc(std.Clone(s), odd), slices.DeleteFunc(std.Clone(s), odd))
			r1, r2 := std.Clone(s), std.Clone(s)
			std.Reverse(r1)
			slices.Reverse(r2)
			check("Reverse", r1, r2)
			check("Concat", std.Concat(s[:i], s[j:], s), slices.Concat(s[:i], s[j:], s))
			check("Repeat", std.Repeat(s[i:j], 3), slices.Repeat(s[i:j], 3))
			check("Sorted", std.Sorted(std.Values(s)), slices.Sorted(slices.Values(s)))
			if std.Compare(s, a) != slices.Compare(s, a) || std.Compare(a, s[:i]) != slices.Compare(a, s[:i]) {
				t.Fatalf("Compare(%v, %v)", s, a)
			}
		}
	}
	f := []float64{3, math.NaN(), -1, math.Inf(1), 0}
	a, b := std.Clone(f), std.Clone(f)
	std.Sort(a)
	slices.Sort(b)
	if !math.IsNaN(a[0]) || !math.IsNaN(b[0]) || !std.Equal(a[1:], b[1:]) || !math.IsNaN(slices.Max(f)) || !math.IsNaN(slices.Min(f)) {
		t.Fatalf("Sort(%v) = %v, want %v (NaN first)", f, b, a)
	}
	if i, ok := slices.BinarySearch(b, math.NaN()); i != 0 || !ok {
		t.Fatalf("BinarySearch(NaN) = %d %v", i, ok)
	}
}

func TestIterators(t *testing.T) {
	s := []string{"a", "b", "c", "d", "e"}
	var got []string
	for i, v := range slices.Backward(s) {
		if i < 2 {
			break
		}
		got = append(got, v)
	}
	if !std.Equal(got, []string{"e", "d", "c"}) {
		t.Fatalf("Backward: %v", got)
	}
	var chunks [][]string
	for c := range slices.Chunk(s, 2) {
		chunks = append(chunks, c)
	}
	if want := [][]string{{"a", "b"}, {"c", "d"}, {"e"}}; !reflect.DeepEqual(chunks, want) || cap(chunks[0]) != 2 {
		t.Fatalf("Chunk: %v", chunks)
	}
	if slices.Collect(slices.Values([]int(nil))) != nil || !std.Equal(slices.AppendSeq([]int{1}, slices.Values([]int{2})), []int{1, 2}) {
		t.Fatal("Collect/AppendSeq")
	}
}
