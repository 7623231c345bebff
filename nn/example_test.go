package nn_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// ring returns a bidirected ring of n nodes with self loops, a graph every
// layer accepts (no zero in-degree).
func ring(n int) *graph.Graph {
	var src, dst []int64
	for v := int64(0); v < int64(n); v++ {
		src = append(src, v, v)
		dst = append(dst, (v+1)%int64(n), (v+int64(n)-1)%int64(n))
	}
	g, err := graph.New(n, src, dst)
	if err != nil {
		panic(err)
	}
	return g.AddSelfLoop()
}

// A 2-layer GraphSAGE on a tiny graph: one forward pass, a cross-entropy
// loss over the labelled nodes, and Adam steps, as
//
//	model = dgl.nn.SAGEConv stack; opt = torch.optim.Adam(model.parameters(), lr=0.01)
//	loss = F.cross_entropy(model(g, x)[train_idx], y[train_idx]); loss.backward(); opt.step()
func Example() {
	g := ring(6)
	x := tensor.Randn(tensor.NewGenerator(1), 6, 4) // (N, F_in)
	labels := tensor.FromInt64([]int64{0, 1, 2, 0, 1, 2})
	train := tensor.FromInt64([]int64{0, 1, 2, 3})

	model := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: 4, HiddenFeats: 8, OutFeats: 3, Seed: 0})
	opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.01})
	fmt.Println(model.Forward(g, x).Shape()) // (N, C)

	var first, last float64
	for step := range 20 {
		opt.ZeroGrad()
		loss := nn.MaskedCrossEntropy(model.Forward(g, x), labels, train)
		loss.Backward()
		opt.Step()
		if step == 0 {
			first = loss.Item()
		}
		last = loss.Item()
	}
	fmt.Println("loss went down:", last < first)
	// Output:
	// [6 3]
	// loss went down: true
}

// A GCN (Kipf & Welling) forward pass in evaluation mode (dropout off).
func ExampleNewGCN() {
	g := ring(5)
	model := nn.NewGCN(nn.GCNOptions{InFeats: 3, HiddenFeats: 16, OutFeats: 2, Dropout: 0.5})
	model.Eval()
	out := model.Forward(g, tensor.Ones(5, 3))
	fmt.Println(out.Shape(), len(model.Parameters()))
	// Output:
	// [5 2] 4
}

// Activations: the functional form is package tensor's op, the module form
// nn's struct with PyTorch's default for its zero field; either fits an
// Activation option.
func ExampleELU() {
	x := tensor.FromFloat32([]float32{-1, 0, 2}, 3)
	fmt.Printf("%.4f\n", nn.ELU{}.Forward(x).Float32s())       // torch.nn.ELU()
	fmt.Printf("%.4f\n", tensor.ELU(x, 1).Float32s())          // F.elu(x)
	fmt.Printf("%.4f\n", nn.LeakyReLU{}.Forward(x).Float32s()) // torch.nn.LeakyReLU(): slope 0.01
	_ = nn.NewGATConv(nn.GATConvOptions{InFeats: 3, OutFeats: 2, NumHeads: 1, Activation: nn.ELU{}.Forward})
	// Output:
	// [-0.6321 0.0000 2.0000]
	// [-0.6321 0.0000 2.0000]
	// [-0.0100 0.0000 2.0000]
}

// Scoring the edges of a pair graph with the dot product of their
// endpoints' representations (DGL's u_dot_v) and training against
// negative pairs with the BCE loss of DGL's link-prediction examples.
func ExampleDotPredictor() {
	h := tensor.FromFloat32([]float32{1, 0, 0.5, 0.5, 0, 1}, 3, 2).SetRequiresGrad(true)
	pos, _ := graph.New(3, []int64{0, 1}, []int64{1, 2}) // positive pairs 0-1, 1-2
	neg, _ := graph.New(3, []int64{0}, []int64{2})       // negative pair 0-2
	pred := nn.NewDotPredictor()
	ps, ns := pred.Forward(pos, h), pred.Forward(neg, h)
	loss := nn.LinkBCELoss(ps, ns)
	loss.Backward()
	fmt.Println(ps.Float32s(), ns.Float32s())
	fmt.Printf("loss %.4f\n", loss.Item())
	// Output:
	// [0.5 0.5] [0]
	// loss 0.5471
}
