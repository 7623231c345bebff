package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"sync/atomic"
)

// rangeFuncs rewrites, under root, each range statement over a function
// (Go 1.23: func(yield func() bool), func(yield func(K) bool) or
// func(yield func(K, V) bool)) into a call of that function with a yield
// function literal, when the session can tell the function's type: yaegi
// v0.16.1 predates range over functions and fails with "nil type" (no
// upstream issue or pull request was found; its range over an integer,
// https://github.com/traefik/yaegi/pull/1644, was never merged either).
// The rewrite follows the semantics the Go compiler's own rewrite
// implements (cmd/compile/internal/rangefunc/rewrite.go):
//
//	L: for k, v := range f { body }
//
// becomes
//
//	{
//		var _gnnrepl_fN int          // what the body left the loop with
//		var _gnnrepl_fNr0 T0 ...     // the results of a return in body
//		f(func(k K, v V) bool {
//			if _gnnrepl_fN != 0 { panic(...) } // yield called after the loop ended
//			body'
//			return true
//		})
//		if _gnnrepl_fN == -1 { return _gnnrepl_fNr0, ... }
//		if _gnnrepl_fN == -3 { return }                       // a bare return in body
//		if _gnnrepl_fN == 1 { break Outer }                   // one line per outer branch
//		if _gnnrepl_fN == 2 { continue Outer }
//	}
//
// where body' is body with each continue of this loop replaced by
// `return true`, each break of it by `_gnnrepl_fN = -2; return false`,
// each return by assigning its results to the _gnnrepl_fNr variables (not
// to named results, which the body may shadow) then `_gnnrepl_fN = -1;
// return false` (-3 for a bare return), and each
// break or continue of an enclosing loop by `_gnnrepl_fN = k; return
// false`. The body's own loops, switches, selects and function literals are
// left alone (their unlabeled break and continue are theirs). Each call of
// the yield function has its own parameters, so the loop variables are
// per iteration, as in Go 1.22.
//
// The element types K and V are the checker's (the type of the range
// operand, check.go), written as the cell can spell them. Loops whose types
// cannot be written, whose body uses goto to a label outside it, holds a
// defer (which would run at the end of each iteration) or returns from a
// cell's top level are left as they are (yaegi then fails with "nil type",
// and hint explains it).
func (s *Session) rangeFuncs(ctx context.Context, root ast.Node) {
	ranges := false
	ast.Inspect(root, func(x ast.Node) bool {
		if _, ok := x.(*ast.RangeStmt); ok {
			ranges = true
		}
		return !ranges
	})
	if !ranges {
		return
	}
	w := &rangeFuncWriter{s: s}
	w.node(root, nil)
}

type rangeFuncWriter struct {
	s *Session
}

// rangeFuncCount numbers the rewritten loops, so that their variables are
// unique in the session (a block at a cell's top level does not always
// make new variables in yaegi; see wrapTupleBlocks).
var rangeFuncCount atomic.Int64

// funcScope is a function the range statements being rewritten are in.
type funcScope struct {
	typ    *ast.FuncType
	body   *ast.BlockStmt
	parent *funcScope // the function this one is a literal in, or nil
}

func (f *funcScope) fnType() *ast.FuncType {
	if f == nil {
		return nil
	}
	return f.typ
}

// node rewrites the range statements under n, innermost first; fs is the
// function n is in (nil: a cell's top level).
func (w *rangeFuncWriter) node(n ast.Node, fs *funcScope) {
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncDecl:
			if x.Body != nil {
				w.list(x.Body.List, &funcScope{typ: x.Type, body: x.Body})
			}
			return false
		case *ast.FuncLit:
			w.list(x.Body.List, &funcScope{typ: x.Type, body: x.Body, parent: fs})
			return false
		case *ast.BlockStmt:
			w.list(x.List, fs)
			return false
		case *ast.CaseClause:
			for _, e := range x.List {
				w.node(e, fs)
			}
			w.list(x.Body, fs)
			return false
		case *ast.CommClause:
			if x.Comm != nil {
				w.node(x.Comm, fs)
			}
			w.list(x.Body, fs)
			return false
		}
		return true
	})
}

