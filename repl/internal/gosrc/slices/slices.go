// Package slices is the gnnrepl session's implementation of the standard
// library's package slices (Go 1.23 API), interpreted: its functions take
// []E instead of a type parameter S ~[]E, so those that return a slice
// return []E, not your named slice type. The sorts are the compiled
// package sort's where they can be.
package slices

import "sort"

type gnnOrdered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}

func gnnIsNaN[T gnnOrdered](x T) bool { return x != x }

func gnnLess[T gnnOrdered](x, y T) bool { return (x != x && y == y) || x < y }

func gnnCompare[T gnnOrdered](x, y T) int {
	xNaN, yNaN := x != x, y != y
	if xNaN && yNaN {
		return 0
	}
	if xNaN || x < y {
		return -1
	}
	if yNaN || x > y {
		return +1
	}
	return 0
}

// Equal reports whether two slices have the same length and equal elements.
func Equal[E comparable](s1, s2 []E) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if s1[i] != s2[i] {
			return false
		}
	}
	return true
}

// EqualFunc is Equal with eq comparing the elements.
func EqualFunc[E1, E2 any](s1 []E1, s2 []E2, eq func(E1, E2) bool) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if !eq(s1[i], s2[i]) {
			return false
		}
	}
	return true
}

// Compare compares the elements of s1 and s2 in order with cmp.Compare.
func Compare[E gnnOrdered](s1, s2 []E) int {
	for i := range s1 {
		if i >= len(s2) {
			return +1
		}
		if c := gnnCompare(s1[i], s2[i]); c != 0 {
			return c
		}
	}
	if len(s1) < len(s2) {
		return -1
	}
	return 0
}

// CompareFunc is Compare with cmp comparing the elements.
func CompareFunc[E1, E2 any](s1 []E1, s2 []E2, cmp func(E1, E2) int) int {
	for i := range s1 {
		if i >= len(s2) {
			return +1
		}
		if c := cmp(s1[i], s2[i]); c != 0 {
			return c
		}
	}
	if len(s1) < len(s2) {
		return -1
	}
	return 0
}

// Index returns the index of the first occurrence of v in s, or -1.
func Index[E comparable](s []E, v E) int {
	for i := range s {
		if v == s[i] {
			return i
		}
	}
	return -1
}

