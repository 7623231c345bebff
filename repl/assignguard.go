package repl

import (
	"go/ast"
	"go/token"
	"strconv"
)

// A statement that does not complete assigns nothing: in Go, `m = train(m)`
// assigns m only after train has returned, and `model := f()` declares
// nothing when f panics. yaegi v0.16.1 breaks both in the session.
//
//  1. An interrupt stops the interpreted code at its next instruction, and
//     an interrupted function returns zero values; yaegi's call writes the
//     results straight into the variables being assigned, so after Ctrl-C
//     in `m2 = train(m2, 1000)` m2 was nil (found by trying the shell as a
//     new user). guardAssigns below gives such an assignment temporaries,
//
//     m2 = train(m2, 1000)   ->   { _gnnrepl_r0 := train(m2, 1000); m2 = _gnnrepl_r0 }
//
//     so that the interrupted call fills the temporaries and the assignment,
//     the next instruction, does not run.
//  2. yaegi declares a cell's variables when it compiles the cell, so when
//     `model := nn.NewGraphSAGE(bad options)` panics at run time, model is
//     already the new variable, nil: the trained model was lost. The
//     session snapshots the package scope before each unit
//     (Session.unitSnap, atomic.go) and, when the unit's run fails (a panic
//     or an interrupt), puts back the variables declared by the statement
//     that failed and by those after it, which never ran (failedDefines);
//     the earlier statements' effects stand, as in Go.
//
// No upstream issue was found for either.

// guardAssigns rewrites, in place, the assignments under root (at any
// depth, function literals included) of the form `x, y.f = call(...)`: one
// call on the right (not a builtin whose constant result would take its
// type from x), a plain `=`, and names or field selectors of names on the
// left, whose evaluation order the rewrite cannot change.
func guardAssigns(root ast.Node) {
	n := 0
	eachStmt(root, func(st ast.Stmt) ast.Stmt {
		a, ok := st.(*ast.AssignStmt)
		if !ok || a.Tok != token.ASSIGN || len(a.Rhs) != 1 {
			return st
		}
		call, ok := ast.Unparen(a.Rhs[0]).(*ast.CallExpr)
		if !ok || constantBuiltin(call) {
			return st
		}
		blank := true
		for _, l := range a.Lhs {
			if !plainLHS(l) {
				return st
			}
			if id, ok := l.(*ast.Ident); !ok || id.Name != "_" {
				blank = false
			}
		}
		if blank {
			return st
		}
		pos := a.Pos()
		def := &ast.AssignStmt{TokPos: a.TokPos, Tok: token.DEFINE, Rhs: a.Rhs}
		set := &ast.AssignStmt{TokPos: a.TokPos, Tok: token.ASSIGN}
		for _, l := range a.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name == "_" {
				def.Lhs = append(def.Lhs, &ast.Ident{NamePos: pos, Name: "_"})
				continue
			}
			t := "_gnnrepl_r" + strconv.Itoa(n)
			n++
			def.Lhs = append(def.Lhs, &ast.Ident{NamePos: pos, Name: t})
			set.Lhs = append(set.Lhs, l)
			set.Rhs = append(set.Rhs, &ast.Ident{NamePos: pos, Name: t})
		}
		return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{def, set}, Rbrace: a.End()}
	})
}

// plainLHS reports whether e is `_`, a name, or a field selector of one
// (x.f.g): an operand whose evaluation has no effect of its own.
func plainLHS(e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return true
		case *ast.SelectorExpr:
			e = x.X
		default:
			return false
		}
	}
}

// constantBuiltin reports whether call is a call of a builtin whose result
// can be an untyped constant (its type then comes from the assignment), or
// of package unsafe.
func constantBuiltin(call *ast.CallExpr) bool {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		switch f.Name {
		case "len", "cap", "min", "max", "complex", "real", "imag":
			return true
		}
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok && x.Name == "unsafe" {
			return true
		}
	}
	return false
}

// failedDefines returns the session variables that the unit n (a statement
// block with markStmts' position marks, or a file) declares in statements
// that did not complete when its run failed with the top-level statement
// at position at (markStmts' encoding; 0: before the first) running: the
// names defined by `:=` or `var` at the top level of that statement and of
// the statements after it, or, for a file, all the variables it declares.
func failedDefines(fset *token.FileSet, n ast.Node, at int64) []string {
	var names []string
	addSpecs := func(d *ast.GenDecl) {
		if d.Tok != token.VAR {
			return
		}
		for _, sp := range d.Specs {
			if vs, ok := sp.(*ast.ValueSpec); ok {
				for _, id := range vs.Names {
					names = append(names, id.Name)
				}
			}
		}
	}
	switch n := n.(type) {
	case *ast.File:
		for _, d := range n.Decls {
			if g, ok := d.(*ast.GenDecl); ok {
				addSpecs(g)
			}
		}
	case *ast.BlockStmt:
		for _, st := range n.List {
			p := fset.Position(st.Pos())
			if at != 0 && int64(p.Line)<<20|int64(p.Column&(1<<20-1)) < at {
				continue
			}
			switch st := st.(type) {
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					for _, l := range st.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							names = append(names, id.Name)
						}
					}
				}
			case *ast.DeclStmt:
				if g, ok := st.Decl.(*ast.GenDecl); ok {
					addSpecs(g)
				}
			}
		}
	}
	return names
}
