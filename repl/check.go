package repl

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/repl/internal/symtypes"
	"github.com/traefik/yaegi/interp"
)

// The session's front end type-checks every unit of a cell with go/types
// before anything of the cell runs (DESIGN.md, "The session's front end"):
//
//	cell -> splitCell -> units -> go/parser -> go/types -> lowering -> yaegi
//
// The checked package is "main". Its scope holds the session: every name an
// earlier unit declared (functions, types, variables, constants; a
// top-level define of a statement unit is a session variable) and every
// import, as package names in the package scope, so that a cell uses what an
// earlier cell imported. The compiled packages' types come from the yaegi
// symbol tables (symtypes). Each unit is checked in a package of its own
// whose scope starts as a copy of the session's, less the names the unit
// declares again (a REPL may redefine a function or a variable); go/types
// compares unexported names by package path, so a field x of a struct
// declared in one cell is the same field in the next.
//
// A cell whose units do not all type-check runs nothing and changes
// nothing; the error is Go's own, with the cell's positions. The checker
// accepts what a REPL must beyond Go: a top-level variable that no later
// statement of the cell uses, an import no later code of the cell uses, and
// a bare expression as a statement (its value is shown).

// typeCheck is the session's type checker state.
type typeCheck struct {
	imp *symtypes.Importer
	// pkg is "main": every unit is checked as part of it, and its scope
	// holds the session's names (see scopeElems).
	pkg *types.Package

	sources bool // the source packages are checked (importPkg)
}

func newTypeCheck(symbols []interp.Exports) *typeCheck {
	return &typeCheck{
		imp: symtypes.New(symbols...),
		pkg: types.NewPackage("main", "main"),
	}
}

// typeSnap is the session scope's contents at one time.
type typeSnap map[string]types.Object

func (tc *typeCheck) snapshot() typeSnap {
	m := scopeElems(tc.pkg.Scope())
	snap := make(typeSnap, m.Len())
	it := m.MapRange()
	for it.Next() {
		if o, ok := it.Value().Interface().(types.Object); ok {
			snap[it.Key().String()] = o
		}
	}
	return snap
}

// restore puts the session scope back as it was at snap.
func (tc *typeCheck) restore(snap typeSnap) {
	sc := tc.pkg.Scope()
	for _, name := range sc.Names() {
		if _, ok := snap[name]; !ok {
			scopeRemove(sc, name)
		}
	}
	for name, o := range snap {
		if sc.Lookup(name) != o {
			scopeRemove(sc, name)
			sc.Insert(o)
		}
	}
}

// checked is the result of checking one unit.
type checked struct {
	info *types.Info
	// stmtDefs are the objects of a statement unit's top-level defines, by
	// the position of the statement that declares them (for a unit that
	// failed part way: only the statements that ran declare).
	stmtDefs map[token.Pos][]types.Object
	// retyped maps a session type that the unit re-declared (to give it
	// methods) to its new object.
	retyped map[*types.TypeName]*types.TypeName
}

// keepRan puts back in the session scope the defines of the statements of
// c that ran (ran reports it by the statement's position), after the unit
// failed and the scope was restored to what it was before the unit.
func (tc *typeCheck) keepRan(c *checked, ran func(token.Pos) bool) {
	for old, nw := range c.retyped {
		tc.retype(old, nw)
	}
	for pos, objs := range c.stmtDefs {
		if ran(pos) {
			for _, o := range objs {
				scopeSet(tc.pkg.Scope(), o)
			}
		}
	}
}

// checkError is a go/types error list as the session reports it.
func checkError(fset *token.FileSet, errs []types.Error) error {
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Pos < errs[j].Pos })
	ce := &CompileError{Pos: fset.Position(errs[0].Pos), Msg: errs[0].Msg}
	ce.Pos.Filename = trimSuffix(ce.Pos.Filename)
	for i, e := range errs[1:] {
		if i == maxMoreErrors {
			ce.More = append(ce.More, fmt.Sprintf("too many errors (%d more)", len(errs)-1-i))
			break
		}
		p := fset.Position(e.Pos)
		p.Filename = trimSuffix(p.Filename)
		ce.More = append(ce.More, fmt.Sprintf("%s: %s", p, e.Msg))
	}
	return ce
}

