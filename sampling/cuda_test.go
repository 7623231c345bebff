package sampling_test

// GPU tests and benchmarks of the DataLoader (scripts/gpu-check.sh runs
// them; they skip without a CUDA GPU).

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func needCUDA(tb testing.TB) {
	tb.Helper()
	if ok, why := tensor.CUDAStatus(); !ok {
		tb.Skipf("no CUDA GPU: %s", why)
	}
}

// TestLoaderCUDAPinMemory: Device "cuda" with and without PinMemory, with
// and without workers, hands out the CPU loader's batches, on the GPU.
func TestLoaderCUDAPinMemory(t *testing.T) {
	needCUDA(t)
	ds, err := datasets.PowerLaw(datasets.ProductsLike(0.002, 3))
	if err != nil {
		t.Fatal(err)
	}
	g := ds.Graph
	s := sampling.NeighborSampler{Fanouts: []int{5, 5}}
	base := sampling.LoaderOptions{BatchSize: 128, Shuffle: true, Seed: 2,
		PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}}
	cpu, err := sampling.NewDataLoader(g, ds.TrainIdx, s, base)
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	var wantX [][]float32
	var wantY [][]int64
	for cpu.Next() {
		b := cpu.Blocks()
		wantX = append(wantX, b[0].SrcData("feat").Float32s())
		wantY = append(wantY, b[len(b)-1].DstData("label").Int64s())
	}
	for _, pin := range []bool{false, true} {
		for _, workers := range []int{0, 2} {
			o := base
			o.Device, o.PinMemory, o.NumWorkers = "cuda", pin, workers
			dl, err := sampling.NewDataLoader(g, ds.TrainIdx, s, o)
			if err != nil {
				t.Fatal(err)
			}
			for epoch := 0; epoch < 2; epoch++ {
				dl.SetEpoch(0) // the same shuffle as the CPU loader's first epoch
				i := 0
				for dl.Next() {
					b := dl.Blocks()
					x, y := b[0].SrcData("feat"), b[len(b)-1].DstData("label")
					if x.Device() != "cuda:0" || y.Device() != "cuda:0" {
						t.Fatalf("pin %v: batch on %s / %s", pin, x.Device(), y.Device())
					}
					// A GPU op on the batch (queued after the copy's event).
					sum := tensor.Sum(tensor.MulScalar(x, 2)).ToCPU().Float32s()[0]
					var want, mag float64
					for _, v := range wantX[i] {
						want += 2 * float64(v)
						mag += 2 * math.Abs(float64(v))
					}
					if math.Abs(float64(sum)-want) > 1e-4*mag+1e-3 {
						t.Fatalf("pin %v workers %d batch %d: GPU sum %g, want %g", pin, workers, i, sum, want)
					}
					if !slices.Equal(x.ToCPU().Float32s(), wantX[i]) || !slices.Equal(y.ToCPU().Int64s(), wantY[i]) {
						t.Fatalf("pin %v workers %d batch %d differs from the CPU loader's", pin, workers, i)
					}
					i++
				}
				if err := dl.Err(); err != nil {
					t.Fatal(err)
				}
				if i != len(wantX) {
					t.Fatalf("%d batches, want %d", i, len(wantX))
				}
			}
			if err := dl.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// BenchmarkProductsEpochCUDA trains the products model on the GPU
// (3-layer GraphSAGE-mean, hidden 256, fanouts [15, 10, 5], batch 1024,
// Adam; host sampling with 4 workers), with the batches copied
// synchronously ("copy=sync") or staged in pinned memory and copied on a
// second stream ("copy=pinned"). One iteration is one training batch
// (after 3 warm-up batches); s/epoch extrapolates to the whole epoch, and
// the throughput gain of pinned over sync is the ratio of the two.
// GNNREPL_PRODUCTS_SCALE (default 1) scales the graph.
func BenchmarkProductsEpochCUDA(b *testing.B) {
	for _, mode := range []string{"sync", "pinned"} {
		b.Run("copy="+mode, func(b *testing.B) {
			needCUDA(b)
			ds := productsCUDADataset(b)
			model := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: ds.NumFeatures, HiddenFeats: 256,
				OutFeats: ds.NumClasses, NumLayers: 3, Dropout: 0.5, Seed: 1})
			if err := model.To("cuda"); err != nil {
				b.Fatal(err)
			}
			opt := optim.NewAdam(model.Parameters(), optim.AdamOptions{LR: 0.003})
			dl, err := sampling.NewDataLoader(ds.Graph, ds.TrainIdx, sampling.NeighborSampler{Fanouts: []int{15, 10, 5}},
				sampling.LoaderOptions{BatchSize: 1024, Shuffle: true, Seed: 1, NumWorkers: 4, Device: "cuda",
					PinMemory: mode == "pinned", PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
			if err != nil {
				b.Fatal(err)
			}
			defer dl.Close()
			model.Train()
			step := func() {
				if !dl.Next() {
					if err := dl.Err(); err != nil {
						b.Fatal(err)
					}
					if !dl.Next() { // a new epoch
						b.Fatal(dl.Err())
					}
				}
				blocks := dl.Blocks()
				logits := model.ForwardBlocks(blocks, blocks[0].SrcData("feat"))
				loss := tensor.CrossEntropy(logits, blocks[len(blocks)-1].DstData("label"))
				opt.ZeroGrad()
				loss.Backward()
				opt.Step()
			}
			for i := 0; i < 3; i++ {
				step()
			}
			if err := tensor.Synchronize("cuda"); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			t0 := time.Now()
			for i := 0; i < b.N; i++ {
				step()
			}
			if err := tensor.Synchronize("cuda"); err != nil {
				b.Fatal(err)
			}
			per := time.Since(t0) / time.Duration(b.N)
			epoch := per * time.Duration(dl.Len())
			b.ReportMetric(float64(dl.Len()), "batches/epoch")
			b.ReportMetric(epoch.Seconds(), "s/epoch")
			b.ReportMetric(1/per.Seconds(), "batches/s")
			fmt.Printf("SUMMARY sampling: products epoch on cuda, copy=%s: %.2f s/epoch (%d batches, %.1f batches/s)\n",
				mode, epoch.Seconds(), dl.Len(), 1/per.Seconds())
		})
	}
}

func productsCUDADataset(b *testing.B) *datasets.Dataset {
	scale := 1.0
	if v, err := strconv.ParseFloat(os.Getenv("GNNREPL_PRODUCTS_SCALE"), 64); err == nil && v > 0 {
		scale = v
	}
	if scale == 1 {
		return productsDataset(b)
	}
	ds, err := datasets.PowerLaw(datasets.ProductsLike(scale, 1))
	if err != nil {
		b.Fatal(err)
	}
	return ds
}
