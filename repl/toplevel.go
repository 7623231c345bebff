package repl

import (
	"go/ast"
	"go/token"
)

// yaegi v0.16.1 compiles the statements at the top level of a cell (outside
// any function) differently from statements in a function body, and gets
// some of them wrong.
//
// 1. A tuple define in a block nested in a top-level statement,
//
//	if ok { a, err := f(); ... }     // also v, ok := m[k], x.(T), <-ch; var a, b = f()
//	for ... { a, err := f(); ... }   // and in switch and select clauses, and plain blocks
//	switch v := x.(type) { ... }     // a type switch that binds a variable: the same bug
//
// fails with "undefined: a" (yaegi leaves such defines to a pass that skips
// nested blocks). wrapTupleBlocks turns such a top-level statement into a
// function literal called at once, where yaegi compiles it correctly:
//
//	func() { if ok { a, err := f(); ... } }()
//
// which is the same program unless the statement contains return, goto or
// defer; those statements are left alone. Any other variable declared in
// such a statement (x := 1 in a block, for i := ..., if v := ...; ...)
// shadowing a session variable assigns the session variable instead of
// declaring a new one, so every top-level statement that declares a
// variable is wrapped (see gosem.go).
//
// 2. and 3. A top-level define whose right side indexes a compiled slice
// or map (p := model.Parameters()[0]: "constant definition loop") and a
// comma-ok define (v, ok := m[k]: "nil type") are declared with their exact
// types by the front end (defineVars in lower_define.go).

// wrapTupleBlocks rewrites the top-level statements of list described in
// point 1 above.
func wrapTupleBlocks(list []ast.Stmt) {
	for i, st := range list {
		switch st.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt,
			*ast.SelectStmt, *ast.BlockStmt, *ast.LabeledStmt:
		default:
			continue
		}
		if !needsFuncScope(st) {
			continue
		}
		pos, end := st.Pos(), st.End()
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{st}, Rbrace: end},
		}
		list[i] = &ast.ExprStmt{X: &ast.CallExpr{Fun: lit, Lparen: end, Rparen: end}}
	}
}

// needsFuncScope reports whether st declares a variable outside function
// literals (a define or var in a nested block or in a statement's header,
// a binding type switch: point 1 above, and the shadowing of gosem.go), and
// holds no return, goto or defer (whose meaning a function literal would
// change).
func needsFuncScope(st ast.Stmt) bool {
	found, unsafe := false, false
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt, *ast.DeferStmt:
			unsafe = true
		case *ast.BranchStmt:
			if n.Tok == token.GOTO {
				unsafe = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				found = true
			}
		case *ast.ValueSpec:
			found = true
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				found = true
			}
		}
		return !unsafe
	})
	return found && !unsafe
}

var universe = map[string]bool{"true": true, "false": true, "nil": true, "iota": true, "_": true}
