package nn

// Gradient checkpointing benchmarks: 3-layer GraphSAGE-mean (hidden 256,
// dropout 0.5, Adam) on a products-like synthetic graph
// (datasets.PowerLaw(datasets.ProductsLike(scale, 1))), trained with and
// without SAGEOptions.Checkpoint, on the full graph and on one batch of
// sampled blocks:
//
//	go test ./nn -run XXX -bench Checkpoint -benchtime 5x
//
// GNNREPL_CKPT_SCALE sets the full-graph scale (0.01 when unset: 24,490
// nodes, 618,591 edges); the block benchmark samples 1024 seeds with
// fanouts [15, 10, 5] from a graph of scale 0.05.
//
// Each iteration runs one plain and one checkpointed training step
// (interleaved, so that load from other processes hits both alike) and
// times them; the reported step times (wall clock, and the process's CPU
// time for %cpu-overhead) are medians. Memory is measured on
// separate, untimed steps of each model: act-peak-MiB is the peak of live
// tensor bytes above those held before the step (parameters, optimizer
// state, features, graph), read after every op with the garbage collected
// (so it counts what is reachable, not what awaits collection);
// act-saved-MiB is the live activation memory at the end of the forward
// pass (what is kept for the backward pass).
//
// Measured on the 2-core development machine (shared, loaded: step times
// vary by tens of percent between runs; the memory figures are exact and
// repeatable):
//
//	                       saved activations      step peak (live)      time
//	full graph, 0.01       343 -> 71 MiB  -79%    391 -> 286 MiB -27%   +32..45% CPU
//	full graph, 0.03       1029 -> 212 MiB -79%   1173 -> 858 MiB -27%  +14..37% CPU
//	blocks (1024 seeds)    257 -> 41 MiB  -84%    325 -> 293 MiB -10%   +31..53% CPU
//
// What is kept for backward drops by about 80%, but the peak of a step
// drops much less: during the backward pass of a recomputed layer its
// activations are all alive again (the autograd graph keeps every op's
// inputs, and the forward outputs stay referenced until Backward returns),
// beside the layer boundaries and the gradients; with 3 layers, one of them
// (and on blocks the first layer alone, whose destination nodes outnumber
// the later layers') is most of the peak. Recomputation costs one more
// forward pass of the first two layers, about 90% of a forward pass, and in
// this engine the backward pass costs only about 1.2-1.3 forward passes, so
// the overhead is 30-50%. Checkpointing only the convolution (ReLU and
// dropout kept) gives -52% saved, -15% peak; convolution and ReLU, -66%
// saved, -21% peak: the whole layer is the best granularity for memory.

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// processCPU returns the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveBytes returns the CPU tensor bytes still reachable: it collects
// garbage and waits until the finalizers that release collected tensors'
// bytes have run (the count stays put).
func liveBytes() int64 {
	runtime.GC()
	prev := tensor.MemoryAllocated("cpu")
	for stable := 0; stable < 4; {
		time.Sleep(20 * time.Microsecond)
		if cur := tensor.MemoryAllocated("cpu"); cur == prev {
			stable++
		} else {
			stable, prev = 0, cur
		}
	}
	return prev
}

// ckptStep is one training step of GraphSAGE: forward, cross-entropy,
// backward, Adam.
type ckptStep struct {
	m       *GraphSAGE
	opt     optim.Optimizer
	forward func(m *GraphSAGE) *tensor.Tensor // logits of the labelled rows
	labels  *tensor.Tensor
}

func (s *ckptStep) run() {
	s.opt.ZeroGrad()
	tensor.CrossEntropy(s.forward(s.m), s.labels).Backward()
	s.opt.Step()
}

// measure returns the peak live activation bytes of one step (read after
// every op) and the live activation bytes at the end of its forward pass.
func (s *ckptStep) measure() (peak, saved int64) {
	s.opt.ZeroGrad()
	base := liveBytes()
	var mu sync.Mutex
	var top int64
	prev := tensor.SetOpHook(func(string) func() {
		return func() {
			mu.Lock()
			defer mu.Unlock()
			top = max(top, liveBytes())
		}
	})
	loss := tensor.CrossEntropy(s.forward(s.m), s.labels)
	saved = liveBytes() - base
	loss.Backward()
	tensor.SetOpHook(prev)
	s.opt.Step()
	return top - base, saved
}

