package repl

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
)

// Two more rewrites of defer statements (see bindDefers for the
// arguments):
//
// A deferred function literal in a loop sees the variables of its own
// iteration. yaegi v0.16.1 makes the closure of a deferred function
// literal only when the function returns, from the frame as it is then,
// so every iteration's literal reads the last iteration's variables (a
// function literal evaluated as a value copies the frame's variables when
// it is evaluated, which is how perIteration's copies work). Binding the
// literal to a variable first, `f := func() {...}; defer f()`, hangs
// (https://github.com/traefik/yaegi/issues/1697): the closure, when it
// returns, locks the frame it was made in, and that frame's lock is held
// while it runs its deferred calls. A closure made by another function
// call does not lock this frame, so
//
//	defer func(p P) { body }(args)   =>   { _gnnrepl_dfN := func() func(p P) { return func(p P) { body } }(); defer _gnnrepl_dfN(args) }
//
// (the literal is made, with the frame's variables as they are at the
// defer, by the call, and the function value is evaluated at the defer,
// as Go says). Only defers in a loop of their function are rewritten, and
// not those whose literal calls recover (the closure's recover would not
// see the panic).
//
// A deferred method call of a session type reads its receiver at the
// defer. yaegi reads a method value's receiver when it is called, so
// `a := T{"a"}; defer a.Close(); a.name = "changed"` closes "changed"
// (no upstream issue found). When the receiver is a local variable whose
// type, T or *T of a session type, the function's declarations give, and
// the method is declared in the cell or the session, the receiver Go
// evaluates at the defer is bound first:
//
//	defer x.M(args)   =>   { _gnnrepl_drN := x; defer _gnnrepl_drN.M(args) }
//
// with x, *x or &x as the receiver and x's types require (a value
// receiver is copied, a pointer receiver is the variable's address).

// bindDeferredLits rewrites the deferred function literals in loops
// under root (after bindDefers).
func (s *Session) bindDeferredLits(root ast.Node) {
	n := 0
	var walk func(body *ast.BlockStmt)
	walk = func(body *ast.BlockStmt) {
		loops := map[*ast.BlockStmt]bool{} // loop bodies of this function
		ast.Inspect(body, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.FuncLit:
				walk(x.Body)
				return false
			case *ast.ForStmt:
				loops[x.Body] = true
			case *ast.RangeStmt:
				loops[x.Body] = true
			}
			return true
		})
		if len(loops) == 0 {
			return
		}
		inLoop := map[*ast.DeferStmt]bool{}
		for b := range loops {
			ast.Inspect(b, func(x ast.Node) bool {
				switch x := x.(type) {
				case *ast.FuncLit:
					return false
				case *ast.DeferStmt:
					inLoop[x] = true
				}
				return true
			})
		}
		eachStmtNoLits(body, func(st ast.Stmt) ast.Stmt {
			d, ok := st.(*ast.DeferStmt)
			if !ok || !inLoop[d] {
				return st
			}
			lit, ok := ast.Unparen(d.Call.Fun).(*ast.FuncLit)
			if !ok || callsRecoverExpr(lit.Body) {
				return st
			}
			n++
			pos := d.Defer
			name := "_gnnrepl_df" + strconv.Itoa(n)
			mk := &ast.CallExpr{Lparen: pos, Rparen: pos, Fun: &ast.FuncLit{
				Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos},
					Results: &ast.FieldList{List: []*ast.Field{{Type: cloneNode(lit.Type)}}}},
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{lit}}}},
			}}
			bind := &ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{NamePos: pos, Name: name}}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{mk}}
			d.Call.Fun = &ast.Ident{NamePos: lit.Pos(), Name: name}
			return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{bind, d}, Rbrace: d.End()}
		})
	}
	for _, b := range funcBodies(root) {
		walk(b)
	}
}

// funcBodies returns the bodies of the function declarations under root
// and of the function literals outside them (function literals inside a
// body are the walkers' business).
func funcBodies(root ast.Node) []*ast.BlockStmt {
	var bodies []*ast.BlockStmt
	ast.Inspect(root, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncDecl:
			if x.Body != nil {
				bodies = append(bodies, x.Body)
			}
			return false
		case *ast.FuncLit:
			bodies = append(bodies, x.Body)
			return false
		}
		return true
	})
	return bodies
}

