package repl

import (
	"go/ast"
	"go/token"
	"path"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// importPath returns the import path of the package the session imported
// under name, or "".
func (s *Session) importPath(name string) string {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	return s.imports[name]
}

// kind returns what the session declared name as ("var", "const", "func",
// "type", "package"), or "".
func (s *Session) kind(name string) string {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	if k, ok := s.names[name]; ok {
		return k
	}
	if _, ok := s.imports[name]; ok {
		return "package"
	}
	return ""
}

// dropKnownImports removes from f the imports the session already has
// under the same name (yaegi rejects a second import of a package in the
// same file scope, and cells re-import fmt all the time). It reports
// whether f declares nothing else.
func (s *Session) dropKnownImports(f *ast.File) (empty bool) {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	decls := f.Decls[:0]
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			decls = append(decls, d)
			continue
		}
		specs := g.Specs[:0]
		for _, sp := range g.Specs {
			is := sp.(*ast.ImportSpec)
			p := strings.Trim(is.Path.Value, "`\"")
			name := s.pkgName(p)
			if is.Name != nil {
				name = is.Name.Name
			}
			if s.imports[name] == p {
				continue
			}
			specs = append(specs, sp)
		}
		if len(specs) > 0 {
			g.Specs = specs
			decls = append(decls, g)
		}
	}
	f.Decls = decls
	return len(decls) == 0
}

// record notes the names a file unit declared.
func (s *Session) record(f *ast.File) {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				s.names[d.Name.Name] = "func"
				s.funcTypes[d.Name.Name] = detachNode(d.Type)
			} else if len(d.Recv.List) == 1 {
				s.recordMethod(d)
			}
		case *ast.GenDecl:
			s.recordGen(d)
		}
	}
}

// recordMethod notes the signature of the method d of a non-generic
// receiver type.
func (s *Session) recordMethod(d *ast.FuncDecl) {
	recv := recvTypeName(d.Recv.List[0].Type)
	if recv == "" {
		return
	}
	if s.methodTypes[d.Name.Name] == nil {
		s.methodTypes[d.Name.Name] = map[string]*ast.FuncType{}
	}
	s.methodTypes[d.Name.Name][recv] = detachNode(d.Type)
}

// recordStmts notes the names top-level statements declared.
func (s *Session) recordStmts(list []ast.Stmt) {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	for _, st := range list {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, e := range st.Lhs {
					if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
						s.names[id.Name] = "var"
					}
				}
			}
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok {
				s.recordGen(g)
			}
		}
	}
}

func (s *Session) recordGen(d *ast.GenDecl) {
	for _, spec := range d.Specs {
		switch sp := spec.(type) {
		case *ast.ImportSpec:
			p := strings.Trim(sp.Path.Value, "`\"")
			name := s.pkgName(p)
			if sp.Name != nil {
				name = sp.Name.Name
			}
			if name != "_" && name != "." {
				s.imports[name] = p
				delete(s.names, name)
			}
		case *ast.TypeSpec:
			s.names[sp.Name.Name] = "type"
		case *ast.ValueSpec:
			k := "var"
			if d.Tok == token.CONST {
				k = "const"
			}
			for _, n := range sp.Names {
				if n.Name != "_" {
					s.names[n.Name] = k
				}
			}
		}
	}
}

// pkgName returns the package name of import path p from the symbol
// tables' keys ("path/name"), or the last element of p.
func (s *Session) pkgName(p string) string {
	for _, x := range s.opts.Symbols {
		for k := range x {
			if path.Dir(k) == p {
				return path.Base(k)
			}
		}
	}
	return path.Base(p)
}

// packageTables indexes the symbol tables: package name -> import path
// (names shared by two packages, like rand, are left out) and import path
// -> sorted exported member names.
func packageTables(symbols []interp.Exports) (map[string]string, map[string][]string) {
	byName := map[string]string{}
	ambiguous := map[string]bool{}
	members := map[string][]string{}
	for _, x := range symbols {
		for k, m := range x {
			p, name := path.Dir(k), path.Base(k)
			if p == "." || strings.HasPrefix(k, "github.com/traefik/yaegi") {
				continue
			}
			if q, ok := byName[name]; ok && q != p {
				ambiguous[name] = true
			}
			byName[name] = p
			for sym := range m {
				if !strings.HasPrefix(sym, "_") {
					members[p] = append(members[p], sym)
				}
			}
		}
	}
	for n := range ambiguous {
		delete(byName, n)
	}
	for p := range members {
		sortStrings(members[p])
	}
	return byName, members
}
