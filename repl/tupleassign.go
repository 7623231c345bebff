package repl

import (
	"go/ast"
	"go/token"
	"strconv"
)

// yaegi v0.16.1 loses assignments in a tuple assignment whose right-hand
// side calls a compiled function:
//
//	a, b = v, math.Sqrt(4) // leaves a unchanged
//
// (a define, a, b := ..., is not affected). The session therefore rewrites
// such statements before yaegi sees them. When no right-hand expression
// mentions a variable assigned on the left, the statement becomes
// sequential assignments, which is the same program:
//
//	a = v
//	b = math.Sqrt(4)
//
// Otherwise (a, b = b, f(a)) the values are first taken into fresh
// variables by a define, literals staying in place so they keep the type
// of their target:
//
//	{ _gnnrepl_t0, _gnnrepl_t1 := b, f(a); a = _gnnrepl_t0; b = _gnnrepl_t1 }
//
// Assignments in if, for and switch headers are left alone.
func splitTupleAssigns(root ast.Node) {
	n := 0
	fix := func(st ast.Stmt) ast.Stmt {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.ASSIGN || len(as.Lhs) < 2 || len(as.Lhs) != len(as.Rhs) || !hasCall(as.Rhs) {
			return st
		}
		assigned := map[string]bool{}
		for _, l := range as.Lhs {
			if id := rootIdent(l); id != "" && id != "_" {
				assigned[id] = true
			}
		}
		dependent := false
		for _, r := range as.Rhs {
			ast.Inspect(r, func(x ast.Node) bool {
				if id, ok := x.(*ast.Ident); ok && assigned[id.Name] {
					dependent = true
				}
				return !dependent
			})
		}
		block := &ast.BlockStmt{Lbrace: as.Pos(), Rbrace: as.End()}
		if !dependent {
			for i := range as.Lhs {
				block.List = append(block.List, &ast.AssignStmt{Lhs: []ast.Expr{as.Lhs[i]}, TokPos: as.TokPos, Tok: token.ASSIGN, Rhs: []ast.Expr{as.Rhs[i]}})
			}
			return block
		}
		def := &ast.AssignStmt{TokPos: as.TokPos, Tok: token.DEFINE}
		vals := make([]ast.Expr, len(as.Rhs))
		for i, r := range as.Rhs {
			if _, lit := r.(*ast.BasicLit); lit {
				vals[i] = r
				continue
			}
			n++
			tmp := ast.NewIdent("_gnnrepl_t" + strconv.Itoa(n))
			def.Lhs, def.Rhs = append(def.Lhs, tmp), append(def.Rhs, r)
			vals[i] = ast.NewIdent(tmp.Name)
		}
		block.List = append(block.List, def)
		for i := range as.Lhs {
			block.List = append(block.List, &ast.AssignStmt{Lhs: []ast.Expr{as.Lhs[i]}, TokPos: as.TokPos, Tok: token.ASSIGN, Rhs: []ast.Expr{vals[i]}})
		}
		return block
	}
	eachStmt(root, fix)
}

func hasCall(es []ast.Expr) bool {
	found := false
	for _, e := range es {
		ast.Inspect(e, func(x ast.Node) bool {
			if _, ok := x.(*ast.CallExpr); ok {
				found = true
			}
			return !found
		})
	}
	return found
}

// rootIdent returns the variable an assignable expression writes through:
// a for a, a.f, a[i], *a.
func rootIdent(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return ""
		}
	}
}
