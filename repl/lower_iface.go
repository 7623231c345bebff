package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sync/atomic"
)

// A value of a type a cell declares reaches compiled code as an interface
// only through a variable: yaegi v0.16.1 wraps it (its interface wrapper
// types, builtins' _nn_Module) when it is assigned to an interface variable
// or passed from a variable, but not when it is the value of a compiled
// struct literal's interface field or the result of a call passed straight
// to an interface parameter:
//
//	checkpoint.State{Model: m}   // reflect.Set: value of type *struct {...} is not assignable to type nn.Module
//	count(mk())                  // the same, for func count(nn.Module)
//	fmt.Println(mk())            // printed &{3}, not the String() of *T
//
// (interp/run.go doCompositeBinStruct sets the fields with reflect.Value.Set;
// reproducers: TestUserModelStateLiteral, TestInterfaceArguments.) The
// passes below bind such values to variables first.

var ifaceTemp atomic.Int64

// needsWrap reports whether a value of static type t given where an
// interface of type to is expected needs a variable first: to is an
// interface, t is not, and t's method set comes from a cell (a type of
// package main, or a pointer to one).
func needsWrap(t, to types.Type) bool {
	if t == nil || to == nil || !types.IsInterface(to) || types.IsInterface(t) {
		return false
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "main" && n.NumMethods() > 0
}

// wrapIfaceValues rewrites, in every statement list of f, the statements
// that hold a call whose argument for an interface parameter is itself a
// call of such a type (count(mk()) becomes { _gnnrepl_iN := mk();
// count(_gnnrepl_iN) }), and the compiled struct literals with such values
// in interface fields (T{Model: m} becomes a function literal that sets the
// field on a variable). A statement whose earlier arguments are not plain
// names, literals or selectors is left alone (the binding would change the
// order of evaluation).
func wrapIfaceValues(f *ast.File, info *types.Info, _ bool) {
	addrOf := map[*ast.CompositeLit]bool{} // rewritten with their &
	ast.Inspect(f, func(n ast.Node) bool {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
			if lit, ok := u.X.(*ast.CompositeLit); ok {
				addrOf[lit] = true
			}
		}
		return true
	})
	rewriteExprs(f, func(e ast.Expr) ast.Expr {
		switch e := e.(type) {
		case *ast.CompositeLit:
			if addrOf[e] {
				return nil
			}
			return wrapLiteralFields(e, false, info)
		case *ast.UnaryExpr:
			if lit, ok := e.X.(*ast.CompositeLit); ok && e.Op == token.AND {
				return wrapLiteralFields(lit, true, info)
			}
		}
		return nil
	})
	rewriteStmts(f, func(st ast.Stmt) ast.Stmt {
		switch st.(type) {
		case *ast.ExprStmt, *ast.ReturnStmt, *ast.GoStmt, *ast.DeferStmt:
		case *ast.AssignStmt:
			if st.(*ast.AssignStmt).Tok == token.DEFINE {
				return nil // its names must stay in the enclosing scope
			}
		default:
			return nil
		}
		if _, isGo := st.(*ast.GoStmt); isGo {
			return nil
		}
		if _, isDefer := st.(*ast.DeferStmt); isDefer {
			return nil
		}
		var binds []ast.Stmt
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				sig, ok := info.TypeOf(n.Fun).(*types.Signature)
				if !ok {
					return true
				}
				for i, a := range n.Args {
					call, isCall := ast.Unparen(a).(*ast.CallExpr)
					if !isCall || info.Types[call.Fun].IsType() {
						continue
					}
					if !needsWrap(info.TypeOf(a), paramAt(sig, i, n.Ellipsis.IsValid())) || !plainArgs(n.Args[:i]) {
						continue
					}
					name := fmt.Sprintf("_gnnrepl_i%d", ifaceTemp.Add(1))
					id := &ast.Ident{NamePos: a.Pos(), Name: name}
					binds = append(binds, &ast.AssignStmt{Lhs: []ast.Expr{id}, TokPos: a.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{a}})
					n.Args[i] = &ast.Ident{NamePos: a.Pos(), Name: name}
				}
			}
			return true
		})
		if len(binds) == 0 {
			return nil
		}
		return &ast.BlockStmt{Lbrace: st.Pos(), List: append(binds, st), Rbrace: st.End()}
	})
}

