package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sync/atomic"
)

var selectCount atomic.Int64

// selectContinues rewrites a continue that ends a clause of a select
// statement (of the loop around the select) into a flag, and the continue
// after the select:
//
//	select { case <-c: n++; continue }   ->   _gnnrepl_cN := false
//	                                          select { case <-c: n++; _gnnrepl_cN = true }
//	                                          if _gnnrepl_cN { continue }
//
// yaegi v0.16.1 left the loop instead (for { select { case <-c: continue;
// default: }; break } counted 1 of 5 values; found by a new user,
// TestSelectContinue). A continue elsewhere in the clause is left alone (a
// break out of the select leaves the loop in yaegi as well).
func selectContinues(f *ast.File, _ *types.Info, _ bool) {
	rewriteStmts(f, func(st ast.Stmt) ast.Stmt {
		sel, ok := st.(*ast.SelectStmt)
		if !ok {
			return nil
		}
		var flag *ast.Ident
		var label *ast.Ident
		pos := sel.Pos()
		for _, cl := range sel.Body.List {
			cc := cl.(*ast.CommClause)
			// Only a continue that ends the clause: a break out of the
			// select leaves the loop in yaegi too.
			if len(cc.Body) == 0 {
				continue
			}
			last, ok := cc.Body[len(cc.Body)-1].(*ast.BranchStmt)
			if !ok || last.Tok != token.CONTINUE {
				continue
			}
			selectContinueStmts(cc.Body[len(cc.Body)-1:], func(c *ast.BranchStmt) ast.Stmt {
				if flag == nil {
					flag = &ast.Ident{NamePos: pos, Name: fmt.Sprintf("_gnnrepl_c%d", selectCount.Add(1))}
				}
				if c.Label != nil {
					if label != nil && label.Name != c.Label.Name {
						return nil // two targets: left alone
					}
					label = c.Label
				} else if label != nil {
					return nil
				}
				return &ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{NamePos: c.Pos(), Name: flag.Name}}, TokPos: c.Pos(), Tok: token.ASSIGN, Rhs: []ast.Expr{&ast.Ident{NamePos: c.Pos(), Name: "true"}}}
			})
		}
		if flag == nil {
			return nil
		}
		cont := &ast.BranchStmt{TokPos: sel.End(), Tok: token.CONTINUE, Label: label}
		return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{flag}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.Ident{NamePos: pos, Name: "false"}}},
			sel,
			&ast.IfStmt{If: sel.End(), Cond: &ast.Ident{NamePos: sel.End(), Name: flag.Name}, Body: &ast.BlockStmt{Lbrace: sel.End(), List: []ast.Stmt{cont}, Rbrace: sel.End()}},
		}, Rbrace: sel.End()}
	})
}

// selectContinueStmts replaces the continue statements of list that belong to
// the loop outside the select (not inside a nested loop, switch, select or
// function literal) by repl's statement, when it gives one.
func selectContinueStmts(list []ast.Stmt, repl func(*ast.BranchStmt) ast.Stmt) {
	for i, st := range list {
		switch s := st.(type) {
		case *ast.BranchStmt:
			if s.Tok == token.CONTINUE {
				if r := repl(s); r != nil {
					list[i] = r
				}
			}
		case *ast.BlockStmt:
			selectContinueStmts(s.List, repl)
		case *ast.IfStmt:
			selectContinueStmts(s.Body.List, repl)
			switch e := s.Else.(type) {
			case *ast.BlockStmt:
				selectContinueStmts(e.List, repl)
			case *ast.IfStmt:
				selectContinueStmts([]ast.Stmt{e}, repl)
			}
		case *ast.LabeledStmt:
			selectContinueStmts([]ast.Stmt{s.Stmt}, repl)
		}
	}
}
