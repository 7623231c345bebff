package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"reflect"
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
// The element types K and V are written from a declaration where there is
// one: f a parameter of an enclosing function, a function the unit or an
// earlier cell declares (or a call of one, generic ones with explicit type
// arguments), a function literal, a variable the unit defines from one or
// declares with a type, or a call of a method that one type of the session
// declares (func(yield func(K, V) bool) or iter.Seq/Seq2 written out), a
// call of slices.All/Values/Backward or maps.All/Keys/Values on a
// variable declared with its type or a literal (x := []T{...},
// make(map[K]V)); otherwise from the reflect type of the session's value
// (typer). Loops whose types cannot be written, whose body uses goto to a
// label outside it, holds a defer (which would run at the end of each
// iteration) or returns from a cell's top level are left as they are
// (yaegi then fails with "nil type", and hint explains it).
func (s *Session) rangeFuncs(ctx context.Context, root ast.Node) {
	ranges := false
	ast.Inspect(root, func(x ast.Node) bool {
		if _, ok := x.(*ast.RangeStmt); ok {
			ranges = true
		}
		return !ranges
	})
	if !ranges {
		return // most cells: no typing of their defines (the typer's probes run code)
	}
	w := &rangeFuncWriter{s: s, ty: &typer{s: s, ctx: ctx, env: map[string]reflect.Type{}, declared: map[string]bool{}},
		funcs: map[string]*ast.FuncType{}, lits: map[string]*ast.FuncType{}, locals: map[string]int{}, top: map[string]bool{}, typed: map[string]ast.Expr{}, methods: map[string]map[string]*ast.FuncType{}, pkgs: map[string]string{}}
	w.collect(root)
	w.node(root, nil)
}

type rangeFuncWriter struct {
	s       *Session
	ty      *typer
	funcs   map[string]*ast.FuncType            // functions the unit declares
	lits    map[string]*ast.FuncType            // names the unit defines once, from a function literal
	locals  map[string]int                      // names the unit declares, with a count
	top     map[string]bool                     // names the top-level defines of a cell declare (the typer follows their types)
	typed   map[string]ast.Expr                 // names the unit declares with a type (parameters, var x T, x := T{...})
	methods map[string]map[string]*ast.FuncType // method name -> receiver type name -> signature, in the unit
	iterPk  string                              // the local name of package iter, or ""
	pkgs    map[string]string                   // the unit's imports: local name -> path
}

// rangeFuncCount numbers the rewritten loops, so that their variables are
// unique in the session (a block at a cell's top level does not always
// make new variables in yaegi; see wrapTupleBlocks).
var rangeFuncCount atomic.Int64

// collect notes the unit's declarations (scopes are not tracked: a name
// declared twice is not trusted).
func (w *rangeFuncWriter) collect(root ast.Node) {
	w.iterPk = w.s.importName("iter")
	if b, ok := root.(*ast.BlockStmt); ok { // a cell's statements
		ranged := map[string]bool{} // the names in range operands
		ast.Inspect(root, func(x ast.Node) bool {
			if r, ok := x.(*ast.RangeStmt); ok {
				ast.Inspect(r.X, func(y ast.Node) bool {
					if id, ok := y.(*ast.Ident); ok {
						ranged[id.Name] = true
					}
					return true
				})
			}
			return true
		})
		for _, st := range b.List {
			if a, ok := st.(*ast.AssignStmt); ok && a.Tok == token.DEFINE && len(a.Lhs) == len(a.Rhs) {
				for i, l := range a.Lhs {
					if id, ok := l.(*ast.Ident); ok && ranged[id.Name] {
						w.ty.set(id, w.ty.typeOf(a.Rhs[i]))
						w.top[id.Name] = true
					}
				}
			}
		}
	}
	ast.Inspect(root, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.ImportSpec:
			p, _ := strconv.Unquote(x.Path.Value)
			name := path.Base(p)
			if x.Name != nil {
				name = x.Name.Name
			}
			if p == "iter" {
				w.iterPk = name
			}
			w.pkgs[name] = p
		case *ast.FuncDecl:
			if x.Recv == nil {
				w.funcs[x.Name.Name] = x.Type
			}
			if x.Recv != nil && len(x.Recv.List) == 1 {
				if recv := recvTypeName(x.Recv.List[0].Type); recv != "" {
					if w.methods[x.Name.Name] == nil {
						w.methods[x.Name.Name] = map[string]*ast.FuncType{}
					}
					w.methods[x.Name.Name][recv] = x.Type
				}
			}
		case *ast.Field:
			for _, id := range x.Names {
				w.locals[id.Name]++
				w.typed[id.Name] = x.Type
			}
		case *ast.ValueSpec:
			for i, id := range x.Names {
				if x.Type != nil {
					w.typed[id.Name] = x.Type
				}
				if x.Type == nil && len(x.Values) == len(x.Names) {
					if lit, ok := x.Values[i].(*ast.FuncLit); ok {
						w.lits[id.Name] = lit.Type
					}
				}
				w.locals[id.Name]++
			}
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for i, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						if len(x.Lhs) == len(x.Rhs) {
							if lit, ok := x.Rhs[i].(*ast.FuncLit); ok {
								w.lits[id.Name] = lit.Type
							}
							if t := literalType(x.Rhs[i]); t != nil {
								w.typed[id.Name] = t
							}
						}
						w.locals[id.Name]++
					}
				}
			}
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok {
						w.locals[id.Name]++
					}
				}
			}
		case *ast.TypeSpec:
			w.locals[x.Name.Name]++
		}
		return true
	})
}

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

