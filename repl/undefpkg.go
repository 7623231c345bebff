package repl

import (
	"go/ast"
	"go/token"
	"strings"
)

// yaegi v0.16.1 gives a type written with a package that is not imported
// (`var sb strings.Builder`, `*strings.Builder`, a parameter of type
// bytes.Buffer, without import "strings" or "bytes") a nil type and no
// error, and then dereferences it: the cell failed with "interpreter
// error: runtime error: invalid memory address or nil pointer dereference"
// (traefik/yaegi#1636, nodeType returning nil without an error). Go
// reports "undefined: strings" at the package name; undefinedPackage does
// so before yaegi compiles the unit.

// undefinedPackage returns a *CompileError "undefined: P" for the first
// type P.T in n whose P is neither a package the session or the unit
// imports nor a name the session or the unit declares; otherwise nil.
func (s *Session) undefinedPackage(fset *token.FileSet, n ast.Node) error {
	declared := map[string]bool{}
	var qualified []*ast.Ident // the P of each P.T in a type position
	var typeExpr func(e ast.Expr)
	typeExpr = func(e ast.Expr) {
		switch t := e.(type) {
		case *ast.SelectorExpr:
			if id, ok := t.X.(*ast.Ident); ok {
				qualified = append(qualified, id)
			}
		case *ast.StarExpr:
			typeExpr(t.X)
		case *ast.ParenExpr:
			typeExpr(t.X)
		case *ast.ArrayType:
			typeExpr(t.Elt)
		case *ast.MapType:
			typeExpr(t.Key)
			typeExpr(t.Value)
		case *ast.ChanType:
			typeExpr(t.Value)
		case *ast.Ellipsis:
			typeExpr(t.Elt)
		case *ast.IndexExpr:
			typeExpr(t.X)
			typeExpr(t.Index)
		case *ast.IndexListExpr:
			typeExpr(t.X)
			for _, x := range t.Indices {
				typeExpr(x)
			}
		}
		// Struct, interface and func types: their fields are visited as
		// *ast.Field below.
	}
	declaredIdents(n, func(id *ast.Ident) bool {
		declared[id.Name] = true
		return true
	})
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.ImportSpec:
			name := s.pkgName(strings.Trim(x.Path.Value, "`\""))
			if x.Name != nil {
				name = x.Name.Name
			}
			declared[name] = true
		case *ast.ValueSpec:
			typeExpr(x.Type)
		case *ast.TypeSpec:
			typeExpr(x.Type)
		case *ast.Field:
			typeExpr(x.Type)
		case *ast.CompositeLit:
			typeExpr(x.Type)
		case *ast.TypeAssertExpr:
			typeExpr(x.Type)
		case *ast.AssignStmt:
			// A tuple define from a call of a package not imported
			// (`n, err := strconv.Atoi(s)`) makes yaegi dereference nil too.
			if call, ok := tupleDefineCall(x); ok {
				if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok {
						qualified = append(qualified, id)
					}
				}
			}
		}
		return true
	})
	for _, id := range qualified {
		if declared[id.Name] || id.Name == rtName || s.kind(id.Name) != "" {
			continue
		}
		p := fset.Position(id.Pos())
		p.Filename = trimSuffix(p.Filename)
		return &CompileError{Pos: p, Msg: "undefined: " + id.Name}
	}
	return nil
}

// tupleDefineCall returns the call of a := of several names from one call.
func tupleDefineCall(a *ast.AssignStmt) (*ast.CallExpr, bool) {
	if a.Tok != token.DEFINE || len(a.Lhs) < 2 || len(a.Rhs) != 1 {
		return nil, false
	}
	call, ok := ast.Unparen(a.Rhs[0]).(*ast.CallExpr)
	return call, ok
}
