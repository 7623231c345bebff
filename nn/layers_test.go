package nn

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// randomGraph returns a deterministic random directed graph with n nodes
// and about deg in-edges per node, plus self loops when loops is set.
func randomGraph(t testing.TB, n, deg int, loops bool, seed int64) *graph.Graph {
	t.Helper()
	gen := tensor.NewGenerator(seed)
	var src, dst []int64
	for v := 0; v < n; v++ {
		for k := 0; k < deg; k++ {
			src = append(src, int64(gen.Float64()*float64(n)))
			dst = append(dst, int64(v))
		}
	}
	g, err := graph.New(n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if loops {
		g = g.AddSelfLoop()
	}
	return g
}

// catchPanic runs f and returns the value it panicked with as an error.
func catchPanic(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	f()
	return nil
}

func TestLayerShapes(t *testing.T) {
	g := randomGraph(t, 50, 3, true, 1)
	blk := edgeGraph(t, 7, 3, []int64{3, 0, 4, 5, 1, 6, 2, 4, 0}, []int64{0, 0, 1, 1, 1, 2, 2, 2, 2})
	gen := tensor.NewGenerator(2)
	type layer interface {
		Forward(graph.MessageGraph, *tensor.Tensor) *tensor.Tensor
	}
	cases := []struct {
		name string
		l    layer
		in   int
		out  int
	}{
		{"GraphConv", NewGraphConv(GraphConvOptions{InFeats: 6, OutFeats: 4, Gen: gen}), 6, 4},
		{"GraphConv/noweight", NewGraphConv(GraphConvOptions{InFeats: 6, OutFeats: 6, NoWeight: true, Gen: gen}), 6, 6},
		{"SAGEConv/mean", NewSAGEConv(SAGEConvOptions{InFeats: 6, OutFeats: 4, Gen: gen}), 6, 4},
		{"SAGEConv/gcn", NewSAGEConv(SAGEConvOptions{InFeats: 6, OutFeats: 9, Aggregator: "gcn", Gen: gen}), 6, 9},
		{"SAGEConv/pool", NewSAGEConv(SAGEConvOptions{InFeats: 6, OutFeats: 4, Aggregator: "pool", Gen: gen}), 6, 4},
		{"GATConv/4x3 concat", NewGATConv(GATConvOptions{InFeats: 6, OutFeats: 3, NumHeads: 4, Gen: gen}), 6, 12},
		{"GATConv/4x3 mean", NewGATConv(GATConvOptions{InFeats: 6, OutFeats: 3, NumHeads: 4, Merge: "mean", Gen: gen}), 6, 3},
		{"GATConv/residual", NewGATConv(GATConvOptions{InFeats: 6, OutFeats: 3, NumHeads: 2, Residual: true, Gen: gen}), 6, 6},
	}
	for _, c := range cases {
		for _, mg := range []graph.MessageGraph{g, blk} {
			x := randT(3, -1, 1, mg.NumSrcNodes(), c.in)
			y := c.l.Forward(mg, x)
			if want := []int{mg.NumDstNodes(), c.out}; !sameShape(y.Shape(), want) {
				t.Errorf("%s on %d->%d nodes: shape %v, want %v", c.name, mg.NumSrcNodes(), mg.NumDstNodes(), y.Shape(), want)
			}
			for _, v := range y.Float32s() {
				if v != v || math.IsInf(float64(v), 0) {
					t.Fatalf("%s: non-finite output %v", c.name, v)
				}
			}
		}
	}
}

func TestParameterNames(t *testing.T) {
	names := func(m Module) string {
		var s []string
		for _, p := range m.NamedParameters() {
			s = append(s, fmt.Sprintf("%s%v", p.Name, p.Param.Shape()))
		}
		return strings.Join(s, " ")
	}
	cases := []struct {
		m    Module
		want string
	}{
		{NewLinear(3, 2, true, nil), "weight[3 2] bias[2]"},
		{NewGraphConv(GraphConvOptions{InFeats: 3, OutFeats: 2}), "weight[3 2] bias[2]"},
		{NewSAGEConv(SAGEConvOptions{InFeats: 3, OutFeats: 2}), "bias[2] fc_self.weight[3 2] fc_neigh.weight[3 2]"},
		{NewSAGEConv(SAGEConvOptions{InFeats: 3, OutFeats: 2, Aggregator: "gcn", NoBias: true}), "fc_neigh.weight[3 2]"},
		{NewSAGEConv(SAGEConvOptions{InFeats: 3, OutFeats: 2, Aggregator: "pool"}),
			"bias[2] fc_pool.weight[3 3] fc_pool.bias[3] fc_self.weight[3 2] fc_neigh.weight[3 2]"},
		{NewGATConv(GATConvOptions{InFeats: 3, OutFeats: 2, NumHeads: 4, Residual: true}),
			"attn_l[1 4 2] attn_r[1 4 2] bias[8] fc.weight[3 8] res_fc.weight[3 8]"},
		{NewGATConv(GATConvOptions{InFeats: 8, OutFeats: 2, NumHeads: 4, Residual: true}),
			"attn_l[1 4 2] attn_r[1 4 2] bias[8] fc.weight[8 8]"},
		{NewGCN(GCNOptions{InFeats: 5, OutFeats: 3}), "layers.0.weight[5 16] layers.0.bias[16] layers.1.weight[16 3] layers.1.bias[3]"},
	}
	for _, c := range cases {
		if got := names(c.m); got != c.want {
			t.Errorf("%T: parameters\n %s\nwant\n %s", c.m, got, c.want)
		}
	}
	m := NewGAT(GATOptions{InFeats: 10, OutFeats: 3})
	if got, want := len(m.Parameters()), 8; got != want {
		t.Errorf("GAT has %d parameters, want %d", got, want)
	}
	// 10*64 + 2*64 + 64 (layer 0) + 64*3 + 2*3 + 3 (layer 1)
	if got, want := m.NumParameters(), 10*64+2*64+64+64*3+2*3+3; got != want {
		t.Errorf("GAT has %d scalars, want %d", got, want)
	}
}

func TestZeroInDegree(t *testing.T) {
	// DGL's example graph: node 5 has no in-edge.
	g, err := graph.New(6, []int64{0, 1, 2, 3, 2, 5}, []int64{1, 2, 3, 4, 0, 3})
	if err != nil {
		t.Fatal(err)
	}
	x := randT(1, -1, 1, 6, 4)
	for _, l := range []interface {
		Forward(graph.MessageGraph, *tensor.Tensor) *tensor.Tensor
	}{
		NewGraphConv(GraphConvOptions{InFeats: 4, OutFeats: 2}),
		NewGATConv(GATConvOptions{InFeats: 4, OutFeats: 2, NumHeads: 2}),
	} {
		err := catchPanic(func() { l.Forward(g, x) })
		if !errors.Is(err, ErrZeroInDegree) {
			t.Fatalf("%T: got %v, want ErrZeroInDegree", l, err)
		}
		var ne *Error
		if !errors.As(err, &ne) || !strings.Contains(ne.Msg, "1 of 6 destination nodes") || !strings.Contains(ne.Msg, "node ids 5") {
			t.Errorf("%T: message %q should name the count and the node", l, err)
		}
	}
	if err := CheckZeroInDegree(g); !errors.Is(err, ErrZeroInDegree) {
		t.Errorf("CheckZeroInDegree: %v", err)
	}
	if err := CheckZeroInDegree(g.AddSelfLoop()); err != nil {
		t.Errorf("CheckZeroInDegree with self loops: %v", err)
	}
	// Allowed: the node gets the bias only (GraphConv) and no NaN.
	c := NewGraphConv(GraphConvOptions{InFeats: 4, OutFeats: 2, AllowZeroInDegree: true})
	tensor.NoGrad(func() { c.Bias.Float32s()[0] = 0.5 })
	y := c.Forward(g, x)
	if y.At(5, 0) != 0.5 || y.At(5, 1) != 0 {
		t.Errorf("zero in-degree node output %v %v, want the bias 0.5 0", y.At(5, 0), y.At(5, 1))
	}
	a := NewGATConv(GATConvOptions{InFeats: 4, OutFeats: 2, NumHeads: 2, AllowZeroInDegree: true})
	for _, v := range a.Forward(g, x).Float32s() {
		if v != v {
			t.Fatal("GATConv with a zero in-degree node gave NaN")
		}
	}
	// Many nodes: the message lists ten ids and an ellipsis.
	big, _ := graph.New(30, nil, nil)
	err = catchPanic(func() { NewGraphConv(GraphConvOptions{InFeats: 1, OutFeats: 1}).Forward(big, tensor.Zeros(30, 1)) })
	if err == nil || !strings.Contains(err.Error(), "30 of 30") || !strings.Contains(err.Error(), "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...") {
		t.Errorf("30 isolated nodes: %v", err)
	}
}

func TestOptionErrors(t *testing.T) {
	cases := []struct {
		f    func()
		want string
	}{
		{func() { NewGraphConv(GraphConvOptions{InFeats: 3, OutFeats: 2, Norm: "sym"}) }, `Norm must be "both", "right", "left" or "none", got "sym"`},
		{func() { NewGraphConv(GraphConvOptions{InFeats: 0, OutFeats: 2}) }, "InFeats must be positive"},
		{func() { NewGraphConv(GraphConvOptions{InFeats: 3, OutFeats: 2, NoWeight: true}) }, "without a weight"},
		{func() { NewSAGEConv(SAGEConvOptions{InFeats: 3, OutFeats: 2, Aggregator: "lstm"}) }, `Aggregator must be "mean", "gcn" or "pool", got "lstm"`},
		{func() { NewSAGEConv(SAGEConvOptions{InFeats: 3, OutFeats: 2, FeatDrop: 1}) }, "FeatDrop must be in [0, 1)"},
		{func() { NewGATConv(GATConvOptions{InFeats: 3, OutFeats: 2, Merge: "sum"}) }, `Merge must be "concat" or "mean"`},
		{func() { NewGATConv(GATConvOptions{InFeats: 3, OutFeats: 2, AttnDrop: -0.1}) }, "AttnDrop must be in [0, 1)"},
		{func() { NewGraphSAGE(SAGEOptions{InFeats: 3, OutFeats: 2, NumLayers: -1}) }, "NumLayers must be positive"},
		{func() { NewGCN(GCNOptions{InFeats: 3}) }, "OutFeats must be positive"},
	}
	for _, c := range cases {
		err := catchPanic(c.f)
		if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want ErrOption with %q", err, c.want)
		}
	}
}

