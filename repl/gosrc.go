package repl

import (
	_ "embed"
	"fmt"
	"go/ast"
	"reflect"
)

// The generic standard packages slices, maps, cmp and iter, as Go source
// the interpreter compiles (internal/gosrc; see its doc.go). yaegi v0.16.1
// cannot call generic compiled code
// (https://github.com/traefik/yaegi/issues/1704): its symbol tables for
// these packages are empty, and when it loads the standard library it
// compiles its own copies of the standard library's slices.go, maps.go and
// cmp.go, where slices.Sort, SortFunc, Max, Min, BinarySearch and the
// iterator functions are missing and every function of the form
// F[S ~[]E, E any](s S) fails to infer E ("undefined type for E").
// installGoSources compiles the session's files into the same package
// scopes, which replaces yaegi's functions of the same names (a package
// scope takes redeclarations, as a REPL's does) and adds the others; iter
// is a new package.
var (
	//go:embed internal/gosrc/cmp/cmp.go
	cmpSource string
	//go:embed internal/gosrc/slices/slices.go
	slicesSource string
	//go:embed internal/gosrc/maps/maps.go
	mapsSource string
	//go:embed internal/gosrc/iter/iter.go
	iterSource string
)

// goSourcePackages are the import paths installGoSources provides.
var goSourcePackages = []string{"cmp", "slices", "maps", "iter"}

// installGoSources compiles the source packages into the session's
// interpreter. It is called after the symbol tables are loaded, when they
// include the standard library (a session without it has no packages).
func (s *Session) installGoSources() error {
	for i, src := range []string{cmpSource, slicesSource, mapsSource, iterSource} {
		if _, err := s.in.Compile(src); err != nil {
			return fmt.Errorf("repl: compiling package %s: %w", goSourcePackages[i], err)
		}
	}
	return nil
}

// hasStdlib reports whether the session's symbol tables include the
// standard library (fmt), which makes yaegi load its generic sources.
func (s *Session) hasStdlib() bool {
	for _, x := range s.opts.Symbols {
		if _, ok := x["fmt/fmt"]; ok {
			return true
		}
	}
	return false
}

// sourcePackage returns the import path of the source package (slices,
// maps, cmp) that the call c calls a function of, and the function's
// name, or "", "".
func (ty *typer) sourcePackage(c *ast.CallExpr) (pkg, fn string) {
	fun := c.Fun
	if ix, ok := fun.(*ast.IndexExpr); ok { // explicit type arguments
		fun = ix.X
	} else if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok || ty.declared[x.Name] || ty.s.kind(x.Name) != "package" {
		return "", ""
	}
	switch p := ty.s.importPath(x.Name); p {
	case "slices", "maps", "cmp":
		return p, sel.Sel.Name
	}
	return "", ""
}

// callsSource reports whether e calls a function of a source package.
func (ty *typer) callsSource(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(x ast.Node) bool {
		if c, ok := x.(*ast.CallExpr); ok {
			if p, _ := ty.sourcePackage(c); p != "" {
				found = true
			}
		}
		return !found
	})
	return found
}

// seqElems returns the parameter types of the yield function of an
// iterator type func(yield func(K[, V]) bool), or nil.
func seqElems(t reflect.Type) []reflect.Type {
	if t == nil || t.Kind() != reflect.Func || t.NumIn() != 1 || t.NumOut() != 0 {
		return nil
	}
	y := t.In(0)
	if y.Kind() != reflect.Func || y.NumOut() != 1 || y.Out(0).Kind() != reflect.Bool || y.NumIn() < 1 || y.NumIn() > 2 || y.IsVariadic() {
		return nil
	}
	elems := make([]reflect.Type, y.NumIn())
	for i := range elems {
		elems[i] = y.In(i)
	}
	return elems
}

// seqOf returns the iterator type func(yield func(elems...) bool).
func seqOf(elems ...reflect.Type) reflect.Type {
	return reflect.FuncOf([]reflect.Type{reflect.FuncOf(elems, []reflect.Type{boolType}, false)}, nil, false)
}

var intType = reflect.TypeOf(0)

// sourceResult returns the type of the result of the call c of a function
// of a source package (one result), computed from the types of its
// arguments as the generic signature says, or nil.
func (ty *typer) sourceResult(pkg, fn string, c *ast.CallExpr) reflect.Type {
	arg := func(i int) reflect.Type {
		if i >= len(c.Args) {
			return nil
		}
		return ty.typeOf(c.Args[i])
	}
	kind := func(t reflect.Type, k reflect.Kind) reflect.Type {
		if t != nil && t.Kind() == k {
			return t
		}
		return nil
	}
	switch pkg + "." + fn {
	case "slices.Index", "slices.IndexFunc", "slices.Compare", "slices.CompareFunc", "cmp.Compare":
		return intType
	case "slices.Contains", "slices.ContainsFunc", "slices.Equal", "slices.EqualFunc", "slices.IsSorted",
		"slices.IsSortedFunc", "maps.Equal", "maps.EqualFunc", "cmp.Less":
		return boolType
	case "slices.Clone", "slices.Compact", "slices.CompactFunc", "slices.Insert", "slices.Delete", "slices.DeleteFunc",
		"slices.Replace", "slices.Grow", "slices.Clip", "slices.Concat", "slices.Repeat", "slices.AppendSeq":
		if t := kind(arg(0), reflect.Slice); t != nil {
			return reflect.SliceOf(t.Elem()) // the functions return []E (internal/gosrc)
		}
	case "slices.Max", "slices.Min", "slices.MaxFunc", "slices.MinFunc":
		if t := kind(arg(0), reflect.Slice); t != nil {
			return t.Elem()
		}
	case "slices.All", "slices.Backward":
		if t := kind(arg(0), reflect.Slice); t != nil {
			return seqOf(intType, t.Elem())
		}
	case "slices.Values":
		if t := kind(arg(0), reflect.Slice); t != nil {
			return seqOf(t.Elem())
		}
	case "slices.Chunk":
		if t := kind(arg(0), reflect.Slice); t != nil {
			return seqOf(reflect.SliceOf(t.Elem()))
		}
	case "slices.Collect", "slices.Sorted", "slices.SortedFunc", "slices.SortedStableFunc":
		if e := seqElems(arg(0)); len(e) == 1 {
			return reflect.SliceOf(e[0])
		}
	case "maps.Clone":
		if t := kind(arg(0), reflect.Map); t != nil {
			return reflect.MapOf(t.Key(), t.Elem())
		}
	case "maps.All":
		if t := kind(arg(0), reflect.Map); t != nil {
			return seqOf(t.Key(), t.Elem())
		}
	case "maps.Keys":
		if t := kind(arg(0), reflect.Map); t != nil {
			return seqOf(t.Key())
		}
	case "maps.Values":
		if t := kind(arg(0), reflect.Map); t != nil {
			return seqOf(t.Elem())
		}
	case "maps.Collect":
		if e := seqElems(arg(0)); len(e) == 2 && e[0].Comparable() {
			return reflect.MapOf(e[0], e[1])
		}
	case "cmp.Or":
		for i := range c.Args {
			if t := arg(i); t != nil {
				return t
			}
		}
	}
	return nil
}

// importName returns the name under which the session imported the
// package of path p, or "".
func (s *Session) importName(p string) string {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	for name, q := range s.imports {
		if q == p && s.names[name] == "" {
			return name
		}
	}
	return ""
}
