package repl

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"
)

// The generic standard packages slices, maps, cmp and iter, as Go source
// the interpreter compiles (internal/gosrc; see its doc.go). yaegi v0.16.1
// cannot call generic compiled code
// (https://github.com/traefik/yaegi/issues/1704): its symbol tables for
// these packages are empty, and when it loads the standard library it
// compiles its own copies of the standard library's slices.go, maps.go and
// cmp.go, where slices.Sort, SortFunc, Max, Min, BinarySearch and the
// iterator functions are missing and every function of the form
// F[S ~[]E, E any](s S) fails to infer E ("undefined type for E").
// installGoSources compiles the session's files into the same package
// scopes, which replaces yaegi's functions of the same names (a package
// scope takes redeclarations, as a REPL's does) and adds the others; iter
// is a new package.
var (
	//go:embed internal/gosrc/cmp/cmp.go
	cmpSource string
	//go:embed internal/gosrc/slices/slices.go
	slicesSource string
	//go:embed internal/gosrc/maps/maps.go
	mapsSource string
	//go:embed internal/gosrc/iter/iter.go
	iterSource string
)

// goSourcePackages are the import paths installGoSources provides, with
// their sources.
var goSourcePackages = []struct{ path, src string }{
	{"cmp", cmpSource}, {"slices", slicesSource}, {"maps", mapsSource}, {"iter", iterSource},
}

// goSourceGenerics maps each source package to the names of its generic
// functions.
var goSourceGenerics = sync.OnceValue(func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for _, p := range goSourcePackages {
		f, err := parser.ParseFile(token.NewFileSet(), p.path+".go", p.src, parser.SkipObjectResolution)
		if err != nil {
			panic(err) // the embedded sources are tested
		}
		m[p.path] = map[string]bool{}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Type.TypeParams != nil {
				m[p.path][fd.Name.Name] = true
			}
		}
	}
	return m
})

// privateName is the name under which the session calls the generic
// function name of the source package pkg.
//
// yaegi v0.16.1 keys the instances of generic functions by the function's
// name and type arguments only (interp/generic.go: genAST's sname,
// "Compare[int]"), not by package, so that cmp.Compare(1, 2) and a later
// slices.Compare([]int{...}, ...) share one instance (and fail: "cannot use
// type []int as type int"), as do slices.Max and a generic Max of the
// user's (no upstream issue found). installGoSources compiles each package
// a second time with its generic functions renamed _gnnrepl_PKG_NAME, and
// privateGenerics makes the cells call those.
func privateName(pkg, name string) string { return "_gnnrepl_" + pkg + "_" + name }

// needGoSources compiles the source packages into the session's
// interpreter when the file unit f imports one of them for the first time
// (and the session has the standard library: a session without it has no
// packages). Compiling them takes about 15ms, which a session that does
// not import them does not pay at its start.
func (s *Session) needGoSources(f *ast.File) error {
	if s.goSources || !s.hasStdlib() {
		return nil
	}
	for _, is := range f.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		for _, gp := range goSourcePackages {
			if p == gp.path {
				s.goSources = true
				return s.installGoSources()
			}
		}
	}
	return nil
}

// installGoSources compiles the source packages into the session's
// interpreter: as written (the exported names, replacing yaegi's copies),
// then with their generic functions renamed (privateName).
func (s *Session) installGoSources() error {
	generics := goSourceGenerics()
	for _, p := range goSourcePackages {
		// Each copy has a file name of its own: yaegi keys a file's
		// imports by package name and file base name, and rejects a second
		// import of a compiled package under the same key.
		f, err := parser.ParseFile(s.in.FileSet(), "gnnrepl/"+p.path+"/public.go", p.src, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("repl: compiling package %s: %w", p.path, err)
		}
		if _, err := s.in.CompileAST(f); err != nil {
			return fmt.Errorf("repl: compiling package %s: %w", p.path, err)
		}
		if len(generics[p.path]) == 0 {
			continue
		}
		f, err = parser.ParseFile(s.in.FileSet(), "gnnrepl/"+p.path+"/private.go", p.src, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("repl: compiling package %s: %w", p.path, err)
		}
		var visit func(x ast.Node) bool
		visit = func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.SelectorExpr:
				ast.Inspect(x.X, visit) // x.Sel is a member name
				return false
			case *ast.Ident:
				if generics[p.path][x.Name] {
					x.Name = privateName(p.path, x.Name)
				}
			}
			return true
		}
		ast.Inspect(f, visit)
		if _, err := s.in.CompileAST(f); err != nil {
			return fmt.Errorf("repl: compiling package %s: %w", p.path, err)
		}
	}
	return nil
}