func (w *rangeFuncWriter) list(l []ast.Stmt, fs *funcScope) {
	for i, st := range l {
		w.node(st, fs)
		label := ""
		r, ok := st.(*ast.RangeStmt)
		if ls, isLabeled := st.(*ast.LabeledStmt); isLabeled {
			r, ok = ls.Stmt.(*ast.RangeStmt)
			label = ls.Label.Name
		}
		if !ok {
			continue
		}
		if b := w.rewrite(r, label, fs); b != nil {
			l[i] = b // the label goes: the branches that named it are rewritten
		}
	}
}

// elemTypes returns the type expressions of the yield function's
// parameters of the iterator x, from the checker's type of x, or ok false
// when x is not an iterator or an element type cannot be written.
func (w *rangeFuncWriter) elemTypes(x ast.Expr, pos token.Pos, fs *funcScope) (elems []ast.Expr, ok bool) {
	info := w.s.info
	if info == nil {
		return nil, false
	}
	t := info.TypeOf(x)
	if t == nil {
		return nil, false
	}
	sig, isSig := t.Underlying().(*types.Signature)
	if !isSig || sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return nil, false
	}
	y, isSig := sig.Params().At(0).Type().Underlying().(*types.Signature)
	if !isSig || y.Params().Len() > 2 || y.Results().Len() != 1 || !types.Identical(y.Results().At(0).Type().Underlying(), types.Typ[types.Bool]) {
		return nil, false
	}
	for i := 0; i < y.Params().Len(); i++ {
		te := w.s.tc.typeExprLocal(y.Params().At(i).Type(), pos)
		if te == nil {
			return nil, false
		}
		elems = append(elems, te)
	}
	return elems, true
}

// rewrite returns the block that replaces the range statement r (labeled
// label, in a function of type fn), or nil when it is not a range over a
// function the session can rewrite.
func (w *rangeFuncWriter) rewrite(r *ast.RangeStmt, label string, fs *funcScope) *ast.BlockStmt {
	fn := fs.fnType()
	elems, ok := w.elemTypes(r.X, r.For, fs)
	if !ok {
		return nil
	}
	vars := []ast.Expr{r.Key, r.Value}
	if r.Value == nil {
		vars = vars[:1]
		if r.Key == nil {
			vars = nil
		}
	}
	if len(vars) > len(elems) {
		return nil // too many loop variables: leave the error to yaegi
	}
	pos := r.For
	id := func(name string) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }
	b := &branchWriter{label: label, pos: pos, fn: fn}
	if !b.check(r.Body) {
		return nil
	}
	n := rangeFuncCount.Add(1)
	next := fmt.Sprintf("_gnnrepl_f%d", n)
	b.next, b.results = next, next+"r"
	body := b.block(r.Body)

	// The yield function's parameters: the loop variables themselves for
	// :=, fresh names assigned to them for =.
	params := &ast.FieldList{Opening: pos, Closing: pos}
	var assign *ast.AssignStmt
	for i, e := range elems {
		name := "_"
		if i < len(vars) && vars[i] != nil {
			if r.Tok == token.DEFINE {
				name = vars[i].(*ast.Ident).Name
			} else if !isBlank(vars[i]) {
				name = fmt.Sprintf("%sp%d", next, i)
				if assign == nil {
					assign = &ast.AssignStmt{TokPos: pos, Tok: token.ASSIGN}
				}
				assign.Lhs = append(assign.Lhs, vars[i])
				assign.Rhs = append(assign.Rhs, id(name))
			}
		}
		params.List = append(params.List, &ast.Field{Names: []*ast.Ident{id(name)}, Type: cloneNode(e)})
	}
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: params, Results: &ast.FieldList{List: []*ast.Field{{Type: id("bool")}}}},
		Body: &ast.BlockStmt{Lbrace: r.Body.Lbrace, Rbrace: r.Body.Rbrace},
	}
	lit.Body.List = append(lit.Body.List, &ast.IfStmt{If: pos,
		Cond: &ast.BinaryExpr{X: id(next), OpPos: pos, Op: token.NEQ, Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: &ast.CallExpr{Fun: id("panic"), Lparen: pos, Rparen: pos,
			Args: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote("runtime error: range function continued iteration after function for loop body returned false")}}}}}},
	})
	if assign != nil {
		lit.Body.List = append(lit.Body.List, assign)
	}
	lit.Body.List = append(lit.Body.List, body)
	lit.Body.List = append(lit.Body.List, &ast.ReturnStmt{Return: r.Body.Rbrace, Results: []ast.Expr{id("true")}})

	out := &ast.BlockStmt{Lbrace: pos, Rbrace: r.End()}
	out.List = append(out.List, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
		&ast.ValueSpec{Names: []*ast.Ident{id(next)}, Type: id("int")}}}})
	for i, t := range b.resultTypes {
		if !b.returns {
			break
		}
		out.List = append(out.List, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
			&ast.ValueSpec{Names: []*ast.Ident{id(b.results + strconv.Itoa(i))}, Type: t}}}})
	}
	out.List = append(out.List, &ast.ExprStmt{X: &ast.CallExpr{Fun: r.X, Lparen: pos, Args: []ast.Expr{lit}, Rparen: r.Body.Rbrace}})
	is := func(v int, then ast.Stmt) ast.Stmt {
		return &ast.IfStmt{If: pos, Cond: &ast.BinaryExpr{X: id(next), OpPos: pos, Op: token.EQL, Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(v)}},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{then}}}
	}
	if b.returns {
		ret := &ast.ReturnStmt{Return: pos}
		for i := range b.resultTypes {
			ret.Results = append(ret.Results, id(b.results+strconv.Itoa(i)))
		}
		out.List = append(out.List, is(-1, ret))
	}
	if b.bareReturn {
		out.List = append(out.List, is(-3, &ast.ReturnStmt{Return: pos}))
	}
	for i, br := range b.outer {
		out.List = append(out.List, is(i+1, &ast.BranchStmt{TokPos: pos, Tok: br.Tok, Label: id(br.Label.Name)}))
	}
	return out
}

