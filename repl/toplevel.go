package repl

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// yaegi v0.16.1 compiles the statements at the top level of a cell (outside
// any function) differently from statements in a function body, and gets
// some of them wrong. The session works around three kinds.
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
// 2. A variable defined at top level from an index of a compiled slice, array
// or map (or a field, method or operation on such an index),
//
//	p := model.Parameters()[0]       // "constant definition loop"
//	x := cmp.Rows[2].EpochSeconds    // a nil pointer dereference inside yaegi
//	var w = ps[0]                    // "variable definition loop"
//
// fails because yaegi cannot type the index there. When compiling a unit
// fails that way, compileFix finds the static type of each such right-hand
// side from the types of the values it names (evaluating only names,
// package members and new(T) for a composite literal's type, never another
// call or an index) and converts it to that type, which yaegi types at once:
//
//	p := (*tensor.Tensor)(model.Parameters()[0])
//
// When the type cannot be found or named (it mixes types the session
// declared, or comes from a package not imported), the error says how to
// write the statement instead. The same error is what yaegi reports for an
// undefined name in such a define; compileFix reports that name. (A var
// declaration initialized from another cell's variable fails too, with
// "variable definition loop", even without an index; the session then runs
// it as a statement of the cell, see varsOnly.)
//
// 3. A comma-ok define at top level,
//
//	v, ok := m[k]                    // also x.(T) and <-ch
//
// makes yaegi panic with "nil type". compileFix turns it into a call of a
// function literal with named results, whose types it finds as in point 2:
//
//	v, ok := func() (_gnnrepl_v int, _gnnrepl_ok bool) { _gnnrepl_v, _gnnrepl_ok = m[k]; return }()

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

// topDefine is a variable definition at the top level of a unit: x := e or
// var x = e.
type topDefine struct {
	node    ast.Node     // the *ast.AssignStmt or *ast.ValueSpec
	names   []*ast.Ident // nil for an expression that is not a name
	rhs     []ast.Expr   // the right-hand side, rewritten in place
	commaOk bool         // v, ok := m[k], x.(T) or <-ch
}

// topDefines lists the defines at the top level of n, a statement unit's
// block or a declaration unit's file, in order.
func topDefines(n ast.Node) []topDefine {
	var out []topDefine
	add := func(g *ast.GenDecl) {
		if g.Tok != token.VAR {
			return
		}
		for _, sp := range g.Specs {
			if vs, ok := sp.(*ast.ValueSpec); ok && vs.Type == nil && len(vs.Values) == len(vs.Names) {
				out = append(out, topDefine{node: vs, names: vs.Names, rhs: vs.Values})
			}
		}
	}
	switch n := n.(type) {
	case *ast.BlockStmt:
		for _, st := range n.List {
			switch st := st.(type) {
			case *ast.AssignStmt:
				if st.Tok != token.DEFINE {
					continue
				}
				d := topDefine{node: st, rhs: st.Rhs}
				if len(st.Lhs) == 2 && len(st.Rhs) == 1 {
					switch r := ast.Unparen(st.Rhs[0]).(type) {
					case *ast.IndexExpr, *ast.TypeAssertExpr:
						d.commaOk = true
					case *ast.UnaryExpr:
						d.commaOk = r.Op == token.ARROW
					}
				}
				if !d.commaOk && len(st.Lhs) != len(st.Rhs) {
					continue
				}
				for _, l := range st.Lhs {
					id, _ := l.(*ast.Ident)
					d.names = append(d.names, id)
				}
				out = append(out, d)
			case *ast.DeclStmt:
				if g, ok := st.Decl.(*ast.GenDecl); ok {
					add(g)
				}
			}
		}
	case *ast.File:
		for _, d := range n.Decls {
			if g, ok := d.(*ast.GenDecl); ok {
				add(g)
			}
		}
	}
	return out
}

