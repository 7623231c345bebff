package sampling_test

// Products-scale benchmarks (issue 5): a synthetic graph with
// ogbn-products' shape (datasets.ProductsLike: 2.45M nodes, 61.9M edges,
// 100 features, 47 classes; about 2.5 GB to build). They run only when
// -bench selects them, never under -short:
//
//	go test ./sampling -run XXX -bench Products -benchtime 200x -timeout 60m
//	go test ./sampling -run XXX -bench ProductsEpoch/hidden=64 -benchtime 1x -timeout 60m
//
// GNNREPL_PRODUCTS_BATCHES=N limits an epoch benchmark to its first N
// batches and extrapolates the epoch time (reported as s/epoch, with
// batches counted in batches/epoch).

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graphstore"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

var products struct {
	once  sync.Once
	ds    *datasets.Dataset
	build time.Duration
	err   error
}

func productsDataset(b *testing.B) *datasets.Dataset {
	if testing.Short() {
		b.Skip("products-scale benchmark skipped under -short")
	}
	products.once.Do(func() {
		t0 := time.Now()
		products.ds, products.err = datasets.PowerLaw(datasets.ProductsLike(1, 1))
		if products.err == nil {
			products.ds.Graph.Adj()
		}
		products.build = time.Since(t0)
		fmt.Fprintf(os.Stderr, "products-like dataset built in %v: %v\n", products.build.Round(time.Millisecond), products.ds.Graph)
	})
	if products.err != nil {
		b.Fatal(products.err)
	}
	return products.ds
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkProductsSampling measures NeighborSampler.SampleBlocks with
// fanouts [15, 10, 5] on batches of 1024 training seeds (shuffled), on the
// in-memory graph and on the same graph stored with graphstore and opened
// by memory-mapping. One iteration is one batch; edges/s counts the
// sampled edges of all three blocks.
func BenchmarkProductsSampling(b *testing.B) {
	for _, kind := range []string{"memory", "mmap"} {
		b.Run(kind, func(b *testing.B) {
			ds := productsDataset(b)
			g := ds.Graph
			if kind == "mmap" {
				p := filepath.Join(b.TempDir(), "products.gnng")
				if err := graphstore.Save(p, g); err != nil {
					b.Fatal(err)
				}
				h, c, err := graphstore.Open(p)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				g = h
			}
			seeds := ds.TrainIdx.Int64s()
			perm := make([]int64, len(seeds))
			st := uint64(12345)
			for i, j := range permute(len(seeds), &st) {
				perm[i] = seeds[j]
			}
			s := sampling.NeighborSampler{Fanouts: []int{15, 10, 5}}
			nb := len(perm) / 1024
			edges := 0
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				k := i % nb
				blocks, err := s.SampleBlocks(g, perm[k*1024:(k+1)*1024], uint64(i/nb))
				if err != nil {
					b.Fatal(err)
				}
				for _, blk := range blocks {
					edges += blk.NumEdges()
				}
			}
			b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(float64(edges)/(processCPU()-cpu0).Seconds(), "edges/cpu-s")
			b.ReportMetric(float64(edges)/float64(b.N), "edges/batch")
		})
	}
}

// permute is a Fisher–Yates permutation of [0, n) from a xorshift stream.
func permute(n int, st *uint64) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		*st ^= *st << 13
		*st ^= *st >> 7
		*st ^= *st << 17
		j := int(*st % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// BenchmarkProductsEpoch trains a 3-layer GraphSAGE-mean (hidden 64 or
// 256, dropout 0.5, Adam lr 0.003) for one epoch over the training nodes:
// DataLoader with fanouts [15, 10, 5], batch 1024, shuffled, one sampling
// worker beside the training goroutine, features and labels gathered by
// the loader. It reports the epoch time (extrapolated when
// GNNREPL_PRODUCTS_BATCHES limits the batches), the peak tensor memory
// (tensor.MaxMemoryAllocated) and the Go heap's peak in-use bytes sampled
// after every batch (runtime.MemStats.HeapInuse), plus the process's peak
// resident set (getrusage maxrss).
func BenchmarkProductsEpoch(b *testing.B) {
	for _, hidden := range []int{64, 256} {
		b.Run(fmt.Sprintf("hidden=%d", hidden), func(b *testing.B) {
			ds := productsDataset(b)
			limit, _ := strconv.Atoi(os.Getenv("GNNREPL_PRODUCTS_BATCHES"))
			var epoch time.Duration
			var batches, total int
			var lastLoss float64
			var heapPeak uint64
			tensor.ResetPeakMemoryStats("cpu")
			for it := 0; it < b.N; it++ {
				model := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: hidden,
					OutFeats: ds.NumClasses, NumLayers: 3, Dropout: 0.5, Seed: 1})
				opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.003})
				dl, err := sampling.NewDataLoader(ds.Graph, ds.TrainIdx, sampling.NeighborSampler{Fanouts: []int{15, 10, 5}},
					sampling.LoaderOptions{BatchSize: 1024, Shuffle: true, Seed: 1, NumWorkers: 1,
						PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
				if err != nil {
					b.Fatal(err)
				}
				total = dl.Len()
				t0 := time.Now()
				batches = 0
				model.Train()
				for dl.Next() {
					blocks := dl.Blocks()
					logits := model.ForwardBlocks(blocks, blocks[0].SrcData("feat"))
					loss := tensor.CrossEntropy(logits, blocks[len(blocks)-1].DstData("label"))
					opt.ZeroGrad()
					loss.Backward()
					opt.Step()
					lastLoss = loss.Item()
					batches++
					var ms runtime.MemStats
					if batches%8 == 1 {
						runtime.ReadMemStats(&ms)
						heapPeak = max(heapPeak, ms.HeapInuse)
					}
					if limit > 0 && batches >= limit {
						break
					}
				}
				if err := dl.Err(); err != nil {
					b.Fatal(err)
				}
				dl.Close()
				epoch += time.Duration(float64(time.Since(t0)) * float64(total) / float64(batches))
			}
			var ru syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			b.ReportMetric(epoch.Seconds()/float64(b.N), "s/epoch")
			b.ReportMetric(float64(batches), "batches-run")
			b.ReportMetric(float64(total), "batches/epoch")
			b.ReportMetric(lastLoss, "last-loss")
			b.ReportMetric(float64(tensor.MaxMemoryAllocated("cpu"))/(1<<30), "GiB-tensor-peak")
			b.ReportMetric(float64(heapPeak)/(1<<30), "GiB-heap-peak")
			b.ReportMetric(float64(ru.Maxrss)/(1<<20), "GiB-maxrss")
		})
	}
}