// unitDecl lists the package-level names f declares (functions, types,
// variables, constants, imports by local name) and the methods it declares
// by receiver base type name.
func (tc *typeCheck) unitDecls(f *ast.File) (names map[string]bool, imports map[string]bool, methods map[string][]string) {
	names, imports, methods = map[string]bool{}, map[string]bool{}, map[string][]string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
			} else if len(d.Recv.List) == 1 {
				b := recvName(d.Recv.List[0].Type)
				methods[b] = append(methods[b], d.Name.Name)
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ImportSpec:
					p, _ := strconv.Unquote(sp.Path.Value)
					name := tc.imp.Name(p)
					if sp.Name != nil {
						name = sp.Name.Name
					}
					imports[name] = true
				case *ast.TypeSpec:
					names[sp.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return names, imports, methods
}

// check type-checks the unit f (a file: its package-level declarations,
// and for a statement unit the function main holding the statements) in
// the session view v. decls gives the text of the session's type and
// method declarations ("type T", "method T.M"), for a unit that declares
// methods of a type an earlier cell declared.
func (tc *typeCheck) check(fset *token.FileSet, f *ast.File, stmts bool, decls map[string]string) (*checked, error) {
	sc := tc.pkg.Scope()
	dropBlankImports(f, tc.imp.Has)
	names, imports, methods := tc.unitDecls(f)
	files := []*ast.File{f}
	// Methods of a session type: the type is declared again, with its
	// earlier methods, so that go/types takes the methods as local.
	var redecl []*types.TypeName
	for base, ms := range methods {
		if names[base] {
			continue
		}
		tn, ok := sc.Lookup(base).(*types.TypeName)
		if !ok || tn.Pkg() == nil || tn.Pkg().Path() != "main" {
			continue
		}
		text, ok := decls["type "+base]
		if !ok {
			continue
		}
		mine := map[string]bool{}
		for _, m := range ms {
			mine[m] = true
		}
		var b strings.Builder
		b.WriteString("package main\ntype " + text + "\n")
		var keys []string
		for k := range decls {
			if strings.HasPrefix(k, "method "+base+".") && !mine[strings.TrimPrefix(k, "method "+base+".")] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(decls[k] + "\n")
		}
		ef, err := parser.ParseFile(fset, "session/"+base+".go", b.String(), 0)
		if err != nil {
			continue
		}
		files = append(files, ef)
		names[base] = true
		redecl = append(redecl, tn)
	}

	pkg := tc.pkg
	// The names the unit declares again are not the session's while it is
	// checked; a failed check puts them back (the caller's typeSnap).
	for k := range names {
		scopeRemove(sc, k)
	}
	for k := range imports {
		scopeRemove(sc, k)
	}
	var oldMain types.Object
	if stmts {
		oldMain = sc.Lookup("main")
		scopeRemove(sc, "main")
	}
	defer dropChildren(sc)
	var top map[token.Pos]bool // positions of a statement unit's top-level defines and expressions
	var body *ast.BlockStmt
	if stmts {
		body = f.Decls[len(f.Decls)-1].(*ast.FuncDecl).Body
		top = topLevelPositions(body)
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes:     map[ast.Node]*types.Scope{},
		Instances:  map[*ast.Ident]types.Instance{},
	}
	var errs []types.Error
	conf := types.Config{
		Importer: importerFunc(tc.importPkg),
		Error: func(err error) {
			var te types.Error
			if !errors.As(err, &te) {
				return
			}
			if replAccepts(te, top) {
				return
			}
			errs = append(errs, te)
		},
	}
	chk := types.NewChecker(&conf, fset, pkg, info)
	chk.Files(files)
	if len(errs) > 0 {
		return nil, checkError(fset, errs)
	}

	c := &checked{info: info}
	for _, tn := range redecl {
		if nw, ok := sc.Lookup(tn.Name()).(*types.TypeName); ok {
			if c.retyped == nil {
				c.retyped = map[*types.TypeName]*types.TypeName{}
			}
			c.retyped[tn] = nw
			tc.retype(tn, nw)
		}
	}
	for _, is := range f.Imports {
		o := info.Defs[is.Name]
		if is.Name == nil {
			o = info.Implicits[is]
		}
		if pn, ok := o.(*types.PkgName); ok && pn.Name() != "_" && pn.Name() != "." {
			scopeSet(sc, types.NewPkgName(token.NoPos, pkg, pn.Name(), pn.Imported()))
		}
	}
	if stmts {
		scopeRemove(sc, "main")
		if oldMain != nil {
			sc.Insert(oldMain)
		}
		c.stmtDefs = map[token.Pos][]types.Object{}
		for _, st := range body.List {
			for _, id := range definedIdents(st) {
				if o := info.Defs[id]; o != nil {
					scopeSet(sc, o)
					c.stmtDefs[st.Pos()] = append(c.stmtDefs[st.Pos()], o)
				}
			}
		}
	}
	return c, nil
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(p string) (*types.Package, error) { return f(p) }

// definedIdents are the names a top-level statement of a statement unit
// declares as session names: the new variables of a define, the names of a
// var, const or type declaration statement.
func definedIdents(st ast.Stmt) []*ast.Ident {
	var ids []*ast.Ident
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, e := range st.Lhs {
				if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
					ids = append(ids, id)
				}
			}
		}
	case *ast.DeclStmt:
		if g, ok := st.Decl.(*ast.GenDecl); ok {
			for _, sp := range g.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.Name != "_" {
							ids = append(ids, n)
						}
					}
				case *ast.TypeSpec:
					ids = append(ids, sp.Name)
				}
			}
		}
	}
	return ids
}

