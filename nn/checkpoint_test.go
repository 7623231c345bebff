package nn

import (
	"math"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// maxRelDiff returns max |a-b| / max(1, |b|) over two same-shaped tensors,
// +Inf when exactly one is nil or the sizes differ.
func maxRelDiff(a, b *tensor.Tensor) float64 {
	if a == nil || b == nil {
		if a == b {
			return 0
		}
		return math.Inf(1)
	}
	x, y := a.Float32s(), b.Float32s()
	if len(x) != len(y) {
		return math.Inf(1)
	}
	var m float64
	for i := range x {
		m = max(m, math.Abs(float64(x[i]-y[i]))/math.Max(1, math.Abs(float64(y[i]))))
	}
	return m
}

// ckptTol is the float32 tolerance of gradient comparisons. The
// recomputation runs the same kernels on the same values, so the
// gradients agree bit for bit on the CPU; the tolerance allows for a
// BLAS or device whose summation order varies between calls.
const ckptTol = 1e-5

// compareGrads fails unless the parameters of a and b have equal
// gradients and returns the largest difference.
func compareGrads(t *testing.T, what string, a, b Module) float64 {
	t.Helper()
	pa, pb := a.NamedParameters(), b.NamedParameters()
	var worst float64
	for i := range pa {
		if pa[i].Param.Grad() == nil {
			t.Fatalf("%s: %s has no gradient", what, pa[i].Name)
		}
		d := maxRelDiff(pa[i].Param.Grad(), pb[i].Param.Grad())
		worst = max(worst, d)
		if d > ckptTol {
			t.Errorf("%s: gradient of %s differs by %g", what, pa[i].Name, d)
		}
	}
	return worst
}

// TestCheckpointGraphSAGECora: GraphSAGE (3 layers, dropout 0.5 on the
// input and between layers) on Cora's full graph has the same gradients
// with and without checkpointing, over several Adam steps, and ends with
// the same parameters.
func TestCheckpointGraphSAGECora(t *testing.T) {
	d, g := planetoid(t, "cora")
	feat, labels := d.Graph.NData("feat"), d.Graph.NData("label")
	build := func(ckpt bool) (*GraphSAGE, optim.Optimizer) {
		m := NewGraphSAGE(SAGEOptions{InFeats: d.NumFeatures, HiddenFeats: 32, OutFeats: d.NumClasses, NumLayers: 3,
			Dropout: 0.5, InputDropout: 0.5, Seed: 7, Checkpoint: ckpt})
		return m, optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
	}
	plain, popt := build(false)
	ckpt, copt := build(true)
	var recomputed atomic.Int64 // layers recomputed by the checkpointed model
	defer tensor.SetOpHook(tensor.SetOpHook(func(op string) func() {
		if op == "Checkpoint.recompute" {
			recomputed.Add(1)
		}
		return func() {}
	}))
	var worst float64
	for step := 0; step < 4; step++ {
		for i, r := range []struct {
			m   *GraphSAGE
			opt optim.Optimizer
		}{{plain, popt}, {ckpt, copt}} {
			r.opt.ZeroGrad()
			recomputed.Store(0)
			MaskedCrossEntropy(r.m.Forward(g, feat), labels, d.TrainIdx).Backward()
			if want := int64(2 * i); recomputed.Load() != want {
				t.Fatalf("%d layers recomputed, want %d", recomputed.Load(), want)
			}
		}
		worst = max(worst, compareGrads(t, "GraphSAGE full graph", ckpt, plain))
		popt.Step()
		copt.Step()
	}
	pp, cp := plain.NamedParameters(), ckpt.NamedParameters()
	var pworst float64
	for i := range pp {
		pworst = max(pworst, maxRelDiff(cp[i].Param, pp[i].Param))
	}
	if pworst > ckptTol {
		t.Errorf("parameters after 4 Adam steps differ by %g", pworst)
	}
	t.Logf("GraphSAGE on cora, 4 steps: max gradient difference %g, max parameter difference %g", worst, pworst)
}

// TestCheckpointGraphSAGEBlocks: the same on blocks sampled with fanouts
// [10, 10, 10].
func TestCheckpointGraphSAGEBlocks(t *testing.T) {
	d, err := datasets.LoadPlanetoid("cora", sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	s := sampling.NeighborSampler{Fanouts: []int{10, 10, 10}}
	blocks, err := s.SampleBlocks(d.Graph, d.TrainIdx.Int64s()[:64], 3)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.IndexSelect(d.Graph.NData("feat"), blocks[0].SrcNodes())
	y := tensor.IndexSelect(d.Graph.NData("label"), blocks[2].DstNodes())
	var models [2]*GraphSAGE
	for i, ckpt := range []bool{false, true} {
		m := NewGraphSAGE(SAGEOptions{InFeats: d.NumFeatures, HiddenFeats: 64, OutFeats: d.NumClasses, NumLayers: 3,
			Dropout: 0.5, InputDropout: 0.5, Seed: 11, Checkpoint: ckpt})
		tensor.CrossEntropy(m.ForwardBlocks(blocks, x), y).Backward()
		models[i] = m
	}
	t.Logf("GraphSAGE on sampled cora blocks: max gradient difference %g", compareGrads(t, "GraphSAGE blocks", models[1], models[0]))
}

// TestCheckpointGCNGATWrapper: GCN and GAT with the Checkpoint option, and
// a SAGEConv wrapped by Checkpoint, have the plain gradients on Cora.
func TestCheckpointGCNGATWrapper(t *testing.T) {
	d, g := planetoid(t, "cora")
	feat, labels := d.Graph.NData("feat"), d.Graph.NData("label")
	loss := func(m GraphModel) {
		MaskedCrossEntropy(m.Forward(g, feat), labels, d.TrainIdx).Backward()
	}
	gcn := func(ckpt bool) GraphModel {
		return NewGCN(GCNOptions{InFeats: d.NumFeatures, OutFeats: d.NumClasses, NumLayers: 3, Dropout: 0.5, InputDropout: 0.5, Seed: 3, Checkpoint: ckpt})
	}
	gat := func(ckpt bool) GraphModel {
		return NewGAT(GATOptions{InFeats: d.NumFeatures, OutFeats: d.NumClasses, FeatDrop: 0.6, AttnDrop: 0.6, Seed: 3, Checkpoint: ckpt})
	}
	conv := func(ckpt bool) GraphModel {
		c := NewSAGEConv(SAGEConvOptions{InFeats: d.NumFeatures, OutFeats: d.NumClasses, FeatDrop: 0.5, Gen: tensor.NewGenerator(5)})
		if ckpt {
			return Checkpoint(c)
		}
		return c
	}
	for _, c := range []struct {
		name  string
		build func(bool) GraphModel
	}{{"GCN", gcn}, {"GAT", gat}, {"Checkpoint(SAGEConv)", conv}} {
		plain, ckpt := c.build(false), c.build(true)
		loss(plain)
		loss(ckpt)
		t.Logf("%s: max gradient difference %g", c.name, compareGrads(t, c.name, ckpt, plain))
	}
	w := Checkpoint(NewSAGEConv(SAGEConvOptions{InFeats: 4, OutFeats: 2}))
	if np := w.NamedParameters(); len(np) != 3 || np[0].Name != "bias" || np[1].Name != "fc_self.weight" {
		t.Errorf("wrapper parameters: %v", w.NamedParameters())
	}
	w.Eval()
	if w.Training() || w.Module.Training() {
		t.Errorf("Eval did not reach the wrapped module")
	}
}

// TestCheckpointEvalNoGrad: evaluation under NoGrad runs the layers
// plainly and gives the same logits.
func TestCheckpointEvalNoGrad(t *testing.T) {
	src, dst := []int64{0, 1, 2, 3, 0}, []int64{1, 2, 3, 0, 2}
	g := edgeGraph(t, 4, 4, src, dst)
	x := randT(1, -1, 1, 4, 5)
	var out [2]*tensor.Tensor
	for i, ckpt := range []bool{false, true} {
		m := NewGraphSAGE(SAGEOptions{InFeats: 5, HiddenFeats: 8, OutFeats: 3, Dropout: 0.5, Seed: 2, Checkpoint: ckpt})
		m.Eval()
		tensor.NoGrad(func() { out[i] = m.Forward(g, x) })
	}
	if d := maxRelDiff(out[1], out[0]); d != 0 || out[1].RequiresGrad() {
		t.Errorf("eval logits differ by %g (requires grad %v)", d, out[1].RequiresGrad())
	}
	var _ graph.MessageGraph = g
}

// TestCheckpointInterpreted calls tensor.Checkpoint with an interpreted
// closure (dropout inside, a captured weight) and wraps a layer with
// nn.Checkpoint from the yaegi interpreter, as a session user would, and
// compares the gradients with the plain run.
func TestCheckpointInterpreted(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(interp.Exports{
		"github.com/gnnrepl/gnnrepl/graph/graph": {
			"New": reflect.ValueOf(graph.New),
		},
		"github.com/gnnrepl/gnnrepl/tensor/tensor": {
			"Tensor":       reflect.ValueOf((*tensor.Tensor)(nil)),
			"Checkpoint":   reflect.ValueOf(tensor.Checkpoint),
			"Rand":         reflect.ValueOf(tensor.Rand),
			"MatMul":       reflect.ValueOf(tensor.MatMul),
			"Tanh":         reflect.ValueOf(tensor.Tanh),
			"Sum":          reflect.ValueOf(tensor.Sum),
			"Dropout":      reflect.ValueOf(tensor.Dropout),
			"NewGenerator": reflect.ValueOf(tensor.NewGenerator),
		},
		"github.com/gnnrepl/gnnrepl/nn/nn": {
			"Checkpoint":      reflect.ValueOf(Checkpoint),
			"SAGEConvOptions": reflect.ValueOf((*SAGEConvOptions)(nil)),
			"NewSAGEConv":     reflect.ValueOf(NewSAGEConv),
		},
	}); err != nil {
		t.Fatal(err)
	}
	src := `
import (
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func grads(ckpt bool) []float32 {
	gen := tensor.NewGenerator(1)
	w := tensor.Rand(gen, -1, 1, 4, 3).SetRequiresGrad(true)
	x := tensor.Rand(gen, -1, 1, 5, 4).SetRequiresGrad(true)
	f := func(in []*tensor.Tensor) []*tensor.Tensor {
		return []*tensor.Tensor{tensor.Dropout(tensor.Tanh(tensor.MatMul(in[0], w)), 0.5, true, gen)}
	}
	var h *tensor.Tensor
	if ckpt {
		h = tensor.Checkpoint(f, x)[0]
	} else {
		h = f([]*tensor.Tensor{x})[0]
	}
	g, _ := graph.New(5, []int64{0, 1, 2, 3, 4}, []int64{1, 2, 3, 4, 0})
	conv := nn.NewSAGEConv(nn.SAGEConvOptions{InFeats: 3, OutFeats: 2, FeatDrop: 0.5, Gen: tensor.NewGenerator(2)})
	var y *tensor.Tensor
	if ckpt {
		y = nn.Checkpoint(conv).Forward(g, h)
	} else {
		y = conv.Forward(g, h)
	}
	tensor.Sum(y).Backward()
	out := append([]float32{}, x.Grad().Float32s()...)
	out = append(out, w.Grad().Float32s()...)
	return append(out, conv.FcNeigh.Weight.Grad().Float32s()...)
}
`
	if _, err := i.Eval(src); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval("grads")
	if err != nil {
		t.Fatal(err)
	}
	grads, ok := v.Interface().(func(bool) []float32)
	if !ok {
		t.Fatalf("grads is %T", v.Interface())
	}
	got := [][]float32{grads(false), grads(true)}
	if len(got[0]) != 5*4+4*3+3*2 {
		t.Fatalf("%d gradient values", len(got[0]))
	}
	for k := range got[0] {
		if got[0][k] != got[1][k] {
			t.Fatalf("gradient %d: plain %v, checkpointed %v", k, got[0][k], got[1][k])
		}
	}
}
