package nn

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Base makes a user's struct a Module whose parameters and submodules are
// found from its fields, as torch.nn.Module finds them from its attributes:
//
//	type Net struct {
//		nn.Base
//		Lin1, Lin2 *nn.Linear     // submodules "lin1", "lin2"
//		Blocks     []*nn.SAGEConv // "blocks.0", "blocks.1", ...
//		Scale      *tensor.Tensor // a parameter "scale" (nn.Parameter)
//	}
//	m := &Net{Lin1: nn.NewLinear(4, 8, true, nil), ...}
//	nn.Register(m) // torch's super().__init__(): before m is used
//
// Embedding Base gives the struct the methods of Module and StateDict,
// LoadStateDict, To, Device and NumParameters; they act on the struct that
// Register was given. Fields are read in declaration order, by reflection,
// each time a method runs, so a field set later is seen. A field is
//   - a parameter when it is a *tensor.Tensor that requires grad and is a
//     leaf (nn.Parameter marks one; a tensor that does not require grad is
//     a constant and is not registered), or a slice, array or
//     map[string] of such tensors (torch's ParameterList / ParameterDict);
//   - a submodule when its value is a Module (a layer of this package, an
//     interface field holding one, a type with its own methods), or a
//     struct or pointer to a struct with a Base field (a user's module,
//     compiled or declared in a session cell, registered on first use), or
//     a slice, array or map[string] of those (ModuleList / ModuleDict; a
//     map holds pointers to structs with a Base, as its values cannot be
//     addressed);
//   - the module's random generator (Generators, saved by package
//     checkpoint) when it is the first *tensor.Generator field;
//   - otherwise ignored (sizes, options, functions, cached tensors).
//
// Names are the field names in snake_case, the convention of this
// package's layers (and DGL's): FcSelf is "fc_self", Lin1 "lin1", AttnL
// "attn_l", HBias "h_bias", MLPHead "mlp_head". A slice element is named by
// its index and a map entry by its key, in sorted key order: "blocks.0",
// "heads.paper". A struct tag nn:"name" gives another name (nn:"W1" for
// DGL's MLPPredictor) and nn:"-" skips the field. Unexported fields are
// registered as exported ones are. A tensor or module reached twice (a
// shared layer) is registered once, under its first name, and cycles are
// not followed.
//
// Train and Eval switch the struct and every submodule; Training reads the
// struct's own flag (set to training mode by Register, as torch). To moves
// every parameter. StateDict names match NamedParameters, so a model built
// from this package's layers and the same model written as a struct with
// Base have the same checkpoint keys where their field names match the
// layers' names.
//
// Methods that a struct declares itself (a Forward, or its own Train)
// take precedence on that struct, as Go's method promotion has it; the
// walk over a parent's fields uses Base's behaviour for a child with a
// Base field. Copying a registered struct copies its Base, which still
// acts on the original: register the copy again.
//
// Calling a method of a Base that was never registered panics with an
// *Error of kind ErrOption saying so. Compiled code that is handed the
// struct registers it: a registered parent's walk over its fields,
// Unwrap, and through it package checkpoint and dist.DataParallel.
type Base struct {
	st *baseState
}

// baseState is what Register records: the struct and its mode. It is
// shared by every copy of the Base, so Base's methods can take a value
// receiver (the session interpreter finds a promoted method of an
// embedded compiled struct only in the value's method set).
type baseState struct {
	self reflect.Value // a pointer to the struct that holds the Base
	eval bool
}

var (
	baseType      = reflect.TypeOf(Base{})
	moduleType    = reflect.TypeOf((*Module)(nil)).Elem()
	tensorPtrType = reflect.TypeOf((*tensor.Tensor)(nil))
	generatorType = reflect.TypeOf((*tensor.Generator)(nil))
)

// Register makes m, a non-nil pointer to a struct with an nn.Base field
// (embedded or not), the module its Base's methods act on, and returns it
// as a Module: the one step a user's module needs, like torch's
// super().__init__() (call it after the fields are set, or before: fields
// are read when a method runs). Registering again is allowed (after a
// copy). The returned Module is compiled code, which any engine API
// accepts, so a session cell can write checkpoint.State{Model:
// nn.Register(m)}.
//
// It panics with an *Error of kind ErrOption when m is nil, not a pointer
// to a struct, or has no Base field.
func Register(m any) Module {
	v := reflect.ValueOf(m)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		panicf(ErrOption, "Register", "want a non-nil pointer to a struct with an nn.Base field, got %T", m)
	}
	sm, ok := register(v)
	if !ok {
		panicf(ErrOption, "Register", "%s has no nn.Base field: embed nn.Base in it", v.Type().Elem())
	}
	sm.walk(func(string, *tensor.Tensor) {}) // registers the submodules with a Base
	return sm
}

