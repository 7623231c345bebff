package nn_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// MLP is a user's model: nn.Base finds its parameters from its fields.
type MLP struct {
	nn.Base
	Layers []*nn.Linear      // "layers.0", "layers.1"
	Scale  *tensor.Tensor    // a raw parameter "scale"
	Gen    *tensor.Generator // its dropout generator (saved by checkpoint)
}

func NewMLP(sizes ...int) *MLP {
	m := &MLP{Gen: tensor.NewGenerator(0)}
	for i := 0; i+1 < len(sizes); i++ {
		m.Layers = append(m.Layers, nn.NewLinear(sizes[i], sizes[i+1], true, m.Gen))
	}
	m.Scale = nn.Parameter(tensor.Ones(sizes[len(sizes)-1]))
	nn.Register(m) // torch's super().__init__()
	return m
}

// Forward: (N, sizes[0]) -> (N, sizes[last]).
func (m *MLP) Forward(x *tensor.Tensor) *tensor.Tensor {
	for i, l := range m.Layers {
		x = l.Forward(x)
		if i+1 < len(m.Layers) {
			x = tensor.Dropout(tensor.ReLU(x), 0.1, m.Training(), m.Gen)
		}
	}
	return tensor.Mul(x, m.Scale)
}

// A model written as a struct embedding nn.Base: its parameters come from
// its fields, named by field path, and it is a Module wherever one is
// expected (optimizers, checkpoints, data parallel).
func ExampleBase() {
	m := NewMLP(4, 8, 3)
	for _, p := range m.NamedParameters() {
		fmt.Println(p.Name, p.Param.Shape())
	}
	var _ nn.Module = m
	opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01})
	x := tensor.Randn(tensor.NewGenerator(1), 16, 4)
	y := tensor.FromInt64(make([]int64, 16), 16) // every node of class 0
	var first, last float64
	for step := 0; step < 50; step++ {
		opt.ZeroGrad()
		loss := tensor.CrossEntropy(m.Forward(x), y)
		loss.Backward()
		opt.Step()
		if step == 0 {
			first = loss.Item()
		}
		last = loss.Item()
	}
	m.Eval()
	fmt.Println("loss decreased:", last < first/2, "training:", m.Training(), m.Layers[0].Training())
	// Output:
	// layers.0.weight [4 8]
	// layers.0.bias [8]
	// layers.1.weight [8 3]
	// layers.1.bias [3]
	// scale [3]
	// loss decreased: true training: false false
}
