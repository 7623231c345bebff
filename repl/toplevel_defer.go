package repl

import (
	"go/ast"
	"go/token"
)

// loopDeferError returns a *CompileError for a defer statement inside a
// for or range loop at the top level of a cell (outside any function
// literal), or nil. yaegi v0.16.1 runs such a loop forever: its variable
// does not advance and the deferred calls pile up until an interrupt (no
// upstream issue found). In compiled Go the calls would wait for main to
// return, which a session never does; the error says to put the loop in a
// function, where defer means what it says.
func loopDeferError(fset *token.FileSet, body *ast.BlockStmt) error {
	var found *CompileError
	var visit func(n ast.Node, inLoop bool) bool
	visit = func(n ast.Node, inLoop bool) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt:
			if !inLoop {
				ast.Inspect(n, func(x ast.Node) bool {
					if x == n {
						return true
					}
					return found == nil && visit(x, true)
				})
				return false
			}
		case *ast.DeferStmt:
			if inLoop && found == nil {
				p := fset.Position(n.Defer)
				p.Filename = trimSuffix(p.Filename)
				found = &CompileError{Pos: p, Msg: "defer inside a loop at the top level of a cell is not supported (the calls would wait for the session to end); put the loop in a function, func() { ... }()"}
			}
			return false
		}
		return found == nil
	}
	for _, st := range body.List {
		ast.Inspect(st, func(x ast.Node) bool { return visit(x, false) })
		if found != nil {
			return found
		}
	}
	return nil
}