// paramAt is the type of the parameter that argument i of a call of sig
// binds to (the element type for a variadic call without ...).
func paramAt(sig *types.Signature, i int, ellipsis bool) types.Type {
	n := sig.Params().Len()
	if sig.Variadic() && i >= n-1 {
		t := sig.Params().At(n - 1).Type()
		if ellipsis {
			return t
		}
		if s, ok := t.(*types.Slice); ok {
			return s.Elem()
		}
		return nil
	}
	if i < n {
		return sig.Params().At(i).Type()
	}
	return nil
}

// plainArgs reports whether evaluating es has no effects another
// argument's evaluation could observe.
func plainArgs(es []ast.Expr) bool {
	for _, e := range es {
		ok := true
		ast.Inspect(e, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.CallExpr, *ast.UnaryExpr, *ast.FuncLit:
				ok = false
			}
			return ok
		})
		if !ok {
			return false
		}
	}
	return true
}

// wrapLiteralFields returns the compiled struct literal lit (T{F: v}, or
// &T{F: v} when addr) rewritten when an interface field F is given a value
// of a cell's type: the fields are set on a variable in a function literal
// called at once. It returns nil when lit needs no rewrite.
func wrapLiteralFields(lit *ast.CompositeLit, addr bool, info *types.Info) ast.Expr {
	t := info.TypeOf(lit)
	if t == nil {
		return nil
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() == "main" {
		return nil
	}
	st, ok := n.Underlying().(*types.Struct)
	if !ok || lit.Type == nil {
		return nil
	}
	var late []*ast.KeyValueExpr
	keep := lit.Elts[:0:0]
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return nil // positional fields: left alone
		}
		key, _ := kv.Key.(*ast.Ident)
		var ft types.Type
		for i := 0; key != nil && i < st.NumFields(); i++ {
			if st.Field(i).Name() == key.Name {
				ft = st.Field(i).Type()
			}
		}
		if key != nil && needsWrap(info.TypeOf(kv.Value), ft) {
			late = append(late, kv)
		} else {
			keep = append(keep, kv)
		}
	}
	if len(late) == 0 {
		return nil
	}
	pos := lit.Pos()
	v := &ast.Ident{NamePos: pos, Name: fmt.Sprintf("_gnnrepl_i%d", ifaceTemp.Add(1))}
	var init ast.Expr = &ast.CompositeLit{Type: lit.Type, Lbrace: lit.Lbrace, Elts: keep, Rbrace: lit.Rbrace}
	var result ast.Expr = lit.Type
	if addr {
		init = &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: init}
		result = &ast.StarExpr{Star: pos, X: lit.Type}
	}
	body := []ast.Stmt{&ast.AssignStmt{Lhs: []ast.Expr{v}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{init}}}
	for _, kv := range late {
		// A temporary of the value's own type first: yaegi wraps a variable.
		tmp := &ast.Ident{NamePos: kv.Pos(), Name: fmt.Sprintf("_gnnrepl_i%d", ifaceTemp.Add(1))}
		body = append(body,
			&ast.AssignStmt{Lhs: []ast.Expr{tmp}, TokPos: kv.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{kv.Value}},
			&ast.AssignStmt{Lhs: []ast.Expr{&ast.SelectorExpr{X: &ast.Ident{NamePos: pos, Name: v.Name}, Sel: kv.Key.(*ast.Ident)}},
				TokPos: kv.Pos(), Tok: token.ASSIGN, Rhs: []ast.Expr{&ast.Ident{NamePos: kv.Pos(), Name: tmp.Name}}})
	}
	body = append(body, &ast.ReturnStmt{Return: pos, Results: []ast.Expr{&ast.Ident{NamePos: pos, Name: v.Name}}})
	fn := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}, Results: &ast.FieldList{List: []*ast.Field{{Type: result}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: body, Rbrace: lit.End()},
	}
	return &ast.CallExpr{Fun: fn, Lparen: pos, Rparen: lit.End()}
}