// topNames returns every name declared at the top level of n, a statement
// unit's block or a declaration unit's file.
func topNames(n ast.Node) map[string]bool {
	names := map[string]bool{}
	gen := func(g *ast.GenDecl) {
		for _, sp := range g.Specs {
			switch sp := sp.(type) {
			case *ast.ValueSpec:
				for _, id := range sp.Names {
					names[id.Name] = true
				}
			case *ast.TypeSpec:
				names[sp.Name.Name] = true
			case *ast.ImportSpec:
				if sp.Name != nil {
					names[sp.Name.Name] = true
				}
			}
		}
	}
	switch n := n.(type) {
	case *ast.BlockStmt:
		for _, st := range n.List {
			switch st := st.(type) {
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					for _, l := range st.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							names[id.Name] = true
						}
					}
				}
			case *ast.DeclStmt:
				if g, ok := st.Decl.(*ast.GenDecl); ok {
					gen(g)
				}
			}
		}
	case *ast.File:
		for _, d := range n.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				gen(d)
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
				}
			}
		}
	}
	return names
}

// hasIndex reports whether e indexes something outside function literals.
func hasIndex(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IndexExpr:
			found = true
		}
		return !found
	})
	return found
}

// topLevelFailure classifies how yaegi failed to compile a unit: 1 for the
// defines of point 2 above ("definition loop", a nil dereference inside
// yaegi), 2 for its "nil type" panic (a comma-ok define at top level, point
// 3), 0 for anything else.
func topLevelFailure(err error) int {
	var ce *CompileError
	if errors.As(err, &ce) && strings.HasSuffix(ce.Msg, "definition loop") {
		return 1
	}
	var pe *PanicError
	if errors.As(err, &pe) && pe.Internal {
		msg := fmt.Sprint(pe.Value)
		switch {
		case strings.Contains(msg, "nil pointer dereference") || strings.Contains(msg, "nil reflect type"):
			return 1
		case msg == "nil type":
			return 2
		}
	}
	return 0
}

// compileFix compiles n like compile and, when that fails on a top-level
// define yaegi cannot compile (points 2 and 3 above), rewrites the defines it
// can and compiles again, or returns an error that says what to write
// instead. A failed compile leaves the session's names as they were
// (compile restores yaegi's scopes, atomic.go).
func (s *Session) compileFix(ctx context.Context, n ast.Node, src string) (*interp.Program, error) {
	prog, err := s.compile(n, src)
	kind := 0
	if err != nil {
		kind = topLevelFailure(err)
	}
	if _, file := n.(*ast.File); kind == 0 || file && varsOnlyError(err) {
		return prog, err // varsOnly runs the declarations as statements, which come back here
	}
	defs := topDefines(n)
	fset := s.in.FileSet()
	var ce *CompileError
	var at *token.Position // the failing define's position, when yaegi gives it
	if errors.As(err, &ce) && ce.Pos.IsValid() {
		at = &ce.Pos
	}
	ty := &typer{s: s, ctx: ctx, env: map[string]reflect.Type{}, declared: map[string]bool{}}
	all := topNames(n)
	changed := false
	var stuck *topDefine
	for i := range defs {
		d := &defs[i]
		here := at == nil
		if q := fset.Position(d.node.Pos()); at != nil && q.Line == at.Line && q.Column == at.Column {
			here = true // a ValueSpec's position is its first name's, where yaegi points too
		}
		if here && (kind == 1 || d.commaOk) {
			if und := ty.undefined(d.rhs, all); und != nil {
				p := fset.Position(und.Pos())
				p.Filename = trimSuffix(p.Filename)
				return nil, &CompileError{Pos: p, Msg: "undefined: " + und.Name}
			}
		}
		if d.commaOk {
			val := ty.commaOkType(d.rhs[0])
			if kind == 2 {
				if fix := s.commaOkCall(d, val); fix != nil {
					d.rhs[0] = fix
					changed = true
				} else if stuck == nil {
					stuck = d
				}
			}
			ty.set(d.names[0], val)
			ty.set(d.names[1], boolType)
			continue
		}
		types := make([]reflect.Type, len(d.rhs))
		for j, e := range d.rhs {
			types[j] = ty.typeOf(e)
		}
		for j, e := range d.rhs {
			if kind != 1 || !here || !hasIndex(e) && !callsMinMax(e) && !ty.callsSource(e) {
				continue
			}
			var tx ast.Expr
			if types[j] != nil {
				tx = s.typeExpr(types[j], e.Pos())
			}
			if tx == nil {
				if stuck == nil {
					stuck = d
				}
				continue
			}
			d.rhs[j] = &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: e.Pos(), X: tx, Rparen: e.Pos()}, Lparen: e.Pos(), Args: []ast.Expr{e}, Rparen: e.End()}
			changed = true
		}
		for j, id := range d.names {
			ty.set(id, types[j])
		}
	}
	if changed {
		if prog, err2 := s.compile(n, src); err2 == nil || topLevelFailure(err2) == 0 {
			return prog, err2
		}
	}
	if stuck == nil && at != nil {
		for i := range defs {
			if q := fset.Position(defs[i].node.Pos()); q.Line == at.Line && hasIndex(defs[i].rhs[0]) {
				stuck = &defs[i]
			}
		}
	}
	if stuck == nil {
		if kind == 1 {
			if better := s.defineRHSError(n, defs, all); better != nil {
				return nil, better
			}
		}
		return nil, err
	}
	return nil, topLevelError(err, stuck, fset)
}