// Parameter marks t as a trainable parameter (torch.nn.Parameter): it sets
// t to require grad and returns t, so that a *tensor.Tensor field holding
// it is registered by Base. It panics with ErrOption when t is nil or not
// a leaf.
func Parameter(t *tensor.Tensor) *tensor.Tensor {
	if t == nil {
		panicf(ErrOption, "Parameter", "tensor is nil")
	}
	if !t.IsLeaf() {
		panicf(ErrOption, "Parameter", "the tensor is the result of an op (not a leaf); use t.Detach()")
	}
	return t.SetRequiresGrad(true)
}

// register returns the module of the struct p points to (p a pointer to
// a struct), recording p in its Base when the Base has no state yet or
// belongs to another struct (a copy); ok is false without a Base field.
func register(p reflect.Value) (*structModule, bool) {
	i := baseField(p.Type().Elem())
	if i < 0 {
		return nil, false
	}
	bp := fieldAddr(p.Elem().Field(i)).Interface().(*Base)
	if bp.st == nil || bp.st.self.Pointer() != p.Pointer() || bp.st.self.Type() != p.Type() {
		eval := false
		if bp.st != nil {
			eval = bp.st.eval
		}
		bp.st = &baseState{self: p, eval: eval}
	}
	return &structModule{bp.st}, true
}

// baseField returns the index of t's first field of type Base, or -1.
func baseField(t reflect.Type) int {
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Type == baseType {
			return i
		}
	}
	return -1
}

// fieldAddr returns a pointer to the addressable field f, through unsafe
// for an unexported field of a compiled struct (reflect reads those but
// does not hand them out).
func fieldAddr(f reflect.Value) reflect.Value {
	if f.CanInterface() {
		return f.Addr()
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr()))
}

// mod returns b's module, panicking when b was never registered.
func (b Base) mod(op string) *structModule {
	if b.st == nil {
		panicf(ErrOption, "Base."+op, "the module is not registered: call nn.Register(m) with a pointer to the struct that embeds nn.Base, once it is built (torch's super().__init__())")
	}
	return &structModule{b.st}
}

// Parameters returns the struct's parameters in field order, a
// submodule's where its field is (Module.Parameters).
func (b Base) Parameters() []*tensor.Tensor { return b.mod("Parameters").Parameters() }

// NamedParameters returns the parameters with their dotted names built
// from field names ("lin1.weight", "blocks.0.fc_self.weight", "scale").
func (b Base) NamedParameters() []NamedParameter { return b.mod("NamedParameters").NamedParameters() }

// Train switches the struct and every submodule to training mode.
func (b Base) Train() { b.mod("Train").Train() }

// Eval switches the struct and every submodule to evaluation mode.
func (b Base) Eval() { b.mod("Eval").Eval() }

// Training reports whether the struct is in training mode.
func (b Base) Training() bool { return b.mod("Training").Training() }

// ZeroGrad clears every parameter's gradient (set to none).
func (b Base) ZeroGrad() { b.mod("ZeroGrad").ZeroGrad() }

// StateDict returns the parameters by their NamedParameters names
// (module.state_dict()); the tensors are the parameters, not copies.
func (b Base) StateDict() map[string]*tensor.Tensor { return b.mod("StateDict").StateDict() }

// LoadStateDict copies sd's tensors into the parameters of the same names
// (load_state_dict, strict). It returns an *Error of kind ErrState naming
// missing, unexpected or mis-shaped entries, and then changes nothing.
func (b Base) LoadStateDict(sd map[string]*tensor.Tensor) error {
	return b.mod("LoadStateDict").LoadStateDict(sd)
}

// To moves every parameter to device in place (Module.to); see the layers'
// To for the errors.
func (b Base) To(device string) error { return b.mod("To").To(device) }

// Device returns the device of the first parameter ("cpu" without any).
func (b Base) Device() string { return b.mod("Device").Device() }

// NumParameters returns the number of trainable scalars.
func (b Base) NumParameters() int { return b.mod("NumParameters").NumParameters() }

// structModule is the Module of a registered struct: its methods walk the
// struct's fields.
type structModule struct{ st *baseState }

var _ Module = (*structModule)(nil)

// entry is one thing a walk over fields found: a parameter or a child.
type entry struct {
	name  string
	param *tensor.Tensor
	child Module
}

