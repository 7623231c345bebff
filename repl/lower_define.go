package repl

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
)

// defineVars declares the variables of a top-level tuple define of a
// statement unit with their exact types before it, and makes the define an
// assignment:
//
//	v, err := strconv.Atoi("7")   ->   var v int; var err error; v, err = strconv.Atoi("7")
//
// yaegi v0.16.1 gives the variables of such a define slots that a function
// declared by a cell does not find when it is called from another function
// or a loop: reading err there panicked with "reflect: call of
// reflect.Value.Method on zero Value" or a nil dereference (reproducer:
// TestTopLevelTupleDefineInFunctions). Declared with var, they are the
// session's variables. A define whose types cannot all be written in the
// cell (an unexported type of a package, a type local to a function) is
// left as it is.
//
// Every top-level define is declared so, which also gives yaegi the type of
// an index of a compiled slice or map (p := model.Parameters()[0] failed
// with "constant definition loop", x := rows[2].Field with a nil
// dereference; a comma-ok define v, ok := m[k] with "nil type"). When the
// type of such a define cannot be written, the cell is refused with a
// message that says what to write instead.
func (tc *typeCheck) defineVars(fset *token.FileSet, f *ast.File, info *types.Info) error {
	fd, ok := f.Decls[len(f.Decls)-1].(*ast.FuncDecl)
	if !ok || fd.Name.Name != "main" || fd.Body == nil {
		return nil
	}
	var out []ast.Stmt
	for _, st := range fd.Body.List {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE {
			out = append(out, st)
			continue
		}
		var decls []ast.Stmt
		for _, l := range as.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || id.Name == "_" {
				continue
			}
			obj := info.Defs[id]
			if obj == nil {
				continue // assigned, not declared, by the define
			}
			te := tc.typeExpr(obj.Type(), id.Pos())
			if te == nil {
				if err := unwritable(fset, as, id, obj.Type()); err != nil {
					return err
				}
				decls = nil
				break
			}
			decls = append(decls, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: as.Pos(), Tok: token.VAR,
				Specs: []ast.Spec{&ast.ValueSpec{Names: []*ast.Ident{{NamePos: id.Pos(), Name: id.Name}}, Type: te}}}})
		}
		if len(decls) == 0 {
			out = append(out, st)
			continue
		}
		as.Tok = token.ASSIGN
		out = append(out, decls...)
		out = append(out, splitParallel(as)...)
	}
	fd.Body.List = out
	return nil
}

// unwritable is the error for the define as of id, whose type t cannot be
// written in the cell, when yaegi cannot compile the define as it is: its
// right side indexes something (or is a comma-ok form); otherwise nil.
func unwritable(fset *token.FileSet, as *ast.AssignStmt, id *ast.Ident, t types.Type) error {
	index := false
	for _, r := range as.Rhs {
		ast.Inspect(r, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.IndexExpr, *ast.TypeAssertExpr:
				index = true
			case *ast.UnaryExpr:
				index = index || n.(*ast.UnaryExpr).Op == token.ARROW
			}
			return !index
		})
	}
	if !index {
		return nil
	}
	p := fset.Position(id.Pos())
	p.Filename = trimSuffix(p.Filename)
	name := id.Name
	return &CompileError{Pos: p, Msg: fmt.Sprintf("the interpreter (yaegi v0.16.1) cannot infer the type of %s at the top level of a cell "+
		"(an index of a compiled slice or map, or a field or method of one), and its type %s cannot be written in a cell; "+
		"keep the collection in a variable and declare %s from it (`xs := ...` then `var %s = xs[i:]`), or put the code in a function",
		name, types.TypeString(t, func(p *types.Package) string { return p.Name() }), name, name)}
}

// splitParallel turns a, b = x, y into a = x; b = y when no right side
// mentions a name of the left: yaegi v0.16.1 left the pointer of
// p, q = pt{1}, &pt{2} nil for functions that read q (reproducer:
// TestTopLevelTupleDefineInFunctions).
func splitParallel(as *ast.AssignStmt) []ast.Stmt {
	if len(as.Lhs) != len(as.Rhs) {
		return []ast.Stmt{as}
	}
	lhs := map[string]bool{}
	for _, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok {
			lhs[id.Name] = true
		} else {
			return []ast.Stmt{as}
		}
	}
	for _, r := range as.Rhs {
		mentions := false
		ast.Inspect(r, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && lhs[id.Name] {
				mentions = true
			}
			return !mentions
		})
		if mentions {
			return []ast.Stmt{as}
		}
	}
	out := make([]ast.Stmt, len(as.Lhs))
	for i := range as.Lhs {
		out[i] = &ast.AssignStmt{Lhs: as.Lhs[i : i+1], TokPos: as.TokPos, Tok: token.ASSIGN, Rhs: as.Rhs[i : i+1]}
	}
	return out
}