func TestInputErrors(t *testing.T) {
	g := randomGraph(t, 10, 2, true, 1)
	c := NewSAGEConv(SAGEConvOptions{InFeats: 4, OutFeats: 2})
	for _, x := range []*tensor.Tensor{tensor.Zeros(10, 5), tensor.Zeros(9, 4), tensor.Zeros(10), tensor.New(tensor.Int64, 10, 4)} {
		err := catchPanic(func() { c.Forward(g, x) })
		if !errors.Is(err, ErrShape) {
			t.Errorf("features %v: got %v, want ErrShape", x.Shape(), err)
		}
	}
	m := NewGraphSAGE(SAGEOptions{InFeats: 4, OutFeats: 2, HiddenFeats: 3})
	err := catchPanic(func() { m.ForwardGraphs([]graph.MessageGraph{g}, tensor.Zeros(10, 4)) })
	if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "1 blocks for a model of 2 layers") {
		t.Errorf("one block for two layers: %v", err)
	}
}

// TestDropoutModes checks that dropout is active in training mode only and
// that the same seed gives the same weights and the same masks.
func TestDropoutModes(t *testing.T) {
	g := randomGraph(t, 40, 3, true, 4)
	x := randT(5, -1, 1, 40, 8)
	build := func() *GAT {
		return NewGAT(GATOptions{InFeats: 8, OutFeats: 3, HiddenFeats: 4, NumHeads: 2, FeatDrop: 0.5, AttnDrop: 0.5, Seed: 7})
	}
	m1, m2 := build(), build()
	if !m1.Training() || !m1.Layers[0].Training() {
		t.Fatal("modules must start in training mode")
	}
	a, b := m1.Forward(g, x), m2.Forward(g, x)
	closeTo(t, "same seed, training", a.Float32s(), b.Float32s(), 0)
	c := m1.Forward(g, x)
	same := true
	for i, v := range c.Float32s() {
		same = same && v == a.Float32s()[i]
	}
	if same {
		t.Error("two training passes drew the same dropout masks")
	}
	m1.Eval()
	if m1.Training() || m1.Layers[1].Training() {
		t.Fatal("Eval did not reach the layers")
	}
	e1, e2 := m1.Forward(g, x), m1.Forward(g, x)
	closeTo(t, "eval is deterministic", e1.Float32s(), e2.Float32s(), 0)
	m1.Train()
	if !m1.Layers[0].Training() {
		t.Fatal("Train did not reach the layers")
	}
	m3 := NewGAT(GATOptions{InFeats: 8, OutFeats: 3, HiddenFeats: 4, NumHeads: 2, Seed: 8})
	if m3.Layers[0].Fc.Weight.Float32s()[0] == m1.Layers[0].Fc.Weight.Float32s()[0] {
		t.Error("different seeds gave the same initial weight")
	}
}