// defineRHSError looks for the compile error yaegi hides behind its nil
// dereference when a top-level define's right side does not compile (a
// misspelled method: `pred := out.Argmax(1)` crashed the compiler where
// `out.Argmax(1)` alone is "undefined method: Argmax"): it compiles each
// right side alone, as an expression statement, and returns the first
// compile error that is not about a name the unit itself declares (all),
// or nil.
func (s *Session) defineRHSError(n ast.Node, defs []topDefine, all map[string]bool) error {
	lbrace := n.Pos()
	var list []ast.Stmt // a statement unit's statements
	if b, ok := n.(*ast.BlockStmt); ok {
		list = b.List
	}
	for _, d := range defs {
		// The statements before the define come along: its right side
		// may use what they declare.
		var before []ast.Stmt
		for i, st := range list {
			if st == d.node {
				before = list[:i:i]
				break
			}
		}
		for _, e := range d.rhs {
			var st ast.Stmt = &ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{NamePos: e.Pos(), Name: "_"}}, TokPos: e.Pos(), Tok: token.ASSIGN, Rhs: []ast.Expr{e}}
			if _, ok := ast.Unparen(e).(*ast.CallExpr); ok {
				st = &ast.ExprStmt{X: e}
			}
			snap := snapshot(s.in) // a check: whatever compiles declares nothing
			_, err := s.compile(&ast.BlockStmt{Lbrace: lbrace, List: append(before, st), Rbrace: e.End()}, "")
			snap.restore()
			var ce *CompileError
			if !errors.As(err, &ce) {
				continue
			}
			if name, ok := strings.CutPrefix(ce.Msg, "undefined: "); ok && all[name] {
				continue
			}
			return err
		}
	}
	return nil
}

// commaOkType returns the type of the value of a comma-ok expression (a map
// index, a type assertion, a receive), or nil.
func (ty *typer) commaOkType(e ast.Expr) reflect.Type {
	switch e := ast.Unparen(e).(type) {
	case *ast.IndexExpr:
		if t := ty.typeOf(e.X); t != nil && t.Kind() == reflect.Map {
			return t.Elem()
		}
	case *ast.UnaryExpr:
		if t := ty.typeOf(e.X); t != nil && t.Kind() == reflect.Chan {
			return t.Elem()
		}
	}
	return nil
}

// commaOkCall returns, for the comma-ok define v, ok := e, the call
//
//	func() (_gnnrepl_v T, _gnnrepl_ok bool) { _gnnrepl_v, _gnnrepl_ok = e; return }()
//
// which yaegi compiles at top level, or nil when T, the type of v (val for
// a map index or a receive), cannot be written.
func (s *Session) commaOkCall(d *topDefine, val reflect.Type) ast.Expr {
	e := d.rhs[0]
	pos := e.Pos()
	var tx ast.Expr
	if ta, ok := ast.Unparen(e).(*ast.TypeAssertExpr); ok {
		tx = ta.Type
	} else if val != nil {
		tx = s.typeExpr(val, pos)
	}
	if tx == nil {
		return nil
	}
	id := func(name string) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}, Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{
			{Names: []*ast.Ident{id("_gnnrepl_v")}, Type: tx},
			{Names: []*ast.Ident{id("_gnnrepl_ok")}, Type: id("bool")},
		}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: e.End(), List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{id("_gnnrepl_v"), id("_gnnrepl_ok")}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{e}},
			&ast.ReturnStmt{Return: pos},
		}},
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Rparen: e.End()}
}

