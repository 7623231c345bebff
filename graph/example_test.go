package graph_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// A graph from an edge list (src[i] -> dst[i]), node data, degrees, and one
// round of message passing (DGL's g.update_all(fn.copy_u("h", "m"),
// fn.sum("m", "h_sum"))).
func Example() {
	g, err := graph.New(4, []int64{0, 0, 1, 2, 3}, []int64{1, 2, 2, 3, 0})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := g.SetNData("h", tensor.FromFloat32([]float32{1, 10, 100, 1000}, 4, 1)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.NumNodes(), g.NumEdges())
	fmt.Println(g.InDegrees().Int64s(), g.OutDegrees().Int64s())

	g.UpdateAll(graph.CopyU("h", "m"), graph.Sum("m", "h_sum"))
	fmt.Println(g.NData("h_sum").Float32s())
	// Output:
	// 4 5
	// [1 1 2 1] [2 1 1 1]
	// [1000 1 11 100]
}

// Self loops give every node an in-edge, as GCN's normalisation needs.
func ExampleGraph_AddSelfLoop() {
	g, _ := graph.New(3, []int64{0, 1}, []int64{1, 2})
	h := g.AddSelfLoop()
	fmt.Println(g.InDegrees().Int64s(), h.InDegrees().Int64s(), h.NumEdges())
	// Output:
	// [0 1 1] [1 2 2] 5
}
