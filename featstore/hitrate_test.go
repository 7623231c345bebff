package featstore_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// epochHitRate runs one epoch of the DataLoader over g's training nodes
// (fanouts [15, 10], batches of 32) gathering "feat" through c, checks
// that every batch's features equal the backing store's rows, and returns
// the cache's statistics for the epoch.
func epochHitRate(t testing.TB, d *datasets.Dataset, c *featstore.HotCache) featstore.CacheStats {
	t.Helper()
	c.Reset()
	loader, err := sampling.NewDataLoader(d.Graph, d.TrainIdx, sampling.NeighborSampler{Fanouts: []int{15, 10}},
		sampling.LoaderOptions{BatchSize: 32, Shuffle: true, Seed: 7, NumWorkers: 2,
			NodeFeatStores: map[string]featstore.Store{"feat": c}})
	if err != nil {
		t.Fatal(err)
	}
	defer loader.Close()
	var rows int64
	for loader.Next() {
		in := loader.InputNodes().Int64s()
		rows += int64(len(in))
		got := loader.Blocks()[0].SrcData("feat").Float32s()
		if !slices.Equal(got, c.Backing().Gather(in).Float32s()) {
			t.Fatalf("batch %d: gathered features differ from the backing store", loader.BatchIndex())
		}
	}
	if err := loader.Err(); err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if st.Hits+st.Misses != rows {
		t.Fatalf("hits %d + misses %d != %d input rows", st.Hits, st.Misses, rows)
	}
	return st
}

// TestHotCacheEpoch measures the hit rate of a 10% degree-ordered cache on
// one sampled epoch of a power-law graph (datasets.ProductsLike at 0.2%
// scale: 4,898 nodes, 123,718 edges) and checks that ordering by degree
// beats a random 10% of the nodes by a wide margin.
func TestHotCacheEpoch(t *testing.T) {
	d, err := datasets.PowerLaw(datasets.ProductsLike(0.01, 1))
	if err != nil {
		t.Fatal(err)
	}
	back, err := featstore.NewInt8(d.Graph.NData("feat"))
	if err != nil {
		t.Fatal(err)
	}
	n := d.Graph.NumNodes()
	rng := rand.New(rand.NewPCG(1, 1))
	perm := rng.Perm(n)[:n/10]
	ids := make([]int64, len(perm))
	for i, v := range perm {
		ids[i] = int64(v)
	}
	random, err := featstore.NewHotCacheNodes(back, ids)
	if err != nil {
		t.Fatal(err)
	}
	base := epochHitRate(t, d, random)
	t.Logf("power-law graph %v, 10%% cache: random nodes %v", d.Graph, base)
	best := 0.0
	for _, deg := range []string{"in", "out", "total"} {
		c, err := featstore.NewHotCache(back, d.Graph, featstore.HotCacheOptions{Fraction: 0.1, Degree: deg})
		if err != nil {
			t.Fatal(err)
		}
		st := epochHitRate(t, d, c)
		t.Logf("10%% cache by %s-degree: %v", deg, st)
		best = max(best, st.HitRate)
	}
	if best < 2*base.HitRate {
		t.Errorf("best degree-ordered hit rate %.3f is not twice the random cache's %.3f", best, base.HitRate)
	}
}

// TestLoaderStoreErrors checks the DataLoader's up-front checks of
// NodeFeatStores and that a store's misuse panic in a worker comes back as
// an error naming the id.
func TestLoaderStoreErrors(t *testing.T) {
	g, err := graph.New(4, []int64{0, 1, 2, 3}, []int64{1, 2, 3, 0})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.FromFloat32([]float32{0, 1, 2, 3, 4, 5, 6, 7}, 4, 2)
	small, _ := featstore.NewInt8(tensor.FromFloat32([]float32{0, 1, 2}, 3, 1))
	good, _ := featstore.NewInt8(x)
	g.SetNData("feat", x)
	for _, c := range []struct {
		stores   map[string]featstore.Store
		prefetch []string
	}{
		{map[string]featstore.Store{"feat": nil}, nil},
		{map[string]featstore.Store{"x": small}, nil},
		{map[string]featstore.Store{"feat": good}, []string{"feat"}},
	} {
		_, err := sampling.NewDataLoader(g, tensor.FromInt64([]int64{0, 1}), sampling.NeighborSampler{Fanouts: []int{2}},
			sampling.LoaderOptions{NodeFeatStores: c.stores, PrefetchNodeFeats: c.prefetch})
		if err == nil {
			t.Errorf("%v %v: no error", c.stores, c.prefetch)
		} else {
			t.Log(err)
		}
	}
	loader, err := sampling.NewDataLoader(g, tensor.FromInt64([]int64{0, 1, 2, 3}), sampling.NeighborSampler{Fanouts: []int{2}},
		sampling.LoaderOptions{BatchSize: 2, NumWorkers: 1, NodeFeatStores: map[string]featstore.Store{"feat": good, "h": good}})
	if err != nil {
		t.Fatal(err)
	}
	for loader.Next() {
		b := loader.Blocks()[0]
		if !slices.Equal(b.SrcData("h").Float32s(), good.Gather(b.SrcNodeIDs()).Float32s()) ||
			!slices.Equal(b.SrcData("feat").Float32s(), b.SrcData("h").Float32s()) {
			t.Fatal("loader features differ from the store's")
		}
	}
	if err := loader.Err(); err != nil {
		t.Fatal(err)
	}
	good.Close()
	if loader.Next() || loader.Err() == nil {
		t.Errorf("a closed store: Next succeeded or no error (%v)", loader.Err())
	} else {
		t.Log(loader.Err())
	}
}