// topLevelError explains a define yaegi cannot compile at top level.
func topLevelError(err error, d *topDefine, fset *token.FileSet) error {
	name := "x"
	if d != nil && d.names[0] != nil {
		name = d.names[0].Name
	}
	msg := fmt.Sprintf("the interpreter (yaegi v0.16.1) cannot infer the type of %s at the top level of a cell "+
		"(an index of a compiled slice or map, or a field or method of one); declare its type first, "+
		"`var %s T` then `%s = ...`, convert the value, `%s := T(...)`, or put the code in a function", name, name, name, name)
	if d != nil && d.commaOk {
		msg = fmt.Sprintf("the interpreter (yaegi v0.16.1) cannot compile a comma-ok define (%s, ok := m[k], x.(T) or <-ch) "+
			"at the top level of a cell for this type; declare the variables first, `var %s T; var ok bool` then `%s, ok = ...`, "+
			"or put the code in a function", name, name, name)
	}
	var ce *CompileError
	if errors.As(err, &ce) && ce.Pos.IsValid() {
		return &CompileError{Pos: ce.Pos, Msg: msg}
	}
	var pos token.Position
	if d != nil {
		pos = fset.Position(d.node.Pos())
		pos.Filename = trimSuffix(pos.Filename)
	}
	return &CompileError{Pos: pos, Msg: msg}
}

// typer finds the static types of expressions at the top level of a unit
// from the reflect types of the values they name.
type typer struct {
	s        *Session
	ctx      context.Context
	env      map[string]reflect.Type // types of the unit's earlier defines (nil: unknown)
	declared map[string]bool         // names the unit defined before
}

// set records the type of a name the unit defines (nil: unknown).
func (ty *typer) set(id *ast.Ident, t reflect.Type) {
	if id != nil && id.Name != "_" {
		ty.env[id.Name] = t
		ty.declared[id.Name] = true
	}
}

var universe = map[string]bool{"true": true, "false": true, "nil": true, "iota": true, "_": true}

// undefined returns the first name in es that neither the session, the
// unit (unit's top-level names) nor the language defines, or nil.
func (ty *typer) undefined(es []ast.Expr, unit map[string]bool) *ast.Ident {
	var und *ast.Ident
	check := func(id *ast.Ident) {
		n := id.Name
		if und == nil && !unit[n] && ty.s.kind(n) == "" && !universe[n] && !builtinFuncs[n] && !basicTypes[n] {
			und = id
		}
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SelectorExpr:
			ast.Inspect(n.X, visit) // n.Sel is a member name
			return false
		case *ast.KeyValueExpr:
			ast.Inspect(n.Value, visit) // a key may be a field name
			return false
		case *ast.Ident:
			check(n)
		}
		return und == nil
	}
	for _, e := range es {
		ast.Inspect(e, visit)
	}
	return und
}

var (
	boolType = reflect.TypeOf(false)
	byteType = reflect.TypeOf(byte(0))
)