// IndexFunc returns the first index i satisfying f(s[i]), or -1.
func IndexFunc[E any](s []E, f func(E) bool) int {
	for i := range s {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// Contains reports whether v is present in s.
func Contains[E comparable](s []E, v E) bool { return Index(s, v) >= 0 }

// ContainsFunc reports whether at least one element e of s satisfies f(e).
func ContainsFunc[E any](s []E, f func(E) bool) bool { return IndexFunc(s, f) >= 0 }

// Insert inserts the values v... into s at index i and returns the
// modified slice; it panics if i > len(s).
func Insert[E any](s []E, i int, v ...E) []E {
	_ = s[i:] // bounds check
	m, n := len(v), len(s)
	if m == 0 {
		return s
	}
	if n+m > cap(s) {
		out := make([]E, n+m, n+m+(n+m)/4)
		copy(out, s[:i])
		copy(out[i:], v)
		copy(out[i+m:], s[i:])
		return out
	}
	s2 := s[:n+m]
	copy(s2[i+m:], s[i:n])
	copy(s2[i:], v)
	return s2
}

// Delete removes the elements s[i:j] from s, zeroes the elements it
// vacated and returns the modified slice; it panics if j > len(s) or
// s[i:j] is not a valid slice of s.
func Delete[E any](s []E, i, j int) []E {
	_ = s[i:j:len(s)] // bounds check
	if i == j {
		return s
	}
	oldlen := len(s)
	s = append(s[:i], s[j:]...)
	gnnZero(s[len(s):oldlen])
	return s
}

func gnnZero[E any](s []E) {
	var zero E
	for i := range s {
		s[i] = zero
	}
}

// DeleteFunc removes the elements for which del returns true and returns
// the modified slice, zeroing the tail.
func DeleteFunc[E any](s []E, del func(E) bool) []E {
	i := IndexFunc(s, del)
	if i == -1 {
		return s
	}
	for j := i + 1; j < len(s); j++ {
		if v := s[j]; !del(v) {
			s[i] = v
			i++
		}
	}
	gnnZero(s[i:])
	return s[:i]
}

// Replace replaces s[i:j] by the given v and returns the modified slice.
func Replace[E any](s []E, i, j int, v ...E) []E {
	_ = s[i:j] // bounds check
	tail := Clone(s[j:])
	oldlen := len(s)
	s = append(s[:i], v...)
	s = append(s, tail...)
	if len(s) < oldlen {
		gnnZero(s[len(s):oldlen])
	}
	return s
}

// Clone returns a copy of the slice (nil for nil).
func Clone[E any](s []E) []E {
	if s == nil {
		return nil
	}
	return append([]E{}, s...)
}

// Compact replaces consecutive runs of equal elements with a single copy
// and returns the modified slice, zeroing the tail.
func Compact[E comparable](s []E) []E {
	if len(s) < 2 {
		return s
	}
	i := 1
	for k := 1; k < len(s); k++ {
		if s[k] != s[k-1] {
			if i != k {
				s[i] = s[k]
			}
			i++
		}
	}
	gnnZero(s[i:])
	return s[:i]
}

// CompactFunc is Compact with eq comparing the elements (it keeps the first
// of each run).
func CompactFunc[E any](s []E, eq func(E, E) bool) []E {
	if len(s) < 2 {
		return s
	}
	i := 1
	for k := 1; k < len(s); k++ {
		if !eq(s[k], s[k-1]) {
			if i != k {
				s[i] = s[k]
			}
			i++
		}
	}
	gnnZero(s[i:])
	return s[:i]
}

// Grow increases the slice's capacity, if necessary, to guarantee space
// for another n elements; it panics if n is negative.
func Grow[E any](s []E, n int) []E {
	if n < 0 {
		panic("cannot be negative")
	}
	if n -= cap(s) - len(s); n > 0 {
		s = append(s[:cap(s)], make([]E, n)...)[:len(s)]
	}
	return s
}

// Clip removes unused capacity from the slice.
func Clip[E any](s []E) []E { return s[:len(s):len(s)] }

// Reverse reverses the elements of the slice in place.
func Reverse[E any](s []E) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// Concat returns a new slice concatenating the passed in slices. (Its
// first parameter is separate, so that yaegi infers E from it; the session
// turns slices.Concat(ss...) into a call of gnnConcatSlice, and
// slices.Concat(s), which yaegi cannot call with no variadic argument, into
// one of gnnConcat1.)
func Concat[E any](first []E, rest ...[]E) []E {
	return gnnConcatSlice(append([][]E{first}, rest...))
}

// gnnConcat1 is slices.Concat(s).
func gnnConcat1[E any](s []E) []E { return gnnConcatSlice([][]E{s}) }

// gnnConcatSlice is slices.Concat(slices...).
func gnnConcatSlice[E any](slices [][]E) []E {
	size := 0
	for _, s := range slices {
		size += len(s)
		if size < 0 {
			panic("len out of range")
		}
	}
	var newslice []E
	if size > 0 {
		newslice = make([]E, 0, size)
	}
	for _, s := range slices {
		newslice = append(newslice, s...)
	}
	return newslice
}

// Repeat returns a new slice that repeats the provided slice count times;
// it panics if count is negative.
func Repeat[E any](x []E, count int) []E {
	if count < 0 {
		panic("cannot be negative")
	}
	newslice := make([]E, 0, len(x)*count)
	for i := 0; i < count; i++ {
		newslice = append(newslice, x...)
	}
	return newslice
}

// Sort sorts a slice of any ordered type in ascending order (NaNs first).
// []int, []float64 and []string are sorted by the compiled package sort
// (an interpreted comparison costs about a microsecond).
func Sort[E gnnOrdered](x []E) {
	switch v := any(x).(type) {
	case []int:
		sort.Ints(v)
	case []float64:
		sort.Float64s(v) // NaNs first, as slices.Sort
	case []string:
		sort.Strings(v)
	default:
		gnnSortOrdered(x)
	}
}

// SortFunc sorts the slice x in ascending order as determined by cmp. It
// is sort.Slice, the same pattern-defeating quicksort as the standard
// library's slices.SortFunc, so that equal elements end in the same order.
func SortFunc[E any](x []E, cmp func(a, b E) int) {
	sort.Slice(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}

// SortStableFunc sorts the slice x while keeping the original order of
// equal elements, using cmp to compare elements.
func SortStableFunc[E any](x []E, cmp func(a, b E) int) {
	sort.SliceStable(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}

// gnnSortOrdered sorts x in cmp.Compare's order (written inline): a
// stable merge sort of insertion-sorted runs of 12.
func gnnSortOrdered[E gnnOrdered](x []E) {
	n := len(x)
	const run = 12
	for lo := 0; lo < n; lo += run {
		hi := lo + run
		if hi > n {
			hi = n
		}
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo && (x[j] < x[j-1] || x[j] != x[j] && x[j-1] == x[j-1]); j-- {
				x[j], x[j-1] = x[j-1], x[j]
			}
		}
	}
	if n <= run {
		return
	}
	buf := make([]E, n)
	src, dst := x, buf
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := lo+width, lo+2*width
			if mid > n {
				mid = n
			}
			if hi > n {
				hi = n
			}
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if a, b := src[j], src[i]; a < b || a != a && b == b {
					dst[k] = a
					j++
				} else {
					dst[k] = b
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	if &src[0] != &x[0] {
		copy(x, src)
	}
}

// IsSorted reports whether x is sorted in ascending order.
func IsSorted[E gnnOrdered](x []E) bool {
	for i := len(x) - 1; i > 0; i-- {
		if gnnLess(x[i], x[i-1]) {
			return false
		}
	}
	return true
}

// IsSortedFunc reports whether x is sorted in ascending order, with cmp as
// the comparison function.
func IsSortedFunc[E any](x []E, cmp func(a, b E) int) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp(x[i], x[i-1]) < 0 {
			return false
		}
	}
	return true
}

// Min returns the minimal value in x (a NaN if any); it panics if x is
// empty.
func Min[E gnnOrdered](x []E) E {
	if len(x) < 1 {
		panic("slices.Min: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if m != m {
			return m
		}
		if v := x[i]; v != v || v < m {
			m = v
		}
	}
	return m
}

// MinFunc returns the first minimal value in x by cmp; it panics if x is
// empty.
func MinFunc[E any](x []E, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MinFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) < 0 {
			m = x[i]
		}
	}
	return m
}

