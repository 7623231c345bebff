package must_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/must"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func TestMust(t *testing.T) {
	g := must.Graph(graph.New(2, []int64{0}, []int64{1}))
	if g.NumEdges() != 1 {
		t.Errorf("graph %v", g)
	}
	x := must.Tensor(tensor.FromFloat32([]float32{1, 2}, 2), nil)
	if x.Numel() != 2 || must.Bytes([]byte("ok"), nil) == nil || must.Dataset(nil, nil) != nil || must.DataLoader(nil, nil) != nil ||
		must.HeteroDataset(nil, nil) != nil || must.RDFDataset(nil, nil) != nil || must.RecDataset(nil, nil) != nil || must.LinkDataset(nil, nil) != nil || must.HeteroDataLoader(nil, nil) != nil || must.PerType(nil, nil) != nil {
		t.Error("values not passed through")
	}
	must.OK(nil)
	bad := errors.New("bad input")
	for name, f := range map[string]func(){
		"OK":         func() { must.OK(bad) },
		"Graph":      func() { must.Graph(graph.New(1, []int64{0}, []int64{5})) },
		"Dataset":    func() { must.Dataset(datasets.LoadPlanetoid("nope", "")) },
		"Tensor":     func() { must.Tensor(nil, bad) },
		"Bytes":      func() { must.Bytes(nil, bad) },
		"DataLoader": func() { must.DataLoader(nil, bad) },
	} {
		func() {
			defer func() {
				err, ok := recover().(error)
				if !ok || err == nil {
					t.Errorf("%s: panic value %v, want the error", name, err)
				}
			}()
			f()
		}()
	}
}

// In a cell, one line loads a dataset and fails the cell on an error.
func Example() {
	g := must.Graph(graph.New(3, []int64{0, 1}, []int64{1, 2}))
	fmt.Println(g.NumNodes(), g.NumEdges())

	defer func() { fmt.Println("panic:", recover()) }()
	must.Dataset(datasets.LoadPlanetoid("nope", ""))
	// Output:
	// 3 2
	// panic: datasets: invalid argument: unknown Planetoid dataset "nope" (want one of cora, citeseer, pubmed)
}
