package repl

import (
	"reflect"
	"sync"
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
	// frame is the interpreter's global frame: its data slice (settable)
	// and mutex; slots the values of the "main" scope's global variables
	// as they were (index -> a copy), for restoreNames.
	frame struct {
		data reflect.Value
		mu   *sync.RWMutex
	}
	slots   map[int]reflect.Value
	scopes  []scopeState
	generic map[string]reflect.Value // the interpreter's generic declarations
	genMap  reflect.Value
}

type scopeState struct {
	pkg     string                   // the scope's key: "main" holds the session's names
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
		st := scopeState{pkg: it.Key().String(), sym: sym, entries: map[string]reflect.Value{}, values: map[string]reflect.Value{},
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

// unitSnapshot is snapshot with the values of the session's variables
// saved too, for restoreNames.
func unitSnapshot(in *interp.Interpreter) *scopeSnapshot {
	snap := snapshot(in)
	if snap != nil {
		snap.saveSlots(reflect.ValueOf(in).Elem())
	}
	return snap
}

// saveSlots copies the values of the global variables of the "main"
// scope from the interpreter's global frame (iv is the Interpreter).
func (snap *scopeSnapshot) saveSlots(iv reflect.Value) {
	fr := settable(iv, "frame")
	if !fr.IsValid() || fr.Kind() != reflect.Pointer || fr.IsNil() {
		return
	}
	fe := elemOf(fr)
	data, mu := settable(fe, "data"), settable(fe, "mutex")
	if !data.IsValid() || data.Kind() != reflect.Slice || !mu.IsValid() || mu.Type() != reflect.TypeFor[sync.RWMutex]() {
		return
	}
	snap.frame.data, snap.frame.mu = data, (*sync.RWMutex)(unsafe.Pointer(mu.UnsafeAddr()))
	snap.slots = map[int]reflect.Value{}
	snap.frame.mu.RLock()
	defer snap.frame.mu.RUnlock()
	for _, st := range snap.scopes {
		if st.pkg != "main" {
			continue
		}
		for _, sym := range st.values {
			i, global := sym.FieldByName("index"), sym.FieldByName("global")
			if !i.IsValid() || i.Kind() != reflect.Int || !global.IsValid() || global.Kind() != reflect.Bool || !global.Bool() {
				continue
			}
			if k := int(i.Int()); k >= 0 && k < data.Len() {
				if v := data.Index(k).Interface().(reflect.Value); v.IsValid() {
					snap.slots[k] = copyOf(v)
				}
			}
		}
	}
}

// restoreNames puts back, in the session's package scope ("main"), the
// symbols names had when snap was taken (their types, and the frame slots
// holding their values, which yaegi's declaration of a new variable of the
// same name leaves alone), and removes those of names that did not exist
// then. See assignguard.go.
func (snap *scopeSnapshot) restoreNames(names []string) {
	if snap == nil || len(names) == 0 {
		return
	}
	for _, st := range snap.scopes {
		if st.pkg != "main" {
			continue
		}
		for _, name := range names {
			if name == "_" {
				continue
			}
			k := reflect.ValueOf(name)
			p, ok := st.entries[name]
			if !ok {
				st.sym.SetMapIndex(k, reflect.Value{})
				continue
			}
			st.sym.SetMapIndex(k, p)
			old := st.values[name]
			elemOf(p).Set(old)
			snap.restoreSlot(int(old.FieldByName("index").Int()))
		}
	}
}

// restoreSlot puts the saved value of global frame slot k back.
func (snap *scopeSnapshot) restoreSlot(k int) {
	saved, ok := snap.slots[k]
	if !ok {
		return
	}
	snap.frame.mu.Lock()
	defer snap.frame.mu.Unlock()
	if k >= snap.frame.data.Len() {
		return
	}
	slot := snap.frame.data.Index(k)
	if cur := slot.Interface().(reflect.Value); cur.IsValid() && cur.Type() == saved.Type() && cur.CanSet() {
		cur.Set(saved)
		return
	}
	slot.Set(reflect.ValueOf(copyOf(saved)))
}

// dropMain removes the call of func main that yaegi appends to every
// program compiled in package main once main is declared (CompileAST:
// "Add main to list of functions to run"), so that a main declared by a
// cell or a loaded file runs once, with the unit that declares it, and not
// again before every later cell. It reports whether it found the fields
// as expected.
func dropMain(in *interp.Interpreter, prog *interp.Program) bool {
	iv := reflect.ValueOf(in).Elem()
	scopes := settable(iv, "scopes")
	if !scopes.IsValid() || scopes.Kind() != reflect.Map {
		return false
	}
	sc := scopes.MapIndex(reflect.ValueOf("main"))
	if !sc.IsValid() || sc.IsNil() {
		return true // nothing declared in main yet
	}
	sym := settable(elemOf(sc), "sym")
	if !sym.IsValid() || sym.Kind() != reflect.Map {
		return false
	}
	m := sym.MapIndex(reflect.ValueOf("main"))
	if !m.IsValid() || m.IsNil() {
		return true
	}
	node := elemOf(m).FieldByName("node")
	init := settable(reflect.ValueOf(prog).Elem(), "init")
	if !node.IsValid() || !init.IsValid() || init.Kind() != reflect.Slice {
		return false
	}
	if n := init.Len(); n > 0 && init.Index(n-1).Pointer() == node.Pointer() {
		init.Set(init.Slice(0, n-1))
	}
	return true
}
