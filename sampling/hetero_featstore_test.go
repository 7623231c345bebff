package sampling

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestHeteroLoaderFeatStores: HeteroNodeFeatStores gathers every node
// type's input rows from its store (float32, float16, int8, a hot cache
// over int8) into blocks[0].SrcData, the same rows PrefetchNodeFeats
// gathers from node data (exactly for float32 and the float16 of these
// small integers, within int8's rounding for int8), identically for every
// NumWorkers, and in StoreGatherDType when set.
func TestHeteroLoaderFeatStores(t *testing.T) {
	g := heteroGraph(t, 5)
	f32, err := featstore.NewPerType(g, "feat", tensor.Float32)
	if err != nil {
		t.Fatal(err)
	}
	f16, _ := featstore.NewPerType(g, "feat", tensor.Float16)
	i8, _ := featstore.NewPerType(g, "feat", tensor.Int8)
	hot, err := featstore.NewHotCachePerType(i8, g, featstore.HotCacheOptions{Fraction: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[string]*tensor.Tensor{"paper": tensor.FromInt64(rangeIDs(0, 120)), "author": tensor.FromInt64(rangeIDs(10, 50))}
	s := HeteroNeighborSampler{Fanouts: heteroFanouts(3, 2)}
	stores := map[string]*featstore.PerType{"x32": f32, "x16": f16, "x8": i8, "hot": hot}
	var ref [][]*graph.HeteroBlock
	for _, nw := range []int{0, 2} {
		dl, err := NewHeteroDataLoader(g, seeds, s, LoaderOptions{BatchSize: 32, Shuffle: true, Seed: 9, NumWorkers: nw,
			PrefetchNodeFeats: []string{"feat"}, HeteroNodeFeatStores: stores})
		if err != nil {
			t.Fatal(err)
		}
		got := heteroEpoch(t, dl)
		dl.Close()
		for b, bl := range got {
			first := bl[0]
			for _, nt := range []string{"paper", "author"} {
				want := first.SrcData(nt, "feat").Float32s()
				for _, name := range []string{"x32", "x16", "x8", "hot"} {
					x := first.SrcData(nt, name)
					if x.DType() != tensor.Float32 || x.Size(0) != first.NumSrcNodes(nt) || x.Size(1) != 3 {
						t.Fatalf("batch %d %s %s: %s %v", b, nt, name, x.DType(), x.Shape())
					}
					for i, v := range x.Float32s() {
						tol := 0.0
						if name == "x8" || name == "hot" {
							// Half a step of the row's int8 scale, (max - min) / 255.
							r := want[i/3*3 : i/3*3+3]
							tol = 1.001*float64(max(r[0], r[1], r[2])-min(r[0], r[1], r[2]))/255/2 + 1e-5
						}
						if d := math.Abs(float64(v - want[i])); d > tol {
							t.Fatalf("batch %d %s %s [%d] = %v, node data %v", b, nt, name, i, v, want[i])
						}
					}
				}
			}
			if first.HasSrcData("field", "x32") {
				t.Fatal("field has no store but got rows")
			}
		}
		if nw == 0 {
			ref = got
		} else {
			for i := range ref {
				if !heteroEqual(ref[i], got[i]) {
					t.Fatalf("NumWorkers %d: batch %d differs", nw, i)
				}
			}
		}
	}
	// StoreGatherDType: the rows come in bfloat16.
	dl, err := NewHeteroDataLoader(g, seeds, s, LoaderOptions{BatchSize: 64, StoreGatherDType: tensor.BFloat16,
		HeteroNodeFeatStores: map[string]*featstore.PerType{"x": f32}})
	if err != nil {
		t.Fatal(err)
	}
	for dl.Next() {
		if x := dl.Blocks()[0].SrcData("paper", "x"); x.DType() != tensor.BFloat16 {
			t.Fatalf("StoreGatherDType bfloat16: got %s", x.DType())
		}
	}
	if dl.Err() != nil {
		t.Fatal(dl.Err())
	}
	// A meta device gives meta rows of the right shape.
	dl, err = NewHeteroDataLoader(g, seeds, s, LoaderOptions{BatchSize: 64, Device: "meta", HeteroNodeFeatStores: map[string]*featstore.PerType{"x": i8}})
	if err != nil {
		t.Fatal(err)
	}
	if !dl.Next() {
		t.Fatal(dl.Err())
	}
	if x := dl.Blocks()[0].SrcData("author", "x"); !x.IsMeta() || x.Size(0) != dl.Blocks()[0].NumSrcNodes("author") || x.Size(1) != 3 {
		t.Fatalf("meta rows %v meta=%v", x.Shape(), x.IsMeta())
	}
	dl.Close()
}

func TestHeteroLoaderFeatStoreErrors(t *testing.T) {
	g := heteroGraph(t, 6)
	other := heteroGraph(t, 6)
	// A graph with a node type g lacks, and one with fewer papers.
	extra, _ := graph.NewHetero(map[string]int{"paper": 500, "journal": 4}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "journal", EType: "has", Dst: "paper"}: {Src: []int64{0}, Dst: []int64{1}}})
	extra.SetNDataOf("journal", "feat", tensor.Ones(4, 2))
	small, _ := graph.NewHetero(map[string]int{"paper": 5}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "paper", EType: "cites", Dst: "paper"}: {Src: []int64{0}, Dst: []int64{1}}})
	small.SetNDataOf("paper", "feat", tensor.Ones(5, 3))
	okStore, _ := featstore.NewPerType(other, "feat", tensor.Float16)
	journal, _ := featstore.NewPerType(extra, "feat", tensor.Float32)
	short, _ := featstore.NewPerType(small, "feat", tensor.Float32)
	seeds := map[string]*tensor.Tensor{"paper": tensor.FromInt64([]int64{1, 2})}
	s := HeteroNeighborSampler{Fanouts: heteroFanouts(2)}
	for _, c := range []struct {
		name string
		opts LoaderOptions
		want string
	}{
		{"nil", LoaderOptions{HeteroNodeFeatStores: map[string]*featstore.PerType{"x": nil}}, `HeteroNodeFeatStores["x"] is nil`},
		{"also prefetched", LoaderOptions{PrefetchNodeFeats: []string{"feat"}, HeteroNodeFeatStores: map[string]*featstore.PerType{"feat": okStore}}, "both in HeteroNodeFeatStores and in PrefetchNodeFeats"},
		{"unknown type", LoaderOptions{HeteroNodeFeatStores: map[string]*featstore.PerType{"x": journal}}, `node type "journal", which the graph does not have`},
		{"rows", LoaderOptions{HeteroNodeFeatStores: map[string]*featstore.PerType{"x": short}}, `node type "paper" has 5 rows, the type 500 nodes`},
		{"homogeneous stores", LoaderOptions{NodeFeatStores: map[string]featstore.Store{"x": okStore.Store("paper")}}, "use HeteroNodeFeatStores"},
	} {
		_, err := NewHeteroDataLoader(g, seeds, s, c.opts)
		if !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want ErrArgument containing %q", c.name, err, c.want)
		}
	}
	// The homogeneous loader rejects HeteroNodeFeatStores.
	hg, err := graph.New(4, []int64{0, 1, 2}, []int64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewDataLoader(hg, tensor.FromInt64([]int64{0}), NeighborSampler{Fanouts: []int{1}}, LoaderOptions{HeteroNodeFeatStores: map[string]*featstore.PerType{"x": okStore}})
	if !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "use NodeFeatStores") {
		t.Errorf("NewDataLoader with HeteroNodeFeatStores: %v", err)
	}
}
