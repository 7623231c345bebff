package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// yaegi v0.16.1 implements Go as it was before 1.21 in a few places where
// the language has since changed; the session rewrites each cell so that it
// means what Go 1.26 says (the conformance corpus, testdata/conformance,
// checks it against the compiler):
//
//   - Loop variables are per iteration (Go 1.22). yaegi shares one variable
//     between the iterations of a for loop, so closures, goroutines and
//     pointers made in the loop all see its last value
//     (https://github.com/traefik/yaegi/issues/1643, the unmerged
//     https://github.com/traefik/yaegi/pull/1645, and
//     https://github.com/traefik/yaegi/issues/1713). perIteration gives each
//     iteration its own copy; see there.
//   - `for i := range n` over an integer (Go 1.22) makes yaegi fail with
//     "nil type" (https://github.com/traefik/yaegi/pull/1644, never
//     merged). rangeInts rewrites it into a three-clause loop when the
//     session can tell that n is an integer.
//   - Range over a function (Go 1.23) fails in the same way; rangeFuncs
//     (rangefunc.go) rewrites it into a call of the function with a yield
//     function literal when the session can tell the function's type.
//   - The generic packages slices, maps, cmp and iter cannot be called
//     from compiled code (https://github.com/traefik/yaegi/issues/1704);
//     the session compiles Go sources of them (gosrc.go), has the cells
//     call them under private names (privateGenerics) and gives untyped
//     constant arguments of cmp's functions their default type
//     (typeUntypedArgs).
//   - min, max (https://github.com/traefik/yaegi/issues/1674) and clear (Go
//     1.21) are undefined. The session declares generic min and max
//     functions and a compiled clear, and calls them instead.
//   - print and println write to the interpreter's standard output, with
//     spaces between print's operands; compiled Go writes them to standard
//     error, print without spaces. The session's runtime prints them as
//     the Go runtime does.
//   - A variable declared in a block of a statement at the top level of a
//     cell (outside any function) is not a new variable in yaegi: when it
//     shadows a session variable, yaegi assigns the session variable
//     instead (and panics when the types differ). No upstream issue was
//     found; wrapTupleBlocks runs such statements in a function literal, as
//     for the tuple defines of toplevel.go.
//   - `return <-ch` panics (https://github.com/traefik/yaegi/issues/1725):
//     receiveReturns (gosem_recvreturn.go) receives into a temporary first.
//   - Deferred function literals in loops and deferred methods' receivers
//     (gosem_defer.go), method expressions T.M (gosem_methexpr.go) and
//     recovered compiled errors (gosem_recover.go) and `case error:`
//     (gosem_tswitch.go): see there.

// builtinShadowed reports whether name (min, max, clear, print, println) is
// declared by the session or anywhere in the unit n, so that it is not the
// builtin.
func (s *Session) builtinShadowed(n ast.Node, name string) bool {
	return s.kind(name) != "" || declares(n, name)
}

// goSemantics applies the rewrites described above to the unit n (a file or
// a statement block), in place. ctx bounds the evaluations the session
// makes to learn the types of session variables.
func (s *Session) goSemantics(ctx context.Context, n ast.Node) {
	s.rangeFuncs(ctx, n)
	s.typeUntypedArgs(n)
	s.rewriteMethodExprs(n)
	s.rangeInts(n)
	perIteration(n)
	s.bindDeferReceivers(n)
	s.bindDefers(n)
	s.bindDeferredLits(n)
	s.rewriteBuiltins(n)
	s.recoverCalls(n)
	s.errorCases(n)
	s.privateGenerics(n)
	receiveReturns(n)
}