// entries returns the struct's own parameters and children in field
// order, with their names.
func (s *structModule) entries() []entry {
	v := s.st.self.Elem()
	t := v.Type()
	var out []entry
	seen := map[string]string{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == baseType {
			continue
		}
		name, ok := fieldName(t, f)
		if !ok {
			continue
		}
		fv := v.Field(i)
		if !fv.CanInterface() {
			fv = fieldAddr(fv).Elem()
		}
		n := len(out)
		out = appendValue(out, name, fv, true)
		if len(out) > n {
			if prev, dup := seen[name]; dup {
				panicf(ErrOption, "Base", "%s: fields %s and %s are both named %q; give one a tag nn:\"name\"", t, prev, f.Name, name)
			}
			seen[name] = f.Name
		}
	}
	return out
}

// appendValue appends what v holds under name: a parameter, a module, or
// (when top, a field itself) the elements of a slice, array or map of
// those.
func appendValue(out []entry, name string, v reflect.Value, top bool) []entry {
	if !v.IsValid() {
		return out
	}
	if v.Type() == tensorPtrType {
		if t := v.Interface().(*tensor.Tensor); t != nil && t.RequiresGrad() && t.IsLeaf() {
			out = append(out, entry{name: name, param: t})
		}
		return out
	}
	if m := asModule(v); m != nil {
		return append(out, entry{name: name, child: m})
	}
	if !top {
		return out
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			out = appendValue(out, name+"."+strconv.Itoa(i), v.Index(i), false)
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return out
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			out = appendValue(out, name+"."+k.String(), v.MapIndex(k), false)
		}
	}
	return out
}

// asModule returns the Module that v holds, or nil: a registered view of
// a struct with a Base field (a pointer, an addressable struct, or one
// behind a session's interface wrapper), else v itself when it is a
// non-nil Module.
func asModule(v reflect.Value) Module {
	for v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		if v.Elem().Kind() == reflect.Struct {
			if sm, ok := register(v); ok {
				return sm
			}
		}
	case reflect.Struct:
		if iv, ok := wrapped(v); ok {
			if m := asModule(iv); m != nil {
				if _, isStruct := m.(*structModule); isStruct {
					return m
				}
			}
		} else if v.CanAddr() {
			if sm, ok := register(v.Addr()); ok {
				return sm
			}
		}
	}
	if v.Type().Implements(moduleType) && v.CanInterface() {
		return v.Interface().(Module)
	}
	return nil
}

// wrapped returns the value inside a session interpreter's interface
// wrapper (yaegi's generated struct whose first field, IValue, holds the
// interpreted value and whose other fields are the methods).
func wrapped(v reflect.Value) (reflect.Value, bool) {
	t := v.Type()
	if t.NumField() == 0 || t.Field(0).Name != "IValue" || t.Field(0).Type.Kind() != reflect.Interface || !v.Field(0).CanInterface() {
		return reflect.Value{}, false
	}
	return v.Field(0), true
}

// Unwrap returns the module behind m: for a struct with a Base field that
// reached compiled code through a session's interface wrapper, the
// struct's own Module (so that its submodules are seen, as Generators and
// TorchTransposed need); m itself otherwise.
func Unwrap(m Module) Module {
	if m == nil {
		return nil
	}
	if u := asModule(reflect.ValueOf(m)); u != nil {
		return u
	}
	return m
}

// fieldName returns the registered name of field f of struct t, and
// false for a field tagged nn:"-".
func fieldName(t reflect.Type, f reflect.StructField) (string, bool) {
	if tag, ok := f.Tag.Lookup("nn"); ok {
		if tag == "-" {
			return "", false
		}
		if tag != "" {
			return tag, true
		}
	}
	name := f.Name
	// The session interpreter builds a cell's struct types with
	// reflect.StructOf, which has no unexported fields: it renames field
	// "lin" to "Xlin". Such types are unnamed.
	if t.Name() == "" && len(name) > 1 && name[0] == 'X' {
		if r, _ := utf8.DecodeRuneInString(name[1:]); unicode.IsLower(r) || r == '_' {
			name = name[1:]
		}
	}
	return SnakeCase(name), true
}

// SnakeCase returns a Go field name in snake_case, the parameter naming of
// this package's layers: an underscore goes before an upper-case letter
// that follows a lower-case letter or digit, or that begins a word after
// an acronym, and every letter is lowered. FcSelf -> fc_self, Lin1 -> lin1,
// AttnL -> attn_l, HBias -> h_bias, MLPHead -> mlp_head, W1 -> w1,
// already_snake -> already_snake.
func SnakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// walk calls f for every parameter of s and its submodules with its dotted
// name, each tensor once, not following a module already visited.
func (s *structModule) walk(f func(name string, t *tensor.Tensor)) {
	seenT := map[*tensor.Tensor]bool{}
	seenM := map[uintptr]bool{}
	var rec func(prefix string, m *structModule)
	emit := func(name string, t *tensor.Tensor) {
		if !seenT[t] {
			seenT[t] = true
			f(name, t)
		}
	}
	rec = func(prefix string, m *structModule) {
		seenM[m.st.self.Pointer()] = true
		for _, e := range m.entries() {
			name := prefix + e.name
			if e.param != nil {
				emit(name, e.param)
				continue
			}
			if c, ok := e.child.(*structModule); ok {
				if !seenM[c.st.self.Pointer()] {
					rec(name+".", c)
				}
				continue
			}
			for _, p := range e.child.NamedParameters() {
				emit(name+"."+p.Name, p.Param)
			}
		}
	}
	rec("", s)
}