// benchCheckpoint compares plain and checkpointed training steps built by
// newStep (the same seed for both).
func benchCheckpoint(b *testing.B, newStep func(ckpt bool) *ckptStep) {
	plain, ckpt := newStep(false), newStep(true)
	plain.run() // warm up (sparse caches, BLAS threads, first allocations)
	ckpt.run()
	pPeak, pSaved := plain.measure()
	cPeak, cSaved := ckpt.measure()
	var pt, ct, pc, cc []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w0, c0 := time.Now(), processCPU()
		plain.run()
		w1, c1 := time.Now(), processCPU()
		ckpt.run()
		w2, c2 := time.Now(), processCPU()
		pt, pc = append(pt, float64(w1.Sub(w0))), append(pc, float64(c1-c0))
		ct, cc = append(ct, float64(w2.Sub(w1))), append(cc, float64(c2-c1))
	}
	b.StopTimer()
	median := func(v []float64) float64 {
		slices.Sort(v)
		return v[len(v)/2]
	}
	pm, cm := median(pt), median(ct)
	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	b.ReportMetric(pm/1e6, "ms/step-plain")
	b.ReportMetric(cm/1e6, "ms/step-ckpt")
	b.ReportMetric(100*(cm/pm-1), "%time-overhead")
	b.ReportMetric(100*(median(cc)/median(pc)-1), "%cpu-overhead")
	b.ReportMetric(mib(pPeak), "act-peak-MiB-plain")
	b.ReportMetric(mib(cPeak), "act-peak-MiB-ckpt")
	b.ReportMetric(100*(1-float64(cPeak)/float64(pPeak)), "%peak-reduction")
	b.ReportMetric(mib(pSaved), "act-saved-MiB-plain")
	b.ReportMetric(mib(cSaved), "act-saved-MiB-ckpt")
	b.ReportMetric(100*(1-float64(cSaved)/float64(pSaved)), "%saved-reduction")
	b.ReportMetric(0, "ns/op")
}

var ckptGraphs sync.Map // scale -> *datasets.Dataset

func productsLike(b *testing.B, scale float64) *datasets.Dataset {
	if d, ok := ckptGraphs.Load(scale); ok {
		return d.(*datasets.Dataset)
	}
	d, err := datasets.PowerLaw(datasets.ProductsLike(scale, 1))
	if err != nil {
		b.Fatal(err)
	}
	ckptGraphs.Store(scale, d)
	return d
}

func newSAGE(d *datasets.Dataset, ckpt bool) (*GraphSAGE, optim.Optimizer) {
	m := NewGraphSAGE(SAGEOptions{InFeats: d.NumFeatures, HiddenFeats: 256, OutFeats: d.NumClasses,
		NumLayers: 3, Dropout: 0.5, Seed: 1, Checkpoint: ckpt})
	return m, optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.003})
}

// BenchmarkCheckpointGraphSAGEFull trains on the whole products-like graph
// (loss on the training nodes).
func BenchmarkCheckpointGraphSAGEFull(b *testing.B) {
	scale := 0.01
	if s, err := strconv.ParseFloat(os.Getenv("GNNREPL_CKPT_SCALE"), 64); err == nil && s > 0 {
		scale = s
	}
	d := productsLike(b, scale)
	g, feat := d.Graph, d.Graph.NData("feat")
	labels := tensor.IndexSelect(d.Graph.NData("label"), d.TrainIdx)
	benchCheckpoint(b, func(ckpt bool) *ckptStep {
		m, opt := newSAGE(d, ckpt)
		return &ckptStep{m: m, opt: opt, labels: labels, forward: func(m *GraphSAGE) *tensor.Tensor {
			return tensor.IndexSelect(m.Forward(g, feat), d.TrainIdx)
		}}
	})
}

// BenchmarkCheckpointGraphSAGEBlocks trains on one batch of blocks: 1024
// training seeds, fanouts [15, 10, 5], from a products-like graph of scale
// 0.05 (122,451 nodes).
func BenchmarkCheckpointGraphSAGEBlocks(b *testing.B) {
	d := productsLike(b, 0.05)
	s := sampling.NeighborSampler{Fanouts: []int{15, 10, 5}}
	blocks, err := s.SampleBlocks(d.Graph, d.TrainIdx.Int64s()[:1024], 1)
	if err != nil {
		b.Fatal(err)
	}
	x := tensor.IndexSelect(d.Graph.NData("feat"), blocks[0].SrcNodes())
	labels := tensor.IndexSelect(d.Graph.NData("label"), blocks[len(blocks)-1].DstNodes())
	benchCheckpoint(b, func(ckpt bool) *ckptStep {
		m, opt := newSAGE(d, ckpt)
		return &ckptStep{m: m, opt: opt, labels: labels, forward: func(m *GraphSAGE) *tensor.Tensor {
			return m.ForwardBlocks(blocks, x)
		}}
	})
}
