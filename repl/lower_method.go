package repl

import (
	"go/ast"
	"go/types"
)

// bindMethodValues rewrites a method value x.M of a value receiver, taken
// from an addressable operand and not called at once, into a call that
// copies the receiver:
//
//	g := p.Get   ->   g := func(r P) func() int { return r.Get }(p)
//
// Go evaluates and copies the receiver when the method value is made;
// yaegi v0.16.1 binds the variable itself, so changing p afterwards changed
// what g returned (reproducer: testdata/conformance/lower_methodvalue.go).
// A receiver or method type that cannot be written in the cell is left
// alone.
func (tc *typeCheck) bindMethodValues(f *ast.File, info *types.Info) {
	called := map[ast.Expr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			called[ast.Unparen(c.Fun)] = true
		}
		return true
	})
	rewriteExprs(f, func(e ast.Expr) ast.Expr {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok || called[sel] {
			return nil
		}
		s := info.Selections[sel]
		if s == nil || s.Kind() != types.MethodVal || len(s.Index()) != 1 {
			return nil
		}
		recv := s.Recv()
		if types.IsInterface(recv) {
			return nil
		}
		var arg ast.Expr = sel.X
		if p, isPtr := recv.(*types.Pointer); isPtr {
			// p.Get of a value method copies *p, as Go does.
			recv = p.Elem()
			arg = &ast.StarExpr{Star: sel.Pos(), X: sel.X}
		} else if _, isPtr := recv.Underlying().(*types.Pointer); isPtr {
			return nil
		}
		fn, ok := s.Obj().(*types.Func)
		if !ok {
			return nil
		}
		if _, ptrRecv := fn.Type().(*types.Signature).Recv().Type().(*types.Pointer); ptrRecv {
			return nil // p.M of a pointer method takes &p, as yaegi does
		}
		pos := sel.Pos()
		rt := tc.typeExpr(recv, pos)
		mt := tc.typeExpr(info.TypeOf(sel), pos)
		if rt == nil || mt == nil {
			return nil
		}
		r := &ast.Ident{NamePos: pos, Name: "_gnnrepl_recv"}
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos,
				Params:  &ast.FieldList{List: []*ast.Field{{Names: []*ast.Ident{r}, Type: rt}}},
				Results: &ast.FieldList{List: []*ast.Field{{Type: mt}}}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{
				&ast.SelectorExpr{X: &ast.Ident{NamePos: pos, Name: r.Name}, Sel: sel.Sel}}}}, Rbrace: sel.End()},
		}
		return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{arg}, Rparen: sel.End()}
	})
}