// TestInitialisation checks the initial weight distributions against the
// bounds of their initialisers.
func TestInitialisation(t *testing.T) {
	gen := tensor.NewGenerator(3)
	check := func(name string, w *tensor.Tensor, bound, std float64) {
		var s2 float64
		maxAbs := 0.0
		for _, v := range w.Float32s() {
			s2 += float64(v) * float64(v)
			maxAbs = math.Max(maxAbs, math.Abs(float64(v)))
		}
		got := math.Sqrt(s2 / float64(w.Numel()))
		if bound > 0 && maxAbs > bound {
			t.Errorf("%s: |w| up to %g beyond the bound %g", name, maxAbs, bound)
		}
		if math.Abs(got-std)/std > 0.1 {
			t.Errorf("%s: std %g, want about %g", name, got, std)
		}
	}
	gc := NewGraphConv(GraphConvOptions{InFeats: 200, OutFeats: 100, Gen: gen})
	a := math.Sqrt(6.0 / 300)
	check("GraphConv weight", gc.Weight, a, a/math.Sqrt(3))
	sc := NewSAGEConv(SAGEConvOptions{InFeats: 200, OutFeats: 100, Gen: gen})
	check("SAGEConv fc_self", sc.FcSelf.Weight, math.Sqrt2*a, math.Sqrt2*a/math.Sqrt(3))
	ga := NewGATConv(GATConvOptions{InFeats: 200, OutFeats: 25, NumHeads: 4, Gen: gen})
	check("GATConv fc", ga.Fc.Weight, 0, math.Sqrt2*math.Sqrt(2.0/300))
	l := NewLinear(400, 300, true, gen)
	check("Linear weight", l.Weight, 1/math.Sqrt(400), 1/math.Sqrt(400)/math.Sqrt(3))
	for _, v := range gc.Bias.Float32s() {
		if v != 0 {
			t.Fatal("GraphConv bias must start at 0")
		}
	}
}

