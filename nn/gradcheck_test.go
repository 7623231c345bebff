package nn

import (
	"math"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// gradCheck compares the analytic gradients of sum(w * f()) with respect to
// each tensor in wrt with central finite differences in float64
// accumulation. f must be deterministic (no dropout).
func gradCheck(t *testing.T, name string, f func() *tensor.Tensor, wrt []NamedParameter) {
	t.Helper()
	for _, p := range wrt {
		p.Param.ZeroGrad()
	}
	out := f()
	w := randT(99, -1, 1, out.Shape()...)
	tensor.Sum(tensor.Mul(out, w)).Backward()
	eval := func() float64 {
		var s float64
		tensor.NoGrad(func() {
			for i, v := range f().Float32s() {
				s += float64(v) * float64(w.Float32s()[i])
			}
		})
		return s
	}
	const eps = 1e-2
	for _, p := range wrt {
		if p.Param.Grad() == nil {
			t.Fatalf("%s: %s got no gradient", name, p.Name)
		}
		d := p.Param.Float32s()
		bad := 0
		for i := range d {
			old := d[i]
			d[i] = old + eps
			fp := eval()
			d[i] = old - eps
			fm := eval()
			d[i] = old
			num := (fp - fm) / (2 * eps)
			got := float64(p.Param.Grad().Float32s()[i])
			if math.Abs(num-got) > 2e-2*math.Max(1, math.Abs(num)) {
				if bad++; bad <= 3 {
					t.Errorf("%s: d/d %s[%d]: analytic %.5f, numeric %.5f", name, p.Name, i, got, num)
				}
			}
		}
	}
}

// TestGradCheckLayers checks every layer's gradients (input and parameters)
// by finite differences, on a full graph with self loops and on a block.
func TestGradCheckLayers(t *testing.T) {
	g := randomGraph(t, 8, 2, true, 3)
	blk := edgeGraph(t, 7, 3, []int64{3, 0, 4, 5, 1, 6, 2, 4, 0}, []int64{0, 0, 1, 1, 1, 2, 2, 2, 2})
	gen := tensor.NewGenerator(4)
	layers := []struct {
		name string
		m    interface {
			Module
			Forward(graph.MessageGraph, *tensor.Tensor) *tensor.Tensor
		}
		in int
	}{
		{"GraphConv/both", NewGraphConv(GraphConvOptions{InFeats: 3, OutFeats: 2, Activation: ELU{}.Forward, Gen: gen}), 3},
		{"GraphConv/left", NewGraphConv(GraphConvOptions{InFeats: 2, OutFeats: 3, Norm: "left", Gen: gen}), 2},
		{"SAGEConv/mean", NewSAGEConv(SAGEConvOptions{InFeats: 3, OutFeats: 2, Gen: gen}), 3},
		{"SAGEConv/gcn", NewSAGEConv(SAGEConvOptions{InFeats: 2, OutFeats: 3, Aggregator: "gcn", Gen: gen}), 2},
		{"SAGEConv/pool", NewSAGEConv(SAGEConvOptions{InFeats: 3, OutFeats: 2, Aggregator: "pool", Gen: gen}), 3},
		{"GATConv/concat", NewGATConv(GATConvOptions{InFeats: 3, OutFeats: 2, NumHeads: 2, Residual: true, Activation: ELU{}.Forward, Gen: gen}), 3},
		{"GATConv/mean", NewGATConv(GATConvOptions{InFeats: 3, OutFeats: 2, NumHeads: 3, Merge: "mean", Gen: gen}), 3},
	}
	for _, l := range layers {
		for gi, mg := range []graph.MessageGraph{g, blk} {
			x := randT(int64(5+gi), -1, 1, mg.NumSrcNodes(), l.in).SetRequiresGrad(true)
			wrt := append([]NamedParameter{{"x", x}}, l.m.NamedParameters()...)
			gradCheck(t, l.name, func() *tensor.Tensor { return l.m.Forward(mg, x) }, wrt)
		}
	}
}

// TestGradCheckModels checks the models' gradients end to end through the
// masked cross-entropy, in eval mode (no dropout).
func TestGradCheckModels(t *testing.T) {
	g := randomGraph(t, 12, 2, true, 6)
	x := randT(7, -1, 1, 12, 4)
	labels := tensor.FromInt64([]int64{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2})
	train := tensor.FromInt64([]int64{0, 3, 4, 8, 11})
	for _, m := range []GraphModel{
		NewGCN(GCNOptions{InFeats: 4, OutFeats: 3, HiddenFeats: 5, Seed: 1}),
		NewGraphSAGE(SAGEOptions{InFeats: 4, OutFeats: 3, HiddenFeats: 5, Seed: 1}),
		NewGAT(GATOptions{InFeats: 4, OutFeats: 3, HiddenFeats: 2, NumHeads: 2, NumOutHeads: 2, Seed: 1}),
	} {
		m.Eval()
		loss := func() *tensor.Tensor {
			return tensor.Reshape(MaskedCrossEntropy(m.Forward(g, x), labels, train), 1)
		}
		gradCheck(t, "model", loss, m.NamedParameters())
	}
}