// rewriteBuiltins replaces the calls of min, max, clear, print and println
// by the session's implementations, unless the unit or the session declares
// that name.
func (s *Session) rewriteBuiltins(n ast.Node) {
	use := map[string]bool{}
	ast.Inspect(n, func(x ast.Node) bool {
		if c, ok := x.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok {
				switch id.Name {
				case "min", "max", "clear", "print", "println":
					use[id.Name] = true
				}
			}
		}
		return true
	})
	for name := range use {
		if s.builtinShadowed(n, name) {
			delete(use, name)
		}
	}
	if len(use) == 0 {
		return
	}
	if use["min"] || use["max"] {
		// min(1, 2.5) of constants is a constant: keep it one (the generic
		// functions would not infer untyped constants as Go does).
		replaceExprs(n, func(e ast.Expr) ast.Expr {
			if c, ok := e.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok && use[id.Name] && (id.Name == "min" || id.Name == "max") {
					if lit := constMinMax(id.Name, c.Args); lit != nil {
						return &ast.ParenExpr{Lparen: c.Lparen, X: lit, Rparen: c.Rparen}
					}
				}
			}
			return e
		})
	}
	ast.Inspect(n, func(x ast.Node) bool {
		c, ok := x.(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := c.Fun.(*ast.Ident)
		if !ok || !use[id.Name] {
			return true
		}
		pos := id.Pos()
		rt := func(fn string) ast.Expr {
			return &ast.SelectorExpr{X: &ast.Ident{NamePos: pos, Name: rtName}, Sel: &ast.Ident{NamePos: pos, Name: fn}}
		}
		switch id.Name {
		case "print":
			c.Fun = rt("Print")
		case "println":
			c.Fun = rt("Println")
		case "clear":
			c.Fun = rt("Clear")
		case "min", "max":
			id.Name = minMaxName[id.Name]
		}
		return true
	})
}

var minMaxName = map[string]string{"min": "_gnnrepl_min", "max": "_gnnrepl_max"}

// minMaxDecls are the session's generic min and max, declared when it
// starts (see rewriteBuiltins). Like the builtins they return a NaN operand.
const minMaxDecls = `type _gnnrepl_ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}

func _gnnrepl_min[_gnnrepl_T _gnnrepl_ordered](x _gnnrepl_T, y ..._gnnrepl_T) _gnnrepl_T {
	for _, v := range y {
		if x != x {
			return x
		}
		if v != v || v < x {
			x = v
		}
	}
	return x
}

func _gnnrepl_max[_gnnrepl_T _gnnrepl_ordered](x _gnnrepl_T, y ..._gnnrepl_T) _gnnrepl_T {
	for _, v := range y {
		if x != x {
			return x
		}
		if v != v || v > x {
			x = v
		}
	}
	return x
}
`

// constMinMax returns the value of min or max of numeric literals (an
// optional sign and a number) as a literal, or nil when an argument is not
// such a literal.
func constMinMax(name string, args []ast.Expr) *ast.BasicLit {
	if len(args) == 0 {
		return nil
	}
	var best constant.Value
	float := false
	for _, a := range args {
		v := literalValue(a)
		if v == nil {
			return nil
		}
		if v.Kind() == constant.Float {
			float = true
		}
		if best == nil || name == "min" && constant.Compare(v, token.LSS, best) || name == "max" && constant.Compare(v, token.GTR, best) {
			best = v
		}
	}
	pos := args[0].Pos()
	if float {
		f, _ := constant.Float64Val(constant.ToFloat(best))
		text := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(text, ".eIN") {
			text += ".0"
		}
		return &ast.BasicLit{ValuePos: pos, Kind: token.FLOAT, Value: text}
	}
	return &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: best.ExactString()}
}

func literalValue(e ast.Expr) constant.Value {
	switch e := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		if e.Kind == token.INT || e.Kind == token.FLOAT {
			return constant.MakeFromLiteral(e.Value, e.Kind, 0)
		}
	case *ast.UnaryExpr:
		if e.Op == token.SUB || e.Op == token.ADD {
			if v := literalValue(e.X); v != nil {
				return constant.UnaryOp(e.Op, v, 0)
			}
		}
	}
	return nil
}

