package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
)

// A panic in a goroutine kills the process, and with it the shell or the
// Jupyter kernel. The session therefore rewrites every go statement of a
// cell,
//
//	go F(A, B)
//
// into (F and the arguments are evaluated before the goroutine starts, as
// the go statement does)
//
//	{
//		_gnnrepl_f, _gnnrepl_a0, _gnnrepl_e := F, A, _gnnreplrt.GoEpoch()
//		go func() {
//			if !_gnnreplrt.GoBegin(_gnnrepl_e) { return }
//			defer _gnnreplrt.GoEnd()
//			defer func() {
//				if r := recover(); r != nil { _gnnreplrt.GoPanic(r, "In[3]:4:2") }
//			}()
//			_gnnrepl_f(_gnnrepl_a0, B)
//		}()
//	}
//
// where B is a literal or a constant kept in place (an untyped constant must
// keep its untyped type), and GoPanic (Session.goPanic) makes the panic the
// error of the running cell, which it stops, or of the next cell when none
// runs; the string is the go statement's position. Goroutines started by
// compiled code are not covered. (yaegi runs a go statement as a plain Go
// goroutine with no recover of its own, so an interpreted goroutine's
// panic ends the process; no traefik/yaegi issue or option covers it as
// of v0.16.1. lgo, a Jupyter kernel for Go, met the same and injects a
// recover the same way: yunabe/lgo#5.) GoBegin and GoEnd, compiled (a
// deferred compiled call runs also when an interrupt stops the goroutine),
// count the cell goroutines alive: after an interrupt, the run id is put
// back only when none is (see stopper.revive). GoEpoch is the number of
// stops when the go statement ran; GoBegin refuses to start a goroutine
// that a stop since then should have stopped before its first step, so
// that a run id put back cannot wake it.

const (
	rtPath = "gnnreplrt"  // the session's runtime package
	rtName = "_gnnreplrt" // its import name in every cell
	rtKey  = rtPath + "/" + rtPath
)

// guardGoStmts rewrites the go statements under root.
func (s *Session) guardGoStmts(root ast.Node) {
	made := map[*ast.GoStmt]bool{}
	n := 0
	wrap := func(st ast.Stmt) ast.Stmt {
		g, ok := st.(*ast.GoStmt)
		if !ok || made[g] {
			return st
		}
		n++
		return s.wrapGo(g, n, made)
	}
	eachStmt(root, wrap)
}

func (s *Session) wrapGo(g *ast.GoStmt, n int, made map[*ast.GoStmt]bool) ast.Stmt {
	pos := g.Go
	where := cleanNames(s.in.FileSet().Position(pos).String())
	id := func(name string) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }
	var lhs, rhs []ast.Expr
	bind := func(e ast.Expr, name string) ast.Expr {
		if s.inPlace(e) {
			return e
		}
		lhs, rhs = append(lhs, id(name)), append(rhs, e)
		return id(name)
	}
	call := g.Call
	prefix := "_gnnrepl_g" + strconv.Itoa(n)
	fun := call.Fun
	if !isBuiltinCall(fun) {
		fun = bind(fun, prefix+"f")
	}
	args := make([]ast.Expr, len(call.Args))
	for i, a := range call.Args {
		args[i] = bind(a, fmt.Sprintf("%sa%d", prefix, i))
	}
	noParams := func() *ast.FuncType {
		return &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}}
	}
	recovered := &ast.IfStmt{
		If:   pos,
		Init: &ast.AssignStmt{Lhs: []ast.Expr{id("r")}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.CallExpr{Fun: id("recover"), Lparen: pos, Rparen: pos}}},
		Cond: &ast.BinaryExpr{X: id("r"), OpPos: pos, Op: token.NEQ, Y: id("nil")},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: &ast.CallExpr{
			Fun: &ast.SelectorExpr{X: id(rtName), Sel: id("GoPanic")}, Lparen: pos, Rparen: pos, Args: []ast.Expr{id("r"), &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(where)}},
		}}}},
	}
	deferred := &ast.DeferStmt{Defer: pos, Call: &ast.CallExpr{
		Fun: &ast.FuncLit{Type: noParams(), Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{recovered}}}, Lparen: pos, Rparen: pos,
	}}
	inner := &ast.ExprStmt{X: &ast.CallExpr{Fun: fun, Lparen: call.Lparen, Args: args, Ellipsis: call.Ellipsis, Rparen: call.Rparen}}
	rt := func(name string, args ...ast.Expr) *ast.CallExpr {
		return &ast.CallExpr{Fun: &ast.SelectorExpr{X: id(rtName), Sel: id(name)}, Lparen: pos, Args: args, Rparen: pos}
	}
	epoch := prefix + "e"
	lhs, rhs = append(lhs, id(epoch)), append(rhs, rt("GoEpoch"))
	begin := &ast.IfStmt{If: pos, Cond: &ast.UnaryExpr{OpPos: pos, Op: token.NOT, X: rt("GoBegin", id(epoch))},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos}}}}
	ended := &ast.DeferStmt{Defer: pos, Call: rt("GoEnd")}
	goSt := &ast.GoStmt{Go: pos, Call: &ast.CallExpr{
		Fun: &ast.FuncLit{Type: noParams(), Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{begin, ended, deferred, inner}}}, Lparen: pos, Rparen: pos,
	}}
	made[goSt] = true
	block := &ast.BlockStmt{Lbrace: pos, Rbrace: pos}
	block.List = append(block.List, &ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.DEFINE, Rhs: rhs}, goSt)
	return block
}

var builtinFuncs = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"panic": true, "print": true, "println": true, "real": true, "recover": true,
}

func isBuiltinCall(fun ast.Expr) bool {
	id, ok := ast.Unparen(fun).(*ast.Ident)
	return ok && builtinFuncs[id.Name]
}

// inPlace reports whether an argument of a go statement stays where it is:
// a literal, a constant expression of literals, nil, true, false, a
// constant the session declared, or a function literal (its value does not
// change; binding it to a variable would do no good).
func (s *Session) inPlace(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(x ast.Node) bool {
		if !ok {
			return false
		}
		switch x := x.(type) {
		case nil, *ast.BasicLit, *ast.ParenExpr, *ast.BinaryExpr:
		case *ast.UnaryExpr:
			ok = x.Op != token.ARROW && x.Op != token.AND
		case *ast.FuncLit:
			return false
		case *ast.Ident:
			ok = x.Name == "nil" || x.Name == "true" || x.Name == "false" || s.kind(x.Name) == "const"
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// eachStmt replaces every statement of root's statement lists (blocks,
// case and select clauses, labeled statements) by fix(statement), the
// walk the session's rewrites share.
func eachStmt(root ast.Node, fix func(ast.Stmt) ast.Stmt) { walkStmts(root, true, fix) }

// walkStmts is eachStmt, entering function literals when lits is set.
func walkStmts(root ast.Node, lits bool, fix func(ast.Stmt) ast.Stmt) {
	list := func(l []ast.Stmt) {
		for i, st := range l {
			l[i] = fix(st)
		}
	}
	ast.Inspect(root, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			return lits
		case *ast.BlockStmt:
			list(x.List)
		case *ast.CaseClause:
			list(x.Body)
		case *ast.CommClause:
			list(x.Body)
		case *ast.LabeledStmt:
			x.Stmt = fix(x.Stmt)
		}
		return true
	})
}
