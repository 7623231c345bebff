package repl

import (
	"go/ast"
	"go/types"
)

// explicitTypeArgs writes out the type arguments go/types inferred for a
// call of a generic function a cell declares: Map(xs, func(x int) string
// {...}) becomes Map[int, string](xs, ...). yaegi v0.16.1 does its own
// inference and failed to infer a type parameter from a function literal
// argument (testdata/conformance/generic_user_func.go). A type argument that
// cannot be written leaves the call as it is.
func (tc *typeCheck) explicitTypeArgs(f *ast.File, info *types.Info) {
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := ast.Unparen(c.Fun).(*ast.Ident)
		if !ok {
			return true
		}
		inst, ok := info.Instances[id]
		if !ok || inst.TypeArgs == nil || inst.TypeArgs.Len() == 0 {
			return true
		}
		fn, ok := info.Uses[id].(*types.Func)
		if !ok || fn.Pkg() != tc.pkg {
			return true // only the cell's own generics: the source packages' have their own rewrites
		}
		var args []ast.Expr
		for i := 0; i < inst.TypeArgs.Len(); i++ {
			te := tc.typeExprLocal(inst.TypeArgs.At(i), id.Pos())
			if te == nil {
				return true
			}
			args = append(args, te)
		}
		if len(args) == 1 {
			c.Fun = &ast.IndexExpr{X: id, Lbrack: id.End(), Index: args[0], Rbrack: id.End()}
		} else {
			c.Fun = &ast.IndexListExpr{X: id, Lbrack: id.End(), Indices: args, Rbrack: id.End()}
		}
		return true
	})
}
