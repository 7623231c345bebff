package nn

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// relFixture is a small multigraph with 3 relations, self loops, a node
// without in-edges, and random norms.
func relFixture(t *testing.T) (graph.MessageGraph, []int64, []int64, *tensor.Tensor, *tensor.Tensor) {
	src := []int64{0, 1, 2, 3, 4, 0, 2, 2, 5, 1, 3}
	dst := []int64{1, 1, 0, 0, 3, 3, 3, 2, 2, 5, 5}
	et := []int64{0, 2, 1, 1, 0, 2, 2, 1, 0, 0, 1}
	g, err := graph.New(6, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g, src, dst, tensor.FromInt64(et), randT(5, 0.2, 1, len(src), 1)
}

// relRef is the R-GCN formula as a plain loop over edges: sum_e norm_e x_src W_r.
func relRef(c *RelGraphConv, src, dst, et []int64, norm []float32, x []float32, n int) []float64 {
	in, out := c.InFeats, c.OutFeats
	w := c.relWeights().Float32s() // (R*in, out)
	h := make([]float64, n*out)
	for e := range src {
		r := et[e]
		for o := 0; o < out; o++ {
			var s float64
			for i := 0; i < in; i++ {
				s += float64(x[int(src[e])*in+i]) * float64(w[(int(r)*in+i)*out+o])
			}
			h[int(dst[e])*out+o] += float64(norm[e]) * s
		}
	}
	return h
}

func TestRelGraphConvReference(t *testing.T) {
	g, src, dst, et, norm := relFixture(t)
	for _, reg := range []string{"", "basis", "bdd"} {
		for _, sizes := range [][2]int{{4, 6}, {6, 2}} { // aggregate first, transform first
			c := NewRelGraphConv(RelGraphConvOptions{InFeats: sizes[0], OutFeats: sizes[1], NumRels: 3, Regularizer: reg,
				NumBases: 2, NoBias: true, NoSelfLoop: true, Gen: tensor.NewGenerator(3)})
			x := randT(7, -1, 1, 6, sizes[0])
			got := c.Forward(g, x, et, norm).Float32s()
			want := relRef(c, src, dst, et.Int64s(), norm.Float32s(), x.Float32s(), 6)
			for i := range want {
				if math.Abs(float64(got[i])-want[i]) > 1e-4 {
					t.Fatalf("%q %v: element %d: got %g, want %g", reg, sizes, i, got[i], want[i])
				}
			}
		}
	}
	// bdd weights are block diagonal.
	c := NewRelGraphConv(RelGraphConvOptions{InFeats: 4, OutFeats: 4, NumRels: 1, Regularizer: "bdd", NumBases: 2})
	w := c.relWeights().Float32s()
	if w[0*4+2] != 0 || w[3*4+0] != 0 || w[0] == 0 {
		t.Fatalf("bdd weight not block diagonal: %v", w)
	}
}

func TestGradCheckRelGraphConv(t *testing.T) {
	g, _, _, et, norm := relFixture(t)
	for _, reg := range []string{"", "basis", "bdd"} {
		for _, sizes := range [][2]int{{2, 4}, {4, 2}, {2, 8}} {
			// Layer norm only where it is smooth enough for central
			// differences with step 1e-2 (8 features a row).
			c := NewRelGraphConv(RelGraphConvOptions{InFeats: sizes[0], OutFeats: sizes[1], NumRels: 3, Regularizer: reg,
				NumBases: 2, LayerNorm: sizes[1] == 8, Activation: tensor.Tanh, Gen: tensor.NewGenerator(4)})
			x := randT(8, -1, 1, 6, sizes[0]).SetRequiresGrad(true)
			wrt := append(c.NamedParameters(), NamedParameter{"x", x})
			gradCheck(t, "RelGraphConv "+reg, func() *tensor.Tensor { return c.Forward(g, x, et, norm) }, wrt)
		}
	}
	e := NewEmbedding(5, 3, tensor.NewGenerator(1))
	idx := tensor.FromInt64([]int64{4, 0, 4, 2})
	gradCheck(t, "Embedding", func() *tensor.Tensor { return e.Forward(idx) }, e.NamedParameters())
}

func TestRelGraphConvErrors(t *testing.T) {
	g, _, _, et, norm := relFixture(t)
	c := NewRelGraphConv(RelGraphConvOptions{InFeats: 2, OutFeats: 2, NumRels: 3})
	x := randT(1, -1, 1, 6, 2)
	for name, f := range map[string]func(){
		"etype out of range": func() { c.Forward(g, x, tensor.FromInt64(make([]int64, 10, 11)[:0]), norm) },
		"wrong feature size": func() { c.Forward(g, randT(1, -1, 1, 6, 3), et, norm) },
		"wrong norm":         func() { c.Forward(g, x, et, randT(1, 0, 1, 3, 1)) },
		"bad relation id":    func() { c.Forward(g, x, tensor.FromInt64([]int64{0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0}), norm) },
		"bdd sizes": func() {
			NewRelGraphConv(RelGraphConvOptions{InFeats: 3, OutFeats: 2, NumRels: 1, Regularizer: "bdd", NumBases: 2})
		},
		"regularizer": func() {
			NewRelGraphConv(RelGraphConvOptions{InFeats: 3, OutFeats: 2, NumRels: 1, Regularizer: "lowrank"})
		},
	} {
		err := tensor.Catch(f)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an nn error", name, err)
		}
	}
}

