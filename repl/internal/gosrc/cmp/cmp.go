// Package cmp is the gnnrepl session's implementation of the standard
// library's package cmp, interpreted (the standard library's source, with
// Or's first argument apart for yaegi's type inference).
package cmp

// Ordered is a constraint that permits any ordered type: any type that
// supports the operators < <= >= >.
type Ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 |
		~string
}

// Less reports whether x is less than y (a NaN is less than any non-NaN).
func Less[T Ordered](x, y T) bool {
	return (isNaN(x) && !isNaN(y)) || x < y
}

// Compare returns -1 if x is less than y, 0 if x equals y, +1 if x is
// greater than y (a NaN is less than any non-NaN and equal to a NaN).
func Compare[T Ordered](x, y T) int {
	xNaN := isNaN(x)
	yNaN := isNaN(y)
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

func isNaN[T Ordered](x T) bool {
	return x != x
}

// Or returns the first of its arguments that is not equal to the zero
// value, or the zero value. (Its first parameter is separate, so that
// yaegi infers T from it; the session turns cmp.Or(vals...) into a call of
// gnnOrSlice, and cmp.Or(x), which yaegi cannot call with no variadic
// argument, into gnnOrSlice([]T{x}) through gnnOr1.)
func Or[T comparable](first T, rest ...T) T {
	var zero T
	if first != zero {
		return first
	}
	return gnnOrSlice(rest)
}

// gnnOrSlice is cmp.Or(vals...).
func gnnOrSlice[T comparable](vals []T) T {
	var zero T
	for _, val := range vals {
		if val != zero {
			return val
		}
	}
	return zero
}

// gnnOr1 is cmp.Or(x).
func gnnOr1[T comparable](x T) T { return x }
