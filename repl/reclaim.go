package repl

import (
	"reflect"
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
//   - a temporary or block variable of the program holding engine data
//     (engineData: tensors, blocks, loaders, graphs, and slices or maps of
//     them) gets a fresh zero cell. The top-level code that used it never
//     runs again, a function literal reads such variables through its own
//     copy of the frame (yaegi clones the frame when it makes a closure),
//     and a compiled call started by a go statement got its arguments
//     before. yaegi does read a slot of a finished program again in one
//     case: the receiver of an interpreted method (a method value such as
//     mk(7).Get, an interpreted value inside a compiled interface, go
//     w.run()), which is read when the method runs. Such a receiver always
//     has an interpreted type, so slots of other types stay as they are;
//   - a temporary of a boolean, numeric or string kind gets a fresh cell
//     holding a copy of its value: yaegi stores an indexed element (buf[0])
//     as a reference into its array, which would keep the whole array;
//   - the old slot of a session variable declared again with the same
//     type is made to share the new variable's cell, so a function declared
//     before the redeclaration sees the new value (as in Python), instead
//     of the stale one yaegi would give it.
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
	done    int                   // slots below done were examined
	history map[string][]int      // a session variable's slots, all sharing the current one's cell
	data    map[reflect.Type]bool // engineData's answers
}

// engineData reports whether a slot of type t can be released: t is a
// function type, a compiled named type other than an interface (a
// graph.Block, a sampling.LoaderOptions), or a pointer, slice, array or map
// built from them (a *tensor.Tensor, a []*graph.Block). An interpreted type can
// never be one, and yaegi reads a slot again after its program only as the
// receiver of an interpreted method (a method value, an interface wrapper
// around an interpreted type, a go statement calling an interpreted
// method), so such slots stay as they are.
func (r *reclaimer) engineData(t reflect.Type) bool {
	if ok, seen := r.data[t]; seen {
		return ok
	}
	if r.data == nil {
		r.data = map[reflect.Type]bool{}
	}
	var ok bool
	switch k := t.Kind(); {
	case k == reflect.Func:
		// A temporary function value: a bound method (blocks[0].SrcData
		// keeps blocks[0]) or a closure, called by its own program; a
		// method value assigned to a variable was copied into its cell.
		ok = true
	case k == reflect.Interface || k == reflect.Chan || k == reflect.UnsafePointer:
		// A compiled interface may hold an interpreted value, whose
		// methods read it when they run.
	case t.Name() != "" && t.PkgPath() != "" && t.PkgPath() != "main":
		ok = true
	case t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		ok = r.engineData(t.Elem())
	case t.Kind() == reflect.Map:
		ok = r.engineData(t.Elem()) && (basicKind(t.Key().Kind()) || r.engineData(t.Key()))
	}
	r.data[t] = ok
	return ok
}

// basicKind reports whether k is a boolean, numeric or string kind.
func basicKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	}
	return false
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

// symbolSlots returns the frame slot of every top-level name of in's main
// package, and every slot any package-level symbol of in holds; ok is false
// when yaegi's fields are not laid out as expected.
func symbolSlots(in *interp.Interpreter) (main map[string]int, held map[int]bool, ok bool) {
	iv := reflect.ValueOf(in).Elem()
	scopes := iv.FieldByName("scopes")
	if !scopes.IsValid() || scopes.Kind() != reflect.Map {
		return nil, nil, false
	}
	main, held = map[string]int{}, map[int]bool{}
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
				}
			}
		}
		return true
	}
	if !visit("", iv.FieldByName("universe")) {
		return nil, nil, false
	}
	for it := scopes.MapRange(); it.Next(); {
		if !visit(it.Key().String(), it.Value()) {
			return nil, nil, false
		}
	}
	return main, held, true
}

// reclaim releases the global-frame slots of in that no later code reads
// (see reclaimer). It must run while no program of in runs.
func (r *reclaimer) reclaim(in *interp.Interpreter) {
	f, ok := frameOf(in)
	if !ok {
		return
	}
	names, held, ok := symbolSlots(in)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// yaegi runs the global frame's deferred calls when a program ends but
	// never empties the list: a top-level defer ran again at the end of
	// every later cell. It has run once now, at the end of its own cell.
	*f.deferred = nil
	data := *f.data
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
		if n := len(h); n > 0 && h[n-1] < len(data) && data[h[n-1]].IsValid() && data[h[n-1]].Type() == data[j].Type() {
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
		if held[i] || !data[i].IsValid() {
			continue
		}
		v := data[i]
		switch t := v.Type(); {
		case basicKind(t.Kind()):
			// A copy in a fresh cell: the value is kept for a later
			// reader, the array an element reference points into is not.
			c := reflect.New(t).Elem()
			c.Set(v)
			data[i] = c
		case r.engineData(t):
			data[i] = reflect.New(t).Elem()
		}
	}
	r.done = len(data)
}
