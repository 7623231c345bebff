// Package builtins is what an interactive gnnrepl session has before the
// first keystroke: the yaegi symbol tables of the public engine packages
// (generated with yaegi's extract library, never written by hand), a doc
// table for completion and inspection (generated from the packages' doc
// comments), the
// prelude evaluated at session start, and the hooks the engine fills in for
// the front ends (memory per device, BLAS in use).
//
// Adding an engine package to the interpreter is one line in gen.go:
//
//	//go:generate go run ./internal/gensym github.com/gnnrepl/gnnrepl/PKG
//
// followed by `go generate ./builtins/`. TestGeneratedUpToDate fails when the
// committed symbol or doc files differ from what the generators produce.
//
// Exported names that are engine plumbing (tensor.SetBLAS, SetOpHook,
// CountBytes, AdamStep, runctx.Set, ...: exported for other engine packages
// or the front ends) are listed, each with its reason, in gen.Excluded
// (internal/gen/exclude.go) and left out of both tables, so a session cannot
// name them; compiled engine code is unaffected.
//
// Error policy: nothing here panics or returns errors at run time; the hooks
// are plain functions that must not panic (the front ends recover panics all
// the same).
package builtins
