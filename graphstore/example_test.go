package graphstore_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/graphstore"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// A heterograph is saved and memory-mapped back with its types, edges and
// per-type data.
func ExampleSave_hetero() {
	g, _ := graph.NewHetero(map[string]int{"user": 3, "item": 2}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "user", EType: "rates", Dst: "item"}:    {Src: []int64{0, 1, 2}, Dst: []int64{1, 1, 0}},
		{Src: "item", EType: "rated-by", Dst: "user"}: {Src: []int64{1, 1, 0}, Dst: []int64{0, 1, 2}},
	})
	g.SetNDataOf("user", "age", tensor.FromFloat32([]float32{31, 22, 45}))
	g.SetEDataOf("rates", "stars", tensor.FromFloat32([]float32{5, 3, 4}))

	dir, _ := os.MkdirTemp("", "graphstore")
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "ratings.gnng")
	if err := graphstore.Save(p, g); err != nil {
		fmt.Println(err)
		return
	}
	h, closer, err := graphstore.Open(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closer.Close()
	fmt.Println(h.NTypes(), h.CanonicalETypes())
	fmt.Println(h.NDataOf("user", "age").Float32s(), h.EDataOf("rates", "stars").Float32s())
	// Output:
	// [item user] [("item", "rated-by", "user") ("user", "rates", "item")]
	// [31 22 45] [5 3 4]
}
