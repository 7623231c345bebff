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
// After each program the session therefore releases the slots no later
// code can read:
//
//   - a temporary or block variable of the program: the top-level code
//     that used it never runs again, and a function literal it created
//     reads such variables through its own copy of the frame (yaegi
//     clones the frame when it makes a closure), so the slot is given a
//     fresh zero cell and the old cell lives on only while a closure holds
//     it;
//   - the old slot of a session variable declared again with the same
//     type: it is made to share the new variable's cell, so a function
//     declared before the redeclaration sees the new value (as in Python),
//     instead of the stale one yaegi would give it.
//
// The slot of a variable declared again with a different type keeps its
// value: functions compiled against it still read it.
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
	data *[]reflect.Value
	mu   *sync.RWMutex
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
	d, m := fr.FieldByName("data"), fr.FieldByName("mutex")
	if !d.IsValid() || d.Type() != reflect.TypeOf([]reflect.Value(nil)) || !m.IsValid() || m.Type() != reflect.TypeOf(sync.RWMutex{}) {
		return f, false
	}
	return yaegiFrame{
		data: (*[]reflect.Value)(unsafe.Pointer(d.UnsafeAddr())),
		mu:   (*sync.RWMutex)(unsafe.Pointer(m.UnsafeAddr())),
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
		// Every kind: yaegi also stores in a slot a reflect.Value that
		// points into another value (an element of an indexed slice),
		// which keeps that value's whole array reachable.
		data[i] = reflect.New(data[i].Type()).Elem()
	}
	r.done = len(data)
}