// rtPrint and rtPrintln are the session runtime's Print and Println: the
// builtins print and println, written to w as the Go runtime writes them
// (println separates operands with spaces and ends the line; print does
// neither).
func rtPrint(w io.Writer, ln bool, args []any) {
	var b strings.Builder
	for i, a := range args {
		if i > 0 && ln {
			b.WriteByte(' ')
		}
		printValue(&b, a)
	}
	if ln {
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}

func printValue(b *strings.Builder, a any) {
	v := reflect.ValueOf(a)
	if rv, ok := a.(reflect.Value); ok {
		v = rv
	}
	if !v.IsValid() {
		b.WriteString("(0x0,0x0)")
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Uintptr:
		fmt.Fprintf(b, "%#x", v.Uint())
	case reflect.Float32:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 32))
	case reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Complex64:
		b.WriteString(strconv.FormatComplex(v.Complex(), 'g', -1, 64))
	case reflect.Complex128:
		b.WriteString(strconv.FormatComplex(v.Complex(), 'g', -1, 128))
	case reflect.String:
		b.WriteString(v.String())
	case reflect.Slice:
		fmt.Fprintf(b, "[%d/%d]%#x", v.Len(), v.Cap(), v.Pointer())
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		fmt.Fprintf(b, "%#x", v.Pointer())
	default:
		fmt.Fprintf(b, "%v", v)
	}
}

// rtClear is the session runtime's Clear: the builtin clear of a map
// (deletes every entry) or a slice (zeroes every element).
func rtClear(x any) {
	v := reflect.ValueOf(x)
	if rv, ok := x.(reflect.Value); ok {
		v = rv
	}
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		v.Clear()
	case reflect.Invalid:
	default:
		panic(fmt.Sprintf("invalid argument: clear(%v) (a %s, not a map or a slice)", v, v.Type()))
	}
}

// perIteration gives each iteration of the loops under root its own loop
// variables (Go 1.22), where a closure, a go or defer statement, or the
// address of a loop variable could tell the difference:
//
//	for i, v := range xs { body }   =>   for i, v := range xs { i := i; v := v; { body } }
//	for i := 0; i < n; i++ { body } =>   for i := 0; i < n; i++ { i := i; { body } }
//
// and, when the body of a three-clause loop assigns a loop variable or
// takes its address (the next iteration starts from the value it had at
// the end of the previous one),
//
//	for _gnnrepl_iN := 0; _gnnrepl_iN < n; _gnnrepl_iN++ {
//		i := _gnnrepl_iN
//		{ body, each continue of this loop being { _gnnrepl_iN = i; continue } }
//		_gnnrepl_iN = i
//	}
func perIteration(root ast.Node) {
	labels := map[ast.Stmt]string{}
	ast.Inspect(root, func(x ast.Node) bool {
		if l, ok := x.(*ast.LabeledStmt); ok {
			labels[l.Stmt] = l.Label.Name
		}
		return true
	})
	n := 0
	ast.Inspect(root, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.RangeStmt:
			if x.Tok != token.DEFINE {
				return true
			}
			names := loopNames(x.Key, x.Value)
			if len(names) == 0 || !captures(x.Body, names) {
				return true
			}
			x.Body = copyInBody(x.Body, names, nil)
		case *ast.ForStmt:
			init, ok := x.Init.(*ast.AssignStmt)
			if !ok || init.Tok != token.DEFINE {
				return true
			}
			names := loopNames(init.Lhs...)
			if len(names) == 0 || !captures(x.Body, names) {
				return true
			}
			if !assigns(x.Body, names) {
				x.Body = copyInBody(x.Body, names, nil)
				return true
			}
			n++
			outer := map[string]string{}
			for _, name := range names {
				outer[name] = fmt.Sprintf("_gnnrepl_i%d_%s", n, name)
			}
			for _, l := range init.Lhs {
				if id, ok := l.(*ast.Ident); ok && outer[id.Name] != "" {
					id.Name = outer[id.Name]
				}
			}
			rename(x.Cond, outer)
			if x.Post != nil {
				rename(x.Post, outer)
			}
			back := func(pos token.Pos) []ast.Stmt {
				var out []ast.Stmt
				for _, name := range names {
					out = append(out, &ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{NamePos: pos, Name: outer[name]}}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{&ast.Ident{NamePos: pos, Name: name}}})
				}
				return out
			}
			replaceContinues(x.Body, labels[x], back)
			x.Body = copyInBody(x.Body, names, outer)
			x.Body.List = append(x.Body.List, back(x.Body.Rbrace)...)
		}
		return true
	})
}

