package repl_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/builtins"
	"github.com/gnnrepl/gnnrepl/repl"
)

// The tests of this file type a user's own model and op into a real
// session (the builtins' symbols, the prelude's imports) and check that
// they are first-class: nn.Base registers the fields' parameters, optim
// trains them, checkpoint saves and restores them, Train/Eval/To reach
// the submodules, and tensor.CustomOp's hand-written backward is used.

// userSession starts a session with the builtins and the prelude's imports.
func userSession(t *testing.T) *repl.Session {
	t.Helper()
	opts := repl.DefaultOptions()
	opts.Prelude = builtins.PreludeImports
	var out strings.Builder
	opts.Stdout, opts.Stderr, opts.Stdin = &out, &out, strings.NewReader("")
	s, err := repl.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// cell evaluates src and returns the text of its final value.
func cell(t *testing.T, s *repl.Session, src string) string {
	t.Helper()
	r, err := s.Eval(context.Background(), src)
	if err != nil {
		t.Fatalf("cell\n%s\nfailed: %v", src, err)
	}
	return r.Text
}

// unquote reads a cell's string result.
func unquote(t *testing.T, text string) string {
	t.Helper()
	if s, err := strconv.Unquote(text); err == nil {
		return s
	}
	return text
}

// netCell declares a model as a user types it: nn.Base embedded, Linear
// fields, a slice of cell-declared submodules, a raw parameter.
const netCell = `import "strings"

type Block struct {
	nn.Base
	Fc *nn.Linear
}

type Net struct {
	nn.Base
	Lin1   *nn.Linear
	Blocks []*Block
	Scale  *tensor.Tensor
	Lin2   *nn.Linear
	Gen    *tensor.Generator
}

func NewNet(seed int64) *Net {
	g := tensor.NewGenerator(seed)
	m := &Net{Lin1: nn.NewLinear(4, 8, true, g), Scale: nn.Parameter(tensor.Ones(8)), Lin2: nn.NewLinear(8, 3, true, g), Gen: g}
	for i := 0; i < 2; i++ {
		m.Blocks = append(m.Blocks, &Block{Fc: nn.NewLinear(8, 8, false, g)})
	}
	nn.Register(m)
	return m
}

func (m *Net) Forward(x *tensor.Tensor) *tensor.Tensor {
	h := tensor.ReLU(m.Lin1.Forward(x))
	for _, b := range m.Blocks {
		h = tensor.Add(h, tensor.ReLU(b.Fc.Forward(h)))
	}
	h = tensor.Dropout(h, 0.1, m.Training(), m.Gen)
	return m.Lin2.Forward(tensor.Mul(h, m.Scale))
}

func names(m nn.Module) string {
	var out []string
	for _, p := range m.NamedParameters() {
		out = append(out, p.Name)
	}
	return strings.Join(out, " ")
}

func sameParams(a, b nn.Module) bool {
	pa, pb := a.Parameters(), b.Parameters()
	if len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		x, y := pa[i].Float32s(), pb[i].Float32s()
		if len(x) != len(y) {
			return false
		}
		for j := range x {
			if x[j] != y[j] {
				return false
			}
		}
	}
	return true
}
`

const wantNames = "lin1.weight lin1.bias blocks.0.fc.weight blocks.1.fc.weight scale lin2.weight lin2.bias"

func TestUserModelNamedParameters(t *testing.T) {
	s := userSession(t)
	cell(t, s, netCell)
	cell(t, s, `m := NewNet(1)`)
	if got := unquote(t, cell(t, s, `names(m)`)); got != wantNames {
		t.Errorf("NamedParameters:\n got %s\nwant %s", got, wantNames)
	}
	if got := cell(t, s, `len(m.Parameters())`); got != "7" {
		t.Errorf("len(Parameters) = %s, want 7", got)
	}
	// Unexported fields (yaegi names them "Xfc_self" at run time), a
	// tag, and the snake_case of acronyms.
	cell(t, s, `type small struct {
	nn.Base
	fcSelf *nn.Linear
	AttnL  *tensor.Tensor
	W1     *nn.Linear `+"`nn:\"W1\"`"+`
	Skip   *nn.Linear `+"`nn:\"-\"`"+`
}
sm := &small{fcSelf: nn.NewLinear(2, 2, true, nil), AttnL: nn.Parameter(tensor.Ones(1, 2)), W1: nn.NewLinear(2, 1, false, nil), Skip: nn.NewLinear(1, 1, false, nil)}
nn.Register(sm)`)
	if got := unquote(t, cell(t, s, `names(sm)`)); got != "fc_self.weight fc_self.bias attn_l W1.weight" {
		t.Errorf("names of a struct with an unexported field and tags: %s", got)
	}
	// As an nn.Module in a variable, a slice and a map, and in compiled
	// code's walks (TorchTransposed sees the Linear weights inside).
	cell(t, s, `var mod nn.Module = m
mods := []nn.Module{m, nn.NewLinear(2, 2, true, nil)}
byName := map[string]nn.Module{"net": m}`)
	if got := cell(t, s, `len(mod.Parameters()) + len(mods[0].Parameters()) + len(byName["net"].NamedParameters())`); got != "21" {
		t.Errorf("through nn.Module values: %s parameters, want 21", got)
	}
	if got := unquote(t, cell(t, s, `strings.Join(nn.TorchTransposed(mod), " ")`)); got != "lin1.weight blocks.0.fc.weight blocks.1.fc.weight lin2.weight" {
		t.Errorf("TorchTransposed = %s", got)
	}
	if got := unquote(t, cell(t, s, `fmt.Sprint(nn.Generators(mod)[0].Name == "" && nn.Generators(mod)[0].Gen == m.Gen)`)); got != "true" {
		t.Errorf("the model's generator field is not its generator")
	}
	// A model a cell never registered is registered by the engine when it
	// gets it as an nn.Module.
	cell(t, s, `u := &Net{Lin1: nn.NewLinear(4, 8, true, nil), Scale: nn.Parameter(tensor.Ones(8)), Lin2: nn.NewLinear(8, 3, true, nil)}
var umod nn.Module = u
n := len(nn.Unwrap(umod).Parameters())`)
	if got := cell(t, s, `n + len(u.Parameters())`); got != "10" {
		t.Errorf("unregistered model: %s", got)
	}
}

func TestUserModelTrainsWithAdam(t *testing.T) {
	s := userSession(t)
	cell(t, s, netCell)
	got := unquote(t, cell(t, s, trainCell))
	f := strings.Fields(got)
	first, _ := strconv.ParseFloat(f[0], 64)
	last, _ := strconv.ParseFloat(f[1], 64)
	if !(last < first/2) {
		t.Errorf("Adam over the cell's model: loss %v -> %v, want at least halved", first, last)
	}
	// Seeded: a second session trains to the same losses.
	s2 := userSession(t)
	cell(t, s2, netCell)
	if again := unquote(t, cell(t, s2, trainCell)); again != got {
		t.Errorf("a second session's losses %s, the first's %s", again, got)
	}
}

// trainCell trains NewNet(2) with Adam on a seeded toy problem (class:
// the sign of the first feature) and shows the first and last losses.
const trainCell = `
m := NewNet(2)
x := tensor.Randn(tensor.NewGenerator(3), 32, 4)
y := tensor.FromInt64(func() []int64 {
	out := make([]int64, 32)
	xs := x.Float32s()
	for i := range out {
		if xs[4*i] > 0 {
			out[i] = 1
		}
	}
	return out
}(), 32)
opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.02})
var first, last float64
for step := 0; step < 60; step++ {
	opt.ZeroGrad()
	loss := tensor.CrossEntropy(m.Forward(x), y)
	loss.Backward()
	opt.Step()
	if step == 0 {
		first = loss.Item()
	}
	last = loss.Item()
}
fmt.Sprintf("%.6f %.6f", first, last)`

func TestUserModelCheckpoint(t *testing.T) {
	s := userSession(t)
	cell(t, s, netCell)
	path := filepath.Join(t.TempDir(), "net.safetensors")
	cell(t, s, `path := `+strconv.Quote(path)+`
m := NewNet(4)
opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01})
x := tensor.Randn(tensor.NewGenerator(5), 8, 4)
loss := tensor.CrossEntropy(m.Forward(x), tensor.FromInt64([]int64{0, 1, 2, 0, 1, 2, 0, 1}, 8))
loss.Backward()
opt.Step()
var st checkpoint.State
st.Model = m
st.Optimizer = opt
saveErr := checkpoint.Save(path, st)`)
	if got := cell(t, s, `saveErr`); got != "<nil>" && got != "" && got != "nil" {
		t.Fatalf("Save: %s", got)
	}
	// (A call's result passed straight to a parameter of interface type
	// is not converted by yaegi: sameParams(m, NewNet(9)) panics, so the
	// fresh model goes into a variable first.)
	if got := cell(t, s, `other := NewNet(9)
sameParams(m, other)`); got != "false" {
		t.Fatalf("a fresh model already equals the trained one")
	}
	// Load into fresh instances: by assignment, and through nn.Register
	// inside the literal.
	cell(t, s, `m2 := NewNet(9)
var st2 checkpoint.State
st2.Model = m2
loadErr := checkpoint.Load(path, &st2)
m3 := NewNet(10)
st3 := checkpoint.State{Model: nn.Register(m3)}
loadErr3 := checkpoint.Load(path, &st3)`)
	if got := cell(t, s, `fmt.Sprint(loadErr, loadErr3)`); unquote(t, got) != "<nil> <nil>" {
		t.Fatalf("Load: %s", got)
	}
	if got := cell(t, s, `sameParams(m, m2) && sameParams(m, m3)`); got != "true" {
		t.Errorf("loaded parameters differ from the saved ones")
	}
	// The file holds the field-path names, Linear weights in torch's
	// (out, in) layout.
	if got := unquote(t, cell(t, s, `sd, _, ferr := checkpoint.LoadFile(path)
fmt.Sprint(ferr, sd["lin1.weight"].Shape(), sd["blocks.1.fc.weight"].Shape(), sd["scale"].Shape())`)); got != "<nil> [8 4] [8 8] [8]" {
		t.Errorf("file contents: %s", got)
	}
}

// TestUserModelStateLiteral: checkpoint.State{Model: m} with m a cell's
// type. yaegi 0.16.1 sets the fields of a compiled struct's composite
// literal with reflect.Value.Set and no interface conversion
// (doCompositeBinStruct), so it panicked with "reflect.Set: value of type
// *struct {...} is not assignable to type nn.Module" (even with an
// explicit nn.Module(m)); the session lowers the literal (lower_iface.go).
func TestUserModelStateLiteral(t *testing.T) {
	s := userSession(t)
	cell(t, s, netCell)
	r, err := s.Eval(context.Background(), `m := NewNet(1)
st := checkpoint.State{Model: m}
len(st.Model.Parameters())`)
	if err != nil || r.Text != "7" {
		t.Errorf("checkpoint.State{Model: m}: %q, %v", r.Text, err)
	}
	r, err = s.Eval(context.Background(), `ps := &checkpoint.State{Model: NewNet(2), Optimizer: nil}
fmt.Sprint(len(ps.Model.Parameters()), ps.Optimizer == nil)`)
	if err != nil || r.Text != `"7 true"` {
		t.Errorf("&checkpoint.State{Model: NewNet(2)}: %q, %v", r.Text, err)
	}
}

func TestUserModelModeAndDevice(t *testing.T) {
	s := userSession(t)
	cell(t, s, netCell)
	cell(t, s, `m := NewNet(1)
mode := func() string { return fmt.Sprint(m.Training(), m.Blocks[0].Training(), m.Blocks[1].Fc.Training(), m.Lin1.Training()) }`)
	if got := unquote(t, cell(t, s, `mode()`)); got != "true true true true" {
		t.Errorf("initial mode: %s", got)
	}
	if got := unquote(t, cell(t, s, `m.Eval()
mode()`)); got != "false false false false" {
		t.Errorf("after Eval: %s", got)
	}
	if got := unquote(t, cell(t, s, `var mod nn.Module = m
mod.Train()
mode()`)); got != "true true true true" {
		t.Errorf("after Train through nn.Module: %s", got)
	}
	if got := unquote(t, cell(t, s, `fmt.Sprintf("%v %s", m.To("cpu"), m.Device())`)); got != "<nil> cpu" {
		t.Errorf("To(cpu): %s", got)
	}
	if got := unquote(t, cell(t, s, `err := m.To("nowhere")
fmt.Sprint(err != nil && strings.Contains(err.Error(), "lin1.weight"))`)); got != "true" {
		t.Errorf("To(nowhere) does not name the parameter")
	}
	// dist.DataParallel over one process takes the cell's model.
	if got := unquote(t, cell(t, s, `d, derr := dist.DataParallel(m, nil)
fmt.Sprint(derr, len(d.Module().Parameters()))`)); got != "<nil> 7" {
		t.Errorf("DataParallel: %s", got)
	}
}

// customOpCell declares a tanh with a hand-written backward in a cell.
const customOpCell = `
myTanh := tensor.CustomOp{
	Name:    "my_tanh",
	Forward: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.Tanh(in[0]) },
	Backward: func(g *tensor.Tensor, in []*tensor.Tensor, out *tensor.Tensor) []*tensor.Tensor {
		return []*tensor.Tensor{tensor.Mul(g, tensor.AddScalar(tensor.MulScalar(tensor.Mul(out, out), -1), 1))}
	},
}

func gradOf(act func(*tensor.Tensor) *tensor.Tensor) []float32 {
	x := tensor.Rand(tensor.NewGenerator(1), -2, 2, 3, 4).SetRequiresGrad(true)
	w := tensor.Rand(tensor.NewGenerator(2), -1, 1, 3, 4)
	tensor.Sum(tensor.Mul(act(x), w)).Backward()
	return x.Grad().Float32s()
}
`

func TestUserCustomOp(t *testing.T) {
	s := userSession(t)
	cell(t, s, customOpCell)
	// Against the built-in Tanh's gradient, and against central finite
	// differences of the custom op's forward.
	got := unquote(t, cell(t, s, `
custom := gradOf(func(x *tensor.Tensor) *tensor.Tensor { return myTanh.Apply(x) })
builtin := gradOf(tensor.Tanh)
maxDiff, maxFD := 0.0, 0.0
x := tensor.Rand(tensor.NewGenerator(1), -2, 2, 3, 4)
w := tensor.Rand(tensor.NewGenerator(2), -1, 1, 3, 4).Float32s()
f := func() float64 {
	s := 0.0
	for i, v := range myTanh.Apply(x).Float32s() {
		s += float64(v) * float64(w[i])
	}
	return s
}
for i := range custom {
	if d := math.Abs(float64(custom[i] - builtin[i])); d > maxDiff {
		maxDiff = d
	}
	d := x.Float32s()
	old := d[i]
	d[i] = old + 1e-2
	fp := f()
	d[i] = old - 1e-2
	fm := f()
	d[i] = old
	if e := math.Abs((fp-fm)/2e-2 - float64(custom[i])); e > maxFD {
		maxFD = e
	}
}
fmt.Sprint(maxDiff < 1e-6, maxFD < 1e-3)`))
	if got != "true true" {
		t.Errorf("custom op gradient vs built-in, finite differences: %s", got)
	}
	// A Backward returning the wrong number or shape of gradients is an
	// error naming the op, and the session goes on.
	for _, tc := range []struct{ src, want string }{
		{`bad := tensor.CustomOp{Name: "two_grads", Forward: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.MulScalar(in[0], 2) },
	Backward: func(g *tensor.Tensor, in []*tensor.Tensor, out *tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{g, g} }}
tensor.Sum(bad.Apply(tensor.Ones(2).SetRequiresGrad(true))).Backward()`, "tensor.two_grads.Backward: Backward returned 2 gradients for 1 inputs"},
		{`bad := tensor.CustomOp{Name: "bad_shape", Forward: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.MulScalar(in[0], 2) },
	Backward: func(g *tensor.Tensor, in []*tensor.Tensor, out *tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{tensor.Ones(3)} }}
tensor.Sum(bad.Apply(tensor.Ones(2).SetRequiresGrad(true))).Backward()`, "tensor.bad_shape.Backward: gradient 0 has shape [3], input 0 has shape [2]"},
	} {
		_, err := s.Eval(context.Background(), tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\n: error %v, want one containing %q", tc.src, err, tc.want)
		}
	}
	if got := cell(t, s, `len(gradOf(tensor.Tanh))`); got != "12" {
		t.Errorf("the session does not go on after the errors: %s", got)
	}
}
