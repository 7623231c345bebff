package repl

import "go/ast"

// errorCases makes a type switch that binds a variable match compiled
// errors in a `case error:` clause. yaegi v0.16.1 matches a type switch's
// interface cases by type name, so `case error:` matches no value at all
// (no upstream issue found; its _case has a TODO to share typeAssert's
// checks), except for a compiled interface type, which it checks with
// reflect's Implements. The session's runtime exports error as such a
// type, Error, so
//
//	switch v := x.(type) { case error: ... }   =>   switch v := x.(type) { case _gnnreplrt.Error: ... }
//
// and v is an error as in Go. Values of the session's own error types
// still do not match (reflect sees no Error method on them), nor does a
// `case error:` of a switch that binds nothing or lists several types
// (yaegi takes other paths for those); KNOWN_DIFFERENCES.md says so.
func (s *Session) errorCases(root ast.Node) {
	if s.builtinShadowed(root, "error") {
		return
	}
	ast.Inspect(root, func(x ast.Node) bool {
		ts, ok := x.(*ast.TypeSwitchStmt)
		if !ok {
			return true
		}
		if _, bind := ts.Assign.(*ast.AssignStmt); !bind {
			return true
		}
		for _, st := range ts.Body.List {
			cc, ok := st.(*ast.CaseClause)
			if !ok || len(cc.List) != 1 {
				continue
			}
			if id, ok := cc.List[0].(*ast.Ident); ok && id.Name == "error" {
				cc.List[0] = &ast.SelectorExpr{X: &ast.Ident{NamePos: id.Pos(), Name: rtName}, Sel: &ast.Ident{NamePos: id.Pos(), Name: "Error"}}
			}
		}
		return true
	})
}