// loopNames returns the names of the identifiers among es, except _.
func loopNames(es ...ast.Expr) []string {
	var names []string
	for _, e := range es {
		if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
			names = append(names, id.Name)
		}
	}
	return names
}

// captures reports whether body holds a function literal, a go or defer
// statement, or takes the address of one of names.
func captures(body *ast.BlockStmt, names []string) bool {
	found := false
	ast.Inspect(body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt:
			found = true
		case *ast.UnaryExpr:
			if x.Op == token.AND && inNames(rootIdent(x.X), names) {
				found = true
			}
		}
		return !found
	})
	return found
}

// assigns reports whether body assigns one of names (=, op=, ++, --) or
// takes its address, anywhere, function literals included.
func assigns(body *ast.BlockStmt, names []string) bool {
	found := false
	ast.Inspect(body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := ast.Unparen(l).(*ast.Ident); ok && inNames(id.Name, names) {
						found = true
					}
				}
			}
		case *ast.IncDecStmt:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && inNames(id.Name, names) {
				found = true
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND && inNames(rootIdent(x.X), names) {
				found = true
			}
		}
		return !found
	})
	return found
}

func inNames(name string, names []string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// copyInBody returns { name := from; ...; { body } }, from being name
// itself or outer[name].
func copyInBody(body *ast.BlockStmt, names []string, outer map[string]string) *ast.BlockStmt {
	pos := body.Lbrace
	nb := &ast.BlockStmt{Lbrace: body.Lbrace, Rbrace: body.Rbrace}
	for _, name := range names {
		from := name
		if outer != nil {
			from = outer[name]
		}
		nb.List = append(nb.List, &ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{NamePos: pos, Name: name}}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.Ident{NamePos: pos, Name: from}}})
	}
	nb.List = append(nb.List, body)
	return nb
}

// rename renames the identifiers of n found in to (not selectors' members,
// not inside function literals).
func rename(n ast.Node, to map[string]string) {
	if n == nil {
		return
	}
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SelectorExpr:
			rename(x.X, to)
			return false
		case *ast.Ident:
			if r, ok := to[x.Name]; ok {
				x.Name = r
			}
		}
		return true
	})
}

// replaceContinues replaces each continue statement of the loop whose body
// is body (unlabeled ones outside nested loops, and those naming label) by
// { back...; continue }.
func replaceContinues(body *ast.BlockStmt, label string, back func(token.Pos) []ast.Stmt) {
	var stmt func(st ast.Stmt, nested bool) ast.Stmt
	list := func(l []ast.Stmt, nested bool) {
		for i := range l {
			l[i] = stmt(l[i], nested)
		}
	}
	stmt = func(st ast.Stmt, nested bool) ast.Stmt {
		switch x := st.(type) {
		case *ast.BranchStmt:
			if x.Tok != token.CONTINUE || x.Label == nil && nested || x.Label != nil && x.Label.Name != label {
				return st
			}
			return &ast.BlockStmt{Lbrace: x.Pos(), List: append(back(x.Pos()), x), Rbrace: x.End()}
		case *ast.BlockStmt:
			list(x.List, nested)
		case *ast.IfStmt:
			stmt(x.Body, nested)
			if x.Else != nil {
				x.Else = stmt(x.Else, nested)
			}
		case *ast.ForStmt:
			stmt(x.Body, true)
		case *ast.RangeStmt:
			stmt(x.Body, true)
		case *ast.SwitchStmt:
			stmt(x.Body, nested)
		case *ast.TypeSwitchStmt:
			stmt(x.Body, nested)
		case *ast.SelectStmt:
			stmt(x.Body, nested)
		case *ast.CaseClause:
			list(x.Body, nested)
		case *ast.CommClause:
			list(x.Body, nested)
		case *ast.LabeledStmt:
			x.Stmt = stmt(x.Stmt, nested)
		}
		return st
	}
	list(body.List, false)
}

