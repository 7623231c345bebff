package featstore_test

// Benchmarks at products-like scale (datasets.ProductsLike(0.05, 1):
// 122,451 nodes, 3.09M edges, 100 features; GNNREPL_FEATSTORE_SCALE
// overrides the scale, 1 being ogbn-products' full size):
//
//	go test ./featstore -run XXX -bench 'Gather|Propagate' -benchtime 20x
//	go test ./featstore -run XXX -bench HotCacheEpoch -benchtime 1x
//
// BenchmarkGather gathers the input nodes of one sampled batch (1024
// seeds, fanouts [15, 10, 5]) from each store: rows/s, GB/s of float32
// output and the stored bytes relative to float32. BenchmarkHotCacheEpoch
// reports the hit rate of 5%, 10% and 20% caches over one sampled epoch
// (fanouts [15, 10, 5], batches of 1024*scale seeds, so that a batch holds
// the share of the graph it holds at full size; one epoch is enough:
// -bench HotCacheEpoch -benchtime 1x). BenchmarkPropagate times one hop of
// Â X.

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

var bench struct {
	once  sync.Once
	ds    *datasets.Dataset
	scale float64
	batch []int64 // input nodes of one sampled batch
	err   error
}

func benchData(b *testing.B) (*datasets.Dataset, []int64) {
	bench.once.Do(func() {
		bench.scale = 0.05
		if s := os.Getenv("GNNREPL_FEATSTORE_SCALE"); s != "" {
			if bench.scale, bench.err = strconv.ParseFloat(s, 64); bench.err != nil {
				return
			}
		}
		bench.ds, bench.err = datasets.PowerLaw(datasets.ProductsLike(bench.scale, 1))
		if bench.err != nil {
			return
		}
		seeds := bench.ds.TrainIdx.Int64s()
		seeds = seeds[:min(1024, len(seeds))]
		var blocks []*graph.Block
		blocks, bench.err = sampling.NeighborSampler{Fanouts: []int{15, 10, 5}}.SampleBlocks(bench.ds.Graph, seeds, 1)
		if bench.err == nil {
			bench.batch = blocks[0].SrcNodeIDs()
		}
		fmt.Fprintf(os.Stderr, "featstore bench: %v; a batch of %d seeds has %d input nodes\n", bench.ds.Graph, len(seeds), len(bench.batch))
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.ds, bench.batch
}

func BenchmarkGather(b *testing.B) {
	d, ids := benchData(b)
	feat := d.Graph.NData("feat")
	f32bytes := feat.Nbytes()
	type named struct {
		name string
		s    featstore.Store
	}
	var list []named
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float16, tensor.BFloat16, tensor.Int8} {
		s, err := featstore.New(feat, dt)
		if err != nil {
			b.Fatal(err)
		}
		list = append(list, named{dt.String(), s})
	}
	hot, err := featstore.NewHotCache(list[3].s, d.Graph, featstore.HotCacheOptions{Fraction: 0.1})
	if err != nil {
		b.Fatal(err)
	}
	list = append(list, named{"hotcache10%-int8", hot})
	for _, c := range list {
		b.Run(c.name, func(b *testing.B) {
			out := make([]float32, len(ids)*c.s.Dim())
			b.SetBytes(int64(len(out)) * 4)
			for b.Loop() {
				c.s.GatherInto(out, c.s.Dim(), ids)
			}
			b.ReportMetric(float64(len(ids))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(c.s.Bytes())/float64(f32bytes), "x_f32_bytes")
		})
	}
	fmt.Fprintf(os.Stderr, "featstore bench: %v\n", hot)
}

func BenchmarkHotCacheEpoch(b *testing.B) {
	d, _ := benchData(b)
	// Batches hold the same share of the nodes as batches of 1024 seeds
	// do on the full-size graph.
	batch := max(32, int(1024*bench.scale))
	back, err := featstore.NewInt8(d.Graph.NData("feat"))
	if err != nil {
		b.Fatal(err)
	}
	for _, frac := range []float64{0.05, 0.1, 0.2} {
		for _, deg := range []string{"out", "in"} {
			b.Run(fmt.Sprintf("cache=%g/degree=%s", frac, deg), func(b *testing.B) {
				c, err := featstore.NewHotCache(back, d.Graph, featstore.HotCacheOptions{Fraction: frac, Degree: deg})
				if err != nil {
					b.Fatal(err)
				}
				loader, err := sampling.NewDataLoader(d.Graph, d.TrainIdx, sampling.NeighborSampler{Fanouts: []int{15, 10, 5}},
					sampling.LoaderOptions{BatchSize: batch, Shuffle: true, Seed: 1, NumWorkers: 2,
						NodeFeatStores: map[string]featstore.Store{"feat": c}})
				if err != nil {
					b.Fatal(err)
				}
				defer loader.Close()
				for b.Loop() {
					c.Reset()
					for loader.Next() {
					}
					if err := loader.Err(); err != nil {
						b.Fatal(err)
					}
				}
				st := c.Stats()
				b.ReportMetric(st.HitRate, "hit_rate")
				b.ReportMetric(float64(st.Hits+st.Misses), "rows/epoch")
			})
		}
	}
}

func BenchmarkPropagate(b *testing.B) {
	d, _ := benchData(b)
	x := d.Graph.NData("feat")
	d.Graph.Adj()
	b.ResetTimer()
	for b.Loop() {
		if _, err := featstore.Propagate(d.Graph, x, 1, "both"); err != nil {
			b.Fatal(err)
		}
	}
	e := float64(d.Graph.NumEdges() + d.Graph.NumNodes())
	b.ReportMetric(e*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}
