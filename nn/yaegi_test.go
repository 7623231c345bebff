package nn

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestInterpreted trains models the way a session user types it, in the
// yaegi interpreter, against a hand-made symbol table of the exported names
// it uses (the real tables are generated in builtins): options structs, an
// interpreted activation function passed to a compiled layer, the Module
// interface, an optimizer, and a recovered ErrZeroInDegree panic.
func TestInterpreted(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(interp.Exports{
		"github.com/gnnrepl/gnnrepl/graph/graph": {
			"Graph":        reflect.ValueOf((*graph.Graph)(nil)),
			"MessageGraph": reflect.ValueOf((*graph.MessageGraph)(nil)),
			"New":          reflect.ValueOf(graph.New),
		},
		"github.com/gnnrepl/gnnrepl/tensor/tensor": {
			"Tensor":       reflect.ValueOf((*tensor.Tensor)(nil)),
			"Rand":         reflect.ValueOf(tensor.Rand),
			"Arange":       reflect.ValueOf(tensor.Arange),
			"Tanh":         reflect.ValueOf(tensor.Tanh),
			"NoGrad":       reflect.ValueOf(tensor.NoGrad),
			"FromInt64":    reflect.ValueOf(tensor.FromInt64),
			"NewGenerator": reflect.ValueOf(tensor.NewGenerator),
		},
		"github.com/gnnrepl/gnnrepl/nn/nn": {
			"Module":             reflect.ValueOf((*Module)(nil)),
			"Error":              reflect.ValueOf((*Error)(nil)),
			"ErrZeroInDegree":    reflect.ValueOf(&ErrZeroInDegree).Elem(),
			"GCNOptions":         reflect.ValueOf((*GCNOptions)(nil)),
			"NewGCN":             reflect.ValueOf(NewGCN),
			"SAGEOptions":        reflect.ValueOf((*SAGEOptions)(nil)),
			"NewGraphSAGE":       reflect.ValueOf(NewGraphSAGE),
			"SAGEConvOptions":    reflect.ValueOf((*SAGEConvOptions)(nil)),
			"NewSAGEConv":        reflect.ValueOf(NewSAGEConv),
			"GraphConvOptions":   reflect.ValueOf((*GraphConvOptions)(nil)),
			"NewGraphConv":       reflect.ValueOf(NewGraphConv),
			"MaskedCrossEntropy": reflect.ValueOf(MaskedCrossEntropy),
			"MaskedAccuracy":     reflect.ValueOf(MaskedAccuracy),
		},
		"github.com/gnnrepl/gnnrepl/optim/optim": {
			"Optimizer":   reflect.ValueOf((*optim.Optimizer)(nil)),
			"AdamOptions": reflect.ValueOf((*optim.AdamOptions)(nil)),
			"NewAdam":     reflect.ValueOf(optim.NewAdam),
			"SGDOptions":  reflect.ValueOf((*optim.SGDOptions)(nil)),
			"NewSGD":      reflect.ValueOf(optim.NewSGD),
		},
	}); err != nil {
		t.Fatal(err)
	}
	const src = `
import (
	"errors"
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func ring(n int) *graph.Graph {
	var src, dst []int64
	for v := 0; v < n; v++ {
		src = append(src, int64(v), int64((v+1)%n), int64(v))
		dst = append(dst, int64((v+1)%n), int64(v), int64(v))
	}
	g, err := graph.New(n, src, dst)
	if err != nil {
		panic(err)
	}
	return g
}

func numParams(m nn.Module) int {
	n := 0
	for _, p := range m.Parameters() {
		n += p.Numel()
	}
	return n
}

func run() string {
	g := ring(40)
	x := tensor.Rand(tensor.NewGenerator(1), -1, 1, 40, 6)
	lab := make([]int64, 40)
	for i := range lab {
		lab[i] = int64(i % 2)
	}
	labels := tensor.FromInt64(lab)
	train := tensor.Arange(40)

	model := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: 6, HiddenFeats: 16, OutFeats: 2, Dropout: 0.1, Seed: 3})
	opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.02})
	first, last := 0.0, 0.0
	for epoch := 0; epoch < 30; epoch++ {
		model.Train()
		opt.ZeroGrad()
		loss := nn.MaskedCrossEntropy(model.Forward(g, x), labels, train)
		loss.Backward()
		opt.Step()
		if epoch == 0 {
			first = loss.Item()
		}
		last = loss.Item()
	}
	model.Eval()
	var acc float64
	tensor.NoGrad(func() { acc = nn.MaskedAccuracy(model.Forward(g, x), labels, train) })

	// An interpreted activation inside a compiled layer.
	conv := nn.NewSAGEConv(nn.SAGEConvOptions{InFeats: 6, OutFeats: 3,
		Activation: func(t *tensor.Tensor) *tensor.Tensor { return tensor.Tanh(t) }})
	y := conv.Forward(g, x)
	bounded := true
	for _, v := range y.Float32s() {
		bounded = bounded && v > -1 && v < 1
	}

	// A zero in-degree panic, recovered as a typed error.
	lonely, _ := graph.New(3, []int64{0}, []int64{1})
	caught := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = r.(error)
			}
		}()
		nn.NewGraphConv(nn.GraphConvOptions{InFeats: 6, OutFeats: 2}).Forward(lonely, tensor.Rand(nil, 0, 1, 3, 6))
		return nil
	}()
	return fmt.Sprintf("decreased=%t acc>=0.9=%t bounded=%t zeroindeg=%t params=%d",
		last < first, acc >= 0.9, bounded, errors.Is(caught, nn.ErrZeroInDegree), numParams(model))
}
`
	if _, err := i.Eval(src); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval("run()")
	if err != nil {
		t.Fatal(err)
	}
	want := "decreased=true acc>=0.9=true bounded=true zeroindeg=true params=" +
		strconv.Itoa(NewGraphSAGE(SAGEOptions{InFeats: 6, HiddenFeats: 16, OutFeats: 2}).NumParameters())
	if got := v.String(); got != want {
		t.Errorf("interpreted run: %s\nwant %s", got, want)
	}
}
