package repl

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
)

// yaegi v0.16.1 keeps the first definition when a type or a method is
// declared again: the new one is silently ignored. Notebooks re-run cells
// all the time, so the session drops a redeclaration identical to the
// current one, and rejects a changed one with an error that says so,
// instead of running with the stale definition.

// declKey names a type ("type T") or a method ("method T.M") declaration,
// or returns "" for other declarations.
func declKey(d ast.Decl, spec ast.Spec) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil || len(d.Recv.List) == 0 {
			return ""
		}
		return "method " + recvName(d.Recv.List[0].Type) + "." + d.Name.Name
	case *ast.GenDecl:
		if ts, ok := spec.(*ast.TypeSpec); ok {
			return "type " + ts.Name.Name
		}
	}
	return ""
}

func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return fmt.Sprint(e)
		}
	}
}

func (s *Session) declText(n ast.Node) string {
	var b bytes.Buffer
	printer.Fprint(&b, s.in.FileSet(), n)
	return b.String()
}

// dropRedeclarations removes from f the type and method declarations the
// session already has with the same text, and returns a *CompileError for
// one that changed. It reports whether f declares nothing else.
func (s *Session) dropRedeclarations(f *ast.File) (empty bool, err error) {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	decls := f.Decls[:0]
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			key := declKey(d, nil)
			if key != "" {
				if old, ok := s.decls[key]; ok {
					if old == s.declText(d) {
						continue
					}
					return false, redeclared(s.in.FileSet().Position(d.Name.Pos()), key)
				}
			}
		case *ast.GenDecl:
			if d.Tok == token.TYPE {
				specs := d.Specs[:0]
				for _, sp := range d.Specs {
					key := declKey(d, sp)
					if old, ok := s.decls[key]; ok {
						if old == s.declText(sp) {
							continue
						}
						return false, redeclared(s.in.FileSet().Position(sp.Pos()), key)
					}
					specs = append(specs, sp)
				}
				if len(specs) == 0 {
					continue
				}
				d.Specs = specs
			}
		}
		decls = append(decls, d)
	}
	f.Decls = decls
	return len(decls) == 0, nil
}

func redeclared(pos token.Position, key string) error {
	pos.Filename = trimSuffix(pos.Filename)
	return &CompileError{Pos: pos, Msg: key + " is already declared in this session with another definition; " +
		"yaegi cannot redefine types and methods: use a new name, or :reset and run the cells again"}
}

// declTexts returns the text of f's type and method declarations, by
// declKey; taken before the session's rewrites (goSemantics), so that the
// same cell run again compares equal.
func (s *Session) declTexts(f *ast.File) map[string]string {
	texts := map[string]string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if key := declKey(d, nil); key != "" {
				texts[key] = s.declText(d)
			}
		case *ast.GenDecl:
			if d.Tok == token.TYPE {
				for _, sp := range d.Specs {
					texts[declKey(d, sp)] = s.declText(sp)
				}
			}
		}
	}
	return texts
}

// recordDecls remembers the texts (declTexts) of a unit's type and method
// declarations after it compiled and ran.
func (s *Session) recordDecls(texts map[string]string) {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	for k, v := range texts {
		s.decls[k] = v
	}
}
