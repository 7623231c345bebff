package nn

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// baseNet is a user's model written in compiled Go: Linear fields, a slice
// of submodules, a map of them, a raw parameter, an unexported child, a
// constant tensor (not registered), a tagged and a skipped field, and a
// nested user module.
type baseNet struct {
	Base
	Lin1   *Linear
	Blocks []*Linear
	Heads  map[string]Module
	Scale  *tensor.Tensor
	Const  *tensor.Tensor
	W1     *Linear `nn:"W1"`
	Skip   *Linear `nn:"-"`
	inner  *baseInner
	Hidden int
}

type baseInner struct {
	Base
	MLPHead *Linear
	Gen     *tensor.Generator
}

func newBaseNet() *baseNet {
	g := tensor.NewGenerator(1)
	m := &baseNet{
		Lin1:   NewLinear(3, 4, true, g),
		Blocks: []*Linear{NewLinear(4, 4, false, g), NewLinear(4, 4, false, g)},
		Heads:  map[string]Module{"b": NewLinear(4, 2, false, g), "a": NewLinear(4, 2, false, g)},
		Scale:  Parameter(tensor.Ones(4)),
		Const:  tensor.Ones(4),
		W1:     NewLinear(2, 2, false, g),
		Skip:   NewLinear(2, 2, false, g),
		inner:  &baseInner{MLPHead: NewLinear(2, 1, true, g), Gen: tensor.NewGenerator(7)},
	}
	Register(m)
	return m
}

func TestBaseNamedParameters(t *testing.T) {
	m := newBaseNet()
	var got []string
	for _, p := range m.NamedParameters() {
		got = append(got, p.Name)
	}
	want := []string{"lin1.weight", "lin1.bias", "blocks.0.weight", "blocks.1.weight", "heads.a.weight", "heads.b.weight",
		"scale", "W1.weight", "inner.mlp_head.weight", "inner.mlp_head.bias"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("NamedParameters names\n got %v\nwant %v", got, want)
	}
	ps := m.Parameters()
	if len(ps) != len(want) || ps[0] != m.Lin1.Weight || ps[6] != m.Scale {
		t.Errorf("Parameters do not follow NamedParameters")
	}
	if n := m.NumParameters(); n != 3*4+4+16+16+8+8+4+4+2+1 {
		t.Errorf("NumParameters = %d", n)
	}
	var mod Module = m // Base's methods make the struct a Module
	if len(mod.Parameters()) != len(want) {
		t.Errorf("as a Module: %d parameters", len(mod.Parameters()))
	}
	if gs := Generators(m); len(gs) != 1 || gs[0].Name != "inner" || gs[0].Gen != m.inner.Gen {
		t.Errorf("Generators = %v, want the inner module's", gs)
	}
	tr := TorchTransposed(m)
	if !reflect.DeepEqual(tr, []string{"lin1.weight", "blocks.0.weight", "blocks.1.weight", "heads.a.weight", "heads.b.weight", "W1.weight", "inner.mlp_head.weight"}) {
		t.Errorf("TorchTransposed = %v", tr)
	}
}

func TestBaseModeDeviceState(t *testing.T) {
	m := newBaseNet()
	if !m.Training() || !m.inner.Training() || !m.Lin1.Training() {
		t.Fatal("modules do not start in training mode")
	}
	m.Eval()
	if m.Training() || m.inner.Training() || m.Lin1.Training() || m.Blocks[1].Training() || m.Heads["a"].Training() {
		t.Error("Eval did not reach every submodule")
	}
	if !m.Skip.Training() {
		t.Error("Eval reached a field tagged nn:\"-\"")
	}
	m.Train()
	if !m.Training() || !m.inner.Training() || !m.Blocks[0].Training() {
		t.Error("Train did not reach every submodule")
	}
	if err := m.To("cpu"); err != nil || m.Device() != "cpu" {
		t.Errorf("To(cpu) = %v, device %s", err, m.Device())
	}
	if err := m.To("nowhere"); err == nil || !strings.Contains(err.Error(), "lin1.weight") {
		t.Errorf("To(nowhere) = %v, want an error naming lin1.weight", err)
	}

	sd := m.StateDict()
	m2 := newBaseNet()
	for _, p := range m2.Parameters() {
		p.CopyFrom(tensor.Zeros(p.Shape()...))
	}
	if err := m2.LoadStateDict(sd); err != nil {
		t.Fatal(err)
	}
	for _, p := range m2.NamedParameters() {
		if !reflect.DeepEqual(p.Param.Float32s(), sd[p.Name].Float32s()) {
			t.Errorf("%s not restored", p.Name)
		}
	}
	delete(sd, "scale")
	if err := m2.LoadStateDict(sd); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "scale") {
		t.Errorf("LoadStateDict without scale = %v", err)
	}
}