// Parameters returns the parameters in NamedParameters order.
func (s *structModule) Parameters() []*tensor.Tensor {
	var out []*tensor.Tensor
	s.walk(func(_ string, t *tensor.Tensor) { out = append(out, t) })
	return out
}

// NamedParameters returns the parameters with their dotted names.
func (s *structModule) NamedParameters() []NamedParameter {
	var out []NamedParameter
	s.walk(func(n string, t *tensor.Tensor) { out = append(out, NamedParameter{n, t}) })
	return out
}

// setMode sets the mode of s and of every submodule, each once.
func (s *structModule) setMode(eval bool) {
	seen := map[uintptr]bool{}
	var rec func(m *structModule)
	rec = func(m *structModule) {
		seen[m.st.self.Pointer()] = true
		m.st.eval = eval
		for _, e := range m.entries() {
			switch c := e.child.(type) {
			case nil:
			case *structModule:
				if !seen[c.st.self.Pointer()] {
					rec(c)
				}
			default:
				if eval {
					c.Eval()
				} else {
					c.Train()
				}
			}
		}
	}
	rec(s)
}

// Train switches the module and its submodules to training mode.
func (s *structModule) Train() { s.setMode(false) }

// Eval switches the module and its submodules to evaluation mode.
func (s *structModule) Eval() { s.setMode(true) }

// Training reports whether the module is in training mode.
func (s *structModule) Training() bool { return !s.st.eval }

// ZeroGrad clears every parameter's gradient.
func (s *structModule) ZeroGrad() {
	for _, t := range s.Parameters() {
		t.ZeroGrad()
	}
}

// StateDict returns the parameters by name.
func (s *structModule) StateDict() map[string]*tensor.Tensor { return stateDict(s.NamedParameters()) }

// LoadStateDict copies sd into the parameters of the same names.
func (s *structModule) LoadStateDict(sd map[string]*tensor.Tensor) error {
	return loadStateDict(s.NamedParameters(), sd)
}

// To moves every parameter to device.
func (s *structModule) To(device string) error { return moveTo(s.NamedParameters(), device) }

// Device returns the first parameter's device, "cpu" without parameters.
func (s *structModule) Device() string { return firstDevice(s.NamedParameters()) }

// NumParameters returns the number of trainable scalars.
func (s *structModule) NumParameters() int { return numParameters(s.NamedParameters()) }

// childModules lists the struct's submodules (Generators, TorchTransposed).
func (s *structModule) childModules() []namedModule {
	var out []namedModule
	for _, e := range s.entries() {
		if e.child != nil {
			out = append(out, namedModule{e.name, e.child})
		}
	}
	return out
}

// generator returns the struct's first *tensor.Generator field.
func (s *structModule) generator() *tensor.Generator {
	v := s.st.self.Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Type() == generatorType {
			if !f.CanInterface() {
				f = fieldAddr(f).Elem()
			}
			return f.Interface().(*tensor.Generator)
		}
	}
	return nil
}

// String lists the module's submodules and parameters as torch's repr
// does.
func (s *structModule) String() string {
	var b strings.Builder
	b.WriteString(typeName(s.st.self.Type()) + "(")
	es := s.entries()
	for _, e := range es {
		b.WriteString("\n  (" + e.name + "): ")
		if e.param != nil {
			fmt.Fprintf(&b, "Parameter%v", e.param.Shape())
		} else if st, ok := e.child.(fmt.Stringer); ok {
			b.WriteString(strings.ReplaceAll(st.String(), "\n", "\n  "))
		} else {
			b.WriteString(typeName(reflect.TypeOf(e.child)))
		}
	}
	if len(es) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(")")
	return b.String()
}

// typeName returns a short name for t: "Net" for *main.Net, "Module" for
// an unnamed (interpreted) struct.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" {
		return "Module"
	}
	return t.Name()
}

// String describes the registered struct as torch's repr does, listing
// its submodules and parameters ("Module(...)" for a struct declared in a
// session cell, whose type has no name at run time).
func (b Base) String() string {
	if b.st == nil {
		return "nn.Base(unregistered)"
	}
	return (&structModule{b.st}).String()
}
