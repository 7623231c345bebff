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

// Reverse edge types for message passing both ways on a bipartite
// relation (DGL's dgl.transforms.AddReverse), and the reverse_etypes map a
// link-prediction loader's exclude="reverse_types" takes.
func ExampleGraph_AddReverseEdges() {
	g, err := graph.NewHetero(map[string]int{"user": 2, "artist": 3},
		map[graph.CanonicalEType]graph.EdgeList{{Src: "user", EType: "listens", Dst: "artist"}: {Src: []int64{0, 1, 1}, Dst: []int64{2, 0, 2}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := g.AddReverseEdges(graph.AddReverseOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.CanonicalETypes())
	src, dst := r.EdgesOf("rev_listens")
	fmt.Println(src.Int64s(), dst.Int64s())
	fmt.Println(g.ReverseETypes(graph.AddReverseOptions{}))
	// Output:
	// [("artist", "rev_listens", "user") ("user", "listens", "artist")]
	// [2 0 2] [0 1 1]
	// map[artist:rev_listens:user:user:listens:artist user:listens:artist:artist:rev_listens:user]
}

// A homogeneous graph with type ids back to its node and edge types
// (dgl.to_heterogeneous), the inverse of ToHomogeneous.
func ExampleToHeterogeneous() {
	g, _ := graph.NewHetero(map[string]int{"paper": 2, "author": 1},
		map[graph.CanonicalEType]graph.EdgeList{
			{Src: "author", EType: "writes", Dst: "paper"}: {Src: []int64{0, 0}, Dst: []int64{0, 1}},
			{Src: "paper", EType: "cites", Dst: "paper"}:   {Src: []int64{1}, Dst: []int64{0}},
		})
	h, _ := g.ToHomogeneous(nil, nil)
	fmt.Println(h.NumNodes(), h.NumEdges(), h.NData(graph.NType).Int64s())
	back, err := graph.ToHeterogeneous(h, g.NTypes(), g.CanonicalETypes())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.NumNodesOf("paper"), back.NumEdgesOf("writes"), back.NDataOf("paper", graph.NID).Int64s())
	// Output:
	// 3 3 [0 1 1]
	// 2 2 [1 2]
}