// branchWriter rewrites the branch and return statements of one range
// over a function's body.
type branchWriter struct {
	label   string        // the loop's label, or ""
	next    string        // the dispatch variable
	results string        // prefix of the result variables
	pos     token.Pos     // for new nodes
	fn      *ast.FuncType // the enclosing function's type (nil: none)

	returns     bool              // the body returns results
	bareReturn  bool              // the body has a return without results
	resultTypes []ast.Expr        // the types of the enclosing function's results (of _gnnrepl_fNr0...)
	outer       []*ast.BranchStmt // the break/continue statements of outer loops, by dispatch value - 1
	inner       map[string]bool   // labels declared in the body
	outerIndex  map[string]int    // "break L" -> dispatch value
}

// check reports whether the body can be rewritten: no goto out of it, no
// defer (it would run when the yield function returns, not at the end of
// the enclosing function), no return at a cell's top level.
func (b *branchWriter) check(body *ast.BlockStmt) bool {
	b.inner = map[string]bool{}
	ok := true
	ast.Inspect(body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.LabeledStmt:
			b.inner[x.Label.Name] = true
		}
		return true
	})
	ast.Inspect(body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			ok = false
		case *ast.ReturnStmt:
			if b.fn == nil {
				ok = false
			}
		case *ast.BranchStmt:
			if x.Tok == token.GOTO && !b.inner[x.Label.Name] {
				ok = false
			}
		}
		return ok
	})
	if ok && b.fn != nil && b.fn.Results != nil {
		for _, f := range b.fn.Results.List {
			for k := 0; k < max(1, len(f.Names)); k++ {
				b.resultTypes = append(b.resultTypes, f.Type)
			}
		}
	}
	return ok
}

func (b *branchWriter) id(name string) *ast.Ident { return &ast.Ident{NamePos: b.pos, Name: name} }

// leave returns { next = v; return false } (after pre).
func (b *branchWriter) leave(at token.Pos, v int, pre ...ast.Stmt) ast.Stmt {
	list := append(pre,
		&ast.AssignStmt{Lhs: []ast.Expr{b.id(b.next)}, TokPos: at, Tok: token.ASSIGN, Rhs: []ast.Expr{&ast.BasicLit{ValuePos: at, Kind: token.INT, Value: strconv.Itoa(v)}}},
		&ast.ReturnStmt{Return: at, Results: []ast.Expr{b.id("false")}})
	return &ast.BlockStmt{Lbrace: at, List: list, Rbrace: at}
}

