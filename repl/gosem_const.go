package repl

import (
	"go/ast"
	"go/token"
	"strconv"
)

// expandConstGroups rewrites, under root, each const group in which a
// spec declares several names and iota or an implicit repetition is used
// (yaegi v0.16.1 fails on them with "constant definition loop"; no
// upstream issue found) into one spec per name, with
// the spec's type and its value written out, iota being the spec's index
// in the group (https://go.dev/ref/spec#Iota), and a spec without values
// repeating the previous spec's type and values:
//
//	const (                           const (
//		a, b = iota, iota * 10            a = 0
//		c, d                      =>      b = 0 * 10
//	)                                     c = 1
//	                                      d = 1 * 10
//	                                  )
//
// A group in which every spec declares one name is left alone (yaegi
// handles them), and so is a group whose values name a non-constant iota.
func (s *Session) expandConstGroups(root ast.Node) {
	if s.kind("iota") != "" {
		return // the session redefined iota
	}
	ast.Inspect(root, func(x ast.Node) bool {
		g, ok := x.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || !needsConstExpansion(g) {
			return true
		}
		var specs []ast.Spec
		var typ ast.Expr
		var values []ast.Expr
		for i, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			if len(vs.Values) > 0 {
				typ, values = vs.Type, vs.Values
			}
			if len(values) != len(vs.Names) {
				return false // a compile error; let yaegi report it
			}
			for k, name := range vs.Names {
				var t ast.Expr
				if typ != nil {
					t = cloneNode(typ)
				}
				v := substIota(cloneNode(values[k]), i)
				nv := &ast.ValueSpec{Names: []*ast.Ident{name}, Type: t, Values: []ast.Expr{v}}
				if k == 0 {
					nv.Doc = vs.Doc
				}
				if k == len(vs.Names)-1 {
					nv.Comment = vs.Comment
				}
				specs = append(specs, nv)
			}
		}
		g.Specs = specs
		if !g.Lparen.IsValid() && len(specs) > 1 {
			g.Lparen, g.Rparen = g.TokPos, g.End()
		}
		return false
	})
}

// needsConstExpansion reports whether the const declaration g has a spec
// of several names and uses iota or an implicit repetition.
func needsConstExpansion(g *ast.GenDecl) bool {
	multi, implicit, usesIota := false, false, false
	for _, sp := range g.Specs {
		vs, ok := sp.(*ast.ValueSpec)
		if !ok {
			return false
		}
		multi = multi || len(vs.Names) > 1
		implicit = implicit || len(vs.Values) == 0
		for _, v := range vs.Values {
			ast.Inspect(v, func(x ast.Node) bool {
				if id, ok := x.(*ast.Ident); ok && id.Name == "iota" {
					usesIota = true
				}
				return !usesIota
			})
		}
	}
	return multi && (implicit || usesIota)
}

// substIota replaces the identifiers iota of e (a constant expression) by
// the integer literal i.
func substIota(e ast.Expr, i int) ast.Expr {
	lit := func(pos token.Pos) ast.Expr {
		return &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(i)}
	}
	if id, ok := e.(*ast.Ident); ok && id.Name == "iota" {
		return lit(id.Pos())
	}
	replaceExprs(e, func(x ast.Expr) ast.Expr {
		if id, ok := x.(*ast.Ident); ok && id.Name == "iota" {
			return lit(id.Pos())
		}
		return x
	})
	return e
}