// topLevelPositions are the positions at which go/types reports what a REPL
// accepts in a statement unit: the names its top-level statements declare
// ("declared and not used") and its bare top-level expressions ("is not
// used": the session shows the value).
func topLevelPositions(body *ast.BlockStmt) map[token.Pos]bool {
	top := map[token.Pos]bool{}
	for _, st := range body.List {
		for _, id := range definedIdents(st) {
			top[id.Pos()] = true
		}
		if es, ok := st.(*ast.ExprStmt); ok {
			top[es.X.Pos()] = true
			ast.Inspect(es.X, func(n ast.Node) bool {
				if n != nil {
					top[n.Pos()] = true
				}
				return true
			})
		}
	}
	return top
}

// replAccepts reports whether the error e is one the session accepts
// beyond Go (see above).
func replAccepts(e types.Error, top map[token.Pos]bool) bool {
	switch {
	case strings.HasSuffix(e.Msg, "imported and not used") || strings.Contains(e.Msg, "imported as ") && strings.HasSuffix(e.Msg, "and not used"):
		return true
	case strings.HasPrefix(e.Msg, "declared and not used"):
		return top[e.Pos]
	case strings.HasSuffix(e.Msg, "is not used"):
		return top[e.Pos]
	}
	return false
}

// retype replaces the session type old by nw wherever a session object's
// type mentions it (a variable of the type, a function taking it), after a
// unit declared methods of the type (which declares it again).
func (tc *typeCheck) retype(old, nw *types.TypeName) {
	sc := tc.pkg.Scope()
	on, ok1 := old.Type().(*types.Named)
	nn, ok2 := nw.Type().(*types.Named)
	if !ok1 || !ok2 {
		return
	}
	r := retyper{old: on, nw: nn, seen: map[*types.Named]bool{}}
	for _, k := range sc.Names() {
		switch o := sc.Lookup(k).(type) {
		case *types.TypeName:
			if o == old {
				scopeSet(sc, nw)
			} else if n, ok := o.Type().(*types.Named); ok {
				r.named(n)
			}
		case *types.Var:
			if t := r.typ(o.Type()); t != o.Type() {
				scopeSet(sc, types.NewVar(o.Pos(), o.Pkg(), o.Name(), t))
			}
		case *types.Func:
			sig := o.Type().(*types.Signature)
			if t := r.typ(sig); t != types.Type(sig) {
				scopeSet(sc, types.NewFunc(o.Pos(), o.Pkg(), o.Name(), t.(*types.Signature)))
			}
		case *types.Const:
			if t := r.typ(o.Type()); t != o.Type() {
				scopeSet(sc, types.NewConst(o.Pos(), o.Pkg(), o.Name(), t, o.Val()))
			}
		}
	}
}

type retyper struct {
	old, nw *types.Named
	seen    map[*types.Named]bool
}

// named updates, in place, the underlying type of a session type that
// mentions old (type U struct{ t T }).
func (r *retyper) named(n *types.Named) {
	if r.seen[n] || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" {
		return
	}
	r.seen[n] = true
	if u := r.typ(n.Underlying()); u != n.Underlying() {
		n.SetUnderlying(u)
	}
}

// typ returns t with old replaced by nw, or t itself when it does not
// mention old.
func (r *retyper) typ(t types.Type) types.Type {
	switch t := t.(type) {
	case *types.Named:
		if t == r.old {
			return r.nw
		}
		r.named(t)
		return t
	case *types.Pointer:
		if e := r.typ(t.Elem()); e != t.Elem() {
			return types.NewPointer(e)
		}
	case *types.Slice:
		if e := r.typ(t.Elem()); e != t.Elem() {
			return types.NewSlice(e)
		}
	case *types.Array:
		if e := r.typ(t.Elem()); e != t.Elem() {
			return types.NewArray(e, t.Len())
		}
	case *types.Map:
		k, e := r.typ(t.Key()), r.typ(t.Elem())
		if k != t.Key() || e != t.Elem() {
			return types.NewMap(k, e)
		}
	case *types.Chan:
		if e := r.typ(t.Elem()); e != t.Elem() {
			return types.NewChan(t.Dir(), e)
		}
	case *types.Signature:
		p, pc := r.tuple(t.Params())
		res, rc := r.tuple(t.Results())
		if pc || rc {
			return types.NewSignatureType(nil, nil, nil, p, res, t.Variadic())
		}
	case *types.Struct:
		changed := false
		fields := make([]*types.Var, t.NumFields())
		tags := make([]string, t.NumFields())
		for i := range fields {
			f := t.Field(i)
			ft := r.typ(f.Type())
			if ft != f.Type() {
				changed = true
				f = types.NewField(f.Pos(), f.Pkg(), f.Name(), ft, f.Embedded())
			}
			fields[i], tags[i] = f, t.Tag(i)
		}
		if changed {
			return types.NewStruct(fields, tags)
		}
	}
	return t
}

