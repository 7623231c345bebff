package sampling

import (
	"errors"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// The engine's sentinels work on sampling's errors, whichever package
// raised them.
func TestErrorsAreTheEngines(t *testing.T) {
	g := star(t, 5)
	// A bad option: sampling.ErrArgument is tensor.ErrArgument.
	_, err := NeighborSampler{Fanouts: []int{-2}}.SampleBlocks(g, []int64{0}, 1)
	if !errors.Is(err, tensor.ErrArgument) || !errors.Is(err, ErrArgument) || errors.Is(err, tensor.ErrShape) {
		t.Errorf("fanout -2: %v, want tensor.ErrArgument", err)
	}
	// A heterogeneous graph: graph.ErrHetero, a kind of ErrArgument.
	h, err := graph.NewHetero(map[string]int{"a": 2, "b": 2}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "a", EType: "ab", Dst: "b"}: {Src: []int64{0}, Dst: []int64{1}},
		{Src: "b", EType: "ba", Dst: "a"}: {Src: []int64{1}, Dst: []int64{0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewDataLoader(h, tensor.FromInt64([]int64{0}), NeighborSampler{Fanouts: []int{2}}, LoaderOptions{})
	if !errors.Is(err, graph.ErrHetero) || !errors.Is(err, tensor.ErrArgument) {
		t.Errorf("heterogeneous graph: %v, want graph.ErrHetero and tensor.ErrArgument", err)
	}
	// A tensor misuse inside a user's sampler, in a worker goroutine, stays
	// a shape error.
	for _, nw := range []int{0, 2} {
		dl := newLoader(t, g, []int64{0, 1}, misusing{}, LoaderOptions{NumWorkers: nw})
		for dl.Next() {
		}
		var te *tensor.Error
		if err := dl.Err(); !errors.Is(err, tensor.ErrShape) || !errors.As(err, &te) || te.Op != "MatMul" {
			t.Errorf("NumWorkers %d: a MatMul misuse in the sampler gave %v", nw, err)
		}
	}
	// A bug (a nil dereference) in the sampler carries its stack.
	dl := newLoader(t, g, []int64{0}, buggy{}, LoaderOptions{})
	for dl.Next() {
	}
	if err := dl.Err(); err == nil || !strings.Contains(err.Error(), "nil pointer") || !strings.Contains(err.Error(), "buggy.SampleBlocks") {
		t.Errorf("a nil dereference in the sampler gave %v, want it with its stack", err)
	}
}

type misusing struct{}

func (misusing) SampleBlocks(g *graph.Graph, seeds []int64, es uint64) ([]*graph.Block, error) {
	tensor.MatMul(tensor.Zeros(2, 3), tensor.Zeros(2, 3))
	return nil, nil
}

type buggy struct{ g *graph.Graph }

func (b buggy) SampleBlocks(g *graph.Graph, seeds []int64, es uint64) ([]*graph.Block, error) {
	return nil, errors.New(b.g.String()) // b.g is nil
}
