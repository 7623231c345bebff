package repl

import (
	"context"
	"go/ast"
	"go/token"
	"reflect"
	"strconv"
	"strings"
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
//
// The typer below finds the static type of an expression from run-time
// values; rangefunc.go and gosem.go's rangeInts still use it.

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
