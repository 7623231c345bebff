package nn

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// The fixtures in testdata/reference.json come from testdata/reference.py
// (torch 1.13): DGL's GraphConv, SAGEConv and GATConv formulas written out
// in plain torch, with fixed inputs and weights, and the gradients of
// sum(out * R) for a fixed random R.

type refTensor struct {
	Shape []int     `json:"shape"`
	Data  []float32 `json:"data"`
}

func (r refTensor) tensor() *tensor.Tensor {
	return tensor.FromFloat32(append([]float32(nil), r.Data...), r.Shape...)
}

type refGraph struct {
	NumSrc int     `json:"num_src"`
	NumDst int     `json:"num_dst"`
	Src    []int64 `json:"src"`
	Dst    []int64 `json:"dst"`
}

type refCase struct {
	Name       string               `json:"name"`
	Layer      string               `json:"layer"`
	Graph      string               `json:"graph"`
	Opts       map[string]any       `json:"opts"`
	X          refTensor            `json:"x"`
	Params     map[string]refTensor `json:"params"`
	Out        refTensor            `json:"out"`
	R          refTensor            `json:"R"`
	GradX      []float32            `json:"grad_x"`
	GradParams map[string][]float32 `json:"grad_params"`
}

func loadReference(t *testing.T) (map[string]refGraph, []refCase) {
	t.Helper()
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Graphs map[string]refGraph `json:"graphs"`
		Cases  []refCase           `json:"cases"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref.Graphs, ref.Cases
}

func optInt(o map[string]any, k string) int {
	if v, ok := o[k]; ok {
		return int(v.(float64))
	}
	return 0
}

func optStr(o map[string]any, k string) string {
	if v, ok := o[k]; ok {
		return v.(string)
	}
	return ""
}

func optBool(o map[string]any, k string) bool {
	v, ok := o[k]
	return ok && v.(bool)
}

// refLayer builds the layer a reference case describes.
func refLayer(t *testing.T, c refCase) interface {
	Module
	StateDict() map[string]*tensor.Tensor
	LoadStateDict(map[string]*tensor.Tensor) error
} {
	o := c.Opts
	act := optStr(o, "Activation")
	gen := tensor.NewGenerator(1)
	switch c.Layer {
	case "GraphConv":
		var a func(*tensor.Tensor) *tensor.Tensor
		if act == "relu" {
			a = tensor.ReLU
		}
		return NewGraphConv(GraphConvOptions{InFeats: optInt(o, "InFeats"), OutFeats: optInt(o, "OutFeats"),
			Norm: optStr(o, "Norm"), NoBias: optBool(o, "NoBias"), Activation: a,
			AllowZeroInDegree: optBool(o, "AllowZeroInDegree"), Gen: gen})
	case "SAGEConv":
		var a func(*tensor.Tensor) *tensor.Tensor
		if act == "relu" {
			a = tensor.ReLU
		}
		return NewSAGEConv(SAGEConvOptions{InFeats: optInt(o, "InFeats"), OutFeats: optInt(o, "OutFeats"),
			Aggregator: optStr(o, "Aggregator"), Activation: a, Gen: gen})
	case "GATConv":
		var a func(*tensor.Tensor) *tensor.Tensor
		if act == "elu" {
			a = ELU{}.Forward
		}
		var slope float32
		if v, ok := o["NegativeSlope"]; ok {
			slope = float32(v.(float64))
		}
		return NewGATConv(GATConvOptions{InFeats: optInt(o, "InFeats"), OutFeats: optInt(o, "OutFeats"),
			NumHeads: optInt(o, "NumHeads"), Residual: optBool(o, "Residual"), Merge: optStr(o, "Merge"),
			NegativeSlope: slope, Activation: a, Gen: gen})
	}
	t.Fatalf("unknown layer %q", c.Layer)
	return nil
}

func closeTo(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > tol*math.Max(1, math.Abs(float64(want[i]))) || d != d {
			t.Errorf("%s[%d] = %.7g, want %.7g", what, i, got[i], want[i])
			return
		}
	}
}

// TestLayersMatchReference checks every layer's output and the gradients
// with respect to its input and each parameter against the torch fixtures.
func TestLayersMatchReference(t *testing.T) {
	graphs, cases := loadReference(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			rg := graphs[c.Graph]
			g := edgeGraph(t, rg.NumSrc, rg.NumDst, rg.Src, rg.Dst)
			layer := refLayer(t, c)
			sd := map[string]*tensor.Tensor{}
			for k, v := range c.Params {
				sd[k] = v.tensor()
			}
			if err := layer.LoadStateDict(sd); err != nil {
				t.Fatal(err)
			}
			x := c.X.tensor().SetRequiresGrad(true)
			var out *tensor.Tensor
			switch l := layer.(type) {
			case *GraphConv:
				out = l.Forward(g, x)
			case *SAGEConv:
				out = l.Forward(g, x)
			case *GATConv:
				out = l.Forward(g, x)
			}
			if !sameShape(out.Shape(), c.Out.Shape) {
				t.Fatalf("output shape %v, want %v", out.Shape(), c.Out.Shape)
			}
			closeTo(t, "out", out.Float32s(), c.Out.Data, 1e-5)
			tensor.Sum(tensor.Mul(out, c.R.tensor())).Backward()
			closeTo(t, "grad x", x.Grad().Float32s(), c.GradX, 1e-5)
			params := layer.StateDict()
			for k, want := range c.GradParams {
				p := params[k]
				if p.Grad() == nil {
					t.Fatalf("parameter %s got no gradient", k)
				}
				closeTo(t, "grad "+k, p.Grad().Float32s(), want, 1e-5)
			}
		})
	}
}
