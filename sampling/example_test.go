package sampling_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// A two-layer neighbour sampler and a DataLoader over a ring of 8 nodes
// (each node has in-edges from both neighbours, so fanouts of 2 take every
// in-edge and the blocks do not depend on the random draw): batches of 2
// seeds, their blocks (input layer first) and the prefetched features, as
// DGL's
//
//	sampler = dgl.dataloading.NeighborSampler([2, 2])
//	loader = dgl.dataloading.DataLoader(g, seeds, sampler, batch_size=2)
func Example() {
	const n = 8
	var src, dst []int64
	for v := int64(0); v < n; v++ {
		src = append(src, (v+n-1)%n, (v+1)%n)
		dst = append(dst, v, v)
	}
	g, err := graph.New(n, src, dst)
	if err != nil {
		fmt.Println(err)
		return
	}
	feat := make([]float32, n*3)
	if err := g.SetNData("feat", tensor.FromFloat32(feat, n, 3)); err != nil {
		fmt.Println(err)
		return
	}

	sampler := sampling.NeighborSampler{Fanouts: []int{2, 2}}
	seeds := tensor.FromInt64([]int64{0, 1, 2, 3})
	loader, err := sampling.NewDataLoader(g, seeds, sampler, sampling.LoaderOptions{
		BatchSize: 2, PrefetchNodeFeats: []string{"feat"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer loader.Close()
	for loader.Next() {
		blocks := loader.Blocks()
		fmt.Println("seeds", loader.OutputNodes().Int64s(), "input nodes", loader.InputNodes().Size(0))
		for l, b := range blocks {
			fmt.Printf("  block %d: %d src -> %d dst, %d edges\n", l, b.NumSrcNodes(), b.NumDstNodes(), b.NumEdges())
		}
		fmt.Println("  feat", blocks[0].SrcData("feat").Shape())
	}
	if err := loader.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// seeds [0 1] input nodes 6
	//   block 0: 6 src -> 4 dst, 8 edges
	//   block 1: 4 src -> 2 dst, 4 edges
	//   feat [6 3]
	// seeds [2 3] input nodes 6
	//   block 0: 6 src -> 4 dst, 8 edges
	//   block 1: 4 src -> 2 dst, 4 edges
	//   feat [6 3]
}

// An edge DataLoader for link prediction over a ring of 6 nodes stored in
// both directions (edge e and e+6 are reverses): batches of 2 training
// edges, their positive and negative pair graphs over the batch's nodes,
// and blocks sampled without the batch's edges and their reverses, as
// DGL's
//
//	sampler = dgl.dataloading.as_edge_prediction_sampler(
//	    dgl.dataloading.NeighborSampler([2]), exclude="reverse_id",
//	    reverse_eids=reverse_eids,
//	    negative_sampler=dgl.dataloading.negative_sampler.PerSourceUniform(1))
//	loader = dgl.dataloading.DataLoader(g, train_eids, sampler, batch_size=2)
func ExampleNewEdgeDataLoader() {
	const n = 6
	src, dst, rev := make([]int64, 2*n), make([]int64, 2*n), make([]int64, 2*n)
	for v := int64(0); v < n; v++ {
		src[v], dst[v], src[v+n], dst[v+n] = v, (v+1)%n, (v+1)%n, v
		rev[v], rev[v+n] = v+n, v
	}
	g, err := graph.New(n, src, dst)
	if err != nil {
		fmt.Println(err)
		return
	}
	sampler := sampling.AsEdgePredictionSampler(sampling.NeighborSampler{Fanouts: []int{2}},
		sampling.EdgePredictionOptions{Exclude: "reverse_id", ReverseEIDs: tensor.FromInt64(rev), NegativeSampler: sampling.PerSourceUniform(1)})
	loader, err := sampling.NewEdgeDataLoader(g, tensor.FromInt64([]int64{0, 1, 2, 3}), sampler, sampling.LoaderOptions{BatchSize: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer loader.Close()
	for loader.Next() {
		pair, neg := loader.PairGraph(), loader.NegPairGraph()
		fmt.Printf("edges %v: %d positive and %d negative pairs over nodes %v, %d sampled edges\n",
			pair.EData(graph.EID).Int64s(), pair.NumEdges(), neg.NumEdges(), loader.OutputNodes().Int64s()[:3],
			loader.Blocks()[0].NumEdges())
	}
	if err := loader.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// edges [0 1]: 2 positive and 2 negative pairs over nodes [0 1 2], 4 sampled edges
	// edges [2 3]: 2 positive and 2 negative pairs over nodes [2 3 4], 2 sampled edges
}

// Batches for a GPU (DGL's device="cuda", pin_prefetcher=True): the loader
// gathers each batch on the host, stages it in pinned memory and copies it
// on a second stream while the previous batch computes. Without a GPU the
// loader is an error naming the missing driver or device. (Not run by go
// test: its output depends on the machine.)
func ExampleLoaderOptions_pinMemory() {
	src := []int64{0, 1, 2, 3, 4, 5, 6, 7}
	dst := []int64{1, 2, 3, 4, 5, 6, 7, 0}
	g, _ := graph.New(8, src, dst)
	g.SetNData("feat", tensor.Ones(8, 4))
	dl, err := sampling.NewDataLoader(g, tensor.Arange(8), sampling.NeighborSampler{Fanouts: []int{2}},
		sampling.LoaderOptions{BatchSize: 4, Device: "cuda", PinMemory: true, PrefetchNodeFeats: []string{"feat"}})
	if err != nil {
		_, why := tensor.CUDAStatus()
		fmt.Println("no GPU:", why)
		return
	}
	defer dl.Close() // releases the pinned buffers and the copy stream
	for dl.Next() {
		x := dl.Blocks()[0].SrcData("feat")
		fmt.Println(x.Shape(), x.Device())
	}
}
