package sampling

import (
	"reflect"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestInterpreted runs the DataLoader loop as a session user types it, in
// the yaegi interpreter, against a hand-made symbol table of the few
// exported names it uses (the real tables are generated in builtins).
func TestInterpreted(t *testing.T) {
	const src = `
import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func run() string {
	g, err := graph.New(6, []int64{0, 1, 2, 3, 4, 5, 0}, []int64{1, 2, 3, 4, 5, 0, 3})
	if err != nil {
		panic(err)
	}
	g.SetNData("feat", tensor.FromFloat32([]float32{0, 1, 2, 3, 4, 5}, 6, 1))
	sampler := sampling.NeighborSampler{Fanouts: []int{2, 2}}
	loader, err := sampling.NewDataLoader(g, tensor.FromInt64([]int64{3, 4, 5}), sampler,
		sampling.LoaderOptions{BatchSize: 2, NumWorkers: 2, PrefetchNodeFeats: []string{"feat"}})
	if err != nil {
		panic(err)
	}
	defer loader.Close()
	out := ""
	for loader.Next() {
		in, seeds, blocks := loader.InputNodes(), loader.OutputNodes(), loader.Blocks()
		out += fmt.Sprint(in.Int64s(), seeds.Int64s(), len(blocks), blocks[0].SrcData("feat").Float32s(), ";")
	}
	if err := loader.Err(); err != nil {
		panic(err)
	}
	full := sampling.MultiLayerFullNeighborSampler{NumLayers: 1}
	b, err := full.SampleBlocks(g, []int64{3}, 0)
	if err != nil {
		panic(err)
	}
	return out + fmt.Sprint(b[0].SrcNodeIDs())
}
`
	v := runInterpreted(t, interp.Exports{
		"github.com/gnnrepl/gnnrepl/graph/graph": {
			"Graph": reflect.ValueOf((*graph.Graph)(nil)),
			"Block": reflect.ValueOf((*graph.Block)(nil)),
			"New":   reflect.ValueOf(graph.New),
		},
		"github.com/gnnrepl/gnnrepl/tensor/tensor": {
			"Tensor":      reflect.ValueOf((*tensor.Tensor)(nil)),
			"FromFloat32": reflect.ValueOf(tensor.FromFloat32),
			"FromInt64":   reflect.ValueOf(tensor.FromInt64),
		},
		"github.com/gnnrepl/gnnrepl/sampling/sampling": {
			"NeighborSampler":               reflect.ValueOf((*NeighborSampler)(nil)),
			"MultiLayerFullNeighborSampler": reflect.ValueOf((*MultiLayerFullNeighborSampler)(nil)),
			"LoaderOptions":                 reflect.ValueOf((*LoaderOptions)(nil)),
			"DataLoader":                    reflect.ValueOf((*DataLoader)(nil)),
			"Sampler":                       reflect.ValueOf((*Sampler)(nil)),
			"NewDataLoader":                 reflect.ValueOf(NewDataLoader),
		},
	}, src)
	// 3 <- 2, 0; 4 <- 3; 5 <- 4; 2 <- 1; 0 <- 5 (fanout 2 takes all).
	want := "[3 4 2 0 1 5] [3 4] 2 [3 4 2 0 1 5];[5 4 3] [5] 2 [5 4 3];[3 2 0]"
	if got := v.String(); got != want {
		t.Errorf("interpreted loop printed\n%s\nwant\n%s", got, want)
	}
}

// runInterpreted evaluates src in a yaegi interpreter with the standard
// library and exports (a hand-made symbol table of the names src uses)
// and returns the value of run().
func runInterpreted(t *testing.T, exports interp.Exports, src string) reflect.Value {
	t.Helper()
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(exports); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(src); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval("run()")
	if err != nil {
		t.Fatal(err)
	}
	return v
}
