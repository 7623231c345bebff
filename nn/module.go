package nn

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Module is what every layer and model implements (torch.nn.Module): its
// trainable parameters, in a fixed order and by name, and the train / eval
// switch that turns dropout on and off. Modules start in training mode.
type Module interface {
	// Parameters returns the trainable tensors in registration order,
	// children's after the module's own (module.parameters()).
	Parameters() []*tensor.Tensor
	// NamedParameters returns the same tensors with dotted names such as
	// "layers.0.fc_self.weight" (module.named_parameters()).
	NamedParameters() []NamedParameter
	// Train switches the module and its children to training mode.
	Train()
	// Eval switches the module and its children to evaluation mode.
	Eval()
	// Training reports whether the module is in training mode.
	Training() bool
	// ZeroGrad clears the gradient of every parameter (set to none).
	ZeroGrad()
}

// NamedParameter is one entry of Module.NamedParameters.
type NamedParameter struct {
	Name  string
	Param *tensor.Tensor
}

type namedModule struct {
	name string
	m    Module
}

// core holds what every module shares: its own parameters, its children
// and the mode flag. Modules embed it, so its exported methods are theirs.
type core struct {
	eval     bool // zero value: training mode, as torch
	params   []NamedParameter
	children []namedModule
	sparse   sparseCache // the sparse form of the last input (features.go)
}

// param registers a new trainable leaf and returns it.
func (c *core) param(name string, t *tensor.Tensor) *tensor.Tensor {
	t.SetRequiresGrad(true)
	c.params = append(c.params, NamedParameter{name, t})
	return t
}

// child registers a sub-module.
func (c *core) child(name string, m Module) {
	c.children = append(c.children, namedModule{name, m})
}

// Parameters returns the module's trainable tensors, its own first, then
// each child's, in registration order.
func (c *core) Parameters() []*tensor.Tensor {
	np := c.NamedParameters()
	out := make([]*tensor.Tensor, len(np))
	for i, p := range np {
		out[i] = p.Param
	}
	return out
}

// NamedParameters returns the parameters with their dotted names.
func (c *core) NamedParameters() []NamedParameter {
	out := append([]NamedParameter(nil), c.params...)
	for _, ch := range c.children {
		for _, p := range ch.m.NamedParameters() {
			out = append(out, NamedParameter{ch.name + "." + p.Name, p.Param})
		}
	}
	return out
}

// NumParameters returns the number of trainable scalars.
func (c *core) NumParameters() int { return numParameters(c.NamedParameters()) }

// numParameters returns the number of scalars in np.
func numParameters(np []NamedParameter) int {
	n := 0
	for _, p := range np {
		n += p.Param.Numel()
	}
	return n
}

// Train switches the module and its children to training mode
// (module.train()): dropout is applied.
func (c *core) Train() {
	c.eval = false
	for _, ch := range c.children {
		ch.m.Train()
	}
}

// Eval switches the module and its children to evaluation mode
// (module.eval()): dropout is the identity.
func (c *core) Eval() {
	c.eval = true
	for _, ch := range c.children {
		ch.m.Eval()
	}
}

// Training reports whether the module is in training mode.
func (c *core) Training() bool { return !c.eval }

// ZeroGrad clears every parameter's gradient (module.zero_grad() with
// set_to_none, PyTorch's default).
func (c *core) ZeroGrad() {
	for _, p := range c.NamedParameters() {
		p.Param.ZeroGrad()
	}
}

// StateDict returns the parameters by name (module.state_dict()). The
// tensors are the parameters themselves, not copies; clone them to keep a
// snapshot.
func (c *core) StateDict() map[string]*tensor.Tensor { return stateDict(c.NamedParameters()) }

// stateDict returns np by name.
func stateDict(np []NamedParameter) map[string]*tensor.Tensor {
	out := map[string]*tensor.Tensor{}
	for _, p := range np {
		out[p.Name] = p.Param
	}
	return out
}

