package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"strings"
)

// multiResult is the display of v, the []interface{} of a call's results
// made by collectResults or collectAll: one value shows as itself, several
// as a comma-separated list whose last error, when not nil, is marked
// "error: ". A print call shows nothing.
func multiResult(v reflect.Value, printCall bool) Result {
	if !v.IsValid() || printCall {
		return Result{}
	}
	vals, ok := v.Interface().([]interface{})
	if !ok {
		return Result{Text: Format(v), Values: []reflect.Value{v}}
	}
	res := Result{}
	texts := make([]string, len(vals))
	for i, x := range vals {
		rv := reflect.ValueOf(x)
		res.Values = append(res.Values, rv)
		texts[i] = Format(rv)
	}
	if n := len(vals); n > 1 {
		if err, ok := vals[n-1].(error); ok && err != nil {
			texts[n-1] = "error: " + texts[n-1]
		}
	}
	res.Text = strings.Join(texts, ", ")
	return res
}

// results is the session runtime's Results: a call's results as a slice.
func results(v ...interface{}) []interface{} { return v }

// collectAll returns the statement _gnnreplrt.Results(call), whose value
// holds all results of call, however many.
func collectAll(call *ast.CallExpr) ast.Stmt {
	pos := call.Pos()
	fun := &ast.SelectorExpr{X: &ast.Ident{NamePos: pos, Name: rtName}, Sel: &ast.Ident{NamePos: pos, Name: "Results"}}
	return &ast.ExprStmt{X: &ast.CallExpr{Fun: fun, Lparen: pos, Args: []ast.Expr{call}, Rparen: call.End()}}
}

// collectResults returns the statement
//
//	func() []interface{} { r0, ..., rN := call; return []interface{}{r0, ..., rN} }()
//
// whose value holds all n results of call (yaegi's value of a call
// statement is its first result only).
func collectResults(call *ast.CallExpr, n int) ast.Stmt {
	pos := call.Pos()
	anys := func() *ast.ArrayType {
		return &ast.ArrayType{Lbrack: pos, Elt: &ast.InterfaceType{Interface: pos, Methods: &ast.FieldList{Opening: pos, Closing: pos}}}
	}
	var lhs, elts []ast.Expr
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("_gnnrepl_r%d", i)
		lhs = append(lhs, &ast.Ident{NamePos: pos, Name: name})
		elts = append(elts, &ast.Ident{NamePos: pos, Name: name})
	}
	fn := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos},
			Results: &ast.FieldList{List: []*ast.Field{{Type: anys()}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: call.End(), List: []ast.Stmt{
			&ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{call}},
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{&ast.CompositeLit{Type: anys(), Lbrace: pos, Elts: elts, Rbrace: pos}}},
		}},
	}
	return &ast.ExprStmt{X: &ast.CallExpr{Fun: fn, Lparen: pos, Rparen: pos}}
}

// results returns how many values call returns, evaluating its function
// expression (which has no side effects when it is made of names,
// selectors and indexes only) to read its type, and whether it is one of
// fmt's Print functions. known is false when the function expression does
// not compile yet (it names something the unit declares). n is -1 when
// the count is unknown: the function expression has a call in it, or does
// not compile. Conversions and builtins count as one result.
func (s *Session) results(ctx context.Context, lbrace token.Pos, call *ast.CallExpr) (n int, printCall, known bool) {
	fun := ast.Unparen(call.Fun)
	if id, ok := fun.(*ast.Ident); ok && s.kind(id.Name) == "" {
		switch {
		case noResultBuiltins[id.Name]:
			return 0, false, true
		case builtinFuncs[id.Name] || basicTypes[id.Name]:
			return 1, false, true
		}
	}
	if id, ok := fun.(*ast.Ident); ok && s.kind(id.Name) == "type" {
		return 1, false, true
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if x, ok := sel.X.(*ast.Ident); ok && s.importPath(x.Name) == "fmt" {
			printCall = strings.HasPrefix(sel.Sel.Name, "Print") || strings.HasPrefix(sel.Sel.Name, "Fprint")
		}
	}
	if lit, ok := fun.(*ast.FuncLit); ok { // func() { ... }(): count its results
		n := 0
		if r := lit.Type.Results; r != nil {
			for _, f := range r.List {
				n += max(len(f.Names), 1)
			}
		}
		return n, false, true
	}
	if !pure(fun) {
		return -1, printCall, true
	}
	prog, err := s.compile(&ast.BlockStmt{Lbrace: lbrace, List: []ast.Stmt{&ast.ExprStmt{X: fun}}}, "")
	if err != nil {
		return -1, printCall, false
	}
	v, err := s.run(ctx, prog)
	if err != nil || !v.IsValid() || v.Kind() != reflect.Func {
		return -1, printCall, true
	}
	return v.Type().NumOut(), printCall, true
}

// pure reports whether evaluating e has no side effects: names, selectors,
// indexes by such expressions, and literals.
func pure(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil, *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr, *ast.BasicLit, *ast.ParenExpr, *ast.StarExpr:
		case *ast.UnaryExpr:
			ok = ok && n.Op != token.ARROW
		default:
			ok = false
		}
		return ok
	})
	return ok
}
