package nn

import (
	"errors"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestMetapathMean: papers 0,1,2 and authors 0,1; paper 0 has authors 0
// and 1, paper 1 author 1, paper 2 none. PAP of x is the mean over a
// paper's authors of the mean over their papers.
func TestMetapathMean(t *testing.T) {
	g, err := graph.NewHetero(map[string]int{"paper": 3, "author": 2}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "paper", EType: "pa", Dst: "author"}: {Src: []int64{0, 0, 1}, Dst: []int64{0, 1, 1}},
		{Src: "author", EType: "ap", Dst: "paper"}: {Src: []int64{0, 1, 1}, Dst: []int64{0, 0, 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.FromFloat32([]float32{2, 4, 6}, 3, 1)
	// author 0: mean(paper 0) = 2; author 1: mean(2, 4) = 3.
	// paper 0: mean(2, 3) = 2.5; paper 1: 3; paper 2: no author, 0.
	got := MetapathMean(g, []string{"pa", "ap"}, x).Float32s()
	if !slices.Equal(got, []float32{2.5, 3, 0}) {
		t.Errorf("PAP mean %v, want [2.5 3 0]", got)
	}
	for name, c := range map[string]struct {
		path []string
		x    *tensor.Tensor
		kind error
	}{
		"unknown etype": {[]string{"pb"}, x, ErrOption},
		"not chaining":  {[]string{"pa", "pa"}, x, ErrOption},
		"empty":         {nil, x, ErrOption},
		"rows":          {[]string{"pa"}, tensor.Zeros(2, 1), ErrShape},
	} {
		err := tensor.Catch(func() { MetapathMean(g, c.path, c.x) })
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: got %v, want %v", name, err, c.kind)
		}
	}
}

func TestSIGNShapes(t *testing.T) {
	m := NewSIGN(SIGNOptions{InFeats: []int{3, 5}, HiddenFeats: 4, OutFeats: 2, Dropout: 0.5, Seed: 1})
	if n := len(m.Parameters()); n != 6 {
		t.Errorf("%d parameter tensors, want 6", n)
	}
	xs := []*tensor.Tensor{tensor.Ones(7, 3), tensor.Ones(7, 5)}
	if s := m.Forward(xs).Shape(); !slices.Equal(s, []int{7, 2}) {
		t.Errorf("output shape %v", s)
	}
	if err := tensor.Catch(func() { m.Forward(xs[:1]) }); !errors.Is(err, ErrShape) {
		t.Errorf("one operator: %v", err)
	}
	if err := tensor.Catch(func() { m.Forward([]*tensor.Tensor{xs[0], tensor.Ones(7, 4)}) }); !errors.Is(err, ErrShape) {
		t.Errorf("wrong width: %v", err)
	}
	if err := tensor.Catch(func() { NewSIGN(SIGNOptions{OutFeats: 2}) }); !errors.Is(err, ErrOption) {
		t.Errorf("no InFeats: %v", err)
	}
}