// typeOf returns the static type of e, or nil when it cannot tell.
func (ty *typer) typeOf(e ast.Expr) reflect.Type {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return ty.typeOf(e.X)
	case *ast.Ident:
		if t, ok := ty.env[e.Name]; ok || ty.declared[e.Name] {
			return t
		}
		switch ty.s.kind(e.Name) {
		case "var":
			if v := ty.probe(&ast.UnaryExpr{OpPos: e.Pos(), Op: token.AND, X: e}); v.IsValid() && v.Kind() == reflect.Pointer {
				return v.Type().Elem()
			}
		case "func":
			if v := ty.probe(e); v.IsValid() && v.Kind() == reflect.Func {
				return v.Type()
			}
		}
		return nil
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && !ty.declared[x.Name] && ty.s.kind(x.Name) == "package" {
			if v := ty.probe(&ast.UnaryExpr{OpPos: e.Pos(), Op: token.AND, X: e}); v.IsValid() && v.Kind() == reflect.Pointer {
				return v.Type().Elem() // a package variable
			}
			if v := ty.probe(e); v.IsValid() && v.Kind() == reflect.Func {
				return v.Type()
			}
			return nil
		}
		t := ty.typeOf(e.X)
		if t == nil {
			return nil
		}
		return member(t, e.Sel.Name)
	case *ast.IndexExpr:
		t := ty.typeOf(e.X)
		if t == nil {
			return nil
		}
		switch t.Kind() {
		case reflect.Pointer:
			if t.Elem().Kind() == reflect.Array {
				return t.Elem().Elem()
			}
		case reflect.Slice, reflect.Array, reflect.Map:
			return t.Elem()
		case reflect.String:
			return byteType
		}
		return nil
	case *ast.SliceExpr:
		t := ty.typeOf(e.X)
		if t == nil {
			return nil
		}
		switch t.Kind() {
		case reflect.Slice, reflect.String:
			return t
		case reflect.Array:
			return reflect.SliceOf(t.Elem())
		case reflect.Pointer:
			if t.Elem().Kind() == reflect.Array {
				return reflect.SliceOf(t.Elem().Elem())
			}
		}
		return nil
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && (id.Name == minMaxName["min"] || id.Name == minMaxName["max"]) {
			for _, a := range e.Args { // the type of the first typed operand
				if t := ty.typeOf(a); t != nil {
					return t
				}
			}
			return nil
		}
		if pkg, fn := ty.sourcePackage(e); pkg != "" {
			return ty.sourceResult(pkg, fn, e) // a generic function: probing it fails
		}
		t := ty.typeOf(e.Fun)
		if t != nil && t.Kind() == reflect.Func && t.NumOut() == 1 {
			return t.Out(0)
		}
		return nil
	case *ast.CompositeLit:
		if e.Type == nil {
			return nil
		}
		newT := &ast.CallExpr{Fun: &ast.Ident{NamePos: e.Pos(), Name: "new"}, Lparen: e.Pos(), Args: []ast.Expr{e.Type}, Rparen: e.Pos()}
		if v := ty.probe(newT); v.IsValid() && v.Kind() == reflect.Pointer {
			return v.Type().Elem()
		}
		return nil
	case *ast.FuncLit:
		newT := &ast.CallExpr{Fun: &ast.Ident{NamePos: e.Pos(), Name: "new"}, Lparen: e.Pos(), Args: []ast.Expr{e.Type}, Rparen: e.Pos()}
		if v := ty.probe(newT); v.IsValid() && v.Kind() == reflect.Pointer {
			return v.Type().Elem()
		}
		return nil
	case *ast.StarExpr:
		if t := ty.typeOf(e.X); t != nil && t.Kind() == reflect.Pointer {
			return t.Elem()
		}
		return nil
	case *ast.UnaryExpr:
		t := ty.typeOf(e.X)
		switch {
		case t == nil:
			return nil
		case e.Op == token.AND:
			return reflect.PointerTo(t)
		case e.Op == token.ARROW:
			if t.Kind() == reflect.Chan {
				return t.Elem()
			}
			return nil
		case e.Op == token.NOT:
			return boolType
		}
		return t
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return boolType
		case token.SHL, token.SHR:
			return ty.typeOf(e.X)
		}
		if t := ty.typeOf(e.X); t != nil {
			return t
		}
		return ty.typeOf(e.Y)
	}
	return nil
}

// probe evaluates e, made of names and selectors only, or new(T) (no other
// call, no index: no side effect), and returns its value, or the zero
// Value.
func (ty *typer) probe(e ast.Expr) reflect.Value {
	prog, err := ty.s.compile(&ast.BlockStmt{Lbrace: e.Pos(), List: []ast.Stmt{&ast.ExprStmt{X: e}}, Rbrace: e.End()}, "")
	if err != nil {
		return reflect.Value{}
	}
	v, err := ty.s.run(ty.ctx, prog)
	if err != nil {
		return reflect.Value{}
	}
	return v
}

