package nn_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Minibatch R-GCN on a heterograph where only papers have features:
// authors get a learnable embedding each (RGCNOptions.NodeEmbeddings), as
// DGL's R-GCN on ogbn-mag,
//
//	embed = RelGraphEmbed(g, 8, exclude=["paper"])  # dgl.nn.NodeEmbedding per type
//	opt = torch.optim.Adam(model.parameters(), lr=0.01)
//	emb_opt = dgl.optim.SparseAdam(list(embed.node_embeds.values()), lr=0.01)
//
// The embedding rows looked up are blocks[0]'s author source nodes (their
// graph.NID), and SparseAdam updates only those rows.
func ExampleRGCN_ForwardBlocks_nodeEmbeddings() {
	g, err := graph.NewHetero(map[string]int{"paper": 4, "author": 3}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "author", EType: "writes", Dst: "paper"}:     {Src: []int64{0, 1, 1, 2}, Dst: []int64{0, 1, 2, 3}},
		{Src: "paper", EType: "written_by", Dst: "author"}: {Src: []int64{0, 1, 2, 3}, Dst: []int64{0, 1, 1, 2}},
		{Src: "paper", EType: "cites", Dst: "paper"}:       {Src: []int64{1, 2, 3}, Dst: []int64{0, 1, 2}},
	})
	if err != nil {
		panic(err)
	}
	feat := tensor.Randn(tensor.NewGenerator(1), 4, 8) // papers' features
	m := nn.NewRGCN(nn.RGCNOptions{InFeats: 8, HiddenFeats: 16, OutFeats: 2, NumRels: 3, SelfLoop: true, Seed: 1,
		NodeEmbeddings: map[string]int{"author": g.NumNodesOf("author")}})
	opt := optim.NewAdam(m.DenseParameters(), optim.AdamOptions{LR: 0.01})
	embOpt := optim.NewSparseAdam(m.SparseParameters(), optim.SparseAdamOptions{LR: 0.01})

	blocks, err := sampling.NeighborSampler{Fanouts: []int{-1, -1}}.SampleHeteroBlocks(g, map[string][]int64{"paper": {0}}, 0)
	if err != nil {
		panic(err)
	}
	x := map[string]*tensor.Tensor{"paper": tensor.IndexSelect(feat, blocks[0].SrcData("paper", graph.NID))}
	out := m.ForwardBlocks(blocks, x) // authors come from m.NodeEmb["author"]
	loss := tensor.CrossEntropy(out["paper"], tensor.FromInt64([]int64{1}))
	opt.ZeroGrad()
	embOpt.ZeroGrad()
	loss.Backward()
	ids, grad := m.NodeEmb["author"].SparseGrad()
	fmt.Println(m.NodeEmb["author"], out["paper"].Shape(), ids.Int64s(), grad.Shape())
	opt.Step()
	embOpt.Step()
	// Output: Embedding(3, 8, sparse=True) [1 2] [0 1] [2 8]
}
