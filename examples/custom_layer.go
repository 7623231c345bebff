//go:build ignore

// A GNN layer of one's own, written in the session: a GCN convolution
// (Kipf & Welling 2017) as a struct embedding nn.Base, whose aggregation
// over neighbours is the message-passing API (UpdateAll with copy_u and
// sum) wrapped in a tensor.CustomOp with a hand-written backward (the
// transposed aggregation). A two-layer model of such layers trains on Cora
// with Adam; the epoch with the best validation accuracy is saved with
// checkpoint.Save, loaded into a freshly built model with checkpoint.Load,
// and evaluated on the test nodes.
//
//	gnnrepl --data ../shared/data run examples/custom_layer.go
package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/gnnrepl/gnnrepl/checkpoint"
	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// aggregate returns the op h -> A h over g's edges, A[v][u] = 1 for each
// edge u -> v (h (N, F) -> (N, F)): the forward pass sends h along the
// edges with UpdateAll, the backward pass sends the gradient back along
// the reversed edges (A^T g, a sum over g.OutAdj()).
func aggregate(g *graph.Graph) tensor.CustomOp {
	return tensor.CustomOp{
		Name: "aggregate",
		Forward: func(in []*tensor.Tensor) *tensor.Tensor {
			check(g.SetNData("h", in[0]))
			g.UpdateAll(graph.CopyU("h", "m"), graph.Sum("m", "agg"))
			return g.NData("agg")
		},
		Backward: func(grad *tensor.Tensor, in []*tensor.Tensor, out *tensor.Tensor) []*tensor.Tensor {
			return []*tensor.Tensor{tensor.SpMM(g.OutAdj(), grad, nil, "sum")}
		},
	}
}

// GCNLayer is D^-1/2 (A + I) D^-1/2 X W + b on a graph with self loops:
// (N, in) -> (N, out). Its parameters, found by nn.Base, are "weight" and
// "bias", DGL's GraphConv names.
type GCNLayer struct {
	nn.Base
	Weight *tensor.Tensor // (in, out)
	Bias   *tensor.Tensor // (out)
}

func newGCNLayer(in, out int, gen *tensor.Generator) *GCNLayer {
	l := &GCNLayer{
		Weight: nn.Parameter(nn.XavierUniform(tensor.Zeros(in, out), in, out, 1, gen)),
		Bias:   nn.Parameter(tensor.Zeros(out)),
	}
	nn.Register(l)
	return l
}

// Forward: norm is D^-1/2 as (N, 1), agg the graph's aggregate op.
func (l *GCNLayer) Forward(agg tensor.CustomOp, norm, x *tensor.Tensor) *tensor.Tensor {
	h := tensor.Mul(tensor.MatMul(x, l.Weight), norm)
	return tensor.Add(tensor.Mul(agg.Apply(h), norm), l.Bias)
}

// Net is two GCNLayers with ReLU and dropout between them; its parameters
// are "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias".
type Net struct {
	nn.Base
	Layers  []*GCNLayer
	Dropout float32
	Gen     *tensor.Generator // dropout masks (checkpoint saves its state)
}

func newNet(in, hidden, out int, seed int64) *Net {
	gen := tensor.NewGenerator(seed)
	m := &Net{Layers: []*GCNLayer{newGCNLayer(in, hidden, gen), newGCNLayer(hidden, out, gen)}, Dropout: 0.5, Gen: gen}
	nn.Register(m)
	return m
}

func (m *Net) Forward(agg tensor.CustomOp, norm, x *tensor.Tensor) *tensor.Tensor {
	h := x
	for i, l := range m.Layers {
		h = tensor.Dropout(h, m.Dropout, m.Training(), m.Gen)
		h = l.Forward(agg, norm, h)
		if i+1 < len(m.Layers) {
			h = tensor.ReLU(h)
		}
	}
	return h
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

// accuracy returns the accuracy of m on the nodes idx, in eval mode.
func accuracy(m *Net, agg tensor.CustomOp, norm, feat, labels, idx *tensor.Tensor) float64 {
	m.Eval()
	defer m.Train()
	var out *tensor.Tensor
	tensor.NoGrad(func() { out = m.Forward(agg, norm, feat) })
	return tensor.Accuracy(tensor.IndexSelect(out, idx), tensor.IndexSelect(labels, idx))
}

func main() {
	ds, err := datasets.LoadPlanetoid("cora", "")
	check(err)
	g := ds.Graph.AddSelfLoop()
	feat, labels := g.NData("feat"), g.NData("label")
	norm := tensor.Reshape(tensor.Pow(g.InDegrees().Float(), -0.5), g.NumNodes(), 1)
	agg := aggregate(g)

	// The hand-written backward agrees with autograd's through UpdateAll.
	h := tensor.Rand(tensor.NewGenerator(1), -1, 1, g.NumNodes(), 4).SetRequiresGrad(true)
	w := tensor.Rand(tensor.NewGenerator(2), -1, 1, g.NumNodes(), 4)
	tensor.Sum(tensor.Mul(agg.Apply(h), w)).Backward()
	custom := h.Grad().Float32s()
	h.ZeroGrad()
	check(g.SetNData("h", h))
	g.UpdateAll(graph.CopyU("h", "m"), graph.Sum("m", "agg"))
	tensor.Sum(tensor.Mul(g.NData("agg"), w)).Backward()
	maxDiff := 0.0
	for i, v := range h.Grad().Float32s() {
		maxDiff = math.Max(maxDiff, math.Abs(float64(v-custom[i])))
	}
	fmt.Printf("aggregate backward vs autograd: max |difference| %.2g\n", maxDiff)

	model := newNet(ds.NumFeatures, 16, ds.NumClasses, 0)
	fmt.Println(model)
	adam := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	dir, err := os.MkdirTemp("", "custom_layer")
	check(err)
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "best.safetensors")
	var st checkpoint.State // st.Model is assigned: see the report on composite literals
	st.Model = model
	bestVal, bestEpoch := 0.0, 0
	for epoch := 0; epoch < 200; epoch++ {
		loss := nn.MaskedCrossEntropy(model.Forward(agg, norm, feat), labels, ds.TrainIdx)
		adam.ZeroGrad()
		loss.Backward()
		adam.Step()
		if val := accuracy(model, agg, norm, feat, labels, ds.ValIdx); val > bestVal {
			bestVal, bestEpoch = val, epoch
			check(checkpoint.Save(path, st))
		}
	}
	fmt.Printf("best validation accuracy: %.4f (epoch %d)\n", bestVal, bestEpoch)

	// A fresh model (other random weights), restored from the checkpoint.
	fresh := newNet(ds.NumFeatures, 16, ds.NumClasses, 42)
	var st2 checkpoint.State
	st2.Model = fresh
	check(checkpoint.Load(path, &st2))
	fmt.Printf("reloaded validation accuracy: %.4f\n", accuracy(fresh, agg, norm, feat, labels, ds.ValIdx))
	fmt.Printf("test accuracy: %.4f\n", accuracy(fresh, agg, norm, feat, labels, ds.TestIdx))
}