// typeExpr is the type t written as an expression the cell can compile,
// with the packages named as the session imports them, or nil when t
// cannot be written so.
func (tc *typeCheck) typeExpr(t types.Type, pos token.Pos) ast.Expr {
	return tc.writeType(t, pos, false)
}

// typeExprLocal is typeExpr for a position inside the function where t's
// local types and type parameters are declared (a range statement's yield
// function): those are written by name.
func (tc *typeCheck) typeExprLocal(t types.Type, pos token.Pos) ast.Expr {
	return tc.writeType(t, pos, true)
}

func (tc *typeCheck) writeType(t types.Type, pos token.Pos, local bool) ast.Expr {
	sc := tc.pkg.Scope()
	names := map[string]string{} // import path -> name in the session
	for _, n := range sc.Names() {
		if pn, ok := sc.Lookup(n).(*types.PkgName); ok {
			names[pn.Imported().Path()] = n
		}
	}
	ok := true
	var visit func(t types.Type)
	visit = func(t types.Type) {
		switch t := t.(type) {
		case *types.Named:
			o := t.Obj()
			switch {
			case o.Pkg() == nil: // error
			case o.Pkg() == tc.pkg:
				if sc.Lookup(o.Name()) != o && !(local && o.Parent() != sc && o.Parent() != nil) {
					ok = false // a local type, or one declared again since
				}
			case !o.Exported() || names[o.Pkg().Path()] == "":
				ok = false
			}
			if args := t.TypeArgs(); args != nil {
				for i := 0; i < args.Len(); i++ {
					visit(args.At(i))
				}
			}
		case *types.Alias:
			visit(types.Unalias(t))
		case *types.Pointer:
			visit(t.Elem())
		case *types.Slice:
			visit(t.Elem())
		case *types.Array:
			visit(t.Elem())
		case *types.Map:
			visit(t.Key())
			visit(t.Elem())
		case *types.Chan:
			visit(t.Elem())
		case *types.Signature:
			for i := 0; i < t.Params().Len(); i++ {
				visit(t.Params().At(i).Type())
			}
			for i := 0; i < t.Results().Len(); i++ {
				visit(t.Results().At(i).Type())
			}
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				if !t.Field(i).Exported() && t.Field(i).Pkg() != tc.pkg {
					ok = false
				}
				visit(t.Field(i).Type())
			}
		case *types.Interface:
			for i := 0; i < t.NumMethods(); i++ {
				if !t.Method(i).Exported() && t.Method(i).Pkg() != tc.pkg {
					ok = false
				}
				visit(t.Method(i).Type())
			}
		case *types.Basic:
			if t.Info()&types.IsUntyped != 0 || t.Kind() == types.UnsafePointer {
				ok = false
			}
		case *types.TypeParam:
			ok = ok && local
		case *types.Tuple:
			ok = false
		}
	}
	visit(t)
	if !ok {
		return nil
	}
	s := types.TypeString(t, func(p *types.Package) string {
		if p == tc.pkg {
			return ""
		}
		return names[p.Path()]
	})
	e, err := parser.ParseExprFrom(token.NewFileSet(), "", s, 0)
	if err != nil {
		return nil
	}
	setPos(e, pos)
	return e
}

// setPos gives every node of e the position pos (a parsed type expression
// has positions of its own file set).
func setPos(e ast.Expr, pos token.Pos) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			n.NamePos = pos
		case *ast.StarExpr:
			n.Star = pos
		case *ast.ArrayType:
			n.Lbrack = pos
		case *ast.MapType:
			n.Map = pos
		case *ast.ChanType:
			n.Begin, n.Arrow = pos, token.NoPos
		case *ast.FuncType:
			n.Func = pos
		case *ast.FieldList:
			n.Opening, n.Closing = pos, pos
		case *ast.StructType:
			n.Struct = pos
		case *ast.InterfaceType:
			n.Interface = pos
		case *ast.IndexExpr:
			n.Lbrack, n.Rbrack = pos, pos
		case *ast.IndexListExpr:
			n.Lbrack, n.Rbrack = pos, pos
		case *ast.SelectorExpr:
		case *ast.BasicLit:
			n.ValuePos = pos
		case *ast.Ellipsis:
			n.Ellipsis = pos
		}
		return true
	})
}