// TestRelGraphConvFeatureless: the featureless input (x nil: one-hot node
// ids, gathered from the weights, never multiplied) equals Forward on the
// identity matrix for every regularizer, self loop and bias included, and
// its gradients check against central differences.
func TestRelGraphConvFeatureless(t *testing.T) {
	g, _, _, et, norm := relFixture(t)
	eye := make([]float32, 36)
	for i := 0; i < 6; i++ {
		eye[i*6+i] = 1
	}
	x := tensor.FromFloat32(eye, 6, 6)
	for _, reg := range []string{"", "basis", "bdd"} {
		for _, nm := range []*tensor.Tensor{norm, nil} {
			c := NewRelGraphConv(RelGraphConvOptions{InFeats: 6, OutFeats: 4, NumRels: 3, Regularizer: reg,
				NumBases: 2, Gen: tensor.NewGenerator(5)})
			c.HBias.CopyFrom(tensor.Full(0.25, 4))
			got := c.Forward(g, nil, et, nm).Float32s()
			want := c.Forward(g, x, et, nm).Float32s()
			for i := range want {
				if math.Abs(float64(got[i]-want[i])) > 1e-5 {
					t.Fatalf("%q norm %v: element %d: featureless %g, identity input %g", reg, nm != nil, i, got[i], want[i])
				}
			}
		}
		c := NewRelGraphConv(RelGraphConvOptions{InFeats: 6, OutFeats: 4, NumRels: 3, Regularizer: reg,
			NumBases: 2, Activation: tensor.Tanh, Gen: tensor.NewGenerator(6)})
		gradCheck(t, "RelGraphConv featureless "+reg, func() *tensor.Tensor { return c.Forward(g, nil, et, norm) }, c.NamedParameters())
	}
}

// TestRGCNNoBias: RGCNOptions.NoBias leaves both layers without h_bias
// (the R-GCN paper's layers), and the default keeps it (DGL's).
func TestRGCNNoBias(t *testing.T) {
	for _, noBias := range []bool{false, true} {
		m := NewRGCN(RGCNOptions{NumNodes: 5, HiddenFeats: 4, OutFeats: 2, NumRels: 3, Featureless: true, NoBias: noBias, Seed: 1})
		var names []string
		for _, p := range m.NamedParameters() {
			names = append(names, p.Name)
		}
		want := []string{"conv1.weight", "conv1.w_comp", "conv2.weight", "conv2.w_comp"}
		if !noBias {
			want = []string{"conv1.weight", "conv1.w_comp", "conv1.h_bias", "conv2.weight", "conv2.w_comp", "conv2.h_bias"}
		}
		if !slices.Equal(names, want) {
			t.Errorf("NoBias %v: parameters %v, want %v", noBias, names, want)
		}
	}
}
