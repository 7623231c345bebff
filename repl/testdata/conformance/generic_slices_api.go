package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

type byLen []string

func main() {
	s := []int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4}
	t := slices.Clone(s)
	slices.Sort(t)
	fmt.Println(t, slices.IsSorted(t), slices.IsSorted(s))
	i, found := slices.BinarySearch(t, 7)
	j, found2 := slices.BinarySearch(t, 10)
	fmt.Println(i, found, j, found2)
	words := []string{"pear", "fig", "apple", "kiwi", "banana", "date", "plum", "lime", "grape", "melon", "cherry", "peach", "lemon", "mango"}
	w := slices.Clone(words)
	slices.SortStableFunc(w, func(a, b string) int { return cmp.Compare(len(a), len(b)) })
	fmt.Println(w)
	slices.SortFunc(w, strings.Compare)
	fmt.Println(w, slices.IsSortedFunc(w, strings.Compare))
	k, ok := slices.BinarySearchFunc(w, "kiwi", strings.Compare)
	fmt.Println(k, ok)
	fmt.Println(slices.Index(s, 9), slices.Index(s, 42), slices.IndexFunc(s, func(x int) bool { return x > 5 }))
	fmt.Println(slices.Contains(words, "fig"), slices.ContainsFunc(words, func(x string) bool { return len(x) > 6 }))
	fmt.Println(slices.Equal(s, t), slices.Equal(t, slices.Clone(t)), slices.Compare([]string{"a", "b"}, []string{"a", "c"}), slices.Compare([]string{"a", "b"}, []string{"a"}))
	fmt.Println(slices.EqualFunc(s, s, func(a, b int) bool { return a == b }))
	fmt.Println(slices.Max(s), slices.Min(s), slices.MaxFunc(words, func(a, b string) int { return cmp.Compare(len(a), len(b)) }),
		slices.MinFunc(words, func(a, b string) int { return cmp.Compare(len(a), len(b)) }))
	f := []float64{2, math.NaN(), 1}
	fmt.Println(slices.Max(f), slices.Min(f))
	slices.Sort(f)
	fmt.Println(f)
	u := []int{1, 2, 3, 4, 5}
	u = slices.Insert(u, 2, 10, 11)
	fmt.Println(u)
	u = slices.Delete(u, 1, 3)
	fmt.Println(u)
	u = slices.DeleteFunc(u, func(x int) bool { return x%2 == 0 })
	fmt.Println(u)
	u = slices.Replace(u, 0, 1, 7, 8, 9)
	fmt.Println(u)
	slices.Reverse(u)
	fmt.Println(u)
	fmt.Println(slices.Compact([]int{1, 1, 2, 3, 3, 3, 1}), slices.CompactFunc([]string{"a", "A", "b", "B", "c"}, strings.EqualFold))
	fmt.Println(slices.Concat([]int{1}, []int{2, 3}, nil, []int{4}), slices.Repeat([]string{"x", "y"}, 3))
	g := slices.Grow([]int{1}, 10)
	fmt.Println(len(g), cap(g) >= 11, cap(slices.Clip(g)))
	fmt.Println(slices.Clone([]int(nil)) == nil, slices.Collect(slices.Values([]int(nil))) == nil)
	for i, v := range slices.All([]string{"a", "b"}) {
		fmt.Print(i, v, " ")
	}
	for i, v := range slices.Backward([]string{"a", "b"}) {
		fmt.Print(i, v, " ")
	}
	fmt.Println()
	fmt.Println(slices.Sorted(slices.Values([]int{3, 1, 2})), slices.AppendSeq([]int{0}, slices.Values([]int{1, 2})))
	fmt.Println(slices.SortedFunc(slices.Values(words[:4]), func(a, b string) int { return cmp.Compare(b, a) }))
	for c := range slices.Chunk([]int{1, 2, 3, 4, 5}, 2) {
		fmt.Print(c, " ")
	}
	fmt.Println()
	bl := byLen{"ccc", "a", "bb"}
	slices.SortFunc(bl, func(a, b string) int { return len(a) - len(b) })
	fmt.Println(bl, cmp.Or(0, 0, 3, 4), cmp.Or("", "x"), cmp.Compare(math.NaN(), 1.0), cmp.Less(2, 1))
}