// LoadStateDict copies the values of sd into the parameters of the same
// names (module.load_state_dict(sd, strict=True)). It returns an *Error of
// kind ErrState naming the missing, unexpected or mis-shaped entries, and
// then changes nothing.
func (c *core) LoadStateDict(sd map[string]*tensor.Tensor) error {
	return loadStateDict(c.NamedParameters(), sd)
}

// loadStateDict copies sd into the parameters np, strictly (LoadStateDict).
func loadStateDict(np []NamedParameter, sd map[string]*tensor.Tensor) error {
	var missing, bad []string
	have := map[string]bool{}
	for _, p := range np {
		have[p.Name] = true
		t, ok := sd[p.Name]
		if !ok {
			missing = append(missing, p.Name)
			continue
		}
		if t.DType() != tensor.Float32 || !sameShape(t.Shape(), p.Param.Shape()) {
			bad = append(bad, fmt.Sprintf("%s: got %s%v, want float32%v", p.Name, t.DType(), t.Shape(), p.Param.Shape()))
		}
	}
	var extra []string
	for k := range sd {
		if !have[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(missing)+len(bad)+len(extra) > 0 {
		var parts []string
		if len(missing) > 0 {
			parts = append(parts, "missing keys "+strings.Join(missing, ", "))
		}
		if len(extra) > 0 {
			parts = append(parts, "unexpected keys "+strings.Join(extra, ", "))
		}
		if len(bad) > 0 {
			parts = append(parts, "size mismatch for "+strings.Join(bad, "; "))
		}
		return newError(ErrState, "LoadStateDict", "%s", strings.Join(parts, "; "))
	}
	for _, p := range np {
		p.Param.CopyFrom(sd[p.Name])
	}
	return nil
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// dropout applies inverted dropout with probability p in training mode.
func (c *core) dropout(x *tensor.Tensor, p float32, gen *tensor.Generator) *tensor.Tensor {
	if p == 0 || c.eval {
		return x
	}
	return tensor.Dropout(x, p, true, gen)
}

func genOr(g *tensor.Generator) *tensor.Generator {
	if g == nil {
		return tensor.DefaultGenerator()
	}
	return g
}

func checkDrop(op, name string, p float32) {
	if !(p >= 0 && p < 1) {
		panicf(ErrOption, op, "%s must be in [0, 1), got %g", name, p)
	}
}

func checkPositive(op, name string, v int) {
	if v <= 0 {
		panicf(ErrOption, op, "%s must be positive, got %d", name, v)
	}
}

// checkInput validates layer input x against the graph and the layer's
// input width.
func checkInput(op string, g interface{ NumSrcNodes() int }, x *tensor.Tensor, inFeats int) {
	if g == nil || (reflect.ValueOf(g).Kind() == reflect.Pointer && reflect.ValueOf(g).IsNil()) {
		panicf(ErrOption, op, "graph is nil")
	}
	if x == nil {
		panicf(ErrOption, op, "features are nil")
	}
	if !x.DType().IsFloatingPoint() || x.Dim() != 2 {
		panicf(ErrShape, op, "features must be float32 (N, %d) (or float16 / bfloat16), got %s%v", inFeats, x.DType(), x.Shape())
	}
	if x.Size(1) != inFeats {
		panicf(ErrShape, op, "features have %d columns (shape %v), the layer takes in_feats = %d", x.Size(1), x.Shape(), inFeats)
	}
	if n := g.NumSrcNodes(); x.Size(0) != n {
		panicf(ErrShape, op, "features have %d rows (shape %v), the graph has %d source nodes", x.Size(0), x.Shape(), n)
	}
}

// activationName renders an activation for a layer's String, as DGL's
// extra_repr prints None or the function.
func activationName(f func(*tensor.Tensor) *tensor.Tensor) string {
	if f == nil {
		return "None"
	}
	return "<func>"
}