// TestBlocksMatchFullGraph runs each model on full-neighbour blocks of some
// seed nodes and on the whole graph: in eval mode the seeds' outputs agree.
func TestBlocksMatchFullGraph(t *testing.T) {
	g := randomGraph(t, 60, 3, true, 9)
	x := randT(10, -1, 1, 60, 7)
	seeds := []int64{5, 17, 3, 42, 59}
	blocks, err := sampling.MultiLayerFullNeighborSampler{NumLayers: 2}.SampleBlocks(g, seeds, 0)
	if err != nil {
		t.Fatal(err)
	}
	input := tensor.IndexSelect(x, blocks[0].SrcNodes())
	for _, m := range []interface {
		GraphModel
		BlockModel
	}{
		NewGraphSAGE(SAGEOptions{InFeats: 7, OutFeats: 3, HiddenFeats: 5, Dropout: 0.5, Seed: 1}),
		NewGraphSAGE(SAGEOptions{InFeats: 7, OutFeats: 3, HiddenFeats: 5, Aggregator: "gcn", Seed: 1}),
		NewGraphSAGE(SAGEOptions{InFeats: 7, OutFeats: 3, HiddenFeats: 5, Aggregator: "pool", Seed: 1}),
		NewGCN(GCNOptions{InFeats: 7, OutFeats: 3, Norm: "right", Dropout: 0.5, Seed: 1}),
		NewGAT(GATOptions{InFeats: 7, OutFeats: 3, HiddenFeats: 2, NumHeads: 3, FeatDrop: 0.6, AttnDrop: 0.6, Residual: true, Seed: 1}),
	} {
		m.Eval()
		full := tensor.IndexSelect(m.Forward(g, x), tensor.FromInt64(seeds))
		part := m.ForwardBlocks(blocks, input)
		closeTo(t, fmt.Sprintf("%T blocks vs full graph", m), part.Float32s(), full.Float32s(), 1e-5)
	}
}

