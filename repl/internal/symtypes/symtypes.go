// Package symtypes builds go/types packages from yaegi symbol tables, so
// that the session can type-check a cell against exactly the compiled
// packages its interpreter offers.
//
// A symbol table (interp.Exports) maps "importpath/pkgname" to the package's
// exported names, each a reflect.Value: a function, a variable (addressable),
// a typed constant (not addressable), an untyped constant (a constant.Value),
// or a type (a nil pointer to it). reflect describes every type that the
// exported API reaches, unexported ones included, so the packages built here
// are complete for type-checking: struct fields (with tags), method sets
// (value and pointer receivers), interfaces and signatures. What reflect
// cannot show is left out: generic functions and types (yaegi's extract tool
// does not export them either), parameter names and positions.
//
// Measured on the session's tables (the standard library and the engine
// packages): building one package takes microseconds to a few
// milliseconds; Import builds each package once, on first use.
package symtypes

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"
)

// Importer is a types.Importer over symbol tables. It is safe for
// concurrent use.
type Importer struct {
	mu      sync.Mutex
	tables  map[string]map[string]reflect.Value // import path -> symbols
	names   map[string]string                   // import path -> package name
	pkgs    map[string]*types.Package           // import path -> package (built or in construction)
	done    map[string]bool                     // import path -> its scope is filled
	named   map[reflect.Type]*types.Named
	extra   map[string]*types.Package // packages added by AddPackage (source-built)
	pending []pendingNamed
	// Interfaces with unexported methods, the concrete named types, and
	// the pairs already matched (hidden).
	hiddenIfaces []reflect.Type
	concrete     []pendingNamed
	matched      map[[2]reflect.Type]bool
}

type pendingNamed struct {
	rt reflect.Type
	n  *types.Named
}

// New returns an importer over the given tables; a later table replaces the
// names of an earlier one for the same package, as yaegi's Use does.
func New(tables ...interp.Exports) *Importer {
	im := &Importer{
		tables:  map[string]map[string]reflect.Value{},
		names:   map[string]string{},
		pkgs:    map[string]*types.Package{},
		done:    map[string]bool{},
		named:   map[reflect.Type]*types.Named{},
		extra:   map[string]*types.Package{},
		matched: map[[2]reflect.Type]bool{},
	}
	for _, t := range tables {
		for key, syms := range t {
			i := strings.LastIndexByte(key, '/')
			if i < 0 {
				continue
			}
			p, name := key[:i], key[i+1:]
			m := im.tables[p]
			if m == nil {
				m = map[string]reflect.Value{}
				im.tables[p] = m
			}
			for k, v := range syms {
				m[k] = v
			}
			im.names[p] = name
		}
	}
	return im
}

// Has reports whether the importer offers the package at path.
func (im *Importer) Has(path string) bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	if _, ok := im.extra[path]; ok {
		return true
	}
	_, ok := im.tables[path]
	return ok || path == "unsafe"
}

// Name returns the package name of the import path p.
func (im *Importer) Name(p string) string {
	im.mu.Lock()
	defer im.mu.Unlock()
	if pkg, ok := im.extra[p]; ok {
		return pkg.Name()
	}
	if p == "unsafe" {
		return "unsafe"
	}
	if n := im.names[p]; n != "" {
		return n
	}
	return guessName(p)
}

// Paths returns the import paths the importer offers, sorted.
func (im *Importer) Paths() []string {
	im.mu.Lock()
	defer im.mu.Unlock()
	var ps []string
	for p := range im.tables {
		ps = append(ps, p)
	}
	for p := range im.extra {
		if _, ok := im.tables[p]; !ok {
			ps = append(ps, p)
		}
	}
	sort.Strings(ps)
	return ps
}

// AddPackage makes Import return pkg for its path, instead of the package
// built from the symbol tables (a package type-checked from source, such as
// the generic slices the session compiles from Go source).
func (im *Importer) AddPackage(pkg *types.Package) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.extra[pkg.Path()] = pkg
}

