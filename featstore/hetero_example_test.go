package featstore_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Feature stores per node type of a heterograph: int8 features for users
// and items, a hot cache of the most listened-to item, and precomputed
// one-hop relation means.
func ExampleNewPerType() {
	g, _ := graph.NewHetero(map[string]int{"user": 2, "item": 3}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "user", EType: "listens", Dst: "item"}:     {Src: []int64{0, 0, 1}, Dst: []int64{0, 1, 1}},
		{Src: "item", EType: "rev-listens", Dst: "user"}: {Src: []int64{0, 1, 1}, Dst: []int64{0, 0, 1}},
	})
	gen := tensor.NewGenerator(0)
	g.SetNDataOf("user", "feat", tensor.Randn(gen, 2, 64))
	g.SetNDataOf("item", "feat", tensor.Randn(gen, 3, 64))

	st, err := featstore.NewPerType(g, "feat", tensor.Int8)
	if err != nil {
		panic(err)
	}
	fmt.Printf("item: %d bytes in int8, %d in float32\n", st.BytesOf("item"), st.Float32BytesOf("item"))

	hot, _ := featstore.NewHotCachePerType(st, g, featstore.HotCacheOptions{Capacity: 1})
	fmt.Println("item 1 cached:", hot.Store("item").(*featstore.HotCache).IsCached(1))

	sign, _ := featstore.PropagatePerType(g, "feat", featstore.PropagateOptions{K: 1, DType: tensor.Int8})
	fmt.Println(sign.RelationsOf("user"), sign.Store("user").Dim())
	// Output:
	// item: 216 bytes in int8, 768 in float32
	// item 1 cached: true
	// [self ("item", "rev-listens", "user")] 128
}