// eachStmtNoLits is eachStmt without entering function literals.
func eachStmtNoLits(root ast.Node, fix func(ast.Stmt) ast.Stmt) {
	list := func(l []ast.Stmt) {
		for i, st := range l {
			l[i] = fix(st)
		}
	}
	ast.Inspect(root, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			return false
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

// bindDeferReceivers binds the receivers of the deferred method calls
// under root described above (before bindDefers).
func (s *Session) bindDeferReceivers(root ast.Node) {
	unitTypes, unitMethods := unitTypesAndMethods(root)
	n := 0
	var walk func(ft *ast.FuncType, recv *ast.FieldList, body *ast.BlockStmt)
	walk = func(ft *ast.FuncType, recv *ast.FieldList, body *ast.BlockStmt) {
		var types map[string]string // local name -> "T" or "*T", "" when unknown
		eachStmtNoLits(body, func(st ast.Stmt) ast.Stmt {
			d, ok := st.(*ast.DeferStmt)
			if !ok {
				return st
			}
			sel, ok := d.Call.Fun.(*ast.SelectorExpr)
			if !ok {
				return st
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return st
			}
			if types == nil {
				types = localTypes(ft, recv, body)
			}
			tt := types[x.Name]
			if tt == "" {
				return st
			}
			ptr := tt[0] == '*'
			tname := tt
			if ptr {
				tname = tt[1:]
			}
			if !unitTypes[tname] && s.kind(tname) != "type" {
				return st
			}
			ptrRecv, found := s.methodRecv(unitMethods, tname, sel.Sel.Name)
			if !found {
				return st
			}
			pos := d.Defer
			var r ast.Expr = &ast.Ident{NamePos: x.Pos(), Name: x.Name}
			switch {
			case ptr && !ptrRecv:
				r = &ast.StarExpr{Star: x.Pos(), X: r}
			case !ptr && ptrRecv:
				r = &ast.UnaryExpr{OpPos: x.Pos(), Op: token.AND, X: r}
			}
			n++
			name := "_gnnrepl_dr" + strconv.Itoa(n)
			bind := &ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{NamePos: pos, Name: name}}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{r}}
			sel.X = &ast.Ident{NamePos: x.Pos(), Name: name}
			return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{bind, d}, Rbrace: d.End()}
		})
		ast.Inspect(body, func(x ast.Node) bool {
			if lit, ok := x.(*ast.FuncLit); ok {
				walk(lit.Type, nil, lit.Body)
				return false
			}
			return true
		})
	}
	ast.Inspect(root, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncDecl:
			if x.Body != nil {
				walk(x.Type, x.Recv, x.Body)
			}
			return false
		case *ast.FuncLit:
			walk(x.Type, nil, x.Body)
			return false
		}
		return true
	})
}

// unitTypesAndMethods returns the non-generic types the unit root declares
// at package level, and its methods: "T.M" -> whether the receiver is a
// pointer.
func unitTypesAndMethods(root ast.Node) (types map[string]bool, methods map[string]bool) {
	types, methods = map[string]bool{}, map[string]bool{}
	f, ok := root.(*ast.File)
	if !ok {
		return
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			for _, sp := range d.Specs {
				if ts := sp.(*ast.TypeSpec); ts.TypeParams == nil {
					types[ts.Name.Name] = true
				}
			}
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) == 1 {
				_, ptr := d.Recv.List[0].Type.(*ast.StarExpr)
				methods[recvName(d.Recv.List[0].Type)+"."+d.Name.Name] = ptr
			}
		}
	}
	return
}

// methodRecv reports whether type tname has a method name declared in the
// unit (unitMethods) or by the session, and whether its receiver is a
// pointer.
func (s *Session) methodRecv(unitMethods map[string]bool, tname, name string) (ptr, found bool) {
	if ptr, ok := unitMethods[tname+"."+name]; ok {
		return ptr, true
	}
	if fd := s.sessionMethod(tname, name); fd != nil && len(fd.Recv.List) == 1 {
		_, ptr := fd.Recv.List[0].Type.(*ast.StarExpr)
		return ptr, true
	}
	return false, false
}