// Import returns the package at path, built from the symbol tables. It
// implements types.Importer.
func (im *Importer) Import(p string) (*types.Package, error) {
	if p == "unsafe" {
		return types.Unsafe, nil
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	if pkg, ok := im.extra[p]; ok {
		return pkg, nil
	}
	syms, ok := im.tables[p]
	if !ok {
		return nil, fmt.Errorf("package %s is not in the session", p)
	}
	pkg := im.pkg(p)
	if !im.done[p] {
		im.done[p] = true
		im.fill(pkg, syms)
		im.finish()
		im.hidden()
		im.finish()
		pkg.MarkComplete()
	}
	return pkg, nil
}

// pkg returns the (possibly empty) package object for path.
func (im *Importer) pkg(p string) *types.Package {
	if pkg, ok := im.pkgs[p]; ok {
		return pkg
	}
	name := im.names[p]
	if name == "" {
		name = guessName(p)
	}
	pkg := types.NewPackage(p, name)
	im.pkgs[p] = pkg
	return pkg
}

// guessName is the package name of an import path with no symbol table:
// its last element without a major-version suffix.
func guessName(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		if d := path.Dir(p); d != "." {
			base = path.Base(d)
		}
	}
	if i := strings.IndexAny(base, ".-"); i > 0 {
		base = base[:i]
	}
	return base
}

var constantValue = reflect.TypeOf((*constant.Value)(nil)).Elem()

// fill declares the symbols of one package in its scope.
func (im *Importer) fill(pkg *types.Package, syms map[string]reflect.Value) {
	names := make([]string, 0, len(syms))
	for name := range syms {
		names = append(names, name)
	}
	sort.Strings(names)
	scope := pkg.Scope()
	for _, name := range names {
		if strings.HasPrefix(name, "_") || !token.IsExported(name) {
			continue // interface wrappers and the session's private names
		}
		v := syms[name]
		if !v.IsValid() {
			continue
		}
		var obj types.Object
		switch {
		case v.Kind() == reflect.Pointer && v.IsNil() && v.Type().Elem() != nil && !v.CanAddr():
			t := v.Type().Elem()
			typ := im.typ(t)
			if n, ok := typ.(*types.Named); ok && n.Obj().Name() == name && n.Obj().Pkg() == pkg {
				obj = n.Obj()
			} else {
				obj = types.NewTypeName(token.NoPos, pkg, name, typ) // an alias
			}
		case v.Type().Implements(constantValue) && !v.CanAddr():
			c, ok := v.Interface().(constant.Value)
			if !ok || c == nil {
				continue
			}
			obj = types.NewConst(token.NoPos, pkg, name, untypedOf(c), c)
		case v.CanAddr():
			obj = types.NewVar(token.NoPos, pkg, name, im.typ(v.Type()))
		case v.Kind() == reflect.Func:
			sig, ok := im.typ(v.Type()).(*types.Signature)
			if !ok {
				continue
			}
			obj = types.NewFunc(token.NoPos, pkg, name, sig)
		default:
			c := constOf(v)
			if c == nil {
				obj = types.NewVar(token.NoPos, pkg, name, im.typ(v.Type()))
			} else {
				obj = types.NewConst(token.NoPos, pkg, name, im.typ(v.Type()), c)
			}
		}
		scope.Insert(obj)
	}
}

func untypedOf(c constant.Value) types.Type {
	switch c.Kind() {
	case constant.Bool:
		return types.Typ[types.UntypedBool]
	case constant.String:
		return types.Typ[types.UntypedString]
	case constant.Int:
		return types.Typ[types.UntypedInt]
	case constant.Float:
		return types.Typ[types.UntypedFloat]
	case constant.Complex:
		return types.Typ[types.UntypedComplex]
	}
	return types.Typ[types.Invalid]
}

