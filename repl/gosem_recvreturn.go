package repl

import (
	"go/ast"
	"go/token"
	"strconv"
)

// yaegi v0.16.1 panics on a return statement whose result is a channel
// receive, `return <-ch` ("reflect.Value.Set using unaddressable value",
// https://github.com/traefik/yaegi/issues/1725, open). receiveReturns
// receives into a temporary first, which yaegi runs:
//
//	return x, <-ch   ->   { _gnnrepl_recv0 := <-ch; return x, _gnnrepl_recv0 }
//
// It rewrites a return only when its other results make no call and no
// receive, so that receiving first changes no order of effects.
func receiveReturns(root ast.Node) {
	n := 0
	eachStmt(root, func(st ast.Stmt) ast.Stmt {
		r, ok := st.(*ast.ReturnStmt)
		if !ok {
			return st
		}
		recv := false
		for _, e := range r.Results {
			if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				recv = true
			} else if !callFree(e) {
				return st
			}
		}
		if !recv {
			return st
		}
		pos := r.Pos()
		block := &ast.BlockStmt{Lbrace: pos, Rbrace: r.End()}
		ret := &ast.ReturnStmt{Return: r.Return}
		for _, e := range r.Results {
			if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				tmp := &ast.Ident{NamePos: pos, Name: "_gnnrepl_recv" + strconv.Itoa(n)}
				n++
				block.List = append(block.List, &ast.AssignStmt{Lhs: []ast.Expr{tmp}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{e}})
				e = &ast.Ident{NamePos: pos, Name: tmp.Name}
			}
			ret.Results = append(ret.Results, e)
		}
		block.List = append(block.List, ret)
		return block
	})
}

// callFree reports whether e contains no call (or conversion) and no
// channel receive.
func callFree(e ast.Expr) bool {
	free := true
	ast.Inspect(e, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.CallExpr, *ast.FuncLit:
			free = false
		case *ast.UnaryExpr:
			if x.Op == token.ARROW {
				free = false
			}
		}
		return free
	})
	return free
}
