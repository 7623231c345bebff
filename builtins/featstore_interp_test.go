package builtins_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/builtins"
	"github.com/traefik/yaegi/interp"
)

// TestFeatstoreInterpreted runs the feature store as a session user types
// it, in the yaegi interpreter with the generated symbol tables: an int8
// store and a hot cache feeding a DataLoader, a recovered ErrIndex panic,
// SIGN features, and a Store written in interpreted Go behind a compiled
// HotCache. (It lives in builtins, not featstore, so that no engine
// package imports builtins, tests included.)
func TestFeatstoreInterpreted(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(builtins.Symbols); err != nil {
		t.Fatal(err)
	}
	const src = `
import (
	"errors"
	"fmt"
	"strings"

	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// ramp is a Store written in the interpreter: row v is [v, v+0.5].
type ramp struct{ n int }

func (r ramp) NumNodes() int        { return r.n }
func (r ramp) Dim() int             { return 2 }
func (r ramp) DType() tensor.DType  { return tensor.Float32 }
func (r ramp) Bytes() int64         { return 0 }
func (r ramp) String() string       { return "ramp" }
func (r ramp) Gather(ids []int64) *tensor.Tensor {
	out := tensor.Zeros(len(ids), 2)
	r.GatherInto(out.Float32s(), 2, ids)
	return out
}
func (r ramp) GatherInto(dst []float32, stride int, ids []int64) {
	for i, v := range ids {
		dst[i*stride], dst[i*stride+1] = float32(v), float32(v)+0.5
	}
}

func run() string {
	var b strings.Builder
	g, err := graph.New(6, []int64{0, 1, 2, 3, 4, 5, 0, 0}, []int64{1, 2, 3, 4, 5, 0, 3, 4})
	if err != nil {
		panic(err)
	}
	feat := tensor.FromFloat32([]float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 6, 2)
	st, err := featstore.NewInt8(feat)
	if err != nil {
		panic(err)
	}
	hot, err := featstore.NewHotCache(st, g, featstore.HotCacheOptions{Capacity: 2})
	if err != nil {
		panic(err)
	}
	loader, err := sampling.NewDataLoader(g, tensor.FromInt64([]int64{3, 4, 5}), sampling.NeighborSampler{Fanouts: []int{2, 2}},
		sampling.LoaderOptions{BatchSize: 2, NumWorkers: 2, NodeFeatStores: map[string]featstore.Store{"feat": hot}})
	if err != nil {
		panic(err)
	}
	rows := 0
	for loader.Next() {
		rows += loader.Blocks()[0].SrcData("feat").Size(0)
	}
	s := hot.Stats()
	fmt.Fprintf(&b, "rows=%d counted=%d nodes=%v;", rows, s.Hits+s.Misses, hot.Nodes())
	perr := tensor.Catch(func() { st.Gather([]int64{7}) })
	fmt.Fprintf(&b, " index=%v;", errors.Is(perr, featstore.ErrIndex))
	sign, err := featstore.PropagateStore(g, feat, featstore.PropagateOptions{K: 2, DType: tensor.BFloat16})
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(&b, " sign=%v;", sign.Gather([]int64{0, 5}).Shape())
	rc, err := featstore.NewHotCacheNodes(ramp{6}, []int64{4})
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(&b, " ramp=%v %v", rc.Gather([]int64{4, 1}).Float32s(), rc.Stats())
	return b.String()
}
`
	if _, err := i.Eval(src); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval("run()")
	if err != nil {
		t.Fatal(err)
	}
	got := v.String()
	t.Log(got)
	for _, want := range []string{"nodes=[0 1]", "index=true", "sign=[2 6]", "ramp=[4 4.5 1 1.5] hits=1 misses=1"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
	var rows, counted int
	if _, err := fmt.Sscanf(got, "rows=%d counted=%d", &rows, &counted); err != nil || rows == 0 || rows != counted {
		t.Errorf("rows gathered %d, counted by the cache %d (%v)", rows, counted, err)
	}
}
