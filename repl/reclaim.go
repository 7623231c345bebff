package repl

import (
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// yaegi v0.16.1 gives every variable and every temporary of every program
// a slot of its global frame, and never reuses a slot: a cell's temporaries,
// the variables of its loops and blocks, and the old value of a session
// variable declared again with := all stay reachable for the life of the
// session. A training cell run ten times keeps ten sets of batches,
// activations and loaders alive; a notebook's memory would only grow.
//
// After each program the session therefore releases what no later code
// reads:
//
//   - a temporary or block variable of the program gets a fresh zero cell
//     (the old cell lives on only while something points to it). The
//     top-level code that used it never runs again, a function literal
//     reads such variables through its own copy of the frame (yaegi clones
//     the frame when it makes a closure), and a compiled call started by a
//     go statement got its arguments before. yaegi does read a slot of a
//     finished program again in one case: the receiver of an interpreted
//     method (a method value such as mk(7).Get, a value of the user's type
//     inside a compiled interface such as a custom Sampler, go w.run()),
//     read when the method runs. Such a receiver has a type the user
//     declared, a generic instance or an unnamed struct (or a pointer,
//     slice, map... of one), so the slot of every node of such a type, and
//     of every such receiver node, is kept (userTypeSlots);
//   - the old slot of a session variable declared again with the same
//     type (not one of the user's: method and interface values made from
//     the old variable read its slot) is made to share the new variable's
//     cell, so a function declared before the redeclaration sees the new
//     value (as in Python), instead of the stale one yaegi would give it.
//
// The slot of a variable declared again with a different type keeps its
// value: functions compiled against it still read it. A function literal
// made by top-level code keeps, through its copy of the frame, every value
// the session held at that moment.
//
// The frame is reached through yaegi's unexported fields (its layout is
// pinned by go.mod and checked by frameOf); when the layout is not the
// expected one, nothing is released and TestReclaimFreesCellMemory fails.
type reclaimer struct {
	done    int              // slots below done were examined
	history map[string][]int // a session variable's slots, all sharing the current one's cell
}

// yaegiFrame is where an interpreter keeps its global frame's values.
type yaegiFrame struct {
	data     *[]reflect.Value
	mu       *sync.RWMutex
	deferred *[][]reflect.Value // the deferred calls of top-level code
}

// frameOf returns in's global frame, or ok false when yaegi's fields are
// not laid out as expected.
func frameOf(in *interp.Interpreter) (f yaegiFrame, ok bool) {
	iv := reflect.ValueOf(in).Elem()
	fp := iv.FieldByName("frame")
	if !fp.IsValid() || fp.Kind() != reflect.Pointer || fp.IsNil() {
		return f, false
	}
	fr := fp.Elem()
	d, m, df := fr.FieldByName("data"), fr.FieldByName("mutex"), fr.FieldByName("deferred")
	if !d.IsValid() || d.Type() != reflect.TypeOf([]reflect.Value(nil)) || !m.IsValid() || m.Type() != reflect.TypeOf(sync.RWMutex{}) ||
		!df.IsValid() || df.Type() != reflect.TypeOf([][]reflect.Value(nil)) {
		return f, false
	}
	return yaegiFrame{
		data:     (*[]reflect.Value)(unsafe.Pointer(d.UnsafeAddr())),
		mu:       (*sync.RWMutex)(unsafe.Pointer(m.UnsafeAddr())),
		deferred: (*[][]reflect.Value)(unsafe.Pointer(df.UnsafeAddr())),
	}, true
}

// dropRoots empties in's list of compiled program roots, when yaegi's
// fields are laid out as expected.
func dropRoots(in *interp.Interpreter) {
	roots := reflect.ValueOf(in).Elem().FieldByName("roots")
	if !roots.IsValid() || roots.Kind() != reflect.Slice || roots.Type().Elem().Kind() != reflect.Pointer {
		return
	}
	roots = reflect.NewAt(roots.Type(), unsafe.Pointer(roots.UnsafeAddr())).Elem()
	roots.SetZero()
}

// dropScopeChildren empties the list of child scopes of in's universe and
// package scopes (yaegi's scope.child, written but never read), when
// yaegi's fields are laid out as expected.
func dropScopeChildren(in *interp.Interpreter) {
	iv := reflect.ValueOf(in).Elem()
	clear := func(sc reflect.Value) {
		if sc.Kind() != reflect.Pointer || sc.IsNil() {
			return
		}
		ch := sc.Elem().FieldByName("child")
		if !ch.IsValid() || ch.Kind() != reflect.Slice || ch.Type().Elem() != sc.Type() {
			return
		}
		reflect.NewAt(ch.Type(), unsafe.Pointer(ch.UnsafeAddr())).Elem().SetZero()
	}
	clear(iv.FieldByName("universe"))
	if scopes := iv.FieldByName("scopes"); scopes.IsValid() && scopes.Kind() == reflect.Map {
		for it := scopes.MapRange(); it.Next(); {
			clear(it.Value())
		}
	}
}

// symbolSlots returns the frame slot of every top-level name of in's main
// package, which of those names have a type the user declared, and every
// slot any package-level symbol of in holds; ok is false when yaegi's
// fields are not laid out as expected.
func symbolSlots(in *interp.Interpreter) (main map[string]int, user map[string]bool, held map[int]bool, ok bool) {
	iv := reflect.ValueOf(in).Elem()
	scopes := iv.FieldByName("scopes")
	if !scopes.IsValid() || scopes.Kind() != reflect.Map {
		return nil, nil, nil, false
	}
	main, user, held = map[string]int{}, map[string]bool{}, map[int]bool{}
	visit := func(pkg string, sc reflect.Value) bool {
		if sc.Kind() != reflect.Pointer || sc.IsNil() {
			return true
		}
		syms := sc.Elem().FieldByName("sym")
		if !syms.IsValid() || syms.Kind() != reflect.Map {
			return false
		}
		for it := syms.MapRange(); it.Next(); {
			sym := it.Value()
			if sym.Kind() != reflect.Pointer || sym.IsNil() {
				continue
			}
			idx := sym.Elem().FieldByName("index")
			if !idx.IsValid() || idx.Kind() != reflect.Int {
				return false
			}
			if i := int(idx.Int()); i >= 0 {
				held[i] = true
				if pkg == "main" {
					main[it.Key().String()] = i
					if userType(sym.Elem().FieldByName("typ"), 0) {
						user[it.Key().String()] = true
					}
				}
			}
		}
		return true
	}
	if !visit("", iv.FieldByName("universe")) {
		return nil, nil, nil, false
	}
	for it := scopes.MapRange(); it.Next(); {
		if !visit(it.Key().String(), it.Value()) {
			return nil, nil, nil, false
		}
	}
	return main, user, held, true
}

// reclaim releases the global-frame slots of in that no later code reads
// (see reclaimer) once prog has run. It must run while no program of in
// runs.
func (r *reclaimer) reclaim(in *interp.Interpreter, prog *interp.Program) {
	f, ok := frameOf(in)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// yaegi runs the global frame's deferred calls when a program ends but
	// never empties the list: a top-level defer ran again at the end of
	// every later cell. It has run once now, at the end of its own cell.
	*f.deferred = nil
	// yaegi appends the root node of every program it compiles to a list
	// that only its debugger reads (Interpreter.roots): every cell's whole
	// AST and CFG stayed reachable, about 6 KB per small cell. What later
	// code needs of a cell's nodes (functions, closures, types) is held by
	// its scope's symbols and the values made from them.
	dropRoots(in)
	// Every scope yaegi opens (a block, a loop, a function literal of any
	// cell) is appended to its parent's list of children, which nothing
	// reads: the package scope kept every block of every cell, with its
	// symbols and through them the cell's nodes (10 KB per loop cell).
	dropScopeChildren(in)
	data := *f.data
	names, user, held, ok := symbolSlots(in)
	if !ok || !userTypeSlots(prog, held) {
		r.done = len(data) // unknown layout: keep everything
		return
	}
	if r.history == nil {
		r.history = map[string][]int{}
	}
	for name, j := range names {
		if j >= len(data) || !data[j].IsValid() {
			continue
		}
		h := r.history[name]
		if n := len(h); n > 0 && h[n-1] == j {
			continue
		}
		// A variable of the user's type is not shared: a method value or
		// an interface value made from the old one reads its slot.
		if n := len(h); n > 0 && !user[name] && h[n-1] < len(data) && data[h[n-1]].IsValid() && data[h[n-1]].Type() == data[j].Type() {
			// The old cell gets the new value too: a closure made since
			// holds a copy of the frame that points to it, and through
			// the old value (itself a closure, with its own copy) to every
			// earlier one: a cell `f := func() {...}` run n times kept n
			// frame copies (56 KB a cell after 1000 cells).
			if old := data[h[n-1]]; old.CanSet() {
				old.Set(data[j])
			}
			for _, i := range h {
				data[i] = data[j]
				held[i] = true
			}
			r.history[name] = append(h, j)
			continue
		}
		r.history[name] = []int{j} // new, or a new type: the old slots keep their values
	}
	for i := r.done; i < len(data); i++ {
		if !held[i] && data[i].IsValid() {
			data[i] = reflect.New(data[i].Type()).Elem()
		}
	}
	r.done = len(data)
}

// userTypeSlots adds to held the frame slot of every node of prog whose
// type is one the user declared, or is built from one (a pointer, slice,
// map, array or channel of it), and of every method receiver node of such
// a type: the receivers yaegi reads again when an interpreted method runs
// (a compiled method value binds its receiver when it is made). Nodes
// inside function bodies index their own frames; counting them too only
// keeps more. It reports false when yaegi's nodes are not laid out as
// expected.
func userTypeSlots(prog *interp.Program, held map[int]bool) bool {
	root := reflect.ValueOf(prog).Elem().FieldByName("root")
	if !root.IsValid() || root.Kind() != reflect.Pointer {
		return false
	}
	ok := true
	var walk func(n reflect.Value, depth int)
	walk = func(n reflect.Value, depth int) {
		if !ok || n.Kind() != reflect.Pointer || n.IsNil() || depth > 10000 {
			return
		}
		e := n.Elem()
		fi, typ, recv, child := e.FieldByName("findex"), e.FieldByName("typ"), e.FieldByName("recv"), e.FieldByName("child")
		if !fi.IsValid() || fi.Kind() != reflect.Int || !typ.IsValid() || !recv.IsValid() || !child.IsValid() || child.Kind() != reflect.Slice {
			ok = false
			return
		}
		if userType(typ, 0) && fi.Int() >= 0 {
			held[int(fi.Int())] = true
		}
		if recv.Kind() == reflect.Pointer && !recv.IsNil() {
			if rn := recv.Elem().FieldByName("node"); rn.IsValid() && rn.Kind() == reflect.Pointer && !rn.IsNil() {
				rfi, rt := rn.Elem().FieldByName("findex"), rn.Elem().FieldByName("typ")
				if rfi.IsValid() && rfi.Kind() == reflect.Int && rfi.Int() >= 0 && userType(rt, 0) {
					held[int(rfi.Int())] = true
				}
			}
		}
		for i := 0; i < child.Len(); i++ {
			walk(child.Index(i), depth+1)
		}
	}
	walk(root, 0)
	return ok
}

// userType reports whether t, a yaegi *itype, is a type interpreted code
// made that may have methods, or an element type chain (pointer, slice,
// map value, channel) leads to one: a type the user declared (it has a
// name and a package path: compiled types have no name there, predeclared
// ones no path), an instance of a generic one ("Box[int]", which yaegi
// gives no path), or an unnamed struct, which may embed one of them.
func userType(t reflect.Value, depth int) bool {
	for ; depth < 16 && t.Kind() == reflect.Pointer && !t.IsNil(); depth++ {
		e := t.Elem()
		name, path, fields := e.FieldByName("name"), e.FieldByName("path"), e.FieldByName("field")
		if !name.IsValid() || !path.IsValid() || !fields.IsValid() || fields.Kind() != reflect.Slice {
			return true // unknown layout: keep
		}
		n, p := name.String(), path.String()
		switch {
		case n != "" && (p != "" || strings.Contains(n, "[")):
			return true
		case n == "" && p == "" && fields.Len() > 0:
			return true
		}
		t = e.FieldByName("val")
		if !t.IsValid() {
			return true
		}
	}
	return false
}
