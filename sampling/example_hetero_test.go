package sampling_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Minibatches of a heterograph: 4 authors write 6 papers (each paper has
// two authors), papers cite their predecessor, and every paper has one of
// 2 topics. A two-layer sampler with a fanout per edge type (all writers,
// one citation, no topics: DGL's [{etype: k}] fanouts) and a loader over
// paper seeds, as DGL's
//
//	sampler = dgl.dataloading.NeighborSampler([{"writes": -1, "cites": 1, "has_topic": 0, "rev_writes": 2}] * 2)
//	loader = dgl.dataloading.DataLoader(g, {"paper": seeds}, sampler, batch_size=3)
//
// Every block has every node type (topic has none here) and its
// destination nodes are the first source nodes of each type.
func ExampleNewHeteroDataLoader() {
	var wSrc, wDst, cSrc, cDst, tSrc, tDst []int64
	for p := int64(0); p < 6; p++ {
		wSrc, wDst = append(wSrc, p%4, (p+1)%4), append(wDst, p, p)
		if p > 0 {
			cSrc, cDst = append(cSrc, p-1), append(cDst, p)
		}
		tSrc, tDst = append(tSrc, p), append(tDst, p%2)
	}
	g, err := graph.NewHetero(map[string]int{"author": 4, "paper": 6, "topic": 2}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "author", EType: "writes", Dst: "paper"}:     {Src: wSrc, Dst: wDst},
		{Src: "paper", EType: "rev_writes", Dst: "author"}: {Src: wDst, Dst: wSrc},
		{Src: "paper", EType: "cites", Dst: "paper"}:       {Src: cSrc, Dst: cDst},
		{Src: "paper", EType: "has_topic", Dst: "topic"}:   {Src: tSrc, Dst: tDst},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	feat := make([]float32, 6*2)
	if err := g.SetNDataOf("paper", "feat", tensor.FromFloat32(feat, 6, 2)); err != nil {
		fmt.Println(err)
		return
	}
	fanout := map[string]int{"writes": -1, "cites": 1, "has_topic": 0, "rev_writes": 2}
	sampler := sampling.HeteroNeighborSampler{Fanouts: []map[string]int{fanout, fanout}}
	seeds := map[string]*tensor.Tensor{"paper": tensor.FromInt64([]int64{5, 2, 3})}
	loader, err := sampling.NewHeteroDataLoader(g, seeds, sampler, sampling.LoaderOptions{
		BatchSize: 3, PrefetchNodeFeats: []string{"feat"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer loader.Close()
	for loader.Next() {
		blocks := loader.Blocks()
		last := blocks[len(blocks)-1]
		fmt.Println("seeds", loader.OutputNodes()["paper"].Int64s())
		fmt.Println("last block: papers", last.SrcNodes("paper").Int64s(), "authors", last.SrcNodes("author").Int64s(),
			"writes edges", last.NumEdgesOf("writes"), "cites edges", last.NumEdgesOf("cites"))
		for l, b := range blocks {
			fmt.Println(" ", l, b)
		}
		fmt.Println("input paper features", blocks[0].SrcData("paper", "feat").Shape())
	}
	if err := loader.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// seeds [5 2 3]
	// last block: papers [5 2 3 4 1] authors [1 2 3 0] writes edges 6 cites edges 3
	//   0 HeteroBlock(num_src_nodes={'author': 4, 'paper': 6, 'topic': 0}, num_dst_nodes={'author': 4, 'paper': 5, 'topic': 0}, num_edges={('author', 'writes', 'paper'): 10, ('paper', 'cites', 'paper'): 5, ('paper', 'has_topic', 'topic'): 0, ('paper', 'rev_writes', 'author'): 8})
	//   1 HeteroBlock(num_src_nodes={'author': 4, 'paper': 5, 'topic': 0}, num_dst_nodes={'author': 0, 'paper': 3, 'topic': 0}, num_edges={('author', 'writes', 'paper'): 6, ('paper', 'cites', 'paper'): 3, ('paper', 'has_topic', 'topic'): 0, ('paper', 'rev_writes', 'author'): 0})
	// input paper features [6 2]
}

// Heterograph minibatches gathering input features from feature stores
// per node type: int8 paper and author features (a quarter of float32
// plus 8 bytes a row), dequantised into blocks[0].SrcData(ntype, "feat").
func ExampleNewHeteroDataLoader_featStores() {
	g, err := graph.NewHetero(map[string]int{"author": 3, "paper": 4}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "author", EType: "writes", Dst: "paper"}:     {Src: []int64{0, 1, 2, 2}, Dst: []int64{0, 1, 2, 3}},
		{Src: "paper", EType: "rev_writes", Dst: "author"}: {Src: []int64{0, 1, 2, 3}, Dst: []int64{0, 1, 2, 2}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	g.SetNDataOf("paper", "x", tensor.FromFloat32([]float32{0, 1, 10, 11, 20, 21, 30, 31}, 4, 2))
	g.SetNDataOf("author", "x", tensor.FromFloat32([]float32{-1, 1, -2, 2, -3, 3}, 3, 2))
	st, err := featstore.NewPerType(g, "x", tensor.Int8)
	if err != nil {
		fmt.Println(err)
		return
	}
	sampler := sampling.HeteroNeighborSampler{Fanouts: []map[string]int{{"writes": -1, "rev_writes": 0}}}
	loader, err := sampling.NewHeteroDataLoader(g, map[string]*tensor.Tensor{"paper": tensor.FromInt64([]int64{3})}, sampler,
		sampling.LoaderOptions{BatchSize: 1, HeteroNodeFeatStores: map[string]*featstore.PerType{"feat": st}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer loader.Close()
	for loader.Next() {
		b := loader.Blocks()[0]
		fmt.Println("authors", b.SrcNodes("author").Int64s(), "feat", b.SrcData("author", "feat").Float32s())
		fmt.Println("papers", b.SrcNodes("paper").Int64s(), "feat", b.SrcData("paper", "feat").Float32s())
	}
	// Output:
	// authors [2] feat [-3 3]
	// papers [3] feat [30 31]
}