// replaceExprs replaces, bottom-up, every expression e under root by f(e).
func replaceExprs(root ast.Node, f func(ast.Expr) ast.Expr) {
	exprType := reflect.TypeOf((*ast.Expr)(nil)).Elem()
	nodeType := reflect.TypeOf((*ast.Node)(nil)).Elem()
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() && v.Elem().Kind() == reflect.Struct {
				walk(v.Elem())
			}
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				fv := v.Field(i)
				if !fv.CanSet() {
					continue
				}
				switch {
				case fv.Type() == exprType:
					if !fv.IsNil() {
						walk(fv.Elem())
						fv.Set(reflect.ValueOf(f(fv.Interface().(ast.Expr))))
					}
				case fv.Kind() == reflect.Slice && fv.Type().Elem() == exprType:
					for j := 0; j < fv.Len(); j++ {
						if fv.Index(j).IsNil() {
							continue
						}
						walk(fv.Index(j).Elem())
						fv.Index(j).Set(reflect.ValueOf(f(fv.Index(j).Interface().(ast.Expr))))
					}
				case fv.Kind() == reflect.Slice && (fv.Type().Elem().Implements(nodeType) || fv.Type().Elem().Kind() == reflect.Interface):
					for j := 0; j < fv.Len(); j++ {
						walk(fv.Index(j))
					}
				case fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Interface:
					if fv.Type().Implements(nodeType) || fv.Kind() == reflect.Interface && fv.Type().Implements(nodeType) {
						walk(fv)
					}
				}
			}
		}
	}
	walk(reflect.ValueOf(root))
}

// rangeInts rewrites the range statements over an integer under root
// (whose operand has an integer type, by the checker) into three-clause
// loops over a hidden counter, which keep the range's meaning (the operand is evaluated once;
// the loop variable has its type; assigning it does not change the
// iteration):
//
//	for i := range n { body }  =>  { _gnnrepl_nK := n; for _gnnrepl_kK := _gnnrepl_nK - _gnnrepl_nK; _gnnrepl_kK < _gnnrepl_nK; _gnnrepl_kK++ { i := _gnnrepl_kK; body } }
//
// Range over a function (Go 1.23) is rangeFuncs'.
func (s *Session) rangeInts(root ast.Node) {
	info := s.info
	if info == nil {
		return
	}
	isInt := func(e ast.Expr) bool {
		tv, ok := info.Types[e]
		if !ok || tv.Type == nil {
			return false
		}
		b, ok := tv.Type.Underlying().(*types.Basic)
		return ok && b.Info()&types.IsInteger != 0
	}
	k := 0
	var visit func(x ast.Node) bool
	visit = func(x ast.Node) bool {
		b, ok := x.(*ast.BlockStmt)
		if !ok {
			return true
		}
		for i, st := range b.List {
			if r, ok := st.(*ast.RangeStmt); ok && isInt(r.X) {
				k++
				b.List[i] = rangeIntLoop(r, k)
				ast.Inspect(r.Body, visit)
				continue
			}
			if l, ok := st.(*ast.LabeledStmt); ok {
				if r, ok := l.Stmt.(*ast.RangeStmt); ok && isInt(r.X) {
					k++
					nb := rangeIntLoop(r, k)
					l.Stmt = nb.List[1]
					nb.List[1] = l
					b.List[i] = nb
					ast.Inspect(r.Body, visit)
					continue
				}
			}
			ast.Inspect(st, visit)
		}
		return false
	}
	// Range statements directly in case clauses get a block of their own,
	// where visit rewrites them.
	visit2 := func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.CaseClause:
			blockify(x.Body)
		case *ast.CommClause:
			blockify(x.Body)
		}
		return true
	}
	ast.Inspect(root, visit2)
	ast.Inspect(root, visit)
}

// blockify puts each range statement of list into a block of its own, so
// that rangeInts (which rewrites statements of blocks) sees it.
func blockify(list []ast.Stmt) {
	for i, st := range list {
		if _, ok := st.(*ast.RangeStmt); ok {
			list[i] = &ast.BlockStmt{Lbrace: st.Pos(), List: []ast.Stmt{st}, Rbrace: st.End()}
		}
	}
}