// privateGenerics makes the calls of the source packages' generic
// functions under root call their private copies (see privateName):
// slices.Sort becomes slices._gnnrepl_slices_Sort.
func (s *Session) privateGenerics(root ast.Node) {
	generics := goSourceGenerics()
	local := map[string]string{} // local package name -> path
	for _, p := range goSourcePackages {
		if len(generics[p.path]) == 0 {
			continue
		}
		if name := unitImportName(root, p.path); name != "" {
			local[name] = p.path
		} else if name := s.importName(p.path); name != "" {
			local[name] = p.path
		}
	}
	if len(local) == 0 {
		return
	}
	pkgOf := func(sel *ast.SelectorExpr) string {
		if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil {
			return local[id.Name]
		}
		return ""
	}
	ast.Inspect(root, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.CallExpr:
			// cmp.Or(vals...) and slices.Concat(ss...): the sources'
			// Or and Concat take their first argument apart, for yaegi's
			// inference.
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok || len(x.Args) != 1 {
				return true
			}
			spread := x.Ellipsis.IsValid()
			switch p := pkgOf(sel); {
			case p == "cmp" && sel.Sel.Name == "Or" && spread:
				sel.Sel.Name, x.Ellipsis = "gnnOrSlice", token.NoPos
			case p == "cmp" && sel.Sel.Name == "Or":
				sel.Sel.Name = "gnnOr1"
			case p == "slices" && sel.Sel.Name == "Concat" && spread:
				sel.Sel.Name, x.Ellipsis = "gnnConcatSlice", token.NoPos
			case p == "slices" && sel.Sel.Name == "Concat":
				sel.Sel.Name = "gnnConcat1"
			}
		case *ast.SelectorExpr:
			if p := pkgOf(x); p != "" && generics[p][x.Sel.Name] {
				x.Sel.Name = privateName(p, x.Sel.Name)
			}
		}
		return true
	})
}

// withoutGoSourceStubs returns x without the empty tables yaegi's
// standard library has for the source packages ("slices/slices", ...: a
// generic function has no compiled symbol), so that an import of one, also
// under another name (import sl "slices"), is the source package and not
// an empty compiled one.
func withoutGoSourceStubs(x interp.Exports) interp.Exports {
	drop := false
	for _, p := range goSourcePackages {
		if m, ok := x[p.path+"/"+p.path]; ok && len(m) == 0 {
			drop = true
		}
	}
	if !drop {
		return x
	}
	y := make(interp.Exports, len(x))
	for k, v := range x {
		y[k] = v
	}
	for _, p := range goSourcePackages {
		if m, ok := y[p.path+"/"+p.path]; ok && len(m) == 0 {
			delete(y, p.path+"/"+p.path)
		}
	}
	return y
}

// hasStdlib reports whether the session's symbol tables include the
// standard library (fmt), which makes yaegi load its generic sources.
func (s *Session) hasStdlib() bool {
	for _, x := range s.opts.Symbols {
		if _, ok := x["fmt/fmt"]; ok {
			return true
		}
	}
	return false
}

var intType = reflect.TypeOf(0)

// importName returns the name under which the session imported the
// package of path p, or "".
func (s *Session) importName(p string) string {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	for name, q := range s.imports {
		if q == p && s.names[name] == "" {
			return name
		}
	}
	return ""
}

// typeUntypedArgs gives the first argument of a call of cmp.Compare,
// cmp.Less or cmp.Or whose arguments are all untyped constant literals its
// default type, as Go's type inference does (float64 when any is a
// floating-point literal, else rune when any is a rune literal, else int
// or string): yaegi v0.16.1 infers nothing from untyped constants
// ("untyped float does not implement cmp.Ordered").
//
//	cmp.Less(1.5, 2)   =>   cmp.Less(float64(1.5), 2)
func (s *Session) typeUntypedArgs(root ast.Node) {
	pkg := unitImportName(root, "cmp")
	if pkg == "" {
		pkg = s.importName("cmp")
	}
	if pkg == "" {
		return
	}
	ast.Inspect(root, func(x ast.Node) bool {
		c, ok := x.(*ast.CallExpr)
		if !ok || len(c.Args) == 0 || c.Ellipsis.IsValid() {
			return true
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); !ok || id.Name != pkg || id.Obj != nil {
			return true
		}
		switch sel.Sel.Name {
		case "Compare", "Less", "Or":
		default:
			return true
		}
		rank := 0 // 1 int, 2 rune, 3 float, 4 string
		for _, a := range c.Args {
			r := untypedRank(a)
			if r == 0 || rank != 0 && (r == 4) != (rank == 4) {
				return true // a typed argument, or strings mixed with numbers
			}
			rank = max(rank, r)
		}
		typ := [...]string{1: "int", 2: "rune", 3: "float64", 4: "string"}[rank]
		pos := c.Args[0].Pos()
		c.Args[0] = &ast.CallExpr{Fun: &ast.Ident{NamePos: pos, Name: typ}, Lparen: pos, Args: []ast.Expr{c.Args[0]}, Rparen: c.Args[0].End()}
		return true
	})
}