// constOf is the constant value of a typed constant's reflect value, or nil
// when its kind cannot be a constant.
func constOf(v reflect.Value) constant.Value {
	switch v.Kind() {
	case reflect.Bool:
		return constant.MakeBool(v.Bool())
	case reflect.String:
		return constant.MakeString(v.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return constant.MakeInt64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return constant.MakeUint64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return constant.MakeFloat64(v.Float())
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		return constant.BinaryOp(constant.MakeFloat64(real(c)), token.ADD, constant.MakeImag(constant.MakeFloat64(imag(c))))
	}
	return nil
}

var basics = map[reflect.Kind]types.BasicKind{
	reflect.Bool: types.Bool, reflect.Int: types.Int, reflect.Int8: types.Int8, reflect.Int16: types.Int16,
	reflect.Int32: types.Int32, reflect.Int64: types.Int64, reflect.Uint: types.Uint, reflect.Uint8: types.Uint8,
	reflect.Uint16: types.Uint16, reflect.Uint32: types.Uint32, reflect.Uint64: types.Uint64,
	reflect.Uintptr: types.Uintptr, reflect.Float32: types.Float32, reflect.Float64: types.Float64,
	reflect.Complex64: types.Complex64, reflect.Complex128: types.Complex128, reflect.String: types.String,
	reflect.UnsafePointer: types.UnsafePointer,
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// typ converts a reflect type. Named types are created at once and
// completed by finish, so that recursive types terminate.
func (im *Importer) typ(t reflect.Type) types.Type {
	if t == errorType {
		return types.Universe.Lookup("error").Type()
	}
	if t.Name() != "" && t.PkgPath() == "" {
		// A predeclared type (int, string, ...; byte and rune are uint8
		// and int32 to reflect).
		if b, ok := basics[t.Kind()]; ok {
			return types.Typ[b]
		}
	}
	if t.Name() != "" && t.PkgPath() != "" {
		if n, ok := im.named[t]; ok {
			return n
		}
		pkg := im.pkg(t.PkgPath())
		name := t.Name()
		if i := strings.IndexByte(name, '['); i >= 0 {
			// An instantiated generic type: reflect names it
			// "List[int]". It cannot be rebuilt from its origin, so it is
			// a defined type of its own with that spelling.
			name = strings.ReplaceAll(name, " ", "")
		}
		tn := types.NewTypeName(token.NoPos, pkg, name, nil)
		n := types.NewNamed(tn, nil, nil)
		im.named[t] = n
		im.pending = append(im.pending, pendingNamed{t, n})
		return n
	}
	return im.literal(t)
}

// literal converts the structure of t, ignoring its name.
func (im *Importer) literal(t reflect.Type) types.Type {
	if b, ok := basics[t.Kind()]; ok {
		return types.Typ[b]
	}
	switch t.Kind() {
	case reflect.Pointer:
		return types.NewPointer(im.typ(t.Elem()))
	case reflect.Slice:
		return types.NewSlice(im.typ(t.Elem()))
	case reflect.Array:
		return types.NewArray(im.typ(t.Elem()), int64(t.Len()))
	case reflect.Map:
		return types.NewMap(im.typ(t.Key()), im.typ(t.Elem()))
	case reflect.Chan:
		dir := types.SendRecv
		switch t.ChanDir() {
		case reflect.SendDir:
			dir = types.SendOnly
		case reflect.RecvDir:
			dir = types.RecvOnly
		}
		return types.NewChan(dir, im.typ(t.Elem()))
	case reflect.Func:
		return im.signature(t, nil, 0)
	case reflect.Struct:
		fields := make([]*types.Var, t.NumField())
		tags := make([]string, t.NumField())
		for i := range fields {
			f := t.Field(i)
			pkg := im.fieldPkg(f.PkgPath, t)
			fields[i] = types.NewField(token.NoPos, pkg, f.Name, im.typ(f.Type), f.Anonymous)
			tags[i] = string(f.Tag)
		}
		return types.NewStruct(fields, tags)
	case reflect.Interface:
		var methods []*types.Func
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			sig := im.signature(m.Type, nil, 0)
			methods = append(methods, types.NewFunc(token.NoPos, im.fieldPkg(m.PkgPath, t), m.Name, sig))
		}
		it := types.NewInterfaceType(methods, nil)
		it.Complete()
		return it
	}
	return types.Typ[types.Invalid]
}

// fieldPkg is the package of a field or method: its own for an unexported
// name, else the package of the type that holds it (nil for a literal).
func (im *Importer) fieldPkg(pkgPath string, holder reflect.Type) *types.Package {
	if pkgPath != "" {
		return im.pkg(pkgPath)
	}
	if holder.PkgPath() != "" {
		return im.pkg(holder.PkgPath())
	}
	return nil
}

// signature converts a function type; skip leading parameters (a method
// value's receiver) are dropped and recv, if not nil, becomes the receiver.
func (im *Importer) signature(t reflect.Type, recv *types.Var, skip int) *types.Signature {
	var params, results []*types.Var
	for i := skip; i < t.NumIn(); i++ {
		params = append(params, types.NewParam(token.NoPos, nil, "", im.typ(t.In(i))))
	}
	for i := 0; i < t.NumOut(); i++ {
		results = append(results, types.NewParam(token.NoPos, nil, "", im.typ(t.Out(i))))
	}
	return types.NewSignatureType(recv, nil, nil, types.NewTuple(params...), types.NewTuple(results...), t.IsVariadic())
}

// finish completes the named types created so far: underlying types and
// method sets. Completing one may create more.
func (im *Importer) finish() {
	for len(im.pending) > 0 {
		p := im.pending[0]
		im.pending = im.pending[1:]
		t, n := p.rt, p.n
		n.SetUnderlying(im.literal(t))
		if t.Kind() == reflect.Interface {
			for i := 0; i < t.NumMethod(); i++ {
				if t.Method(i).PkgPath != "" {
					im.hiddenIfaces = append(im.hiddenIfaces, t)
					break
				}
			}
			continue
		}
		im.concrete = append(im.concrete, p)
		value := map[string]bool{}
		for i := 0; i < t.NumMethod(); i++ {
			value[t.Method(i).Name] = true
		}
		pt := reflect.PointerTo(t)
		for i := 0; i < pt.NumMethod(); i++ {
			m := pt.Method(i)
			if promoted(t, m.Name) {
				continue // go/types finds it through the embedded field
			}
			var rt types.Type = n
			if !value[m.Name] {
				rt = types.NewPointer(n)
			}
			recv := types.NewVar(token.NoPos, n.Obj().Pkg(), "", rt)
			n.AddMethod(types.NewFunc(token.NoPos, n.Obj().Pkg(), m.Name, im.signature(m.Type, recv, 1)))
		}
	}
}

// hidden gives the concrete types the unexported methods of the
// interfaces they implement, which reflect does not list: without them
// *ast.Ident would not be an ast.Expr (exprNode). reflect's Implements
// knows them, so a method is added for each interface a type implements.
func (im *Importer) hidden() {
	for _, c := range im.concrete {
		for _, it := range im.hiddenIfaces {
			key := [2]reflect.Type{c.rt, it}
			if im.matched[key] {
				continue
			}
			im.matched[key] = true
			var rt types.Type
			switch {
			case c.rt.Implements(it):
				rt = c.n
			case reflect.PointerTo(c.rt).Implements(it):
				rt = types.NewPointer(c.n)
			default:
				continue
			}
			ms := types.NewMethodSet(types.NewPointer(c.n))
			iface := im.named[it]
			for i := 0; i < it.NumMethod(); i++ {
				m := it.Method(i)
				if m.PkgPath == "" {
					continue
				}
				pkg := im.pkg(m.PkgPath)
				if ms.Lookup(pkg, m.Name) != nil {
					continue
				}
				var sig *types.Signature
				if iface != nil {
					if obj, _, _ := types.LookupFieldOrMethod(iface, false, pkg, m.Name); obj != nil {
						s := obj.Type().(*types.Signature)
						sig = types.NewSignatureType(types.NewVar(token.NoPos, pkg, "", rt), nil, nil, s.Params(), s.Results(), s.Variadic())
					}
				}
				if sig == nil {
					sig = im.signature(m.Type, types.NewVar(token.NoPos, pkg, "", rt), 0)
				}
				c.n.AddMethod(types.NewFunc(token.NoPos, pkg, m.Name, sig))
			}
		}
	}
}

// promoted reports whether the method name of *t comes from an embedded
// field of the struct t rather than from t's own declaration. reflect lists
// both; a method declared on t itself shadows a promoted one, which this
// cannot tell apart from reflect alone, so it takes the method as t's own
// when the embedded field's method has another signature.
func promoted(t reflect.Type, name string) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	own, _ := reflect.PointerTo(t).MethodByName(name)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.Anonymous {
			continue
		}
		ft := f.Type
		if m, ok := reflect.PointerTo(ft).MethodByName(name); ok && sameMethod(m, own) {
			return true
		}
		if ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Interface {
			if m, ok := ft.MethodByName(name); ok && (ft.Kind() == reflect.Interface && m.Type.NumIn() == own.Type.NumIn()-1 || sameMethod(m, own)) {
				return true
			}
		}
	}
	return false
}

// sameMethod reports whether two methods of different receiver types have
// the same parameters and results after the receiver.
func sameMethod(a, b reflect.Method) bool {
	at, bt := a.Type, b.Type
	if at.NumIn() != bt.NumIn() || at.NumOut() != bt.NumOut() || at.IsVariadic() != bt.IsVariadic() {
		return false
	}
	for i := 1; i < at.NumIn(); i++ {
		if at.In(i) != bt.In(i) {
			return false
		}
	}
	for i := 0; i < at.NumOut(); i++ {
		if at.Out(i) != bt.Out(i) {
			return false
		}
	}
	return true
}