func (r *retyper) tuple(t *types.Tuple) (*types.Tuple, bool) {
	if t == nil {
		return t, false
	}
	changed := false
	vars := make([]*types.Var, t.Len())
	for i := range vars {
		v := t.At(i)
		if vt := r.typ(v.Type()); vt != v.Type() {
			changed = true
			v = types.NewParam(v.Pos(), v.Pkg(), v.Name(), vt)
		}
		vars[i] = v
	}
	return types.NewTuple(vars...), changed
}

// The session's package scope.
//
// go/types compares packages by pointer in a few places (a struct literal
// may set unexported fields only of a type of the package being checked; a
// method's receiver type must be declared in it; a package name must belong
// to it) and takes an object whose parent is the package scope as
// package-level, so every unit is checked as part of one *types.Package
// whose scope holds the session. But a REPL must be able to declare a name
// again, and go/types has no way to remove a name from a scope, nor to
// drop the function scopes each check adds under it (which would keep every
// cell's scopes alive). scopeElems and dropChildren reach the two fields
// through reflect; TestScopeLayout fails if Scope's layout changes.
func scopeElems(sc *types.Scope) reflect.Value {
	f := reflect.ValueOf(sc).Elem().FieldByName("elems")
	m := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	if m.IsNil() {
		m.Set(reflect.MakeMap(m.Type()))
	}
	return m
}

// scopeRemove removes name from the scope sc.
func scopeRemove(sc *types.Scope, name string) {
	scopeElems(sc).SetMapIndex(reflect.ValueOf(name), reflect.Value{})
}

// scopeSet makes o the object of its name in sc, replacing any other.
func scopeSet(sc *types.Scope, o types.Object) {
	scopeRemove(sc, o.Name())
	sc.Insert(o)
}

// dropChildren forgets the scopes nested in sc (function scopes of earlier
// checks; the objects declared in them keep their own parents).
func dropChildren(sc *types.Scope) {
	f := reflect.ValueOf(sc).Elem().FieldByName("children")
	c := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	c.Set(reflect.Zero(c.Type()))
}

// importPkg imports the package at path p for the checker. The generic
// standard packages the session compiles from Go source (gosrc.go) are
// type-checked from that source, the first time a unit imports one of them.
func (tc *typeCheck) importPkg(p string) (*types.Package, error) {
	if !tc.sources {
		for _, gp := range goSourcePackages {
			if gp.path == p {
				tc.sources = true
				tc.checkSources()
				break
			}
		}
	}
	return tc.imp.Import(p)
}

// checkSources type-checks the source packages and puts them in the
// importer, before the symbol tables' copies (which lack the generic
// functions). A package that does not check (a session without the
// standard library) keeps the table's copy.
func (tc *typeCheck) checkSources() {
	if !tc.imp.Has("sort") {
		return
	}
	done := map[string]bool{}
	for len(done) < len(goSourcePackages) {
		progress := false
		for _, gp := range goSourcePackages {
			if done[gp.path] {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, gp.path+".go", gp.src, parser.SkipObjectResolution)
			if err != nil {
				done[gp.path] = true
				continue
			}
			ready := true
			for _, is := range f.Imports {
				q, _ := strconv.Unquote(is.Path.Value)
				for _, o := range goSourcePackages {
					if o.path == q && !done[q] {
						ready = false
					}
				}
			}
			if !ready {
				continue
			}
			done[gp.path], progress = true, true
			conf := types.Config{Importer: tc.imp}
			if pkg, err := conf.Check(gp.path, fset, []*ast.File{f}, nil); err == nil {
				tc.imp.AddPackage(pkg)
			}
		}
		if !progress {
			return
		}
	}
}

// dropBlankImports removes the imports for side effects (import _ "P") of
// packages the session does not have, such as runtime/cgo: yaegi ignores
// them, and so does the session.
func dropBlankImports(f *ast.File, has func(string) bool) {
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		specs := g.Specs[:0]
		for _, sp := range g.Specs {
			is := sp.(*ast.ImportSpec)
			p, _ := strconv.Unquote(is.Path.Value)
			if is.Name != nil && is.Name.Name == "_" && !has(p) {
				continue
			}
			specs = append(specs, sp)
		}
		g.Specs = specs
	}
	imports := f.Imports[:0]
	for _, is := range f.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		if is.Name != nil && is.Name.Name == "_" && !has(p) {
			continue
		}
		imports = append(imports, is)
	}
	f.Imports = imports
}
