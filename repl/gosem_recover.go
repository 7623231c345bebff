package repl

import (
	"go/ast"
	"reflect"
)

// recoverCalls makes the value recover returns usable when it is a
// compiled error. yaegi v0.16.1 hands the deferred function the panic
// value wrapped in a reflect.Value (its _recover builds
// valueInterface{n, reflect.ValueOf(recovered)} of the interpreted
// panic's reflect.Value), so that `r.(error)`, `r == ErrX` and
// `errors.Is(r.(error), ErrX)` fail where Go succeeds (no upstream issue
// found). The session rewrites each call of the builtin
//
//	recover()   =>   _gnnreplrt.Recovered(recover())
//
// (recover is still called directly by the deferred function, as Go
// requires), and Recovered (rtRecovered) unwraps the value when it holds
// a value of a compiled type that implements error. Other values are
// returned unchanged: an interpreted type's value would lose its type
// (a session `type E int` is a plain int to compiled code).
func (s *Session) recoverCalls(root ast.Node) {
	if s.builtinShadowed(root, "recover") {
		return
	}
	replaceExprs(root, func(e ast.Expr) ast.Expr {
		c, ok := e.(*ast.CallExpr)
		if !ok || len(c.Args) != 0 {
			return e
		}
		if id, ok := c.Fun.(*ast.Ident); !ok || id.Name != "recover" {
			return e
		}
		pos := c.Pos()
		return &ast.CallExpr{
			Fun:    &ast.SelectorExpr{X: &ast.Ident{NamePos: pos, Name: rtName}, Sel: &ast.Ident{NamePos: pos, Name: "Recovered"}},
			Lparen: pos, Args: []ast.Expr{c}, Rparen: c.End(),
		}
	})
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// rtRecovered is the session runtime's Recovered (see recoverCalls).
func rtRecovered(x any) any {
	rv, ok := x.(reflect.Value)
	if !ok || !rv.IsValid() || !rv.CanInterface() {
		return x
	}
	if rv.Kind() == reflect.Interface && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Type().Implements(errorType) {
		return rv.Interface()
	}
	return x
}
