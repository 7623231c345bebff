package nn

import (
	"errors"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func TestHeteroGraphConv(t *testing.T) {
	g, err := graph.NewHetero(map[string]int{"user": 3, "item": 2}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "user", EType: "clicks", Dst: "item"}: {Src: []int64{0, 1, 2}, Dst: []int64{0, 0, 1}},
		{Src: "user", EType: "buys", Dst: "item"}:   {Src: []int64{2}, Dst: []int64{0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	mk := func() GraphModel {
		return NewGraphConv(GraphConvOptions{InFeats: 2, OutFeats: 3, AllowZeroInDegree: true, Gen: tensor.NewGenerator(1)})
	}
	x := map[string]*tensor.Tensor{"user": randT(1, -1, 1, 3, 2)}
	for _, agg := range []string{"sum", "mean", "max", "min", "stack"} {
		h := NewHeteroGraphConv(map[string]GraphModel{"clicks": mk(), "buys": mk()}, agg)
		out := h.Forward(g, x)["item"]
		want := []int{2, 3}
		if agg == "stack" {
			want = []int{2, 2, 3}
		}
		if len(out.Shape()) != len(want) || out.Size(0) != 2 || out.Size(out.Dim()-1) != 3 {
			t.Fatalf("%s: shape %v, want %v", agg, out.Shape(), want)
		}
		if len(h.Parameters()) != 4 {
			t.Fatalf("%s: %d parameters", agg, len(h.Parameters()))
		}
	}
	h := NewHeteroGraphConv(map[string]GraphModel{"clicks": mk()}, "sum")
	for name, f := range map[string]func(){
		"feature size": func() { h.Forward(g, map[string]*tensor.Tensor{"user": randT(1, -1, 1, 3, 5)}) },
		"node type":    func() { h.Forward(g, map[string]*tensor.Tensor{"shop": randT(1, -1, 1, 3, 2)}) },
		"edge type":    func() { NewHeteroGraphConv(map[string]GraphModel{"likes": mk()}, "sum").Forward(g, x) },
		"aggregate":    func() { NewHeteroGraphConv(map[string]GraphModel{"clicks": mk()}, "concat") },
	} {
		var e *Error
		if err := tensor.Catch(f); !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an nn error", name, err)
		}
	}
}
