package nn

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

var benchMAG struct {
	once sync.Once
	d    *datasets.HeteroDataset
	err  error
}

// BenchmarkRGCNMinibatchSyntheticMAG measures R-GCN minibatch training on
// the full-size synthetic ogbn-mag graph (datasets.SyntheticMAG, 1.94M
// nodes, 36.8M edges of 7 relations; author, field and institution
// features precomputed as the mean of their papers' / authors' features):
// HeteroDataLoader over the training papers (batch 1024, shuffled, one
// worker sampling ahead, fanouts [25, 20] per edge type), a 2-layer
// RGCN (128 -> 64 -> 349, self loop, full weights per relation), Adam.
// One iteration is one batch; "s/epoch" extrapolates the mean batch time
// to the epoch's 615 batches (the goal is <= 120 s on 2 cores), and
// "cpu-s/epoch" the process's CPU time likewise (less disturbed by other
// programs on a shared machine; on 2 idle cores the wall time is at least
// half of it). Building
// the graph (about 30 s) is outside the timing. Run with -benchtime 20x.
//
// The loader recycles its feature buffers (LoaderOptions.ReuseBuffers);
// GNNREPL_REUSE_BUFFERS=0 turns that off. GNNREPL_FULL_EPOCH=1 times one
// real epoch instead: every iteration runs all of the epoch's batches, so
// "s/epoch" is measured, not extrapolated (run it with -benchtime 1x).
//
// Measured 2026-12-07 on a quiet 2-core AMD EPYC machine (OpenBLAS), one
// real epoch of 615 batches, twice: 62.6 s wall / 117.8 CPU-s (load 0.0
// before the run) and 53.2 s / 100.7 CPU-s (load 0.9); 586K sampled
// edges and 403K input nodes per batch:
//
//	GNNREPL_FULL_EPOCH=1 go test -run '^$' -bench RGCNMinibatchSyntheticMAG -benchtime 1x ./nn/
func BenchmarkRGCNMinibatchSyntheticMAG(b *testing.B) {
	benchMAG.once.Do(func() {
		benchMAG.d, benchMAG.err = datasets.SyntheticMAG(datasets.SyntheticMAGOptions{Seed: 1})
		if benchMAG.err == nil {
			magFeatures(b, benchMAG.d.Graph)
		}
	})
	if benchMAG.err != nil {
		b.Fatal(benchMAG.err)
	}
	d := benchMAG.d
	g := d.Graph
	m := NewRGCN(RGCNOptions{InFeats: 128, HiddenFeats: 64, OutFeats: d.NumClasses, NumRels: len(g.CanonicalETypes()),
		Regularizer: "none", SelfLoop: true, Seed: 1})
	opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01})
	s := sampling.HeteroNeighborSampler{Fanouts: []map[string]int{{"*": 25}, {"*": 20}}}
	dl, err := sampling.NewHeteroDataLoader(g, map[string]*tensor.Tensor{"paper": d.TrainIdx}, s,
		sampling.LoaderOptions{BatchSize: 1024, Shuffle: true, Seed: 1, NumWorkers: 1, PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"},
			ReuseBuffers: os.Getenv("GNNREPL_REUSE_BUFFERS") != "0"})
	if err != nil {
		b.Fatal(err)
	}
	defer dl.Close()
	m.Train()
	edges, inputs := 0, 0
	n := b.N
	if os.Getenv("GNNREPL_FULL_EPOCH") == "1" {
		n = b.N * dl.Len()
	}
	b.ResetTimer()
	t0, c0 := time.Now(), processCPU()
	for i := 0; i < n; i++ {
		if !dl.Next() {
			if dl.Err() != nil {
				b.Fatal(dl.Err())
			}
			i--
			continue
		}
		blocks := dl.Blocks()
		x := map[string]*tensor.Tensor{}
		for _, nt := range blocks[0].NTypes() {
			x[nt] = blocks[0].SrcData(nt, "feat")
			inputs += blocks[0].NumSrcNodes(nt)
		}
		for _, blk := range blocks {
			edges += blk.NumEdges()
		}
		out := m.ForwardBlocks(blocks, x)
		loss := tensor.CrossEntropy(out["paper"], blocks[len(blocks)-1].DstData("paper", "label"))
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	per := time.Since(t0).Seconds() / float64(n)
	b.ReportMetric(per*float64(dl.Len()), "s/epoch")
	b.ReportMetric((processCPU()-c0).Seconds()/float64(n)*float64(dl.Len()), "cpu-s/epoch")
	b.ReportMetric(float64(edges)/float64(n), "edges/batch")
	b.ReportMetric(float64(inputs)/float64(n), "inputs/batch")
}
