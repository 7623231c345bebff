package sampling

import (
	"reflect"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
	"github.com/traefik/yaegi/interp"
)

// TestInterpretedHetero runs the HeteroDataLoader loop in the yaegi
// interpreter as a session user types it (fanout maps, typed seeds, typed
// block data), against a hand-made symbol table.
func TestInterpretedHetero(t *testing.T) {
	const src = `
import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func run() string {
	g, err := graph.NewHetero(map[string]int{"author": 2, "paper": 3}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "author", EType: "writes", Dst: "paper"}: {Src: []int64{0, 1, 1}, Dst: []int64{0, 1, 2}},
		{Src: "paper", EType: "cites", Dst: "paper"}:   {Src: []int64{0, 1}, Dst: []int64{1, 2}},
	})
	if err != nil {
		panic(err)
	}
	g.SetNDataOf("paper", "feat", tensor.FromFloat32([]float32{10, 11, 12}, 3, 1))
	sampler := sampling.HeteroNeighborSampler{Fanouts: []map[string]int{{"writes": -1, "cites": 1}, {"*": 2}}}
	loader, err := sampling.NewHeteroDataLoader(g, map[string]*tensor.Tensor{"paper": tensor.FromInt64([]int64{2, 1})}, sampler,
		sampling.LoaderOptions{BatchSize: 1, NumWorkers: 2, PrefetchNodeFeats: []string{"feat"}})
	if err != nil {
		panic(err)
	}
	defer loader.Close()
	out := ""
	for loader.Next() {
		blocks := loader.Blocks()
		out += fmt.Sprint(loader.OutputNodes()["paper"].Int64s(), blocks[0].SrcNodes("author").Int64s(), blocks[0].SrcData("paper", "feat").Float32s(), ";")
	}
	if err := loader.Err(); err != nil {
		panic(err)
	}
	return out
}
`
	v := runInterpreted(t, interp.Exports{
		"github.com/gnnrepl/gnnrepl/graph/graph": {
			"Graph":          reflect.ValueOf((*graph.Graph)(nil)),
			"HeteroBlock":    reflect.ValueOf((*graph.HeteroBlock)(nil)),
			"CanonicalEType": reflect.ValueOf((*graph.CanonicalEType)(nil)),
			"EdgeList":       reflect.ValueOf((*graph.EdgeList)(nil)),
			"NewHetero":      reflect.ValueOf(graph.NewHetero),
		},
		"github.com/gnnrepl/gnnrepl/tensor/tensor": {
			"Tensor":      reflect.ValueOf((*tensor.Tensor)(nil)),
			"FromFloat32": reflect.ValueOf(tensor.FromFloat32),
			"FromInt64":   reflect.ValueOf(tensor.FromInt64),
		},
		"github.com/gnnrepl/gnnrepl/sampling/sampling": {
			"NeighborSampler":       reflect.ValueOf((*NeighborSampler)(nil)),
			"HeteroNeighborSampler": reflect.ValueOf((*HeteroNeighborSampler)(nil)),
			"HeteroSampler":         reflect.ValueOf((*HeteroSampler)(nil)),
			"LoaderOptions":         reflect.ValueOf((*LoaderOptions)(nil)),
			"HeteroDataLoader":      reflect.ValueOf((*HeteroDataLoader)(nil)),
			"NewHeteroDataLoader":   reflect.ValueOf(NewHeteroDataLoader),
		},
	}, src)
	// Seed 2 <- paper 1 (cites), author 1 (writes); then paper 1 <- 0, author 1.
	want := "[2] [1] [12 11 10];[1] [1 0] [11 10];"
	if got := v.String(); got != want {
		t.Errorf("interpreted loop printed\n%s\nwant\n%s", got, want)
	}
}