// paramType returns the declared type of name when it is a parameter of
// one of the functions fs is in, the innermost first, that its body does
// not declare again; or nil.
func paramType(fs *funcScope, name string) ast.Expr {
	for ; fs != nil; fs = fs.parent {
		var typ ast.Expr
		for _, fl := range []*ast.FieldList{fs.typ.Params, fs.typ.Results} {
			if fl == nil {
				continue
			}
			for _, f := range fl.List {
				for _, id := range f.Names {
					if id.Name == name {
						typ = f.Type
					}
				}
			}
		}
		if declares(fs.body, name) {
			return nil
		}
		if typ != nil {
			return typ
		}
	}
	return nil
}

// declares reports whether name is declared anywhere under n.
func declares(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.Field:
			for _, id := range x.Names {
				found = found || id.Name == name
			}
		case *ast.ValueSpec:
			for _, id := range x.Names {
				found = found || id.Name == name
			}
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == name {
						found = true
					}
				}
			}
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok && id.Name == name {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

// elemTypes returns the type expressions of the yield function's
// parameters of the iterator x, or ok false when x is not one the session
// can tell.
func (w *rangeFuncWriter) elemTypes(x ast.Expr, pos token.Pos, fs *funcScope) (elems []ast.Expr, ok bool) {
	if id, isID := ast.Unparen(x).(*ast.Ident); isID {
		switch t := paramType(fs, id.Name).(type) {
		case *ast.FuncType:
			return seqParams(t, w.iterPk)
		case *ast.IndexExpr, *ast.IndexListExpr:
			if ft := iterSeqType(t, w.iterPk); ft != nil {
				return seqParams(ft, w.iterPk)
			}
		}
	}
	if ft := w.declType(x); ft != nil {
		return seqParams(ft, w.iterPk)
	}
	if elems := w.sourceSeq(x, fs); elems != nil {
		return elems, true
	}
	if !w.sessionTyped(x) {
		return nil, false
	}
	t := w.ty.typeOf(x)
	ts := seqElems(t)
	if t == nil {
		if ft := w.methodType(x); ft != nil {
			return seqParams(ft, w.iterPk)
		}
	}
	if ts == nil {
		if t != nil && t.Kind() == reflect.Func && t.NumIn() == 1 && t.NumOut() == 0 {
			if y := t.In(0); y.Kind() == reflect.Func && y.NumIn() == 0 && y.NumOut() == 1 && y.Out(0).Kind() == reflect.Bool {
				return nil, true // func(yield func() bool)
			}
		}
		return nil, false
	}
	for _, e := range ts {
		te := w.s.typeExpr(e, pos)
		if te == nil {
			return nil, false
		}
		elems = append(elems, te)
	}
	return elems, true
}

// sessionTyped reports whether the typer may type x from the session's
// values: no name in x (but member names) is one the unit declares, except
// the top-level defines of a cell the typer follows.
func (w *rangeFuncWriter) sessionTyped(x ast.Expr) bool {
	ok := true
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SelectorExpr:
			ast.Inspect(n.X, visit)
			return false
		case *ast.KeyValueExpr:
			ast.Inspect(n.Value, visit)
			return false
		case *ast.Ident:
			if c := w.locals[n.Name]; c > 0 && !(w.top[n.Name] && c == 1) {
				ok = false
			}
		}
		return ok
	}
	ast.Inspect(x, visit)
	return ok
}

