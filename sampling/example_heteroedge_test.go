package sampling_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Link prediction minibatches on a heterograph: 3 users listen to 4
// artists ("listens", with its reverse "rev-listens", edge i reversed).
// Batches of 2 "listens" edges, one uniform negative artist per edge, and
// one-layer blocks sampled without the batch's edges and their reverses,
// as DGL's
//
//	sampler = dgl.dataloading.as_edge_prediction_sampler(
//	    dgl.dataloading.NeighborSampler([-1]), exclude="reverse_types",
//	    reverse_etypes={"listens": "rev-listens"},
//	    negative_sampler=dgl.dataloading.negative_sampler.Uniform(1))
//	loader = dgl.dataloading.DataLoader(g, {"listens": eids}, sampler, batch_size=2)
//
// The pair graphs' nodes are the blocks' output nodes of each type
// (NData(graph.NID) holds their ids), so a model's output rows score the
// positive and negative pairs directly. As DGL's Uniform, a per-source
// negative may happen to be a true edge (user 2 -> artist 2 here).
func ExampleNewHeteroEdgeDataLoader() {
	us := []int64{0, 0, 1, 2, 2}
	as := []int64{0, 1, 1, 2, 3}
	g, err := graph.NewHetero(map[string]int{"user": 3, "artist": 4}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "user", EType: "listens", Dst: "artist"}:     {Src: us, Dst: as},
		{Src: "artist", EType: "rev-listens", Dst: "user"}: {Src: as, Dst: us},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	sampler := sampling.AsHeteroEdgePredictionSampler(sampling.NeighborSampler{Fanouts: []int{-1}},
		sampling.HeteroEdgePredictionOptions{
			Exclude:         sampling.ExcludeReverseTypes,
			ReverseETypes:   map[string]string{"listens": "rev-listens"},
			NegativeSampler: sampling.PerSourceUniform(1),
		})
	eids := map[string]*tensor.Tensor{"listens": tensor.FromInt64([]int64{0, 2, 4})}
	loader, err := sampling.NewHeteroEdgeDataLoader(g, eids, sampler, sampling.LoaderOptions{BatchSize: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer loader.Close()
	const lk = "listens"
	for loader.Next() {
		pair, neg := loader.PairGraph(), loader.NegPairGraph()
		users, artists := pair.NDataOf("user", graph.NID).Int64s(), pair.NDataOf("artist", graph.NID).Int64s()
		s, d := pair.EdgesOf(lk)
		fmt.Println("edges", pair.EDataOf(lk, graph.EID).Int64s(), "local", s.Int64s(), "->", d.Int64s(),
			"users", users, "artists", artists)
		ns, nd := neg.EdgesOf(lk)
		for i := range ns.Int64s() {
			fmt.Printf("  negative user %d -> artist %d\n", users[ns.Int64s()[i]], artists[nd.Int64s()[i]])
		}
		blk := loader.Blocks()[0]
		fmt.Println("  sampled listens", blk.EIDList(lk), "rev-listens", blk.EIDList("rev-listens"))
	}
	if err := loader.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// edges [0 2] local [0 1] -> [0 1] users [0 1] artists [0 1 2]
	//   negative user 0 -> artist 1
	//   negative user 1 -> artist 2
	//   sampled listens [1 3] rev-listens [1]
	// edges [4] local [0] -> [0] users [2] artists [3 2]
	//   negative user 2 -> artist 2
	//   sampled listens [3] rev-listens [3]
}