func (b *branchWriter) block(body *ast.BlockStmt) *ast.BlockStmt {
	b.outerIndex = map[string]int{}
	b.list(body.List, false, false)
	return body
}

// list rewrites the statements of l; inLoop: inside a loop of the body
// (its unlabeled break and continue are its own), inSwitch: inside a
// switch or select (its unlabeled break is its own).
func (b *branchWriter) list(l []ast.Stmt, inLoop, inSwitch bool) {
	for i := range l {
		l[i] = b.stmt(l[i], inLoop, inSwitch)
	}
}

func (b *branchWriter) stmt(st ast.Stmt, inLoop, inSwitch bool) ast.Stmt {
	switch x := st.(type) {
	case *ast.BranchStmt:
		switch x.Tok {
		case token.CONTINUE:
			if x.Label == nil && !inLoop || x.Label != nil && x.Label.Name == b.label && b.label != "" {
				return &ast.ReturnStmt{Return: x.Pos(), Results: []ast.Expr{b.id("true")}}
			}
		case token.BREAK:
			if x.Label == nil && !inLoop && !inSwitch || x.Label != nil && x.Label.Name == b.label && b.label != "" {
				return b.leave(x.Pos(), -2)
			}
		default:
			return st
		}
		if x.Label == nil || b.inner[x.Label.Name] {
			return st
		}
		key := x.Tok.String() + " " + x.Label.Name
		v, ok := b.outerIndex[key]
		if !ok {
			b.outer = append(b.outer, x)
			v = len(b.outer)
			b.outerIndex[key] = v
		}
		return b.leave(x.Pos(), v)
	case *ast.ReturnStmt:
		if len(x.Results) == 0 {
			b.bareReturn = true // no results, or the named results as they are
			return b.leave(x.Pos(), -3)
		}
		// The results go to temporaries (a named result may be shadowed
		// in the body), returned after the call.
		b.returns = true
		var lhs []ast.Expr
		for i := range b.resultTypes {
			lhs = append(lhs, b.id(b.results+strconv.Itoa(i)))
		}
		if len(lhs) != len(x.Results) { // return f() of several results
			return b.leave(x.Pos(), -1, &ast.AssignStmt{Lhs: lhs, TokPos: x.Pos(), Tok: token.ASSIGN, Rhs: x.Results})
		}
		// One assignment each: yaegi v0.16.1 panics ("reflect: New(nil)")
		// on `r0, r1 = n, nil` to a captured error variable. No result
		// reads another's temporary, so the order does not matter.
		var pre []ast.Stmt
		for i := range lhs {
			pre = append(pre, &ast.AssignStmt{Lhs: lhs[i : i+1], TokPos: x.Pos(), Tok: token.ASSIGN, Rhs: x.Results[i : i+1]})
		}
		return b.leave(x.Pos(), -1, pre...)
	case *ast.BlockStmt:
		b.list(x.List, inLoop, inSwitch)
	case *ast.IfStmt:
		b.stmt(x.Body, inLoop, inSwitch)
		if x.Else != nil {
			x.Else = b.stmt(x.Else, inLoop, inSwitch)
		}
	case *ast.ForStmt:
		b.stmt(x.Body, true, inSwitch)
	case *ast.RangeStmt:
		b.stmt(x.Body, true, inSwitch)
	case *ast.SwitchStmt:
		b.stmt(x.Body, inLoop, true)
	case *ast.TypeSwitchStmt:
		b.stmt(x.Body, inLoop, true)
	case *ast.SelectStmt:
		b.stmt(x.Body, inLoop, true)
	case *ast.CaseClause:
		b.list(x.Body, inLoop, inSwitch)
	case *ast.CommClause:
		b.list(x.Body, inLoop, inSwitch)
	case *ast.LabeledStmt:
		x.Stmt = b.stmt(x.Stmt, inLoop, inSwitch)
	}
	return st
}

// recvTypeName returns the name of the receiver type t (T or *T), or ""
// for a generic receiver.
func recvTypeName(t ast.Expr) string {
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if id, ok := ast.Unparen(t).(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
