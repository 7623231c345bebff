package checkpoint

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestHeteroLoaderPosition: State.Loader takes a HeteroDataLoader too; the
// loaded one hands out the batch the saved one would have.
func TestHeteroLoaderPosition(t *testing.T) {
	g, err := graph.NewHetero(map[string]int{"user": 40, "item": 30}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "user", EType: "buys", Dst: "item"}:   {Src: []int64{0, 1, 2, 3, 4, 5, 6, 7}, Dst: []int64{0, 1, 2, 3, 4, 5, 6, 7}},
		{Src: "item", EType: "bought", Dst: "user"}: {Src: []int64{0, 1, 2, 3, 4, 5, 6, 7}, Dst: []int64{0, 1, 2, 3, 4, 5, 6, 7}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, 40)
	for i := range ids {
		ids[i] = int64(i)
	}
	mk := func() *sampling.HeteroDataLoader {
		l, err := sampling.NewHeteroDataLoader(g, map[string]*tensor.Tensor{"user": tensor.FromInt64(ids)},
			sampling.HeteroNeighborSampler{Fanouts: []map[string]int{{"*": 2}}}, sampling.LoaderOptions{BatchSize: 8, Shuffle: true, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	a := mk()
	for range 7 { // into the second epoch (5 batches each)
		a.Next()
	}
	m := nn.NewLinear(2, 1, true, tensor.NewGenerator(1))
	path := filepath.Join(t.TempDir(), "hetero.safetensors")
	if err := Save(path, State{Model: m, Loader: a}); err != nil {
		t.Fatal(err)
	}
	b := mk()
	if err := Load(path, &State{Model: m, Loader: b}); err != nil {
		t.Fatal(err)
	}
	if !a.Next() || !b.Next() {
		t.Fatal("no batch after the saved position")
	}
	if x, y := a.OutputNodes()["user"].Int64s(), b.OutputNodes()["user"].Int64s(); !slices.Equal(x, y) {
		t.Errorf("loaded loader's next batch %v, saved one's %v", y, x)
	}
}
