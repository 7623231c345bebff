package repl

import (
	"reflect"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// yaegi v0.16.1 declares a unit's names in its package scope while it
// compiles the unit (global type analysis, then the control-flow pass), and
// keeps them when compiling fails: after `y := 7; z := undefinedFn()` fails,
// y and z exist with zero values, a session variable the unit declares
// again has the unit's type, and running the fixed cell may fail with
// "already declared" (traefik/yaegi#806 fixed one case of this; the
// general one remains in v0.16.1). Go compiles a program entirely or not at all, so the
// session makes each compilation atomic: scopeSnapshot records, before
// CompileAST, every package scope's symbol table (the map, and the value of
// each symbol, which yaegi also changes in place), its frame layout, the
// methods of each type it declares and the interpreter's generic
// declarations; restore puts all of them back after a failed compile. Nothing
// ran, so the frame's values are those of before.
//
// The fields are reached through yaegi's unexported fields (pinned by
// go.mod); when they are not laid out as expected, snapshot returns nil and
// a failed compile leaves what yaegi left (TestFailedCompileIsAtomic fails).
type scopeSnapshot struct {
	scopes  []scopeState
	generic map[string]reflect.Value // the interpreter's generic declarations
	genMap  reflect.Value
}

type scopeState struct {
	sym     reflect.Value            // the scope's map[string]*symbol, settable
	entries map[string]reflect.Value // name -> *symbol as it was
	values  map[string]reflect.Value // name -> a copy of the symbol
	types   reflect.Value            // the scope's frame layout field, settable
	layout  reflect.Value            // a copy of its slice header
	methods []methodState
}

type methodState struct {
	field reflect.Value // an itype's method slice, settable
	saved reflect.Value // a copy of its header
}

// settable returns the field of struct value v named name as a settable
// value (yaegi's fields are unexported), or an invalid value.
func settable(v reflect.Value, name string) reflect.Value {
	f := v.FieldByName(name)
	if !f.IsValid() || !f.CanAddr() {
		return reflect.Value{}
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// elemOf returns what pointer p points to as a settable value.
func elemOf(p reflect.Value) reflect.Value {
	return reflect.NewAt(p.Type().Elem(), unsafe.Pointer(p.Pointer())).Elem()
}

func copyOf(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

// snapshot records in's package scopes; nil when yaegi's fields are not
// laid out as expected.
func snapshot(in *interp.Interpreter) *scopeSnapshot {
	iv := reflect.ValueOf(in).Elem()
	scopes := settable(iv, "scopes")
	if !scopes.IsValid() || scopes.Kind() != reflect.Map {
		return nil
	}
	snap := &scopeSnapshot{}
	for it := scopes.MapRange(); it.Next(); {
		sc := it.Value()
		if sc.Kind() != reflect.Pointer || sc.IsNil() || sc.Type().Elem().Kind() != reflect.Struct {
			return nil
		}
		se := elemOf(sc)
		sym, types := settable(se, "sym"), settable(se, "types")
		if !sym.IsValid() || sym.Kind() != reflect.Map || sym.Type().Key().Kind() != reflect.String ||
			sym.Type().Elem().Kind() != reflect.Pointer || !types.IsValid() || types.Kind() != reflect.Slice {
			return nil
		}
		st := scopeState{sym: sym, entries: map[string]reflect.Value{}, values: map[string]reflect.Value{},
			types: types, layout: copyOf(types)}
		for si := sym.MapRange(); si.Next(); {
			p := si.Value()
			if p.IsNil() {
				continue
			}
			name := si.Key().String()
			st.entries[name] = p
			v := elemOf(p)
			st.values[name] = copyOf(v)
			if typ := v.FieldByName("typ"); typ.IsValid() && typ.Kind() == reflect.Pointer && !typ.IsNil() {
				if m := settable(elemOf(typ), "method"); m.IsValid() && m.Kind() == reflect.Slice {
					st.methods = append(st.methods, methodState{field: m, saved: copyOf(m)})
				}
			}
		}
		snap.scopes = append(snap.scopes, st)
	}
	if g := settable(iv, "generic"); g.IsValid() && g.Kind() == reflect.Map && g.Type().Key().Kind() == reflect.String {
		snap.genMap = g
		snap.generic = map[string]reflect.Value{}
		for it := g.MapRange(); it.Next(); {
			snap.generic[it.Key().String()] = it.Value()
		}
	}
	return snap
}

// restore puts back what snapshot recorded: names the failed compile
// declared are removed, the symbols it replaced or changed are as before,
// and so are the frame layouts and the types' method lists.
func (snap *scopeSnapshot) restore() {
	if snap == nil {
		return
	}
	for _, st := range snap.scopes {
		for _, k := range st.sym.MapKeys() {
			if _, ok := st.entries[k.String()]; !ok {
				st.sym.SetMapIndex(k, reflect.Value{})
			}
		}
		for name, p := range st.entries {
			st.sym.SetMapIndex(reflect.ValueOf(name), p)
			elemOf(p).Set(st.values[name])
		}
		st.types.Set(st.layout)
		for _, m := range st.methods {
			m.field.Set(m.saved)
		}
	}
	if snap.genMap.IsValid() {
		for _, k := range snap.genMap.MapKeys() {
			if _, ok := snap.generic[k.String()]; !ok {
				snap.genMap.SetMapIndex(k, reflect.Value{})
			}
		}
	}
}