func TestStateDict(t *testing.T) {
	a := NewGraphSAGE(SAGEOptions{InFeats: 4, OutFeats: 2, HiddenFeats: 3, Seed: 1})
	b := NewGraphSAGE(SAGEOptions{InFeats: 4, OutFeats: 2, HiddenFeats: 3, Seed: 2})
	sd := a.StateDict()
	if len(sd) != 6 {
		t.Fatalf("state dict has %d entries: %v", len(sd), sd)
	}
	if err := b.LoadStateDict(sd); err != nil {
		t.Fatal(err)
	}
	closeTo(t, "loaded weight", b.Layers[1].FcNeigh.Weight.Float32s(), a.Layers[1].FcNeigh.Weight.Float32s(), 0)
	if b.Layers[0].Bias == a.Layers[0].Bias {
		t.Error("LoadStateDict must copy values, not share tensors")
	}
	bad := map[string]*tensor.Tensor{}
	for k, v := range sd {
		bad[k] = v
	}
	delete(bad, "layers.0.bias")
	bad["layers.1.fc_self.weight"] = tensor.Zeros(2, 3)
	bad["extra"] = tensor.Zeros(1)
	err := b.LoadStateDict(bad)
	if !errors.Is(err, ErrState) {
		t.Fatalf("got %v, want ErrState", err)
	}
	for _, s := range []string{"missing keys layers.0.bias", "unexpected keys extra", "layers.1.fc_self.weight: got float32[2 3], want float32[3 2]"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

func TestMaskedLossAndAccuracy(t *testing.T) {
	logits := tensor.FromFloat32([]float32{2, 0, 0, 1, 0, 3, 1, 0}, 4, 2).SetRequiresGrad(true)
	labels := tensor.FromInt64([]int64{0, 1, 1, 1})
	mask := tensor.FromBool([]bool{true, false, true, true})
	ids := tensor.FromInt64([]int64{0, 2, 3})
	l1 := MaskedCrossEntropy(logits, labels, mask)
	l2 := MaskedCrossEntropy(logits, labels, ids)
	// rows 0, 2, 3: -log softmax = log(1+e^-2), log(1+e^-3), log(1+e^1)
	want := (math.Log1p(math.Exp(-2)) + math.Log1p(math.Exp(-3)) + math.Log1p(math.E)) / 3
	if math.Abs(l1.Item()-want) > 1e-6 || l1.Item() != l2.Item() {
		t.Errorf("MaskedCrossEntropy = %v, %v, want %v", l1.Item(), l2.Item(), want)
	}
	l1.Backward()
	if g := logits.Grad().Float32s(); g[2] != 0 || g[3] != 0 {
		t.Errorf("unselected row got gradient %v", g[2:4])
	}
	if acc := MaskedAccuracy(logits, labels, mask); math.Abs(acc-2.0/3) > 1e-12 {
		t.Errorf("MaskedAccuracy = %v, want 2/3", acc)
	}
	if err := catchPanic(func() { MaskedAccuracy(logits, labels, tensor.FromBool([]bool{true})) }); !errors.Is(err, ErrShape) {
		t.Errorf("short mask: %v", err)
	}
}

func TestFlatVectors(t *testing.T) {
	m := NewGCN(GCNOptions{InFeats: 3, OutFeats: 2, HiddenFeats: 4})
	ps := m.Parameters()
	v := ParametersToVector(ps, nil)
	if len(v) != m.NumParameters() || len(v) != 3*4+4+4*2+2 {
		t.Fatalf("vector of %d values", len(v))
	}
	if v[0] != ps[0].Float32s()[0] || v[12] != ps[1].Float32s()[0] {
		t.Error("parameters are not laid out in order")
	}
	for i := range v {
		v[i] = float32(i)
	}
	VectorToParameters(v, ps)
	if ps[1].Float32s()[0] != 12 || ps[3].Float32s()[1] != float32(len(v)-1) {
		t.Error("VectorToParameters did not copy in order")
	}
	gv := GradientsToVector(ps, make([]float32, 0, 100))
	for _, x := range gv {
		if x != 0 {
			t.Fatal("missing gradients must read as zeros")
		}
	}
	VectorToGradients(v, ps)
	if ps[2].Grad().Float32s()[0] != 16 {
		t.Error("VectorToGradients did not set the gradients")
	}
	n := ClipGradNorm(ps, 1)
	var s float64
	for i := range v {
		s += float64(i) * float64(i)
	}
	if math.Abs(n-math.Sqrt(s)) > 1e-3*n {
		t.Errorf("ClipGradNorm returned %v, want %v", n, math.Sqrt(s))
	}
	if after := ClipGradNorm(ps, 1); math.Abs(after-1) > 1e-4 {
		t.Errorf("norm after clipping %v, want 1", after)
	}
	if err := catchPanic(func() { VectorToParameters(v[:3], ps) }); !errors.Is(err, ErrShape) {
		t.Errorf("short vector: %v", err)
	}
}