func TestBaseErrors(t *testing.T) {
	type bare struct{ Lin *Linear }
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"unregistered", func() { var m baseInner; m.Parameters() }, "not registered"},
		{"no Base", func() { Register(&bare{}) }, "has no nn.Base field"},
		{"not a pointer", func() { Register(baseInner{}) }, "pointer to a struct"},
		{"nil", func() { Register(nil) }, "pointer to a struct"},
		{"non-leaf parameter", func() { Parameter(tensor.Add(Parameter(tensor.Ones(1)), tensor.Ones(1))) }, "not a leaf"},
		{"name clash", func() {
			type clash struct {
				Base
				FcSelf *Linear
				Fc     *Linear `nn:"fc_self"`
			}
			m := &clash{FcSelf: NewLinear(1, 1, false, nil), Fc: NewLinear(1, 1, false, nil)}
			Register(m).NamedParameters()
		}, "both named"},
	} {
		err := catchNN(tc.f)
		if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrOption saying %q", tc.name, err, tc.want)
		}
	}
}

// TestBaseCycleAndShared: a layer shared by two fields is registered once,
// and a child pointing back to its parent is not followed.
func TestBaseCycleAndShared(t *testing.T) {
	type node struct {
		Base
		A, B   *Linear
		Parent *baseInner
	}
	l := NewLinear(2, 2, false, nil)
	root := &baseInner{MLPHead: NewLinear(2, 1, false, nil)}
	n := &node{A: l, B: l}
	n.Parent = root
	Register(n)
	var got []string
	for _, p := range n.NamedParameters() {
		got = append(got, p.Name)
	}
	if want := []string{"a.weight", "parent.mlp_head.weight"}; !reflect.DeepEqual(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	type loop struct {
		Base
		Self *loop
		W    *tensor.Tensor
	}
	lp := &loop{W: Parameter(tensor.Ones(1))}
	lp.Self = lp
	if np := Register(lp).NamedParameters(); len(np) != 1 || np[0].Name != "w" {
		t.Errorf("a self-referencing module: %v", np)
	}
	lp.Eval()
	if lp.Training() {
		t.Error("Eval on a cycle")
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"FcSelf": "fc_self", "Lin1": "lin1", "AttnL": "attn_l", "HBias": "h_bias",
		"MLPHead": "mlp_head", "W1": "w1", "already_snake": "already_snake", "Conv1Weight": "conv1_weight", "GCN": "gcn", "x": "x"} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func catchNN(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}

// TestBaseInteroperable: GraphSAGE's state dict loads into the same model
// written as a struct with Base, whose field Layers gives the same names
// ("layers.0.fc_self.weight"), and the two compute the same output.
func TestBaseInteroperable(t *testing.T) {
	sage := NewGraphSAGE(SAGEOptions{InFeats: 5, HiddenFeats: 4, OutFeats: 3, Aggregator: "mean", Seed: 1})
	type mySAGE struct {
		Base
		Layers []*SAGEConv
	}
	gen := tensor.NewGenerator(2)
	m := &mySAGE{Layers: []*SAGEConv{
		NewSAGEConv(SAGEConvOptions{InFeats: 5, OutFeats: 4, Aggregator: "mean", Gen: gen}),
		NewSAGEConv(SAGEConvOptions{InFeats: 4, OutFeats: 3, Aggregator: "mean", Gen: gen}),
	}}
	Register(m)
	want := sage.StateDict()
	if err := m.LoadStateDict(want); err != nil {
		t.Fatalf("GraphSAGE's state dict into the struct: %v", err)
	}
	if !reflect.DeepEqual(TorchTransposed(m), TorchTransposed(sage)) {
		t.Errorf("TorchTransposed: %v, GraphSAGE's %v", TorchTransposed(m), TorchTransposed(sage))
	}
	g := edgeGraph(t, 6, 6, []int64{0, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 0}, []int64{1, 2, 3, 4, 5, 0, 0, 1, 2, 3, 4, 5})
	x := tensor.Rand(tensor.NewGenerator(3), -1, 1, 6, 5)
	sage.Eval()
	ref := sage.Forward(g, x).Float32s()
	h := tensor.ReLU(m.Layers[0].Forward(g, x))
	got := m.Layers[1].Forward(g, h).Float32s()
	for i := range ref {
		if d := ref[i] - got[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("output %d: GraphSAGE %g, struct %g", i, ref[i], got[i])
		}
	}
}