// rangeIntLoop returns the block { nK := X; for kK := nK - nK; kK < nK; kK++ { key = kK; body } }.
func rangeIntLoop(r *ast.RangeStmt, k int) *ast.BlockStmt {
	pos := r.For
	id := func(name string) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }
	n, c := fmt.Sprintf("_gnnrepl_n%d", k), fmt.Sprintf("_gnnrepl_k%d", k)
	body := r.Body
	if r.Key != nil && !(isBlank(r.Key) && r.Tok == token.DEFINE) {
		tok := r.Tok
		if isBlank(r.Key) {
			tok = token.ASSIGN
		}
		body = &ast.BlockStmt{Lbrace: r.Body.Lbrace, Rbrace: r.Body.Rbrace, List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{r.Key}, TokPos: pos, Tok: tok, Rhs: []ast.Expr{id(c)}},
			r.Body,
		}}
	}
	loop := &ast.ForStmt{
		For:  pos,
		Init: &ast.AssignStmt{Lhs: []ast.Expr{id(c)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.BinaryExpr{X: id(n), OpPos: pos, Op: token.SUB, Y: id(n)}}},
		Cond: &ast.BinaryExpr{X: id(c), OpPos: pos, Op: token.LSS, Y: id(n)},
		Post: &ast.IncDecStmt{X: id(c), TokPos: pos, Tok: token.INC},
		Body: body,
	}
	return &ast.BlockStmt{Lbrace: pos, Rbrace: r.End(), List: []ast.Stmt{
		&ast.AssignStmt{Lhs: []ast.Expr{id(n)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{r.X}},
		loop,
	}}
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// bindDefers makes the defer statements under root evaluate their function
// value and arguments when the defer statement runs, as Go does. yaegi
// v0.16.1 stores, for a deferred call, references to the variables'
// storage, so that a variable assigned later (x = 2, a loop variable, the
// receiver of a method value) is read with its value at the function's
// exit (no upstream issue found; yaegi's defer is
// https://github.com/traefik/yaegi/pull/8). A define makes new storage, so
//
//	defer F(x, y.M(), 1)   =>   { _gnnrepl_dNa0 := x; _gnnrepl_dNa1 := y.M(); defer F(_gnnrepl_dNa0, _gnnrepl_dNa1, 1) }
//
// Literals and constants stay in place (an untyped constant keeps its
// type). The function value itself is not bound here: yaegi runs a
// deferred function literal bound to a variable forever
// (https://github.com/traefik/yaegi/issues/1697) and fails on a bound
// method value of a compiled type; bindDeferReceivers and bindDeferredLits
// (gosem_defer.go) bind the receivers of session types' methods and make
// deferred function literals in loops at the defer.
func (s *Session) bindDefers(root ast.Node) {
	n := 0
	done := map[*ast.DeferStmt]bool{}
	fix := func(st ast.Stmt) ast.Stmt {
		d, ok := st.(*ast.DeferStmt)
		if !ok || done[d] || isBuiltinCall(d.Call.Fun) {
			return st
		}
		done[d] = true
		n++
		pos := d.Defer
		var pre []ast.Stmt
		bind := func(e ast.Expr, name string) ast.Expr {
			pre = append(pre, &ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{NamePos: pos, Name: name}}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{e}})
			return &ast.Ident{NamePos: pos, Name: name}
		}
		prefix := "_gnnrepl_d" + strconv.Itoa(n)
		call := d.Call
		for i, a := range call.Args {
			if !s.inPlace(a) || callsRecoverExpr(a) {
				call.Args[i] = bind(a, fmt.Sprintf("%sa%d", prefix, i))
			}
		}
		if len(pre) == 0 {
			return st
		}
		return &ast.BlockStmt{Lbrace: pos, List: append(pre, d), Rbrace: d.End()}
	}
	eachStmt(root, fix)
}

func callsRecoverExpr(e ast.Node) bool {
	found := false
	ast.Inspect(e, func(x ast.Node) bool {
		if c, ok := x.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "recover" {
				found = true
			}
		}
		return !found
	})
	return found
}
