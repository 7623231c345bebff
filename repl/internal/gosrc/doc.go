// Package gosrc holds the Go source of the generic standard packages slices,
// maps, cmp and iter as the session's interpreter (yaegi v0.16.1) compiles
// them: yaegi cannot call generic compiled code
// (https://github.com/traefik/yaegi/issues/1704), and the generic sources it
// ships for these packages (stdlib/generic) leave out sort.go and fail to
// infer E from an argument of type S ~[]E ("undefined type for E"). The
// session compiles these files into the interpreter after the standard
// library's symbols (repl/gosrc.go), replacing yaegi's functions of the same
// names.
//
// The files are plain Go that yaegi can interpret: every function takes
// []E or map[K]V instead of a type parameter S ~[]E (so a function that
// returns the slice returns []E, not the caller's named slice type), and
// none uses range over a function or an integer, min, max or clear, or
// imports a package but compiled ones (slices imports sort: yaegi's own
// copies of these packages already import cmp in the same scopes). Iterators are plain functions of the types
// func(yield func(V) bool) and func(yield func(K, V) bool), which
// iter.Seq and iter.Seq2 are.
//
// Each subpackage also builds with the Go compiler, so that its tests
// compare it with the standard library.
package gosrc