// Max returns the maximal value in x (a NaN if any); it panics if x is
// empty.
func Max[E gnnOrdered](x []E) E {
	if len(x) < 1 {
		panic("slices.Max: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if m != m {
			return m
		}
		if v := x[i]; v != v || v > m {
			m = v
		}
	}
	return m
}

// MaxFunc returns the first maximal value in x by cmp; it panics if x is
// empty.
func MaxFunc[E any](x []E, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MaxFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) > 0 {
			m = x[i]
		}
	}
	return m
}

// BinarySearch searches for target in a sorted slice and returns the
// earliest position where target is found, or would appear, and whether it
// was found.
func BinarySearch[E gnnOrdered](x []E, target E) (int, bool) {
	n := len(x)
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if gnnLess(x[h], target) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < n && (x[i] == target || (gnnIsNaN(x[i]) && gnnIsNaN(target)))
}

// BinarySearchFunc is BinarySearch with cmp(element, target) comparing.
func BinarySearchFunc[E, T any](x []E, target T, cmp func(E, T) int) (int, bool) {
	n := len(x)
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if cmp(x[h], target) < 0 {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < n && cmp(x[i], target) == 0
}

// All returns an iterator (an iter.Seq2[int, E]) over index-value pairs in
// the slice in the usual order.
func All[E any](s []E) func(yield func(int, E) bool) {
	return func(yield func(int, E) bool) {
		for i, v := range s {
			if !yield(i, v) {
				return
			}
		}
	}
}

// Backward returns an iterator (an iter.Seq2[int, E]) over index-value
// pairs in the slice, traversing it backward with descending indices.
func Backward[E any](s []E) func(yield func(int, E) bool) {
	return func(yield func(int, E) bool) {
		for i := len(s) - 1; i >= 0; i-- {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}

// Values returns an iterator (an iter.Seq[E]) that yields the slice
// elements in order.
func Values[E any](s []E) func(yield func(E) bool) {
	return func(yield func(E) bool) {
		for _, v := range s {
			if !yield(v) {
				return
			}
		}
	}
}

// AppendSeq appends the values from seq to the slice and returns the
// extended slice.
func AppendSeq[E any](s []E, seq func(yield func(E) bool)) []E {
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	return s
}

// Collect collects values from seq into a new slice and returns it (nil
// when seq yields nothing).
func Collect[E any](seq func(yield func(E) bool)) []E {
	return AppendSeq([]E(nil), seq)
}

// Sorted collects values from seq into a new slice, sorts the slice and
// returns it.
func Sorted[E gnnOrdered](seq func(yield func(E) bool)) []E {
	s := Collect(seq)
	Sort(s)
	return s
}

// SortedFunc collects values from seq into a new slice, sorts the slice
// using cmp and returns it.
func SortedFunc[E any](seq func(yield func(E) bool), cmp func(E, E) int) []E {
	s := Collect(seq)
	SortFunc(s, cmp)
	return s
}

// SortedStableFunc is SortedFunc with a stable sort.
func SortedStableFunc[E any](seq func(yield func(E) bool), cmp func(E, E) int) []E {
	s := Collect(seq)
	SortStableFunc(s, cmp)
	return s
}

// Chunk returns an iterator over consecutive sub-slices of up to n
// elements of s; it panics if n is less than 1.
func Chunk[E any](s []E, n int) func(yield func([]E) bool) {
	if n < 1 {
		panic("cannot be less than 1")
	}
	return func(yield func([]E) bool) {
		for i := 0; i < len(s); i += n {
			end := len(s)
			if i+n < end {
				end = i + n
			}
			if !yield(s[i:end:end]) {
				return
			}
		}
	}
}
