// Package iter is the gnnrepl session's implementation of the standard
// library's package iter, interpreted: the iterator types Seq and Seq2.
// Pull and Pull2 are not provided (they need the runtime's coroutines).
// yaegi does not infer a type argument through Seq: call a generic
// function of yours taking an iter.Seq[T] with its type argument,
// Filter[int](seq, f).
package iter

// Seq is an iterator over sequences of individual values: called with a
// yield function, it calls yield with each value until yield returns false.
type Seq[V any] func(yield func(V) bool)

// Seq2 is an iterator over sequences of pairs of values.
type Seq2[K, V any] func(yield func(K, V) bool)