// member returns the type of field or method name of a value of type t.
func member(t reflect.Type, name string) reflect.Type {
	if m, ok := t.MethodByName(name); ok {
		return methodType(t, m)
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		if m, ok := reflect.PointerTo(t).MethodByName(name); ok {
			return methodType(reflect.PointerTo(t), m)
		}
	}
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct {
		if f, ok := st.FieldByName(name); ok {
			return f.Type
		}
	}
	return nil
}

// methodType is the type of a method value: m.Type without the receiver
// (an interface's methods have none).
func methodType(t reflect.Type, m reflect.Method) reflect.Type {
	if t.Kind() == reflect.Interface {
		return m.Type
	}
	in := make([]reflect.Type, 0, m.Type.NumIn()-1)
	for i := 1; i < m.Type.NumIn(); i++ {
		in = append(in, m.Type.In(i))
	}
	out := make([]reflect.Type, m.Type.NumOut())
	for i := range out {
		out[i] = m.Type.Out(i)
	}
	return reflect.FuncOf(in, out, m.Type.IsVariadic())
}

// typeExpr returns t written in the session's names, with every position
// at pos, or nil when t cannot be written: a struct or interface type with
// members, a named type of a package the session has not imported, a
// generic instance.
func (s *Session) typeExpr(t reflect.Type, pos token.Pos) ast.Expr {
	id := func(name string) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }
	if t.Name() != "" {
		if strings.ContainsAny(t.Name(), "[.") {
			return nil
		}
		if t.PkgPath() == "" {
			return id(t.Name()) // predeclared: int, error, ...
		}
		local := ""
		s.nmu.Lock()
		for name, p := range s.imports {
			if p == t.PkgPath() && s.names[name] == "" {
				local = name
				break
			}
		}
		s.nmu.Unlock()
		if local == "" {
			return nil
		}
		return &ast.SelectorExpr{X: id(local), Sel: id(t.Name())}
	}
	sub := func(u reflect.Type) ast.Expr { return s.typeExpr(u, pos) }
	switch t.Kind() {
	case reflect.Pointer:
		if x := sub(t.Elem()); x != nil {
			return &ast.StarExpr{Star: pos, X: x}
		}
	case reflect.Slice:
		if x := sub(t.Elem()); x != nil {
			return &ast.ArrayType{Lbrack: pos, Elt: x}
		}
	case reflect.Array:
		if x := sub(t.Elem()); x != nil {
			return &ast.ArrayType{Lbrack: pos, Len: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(t.Len())}, Elt: x}
		}
	case reflect.Map:
		if k, v := sub(t.Key()), sub(t.Elem()); k != nil && v != nil {
			return &ast.MapType{Map: pos, Key: k, Value: v}
		}
	case reflect.Chan:
		if x := sub(t.Elem()); x != nil {
			dir := map[reflect.ChanDir]ast.ChanDir{reflect.BothDir: ast.SEND | ast.RECV, reflect.SendDir: ast.SEND, reflect.RecvDir: ast.RECV}[t.ChanDir()]
			return &ast.ChanType{Begin: pos, Arrow: pos, Dir: dir, Value: x}
		}
	case reflect.Func:
		fields := func(n int, at func(int) reflect.Type, variadic bool) *ast.FieldList {
			fl := &ast.FieldList{Opening: pos, Closing: pos}
			for i := 0; i < n; i++ {
				u := at(i)
				if variadic && i == n-1 {
					x := sub(u.Elem())
					if x == nil {
						return nil
					}
					fl.List = append(fl.List, &ast.Field{Type: &ast.Ellipsis{Ellipsis: pos, Elt: x}})
					continue
				}
				x := sub(u)
				if x == nil {
					return nil
				}
				fl.List = append(fl.List, &ast.Field{Type: x})
			}
			return fl
		}
		params, results := fields(t.NumIn(), t.In, t.IsVariadic()), fields(t.NumOut(), t.Out, false)
		if params != nil && results != nil {
			return &ast.FuncType{Func: pos, Params: params, Results: results}
		}
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return &ast.InterfaceType{Interface: pos, Methods: &ast.FieldList{Opening: pos, Closing: pos}}
		}
	case reflect.Struct:
		if t.NumField() == 0 {
			return &ast.StructType{Struct: pos, Fields: &ast.FieldList{Opening: pos, Closing: pos}}
		}
	}
	return nil
}
