package repl

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"reflect"
)

// yaegi v0.16.1 does not check the number of arguments of a call to a
// method of a compiled value (sb.WriteString("a", "b") with sb a
// strings.Builder, g.NumNodes(1)): it compiles the call and panics, while
// compiling or when the call runs, with reflect's "reflect.Value.Convert:
// value of type string cannot be converted to type *strings.Builder" and no
// position (no upstream issue found; calls of package functions and of
// interpreted functions are checked). checkArity finds such calls before
// yaegi compiles the unit and reports them as the compiler does.

// checkArity returns a *CompileError for the first call in the unit n whose
// callee is a method (or a func-typed field) of a value the session can
// type (a session variable, a package's function result, a variable the
// unit defined at its top level from one) and whose number of arguments
// does not fit the callee's signature:
//
//	In[3]:1:21: too many arguments in call to sb.WriteString (have 2, want 1)
//	In[3]:1:12: not enough arguments in call to sb.WriteString (have 0, want 1)
//
// Calls it cannot type (names the unit declares anywhere but at its top
// level, f(g()) with a multi-value g, a spread f(xs...)) are left to
// yaegi. ctx bounds the evaluations that learn the types of session
// variables.
func (s *Session) checkArity(ctx context.Context, n ast.Node) error {
	shadow := declaredBelowTop(n)
	ty := &typer{s: s, ctx: ctx, env: map[string]reflect.Type{}, declared: map[string]bool{}}
	fset := s.in.FileSet()
	var found error
	check := func(x ast.Node) bool {
		if found != nil {
			return false
		}
		call, ok := x.(*ast.CallExpr)
		if !ok || call.Ellipsis.IsValid() {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || usesAny(sel.X, shadow) {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && !ty.declared[id.Name] && s.kind(id.Name) == "package" {
			return true // a package's function: yaegi checks those
		}
		if len(call.Args) == 1 {
			if _, multi := ast.Unparen(call.Args[0]).(*ast.CallExpr); multi {
				return true // f(g()) may pass several values
			}
		}
		if id := valueRoot(sel.X); id != nil && !ty.declared[id.Name] && s.kind(id.Name) == "var" {
			ty.set(id, ty.typeOf(id)) // typed once: each typing of a session variable runs a probe
		}
		// The receiver must be of a compiled named type: yaegi's types
		// (the session's own) are unnamed reflect types, whose methods
		// reflect does not know.
		recv := ty.typeOf(sel.X)
		if recv != nil && recv.Kind() == reflect.Pointer {
			recv = recv.Elem()
		}
		if recv == nil || recv.Name() == "" || recv.PkgPath() == "" {
			return true
		}
		t := ty.typeOf(sel)
		if t == nil || t.Kind() != reflect.Func {
			return true
		}
		have, want := len(call.Args), t.NumIn()
		var msg string
		var pos token.Pos
		switch {
		case !t.IsVariadic() && have > want:
			msg = fmt.Sprintf("too many arguments in call to %s (have %d, want %d)", exprString(fset, sel), have, want)
			pos = call.Args[want].Pos()
		case !t.IsVariadic() && have < want:
			msg = fmt.Sprintf("not enough arguments in call to %s (have %d, want %d)", exprString(fset, sel), have, want)
			pos = call.Rparen
		case t.IsVariadic() && have < want-1:
			msg = fmt.Sprintf("not enough arguments in call to %s (have %d, want at least %d)", exprString(fset, sel), have, want-1)
			pos = call.Rparen
		default:
			return true
		}
		p := fset.Position(pos)
		p.Filename = trimSuffix(p.Filename)
		found = &CompileError{Pos: p, Msg: msg}
		return false
	}
	var stmts []ast.Stmt
	switch n := n.(type) {
	case *ast.BlockStmt:
		stmts = n.List
	case *ast.File:
		ast.Inspect(n, check)
		return found
	}
	for _, st := range stmts {
		ast.Inspect(st, check)
		if found != nil {
			return found
		}
		// x := expr at the top level: x has expr's type in what follows.
		if as, ok := st.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == len(as.Rhs) {
			types := make([]reflect.Type, len(as.Rhs))
			for i, r := range as.Rhs {
				if !usesAny(r, shadow) {
					types[i] = ty.typeOf(r)
				}
			}
			for i, l := range as.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					ty.set(id, types[i])
				}
			}
		} else {
			forDefined(st, func(id *ast.Ident) { ty.set(id, nil) })
		}
	}
	return nil
}

// declaredBelowTop returns the names n declares other than by a define at
// the top level of a block unit: in nested blocks, function literals and
// declarations (parameters, results, receivers), var declarations, type
// and function names. A call on such a name is not checked.
func declaredBelowTop(n ast.Node) map[string]bool {
	names := map[string]bool{}
	top := map[ast.Stmt]bool{}
	if b, ok := n.(*ast.BlockStmt); ok {
		for _, st := range b.List {
			if as, ok := st.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
				top[st] = true
			}
		}
	}
	ast.Inspect(n, func(x ast.Node) bool {
		if st, ok := x.(ast.Stmt); ok && top[st] {
			for _, r := range st.(*ast.AssignStmt).Rhs {
				ast.Inspect(r, func(y ast.Node) bool { addDeclared(y, names); return true })
			}
			return false
		}
		addDeclared(x, names)
		return true
	})
	return names
}

// addDeclared adds the names the node x itself declares to names.
func addDeclared(x ast.Node, names map[string]bool) {
	add := func(id *ast.Ident) {
		if id != nil {
			names[id.Name] = true
		}
	}
	switch x := x.(type) {
	case *ast.AssignStmt:
		if x.Tok == token.DEFINE {
			for _, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					add(id)
				}
			}
		}
	case *ast.RangeStmt:
		if x.Tok == token.DEFINE {
			for _, e := range []ast.Expr{x.Key, x.Value} {
				if id, ok := e.(*ast.Ident); ok {
					add(id)
				}
			}
		}
	case *ast.ValueSpec:
		for _, id := range x.Names {
			add(id)
		}
	case *ast.TypeSpec:
		add(x.Name)
	case *ast.FuncDecl:
		add(x.Name)
	case *ast.Field:
		for _, id := range x.Names {
			add(id)
		}
	case *ast.ImportSpec:
		if x.Name != nil {
			add(x.Name)
		}
	case *ast.TypeSwitchStmt:
		if as, ok := x.Assign.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					add(id)
				}
			}
		}
	}
}

// forDefined calls f for each name the statement st declares.
func forDefined(st ast.Stmt, f func(*ast.Ident)) {
	names := map[string]bool{}
	addDeclared(st, names)
	if d, ok := st.(*ast.DeclStmt); ok {
		ast.Inspect(d, func(x ast.Node) bool { addDeclared(x, names); return true })
	}
	for name := range names {
		f(&ast.Ident{Name: name})
	}
}

// valueRoot returns the name e's value starts from (x in x.f(1).g[2]),
// or nil.
func valueRoot(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.CallExpr:
			e = x.Fun
		case *ast.IndexExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// usesAny reports whether e mentions one of names (outside selector
// members).
func usesAny(e ast.Expr, names map[string]bool) bool {
	found := false
	ast.Inspect(e, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.SelectorExpr:
			found = found || usesAny(x.X, names)
			return false
		case *ast.Ident:
			found = found || names[x.Name]
		}
		return !found
	})
	return found
}

// exprString returns e as source text.
func exprString(fset *token.FileSet, e ast.Expr) string {
	var b bytes.Buffer
	printer.Fprint(&b, fset, e)
	return b.String()
}