// sessionMethod returns the declaration of method name of the session's
// type tname, parsed from the text the session recorded (redecl.go), or
// nil.
func (s *Session) sessionMethod(tname, name string) *ast.FuncDecl {
	s.nmu.Lock()
	text, ok := s.decls["method "+tname+"."+name]
	s.nmu.Unlock()
	if !ok {
		return nil
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, 0)
	if err != nil || len(f.Decls) != 1 {
		return nil
	}
	fd, _ := f.Decls[0].(*ast.FuncDecl)
	if fd == nil || fd.Recv == nil {
		return nil
	}
	return fd
}

// localTypes returns the names a function declares (receiver, parameters,
// results, var declarations, defines, in its function literals too) whose
// declarations all give the type "T" or "*T", T a type name: var x T, x
// T as a parameter, x := T{...}, x := &T{...}, x := new(T). A name declared
// otherwise, or twice with different types, maps to "". A function that
// declares a local type T maps nothing to T.
func localTypes(ft *ast.FuncType, recv *ast.FieldList, body *ast.BlockStmt) map[string]string {
	types := map[string]string{}
	localType := map[string]bool{}
	declare := func(id *ast.Ident, t string) {
		if id == nil || id.Name == "_" {
			return
		}
		if old, ok := types[id.Name]; ok && old != t {
			t = ""
		}
		types[id.Name] = t
	}
	typeText := func(e ast.Expr) string {
		switch e := e.(type) {
		case *ast.Ident:
			return e.Name
		case *ast.StarExpr:
			if id, ok := e.X.(*ast.Ident); ok {
				return "*" + id.Name
			}
		}
		return ""
	}
	valueType := func(e ast.Expr) string {
		switch e := ast.Unparen(e).(type) {
		case *ast.CompositeLit:
			if id, ok := e.Type.(*ast.Ident); ok {
				return id.Name
			}
		case *ast.UnaryExpr:
			if c, ok := ast.Unparen(e.X).(*ast.CompositeLit); ok && e.Op == token.AND {
				if id, ok := c.Type.(*ast.Ident); ok {
					return "*" + id.Name
				}
			}
		case *ast.CallExpr:
			if fn, ok := e.Fun.(*ast.Ident); ok && fn.Name == "new" && len(e.Args) == 1 {
				if id, ok := e.Args[0].(*ast.Ident); ok {
					return "*" + id.Name
				}
			}
		}
		return ""
	}
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			for _, id := range f.Names {
				declare(id, typeText(f.Type))
			}
		}
	}
	fields(recv)
	fields(ft.Params)
	fields(ft.Results)
	ast.Inspect(body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncType:
			fields(x.Params)
			fields(x.Results)
		case *ast.TypeSpec:
			localType[x.Name.Name] = true
		case *ast.ValueSpec:
			for i, id := range x.Names {
				switch {
				case x.Type != nil:
					declare(id, typeText(x.Type))
				case len(x.Values) == len(x.Names):
					declare(id, valueType(x.Values[i]))
				default:
					declare(id, "")
				}
			}
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for i, l := range x.Lhs {
					id, _ := l.(*ast.Ident)
					t := ""
					if len(x.Lhs) == len(x.Rhs) {
						t = valueType(x.Rhs[i])
					}
					declare(id, t)
				}
			}
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					id, _ := e.(*ast.Ident)
					declare(id, "")
				}
			}
		case *ast.TypeSwitchStmt:
			if a, ok := x.Assign.(*ast.AssignStmt); ok && len(a.Lhs) == 1 {
				id, _ := a.Lhs[0].(*ast.Ident)
				declare(id, "")
			}
		}
		return true
	})
	for name, t := range types {
		if localType[t] || len(t) > 0 && t[0] == '*' && localType[t[1:]] {
			types[name] = ""
		}
	}
	return types
}