// untypedRank returns 1 for an integer literal, 2 for a rune literal, 3
// for a floating-point literal (each with an optional sign), 4 for a
// string literal, or 0.
func untypedRank(e ast.Expr) int {
	switch e := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		switch e.Kind {
		case token.INT:
			return 1
		case token.CHAR:
			return 2
		case token.FLOAT:
			return 3
		case token.STRING:
			return 4
		}
	case *ast.UnaryExpr:
		if e.Op == token.SUB || e.Op == token.ADD {
			if r := untypedRank(e.X); r != 4 {
				return r
			}
		}
	}
	return 0
}

// unitImportName returns the name under which the file unit root imports
// the package of path p, or "".
func unitImportName(root ast.Node, p string) string {
	f, ok := root.(*ast.File)
	if !ok {
		return ""
	}
	for _, is := range f.Imports {
		if q, _ := strconv.Unquote(is.Path.Value); q == p {
			if is.Name != nil {
				return is.Name.Name
			}
			return path.Base(p)
		}
	}
	return ""
}

// goSourceDocs maps "pkg.Name" to the declaration and doc comment of
// each exported function and type of the source packages, and "pkg" to
// the package's doc comment, for :doc and Inspect; goSourceMembers maps
// each package's path to its exported names, for completion.
var goSourceDocs = sync.OnceValues(func() (map[string]string, map[string][]string) {
	docs, members := map[string]string{}, map[string][]string{}
	for _, p := range goSourcePackages {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p.path+".go", p.src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			panic(err) // the embedded sources are tested
		}
		docs[p.path] = strings.TrimSpace(f.Doc.Text())
		add := func(name, decl string, doc *ast.CommentGroup) {
			if !ast.IsExported(name) {
				return
			}
			members[p.path] = append(members[p.path], name)
			docs[p.path+"."+name] = decl + "\n\n" + strings.TrimSpace(doc.Text())
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				var b strings.Builder
				printer.Fprint(&b, fset, &ast.FuncDecl{Name: d.Name, Type: d.Type})
				add(d.Name.Name, b.String(), d.Doc)
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok {
						var b strings.Builder
						printer.Fprint(&b, fset, &ast.GenDecl{Tok: token.TYPE, Specs: []ast.Spec{ts}})
						doc := ts.Doc
						if doc == nil {
							doc = d.Doc
						}
						add(ts.Name.Name, b.String(), doc)
					}
				}
			}
		}
		sortStrings(members[p.path])
	}
	return docs, members
})

// addGoSourceTables adds the source packages' members to the session's
// completion tables (their symbol tables are empty); their docs are
// doc's.
func (s *Session) addGoSourceTables() {
	_, members := goSourceDocs()
	for _, p := range goSourcePackages {
		s.memberTable[p.path] = members[p.path]
		if _, ok := s.packages[p.path]; !ok {
			s.packages[p.path] = p.path
		}
	}
}

// doc returns the doc text of key ("pkg", "pkg.Name", "pkg.Type.Method")
// from Options.Docs, or from the source packages' (when the session has
// the standard library).
func (s *Session) doc(key string) (string, bool) {
	if d, ok := s.opts.Docs[key]; ok {
		return d, true
	}
	if s.hasStdlib() {
		docs, _ := goSourceDocs()
		d, ok := docs[key]
		return d, ok
	}
	return "", false
}

// allDocs returns the keys doc knows, as a set.
func (s *Session) allDocs() map[string]bool {
	all := make(map[string]bool, len(s.opts.Docs))
	for k := range s.opts.Docs {
		all[k] = true
	}
	if s.hasStdlib() {
		docs, _ := goSourceDocs()
		for k := range docs {
			all[k] = true
		}
	}
	return all
}