// declType returns the declared function type of x when x is a function
// the unit or the session declares, a call of one (its result type), a
// function literal, or a name the unit defines from a function literal or
// with a function or iter.Seq type; otherwise nil.
func (w *rangeFuncWriter) declType(x ast.Expr) *ast.FuncType {
	switch x := ast.Unparen(x).(type) {
	case *ast.FuncLit:
		return x.Type
	case *ast.Ident:
		if ft := w.funcType(x.Name); ft != nil && ft.TypeParams == nil {
			return ft
		}
	case *ast.CallExpr:
		fun, targs := x.Fun, []ast.Expr(nil)
		switch f := fun.(type) { // explicit type arguments
		case *ast.IndexExpr:
			fun, targs = f.X, []ast.Expr{f.Index}
		case *ast.IndexListExpr:
			fun, targs = f.X, f.Indices
		}
		id, ok := fun.(*ast.Ident)
		if !ok {
			return nil
		}
		ft := w.funcType(id.Name)
		if ft != nil && (ft.TypeParams != nil) != (targs != nil) {
			return nil // a generic function called without type arguments: not inferred
		}
		if ft != nil && ft.TypeParams != nil {
			ft = instantiate(ft, targs)
		}
		return w.resultType(ft)
	}
	return nil
}

// instantiate returns the generic signature ft with its type parameters
// replaced by targs, or nil when their numbers differ.
func instantiate(ft *ast.FuncType, targs []ast.Expr) *ast.FuncType {
	sub := map[string]ast.Expr{}
	i := 0
	for _, f := range ft.TypeParams.List {
		for _, id := range f.Names {
			if i >= len(targs) {
				return nil
			}
			sub[id.Name] = targs[i]
			i++
		}
	}
	if i != len(targs) {
		return nil
	}
	c := cloneNode(ft)
	c.TypeParams = nil
	replaceExprs(c, func(e ast.Expr) ast.Expr {
		if id, ok := e.(*ast.Ident); ok && sub[id.Name] != nil {
			return cloneNode(sub[id.Name])
		}
		return e
	})
	return c
}

// funcType returns the declared type of the function or function-typed
// variable name, or nil.
func (w *rangeFuncWriter) funcType(name string) *ast.FuncType {
	if ft := w.funcs[name]; ft != nil && w.locals[name] == 0 {
		return ft
	}
	if ft := w.lits[name]; ft != nil && w.locals[name] == 1 {
		return ft
	}
	if t := w.typed[name]; t != nil && w.locals[name] == 1 {
		switch t := t.(type) {
		case *ast.FuncType:
			return t
		case *ast.IndexExpr, *ast.IndexListExpr:
			return iterSeqType(t, w.iterPk)
		}
	}
	if w.locals[name] == 0 && w.funcs[name] == nil && w.s.kind(name) == "func" {
		w.s.nmu.Lock()
		defer w.s.nmu.Unlock()
		return w.s.funcTypes[name]
	}
	return nil
}

// resultType returns the type of the single result of a function of type
// ft when it is a function type (or iter.Seq), or nil.
func (w *rangeFuncWriter) resultType(ft *ast.FuncType) *ast.FuncType {
	if ft == nil || ft.Results == nil || len(ft.Results.List) != 1 || len(ft.Results.List[0].Names) > 1 {
		return nil
	}
	switch r := ft.Results.List[0].Type.(type) {
	case *ast.FuncType:
		return r
	case *ast.IndexExpr, *ast.IndexListExpr:
		return iterSeqType(r, w.iterPk)
	}
	return nil
}

