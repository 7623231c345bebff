package repl

import (
	"fmt"
	"go/ast"
	"go/token"
)

// rewriteMethodExprs replaces, under root, the method expressions T.M and
// (*T).M of the session's types (declared in the unit or by the session,
// M declared on T itself, in the unit or the session) by the function
// literal they mean (https://go.dev/ref/spec#Method_expressions):
//
//	N.Add   =>   func(_gnnrepl_recv N, _gnnrepl_p0 int) int { return _gnnrepl_recv.Add(_gnnrepl_p0) }
//
// yaegi v0.16.1 gives a method expression the type of the method value
// (the receiver is not a parameter), so that calling it with its receiver
// panics with "too many arguments" (no upstream issue found). T.M of a
// pointer method (not in T's method set) and methods of generic types are
// left alone.
func (s *Session) rewriteMethodExprs(root ast.Node) {
	unitTypes, _ := unitTypesAndMethods(root)
	decls := unitMethodDecls(root)
	shadowed := map[string]bool{} // names the unit declares other than as types
	ast.Inspect(root, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.ValueSpec:
			for _, id := range x.Names {
				shadowed[id.Name] = true
			}
		case *ast.Field:
			for _, id := range x.Names {
				shadowed[id.Name] = true
			}
		case *ast.FuncDecl:
			if x.Recv == nil {
				shadowed[x.Name.Name] = true
			}
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						shadowed[id.Name] = true
					}
				}
			}
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok {
						shadowed[id.Name] = true
					}
				}
			}
		}
		return true
	})
	replaceExprs(root, func(e ast.Expr) ast.Expr {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return e
		}
		x, ptr := sel.X, false
		if p, ok := x.(*ast.ParenExpr); ok {
			if st, ok := p.X.(*ast.StarExpr); ok {
				x, ptr = st.X, true
			}
		}
		t, ok := x.(*ast.Ident)
		if !ok || shadowed[t.Name] || !unitTypes[t.Name] && s.kind(t.Name) != "type" {
			return e
		}
		fd := decls[t.Name+"."+sel.Sel.Name]
		if fd == nil {
			fd = s.sessionMethod(t.Name, sel.Sel.Name)
		}
		if fd == nil || len(fd.Recv.List) != 1 {
			return e
		}
		rt := fd.Recv.List[0].Type
		_, ptrRecv := rt.(*ast.StarExpr)
		if st, ok := rt.(*ast.StarExpr); ok {
			rt = st.X
		}
		if _, ok := rt.(*ast.Ident); !ok || ptrRecv && !ptr {
			return e
		}
		return methodExprLit(sel, t.Name, ptr, fd.Type)
	})
}

// unitMethodDecls returns the unit's method declarations by "T.M".
func unitMethodDecls(root ast.Node) map[string]*ast.FuncDecl {
	m := map[string]*ast.FuncDecl{}
	if f, ok := root.(*ast.File); ok {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) == 1 {
				m[recvName(fd.Recv.List[0].Type)+"."+fd.Name.Name] = fd
			}
		}
	}
	return m
}

// methodExprLit returns the function literal of the method expression
// sel, of type tname (or *tname when ptr) and method signature sig.
func methodExprLit(sel *ast.SelectorExpr, tname string, ptr bool, sig *ast.FuncType) *ast.FuncLit {
	pos := sel.Pos()
	id := func(name string) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }
	var recvType ast.Expr = id(tname)
	if ptr {
		recvType = &ast.StarExpr{Star: pos, X: recvType}
	}
	params := &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{id("_gnnrepl_recv")}, Type: recvType}}}
	call := &ast.CallExpr{Fun: &ast.SelectorExpr{X: id("_gnnrepl_recv"), Sel: id(sel.Sel.Name)}, Lparen: pos, Rparen: pos}
	k := 0
	for _, f := range sig.Params.List {
		n := max(len(f.Names), 1)
		for range n {
			name := fmt.Sprintf("_gnnrepl_p%d", k)
			k++
			params.List = append(params.List, &ast.Field{Names: []*ast.Ident{id(name)}, Type: cloneAt(f.Type, pos).(ast.Expr)})
			call.Args = append(call.Args, id(name))
			if _, ok := f.Type.(*ast.Ellipsis); ok {
				call.Ellipsis = pos
			}
		}
	}
	var results *ast.FieldList
	if sig.Results != nil && len(sig.Results.List) > 0 {
		results = &ast.FieldList{Opening: pos, Closing: pos}
		for _, f := range sig.Results.List {
			for range max(len(f.Names), 1) {
				results.List = append(results.List, &ast.Field{Type: cloneAt(f.Type, pos).(ast.Expr)})
			}
		}
	}
	var body ast.Stmt = &ast.ExprStmt{X: call}
	if results != nil {
		body = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}
	}
	return &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: params, Results: results},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{body}, Rbrace: sel.End()},
	}
}