// methodType returns, for x a call recv.M() of a method that exactly one
// session type declares, the type of its result, or nil. (yaegi's values
// of the session's types have no methods in their reflect types, so the
// typer cannot tell.)
func (w *rangeFuncWriter) methodType(x ast.Expr) *ast.FuncType {
	c, ok := ast.Unparen(x).(*ast.CallExpr)
	if !ok {
		return nil
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	if id, ok := sel.X.(*ast.Ident); ok && w.s.kind(id.Name) == "package" {
		return nil
	}
	var unit []*ast.FuncType // methods of that name the unit declares
	for _, ft := range w.methods[sel.Sel.Name] {
		unit = append(unit, ft)
	}
	w.s.nmu.Lock()
	byRecv := w.s.methodTypes[sel.Sel.Name]
	var ft *ast.FuncType
	n := len(unit)
	for recv, t := range byRecv {
		if w.methods[sel.Sel.Name][recv] == nil {
			ft = t
			n++
		}
	}
	w.s.nmu.Unlock()
	if len(unit) == 1 {
		ft = unit[0]
	}
	if n != 1 {
		return nil
	}
	return w.resultType(ft)
}

// iterSeqType returns func(yield func(V) bool) for iter.Seq[V] and
// func(yield func(K, V) bool) for iter.Seq2[K, V] (iterPk: the name
// package iter is imported under), or nil.
func iterSeqType(e ast.Expr, iterPk string) *ast.FuncType {
	var fun ast.Expr
	var args []ast.Expr
	switch e := e.(type) {
	case *ast.IndexExpr:
		fun, args = e.X, []ast.Expr{e.Index}
	case *ast.IndexListExpr:
		fun, args = e.X, e.Indices
	default:
		return nil
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok || iterPk == "" {
		return nil
	}
	if x, ok := sel.X.(*ast.Ident); !ok || x.Name != iterPk {
		return nil
	}
	if !(sel.Sel.Name == "Seq" && len(args) == 1 || sel.Sel.Name == "Seq2" && len(args) == 2) {
		return nil
	}
	pos := e.Pos()
	yield := &ast.FuncType{Func: pos, Params: &ast.FieldList{}, Results: &ast.FieldList{List: []*ast.Field{{Type: &ast.Ident{NamePos: pos, Name: "bool"}}}}}
	for _, a := range args {
		yield.Params.List = append(yield.Params.List, &ast.Field{Type: a})
	}
	return &ast.FuncType{Func: pos, Params: &ast.FieldList{List: []*ast.Field{{Type: yield}}}}
}

// seqParams returns the parameter types of the yield function of the
// iterator type ft, or ok false when ft is not func(yield func(...) bool).
func seqParams(ft *ast.FuncType, iterPk string) ([]ast.Expr, bool) {
	if ft.Results != nil && len(ft.Results.List) > 0 || ft.Params == nil || fieldCount(ft.Params) != 1 {
		return nil, false
	}
	var yield *ast.FuncType
	switch y := ft.Params.List[0].Type.(type) {
	case *ast.FuncType:
		yield = y
	default:
		return nil, false
	}
	if yield.Results == nil || fieldCount(yield.Results) != 1 {
		return nil, false
	}
	if id, ok := yield.Results.List[0].Type.(*ast.Ident); !ok || id.Name != "bool" {
		return nil, false
	}
	var elems []ast.Expr
	for _, f := range yield.Params.List {
		if _, ok := f.Type.(*ast.Ellipsis); ok {
			return nil, false
		}
		for k := 0; k < max(1, len(f.Names)); k++ {
			elems = append(elems, f.Type)
		}
	}
	if len(elems) > 2 {
		return nil, false
	}
	return elems, true
}

func fieldCount(fl *ast.FieldList) int {
	n := 0
	for _, f := range fl.List {
		n += max(1, len(f.Names))
	}
	return n
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

// literalType returns the type of e when its syntax says it: a composite
// literal T{...}, make(T, ...), or nil.
func literalType(e ast.Expr) ast.Expr {
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		return e.Type
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "make" && id.Obj == nil && len(e.Args) > 0 {
			return e.Args[0]
		}
	}
	return nil
}

// sourceSeq returns the element types of the iterator x, a call of
// slices.All, Values or Backward or of maps.All, Keys or Values, from the
// declared type of its argument (a literal, a parameter, a variable the
// unit declares with its type or a literal), or nil.
func (w *rangeFuncWriter) sourceSeq(x ast.Expr, fs *funcScope) []ast.Expr {
	c, ok := ast.Unparen(x).(*ast.CallExpr)
	if !ok || len(c.Args) != 1 {
		return nil
	}
	pkg, fn := w.ty.sourcePackage(c)
	if sel, ok := c.Fun.(*ast.SelectorExpr); ok && pkg == "" {
		if id, ok := sel.X.(*ast.Ident); ok && w.locals[id.Name] == 0 {
			pkg, fn = w.pkgs[id.Name], sel.Sel.Name // imported by the unit
		}
	}
	if pkg == "" {
		return nil
	}
	var t ast.Expr
	switch a := ast.Unparen(c.Args[0]).(type) {
	case *ast.CompositeLit:
		t = a.Type
	case *ast.Ident:
		if t = paramType(fs, a.Name); t == nil && w.locals[a.Name] == 1 {
			t = w.typed[a.Name]
		}
	}
	intType := &ast.Ident{NamePos: c.Pos(), Name: "int"}
	switch t := t.(type) {
	case *ast.ArrayType:
		switch pkg + "." + fn {
		case "slices.All", "slices.Backward":
			return []ast.Expr{intType, t.Elt}
		case "slices.Values":
			return []ast.Expr{t.Elt}
		}
	case *ast.MapType:
		switch pkg + "." + fn {
		case "maps.All":
			return []ast.Expr{t.Key, t.Value}
		case "maps.Keys":
			return []ast.Expr{t.Key}
		case "maps.Values":
			return []ast.Expr{t.Value}
		}
	}
	return nil
}
