package sampling

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// batch is a copy of one batch's content, for comparisons.
type batch struct {
	in, out []int64
	blocks  [][4][]int64 // per block: sources, indptr, indices, edge ids
}

func snapshot(dl *DataLoader) batch {
	b := batch{in: slices.Clone(dl.InputNodes().Int64s()), out: slices.Clone(dl.OutputNodes().Int64s())}
	for _, blk := range dl.Blocks() {
		a := blk.Adj()
		b.blocks = append(b.blocks, [4][]int64{slices.Clone(blk.SrcNodeIDs()), slices.Clone(a.Indptr),
			slices.Clone(a.Indices), slices.Clone(blk.EIDs().Int64s())})
	}
	return b
}

// epoch runs one epoch and returns its batches.
func epoch(t *testing.T, dl *DataLoader) []batch {
	t.Helper()
	var out []batch
	for dl.Next() {
		out = append(out, snapshot(dl))
	}
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func newLoader(t testing.TB, g *graph.Graph, seeds []int64, s Sampler, o LoaderOptions) *DataLoader {
	t.Helper()
	dl, err := NewDataLoader(g, tensor.FromInt64(seeds), s, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dl.Close() })
	return dl
}

func rangeIDs(lo, hi int) []int64 {
	out := make([]int64, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, int64(i))
	}
	return out
}

// waitGoroutines waits until the goroutine count is back to want (a worker
// that has signalled it is done may take a moment to exit) and fails when
// it never is.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	for i := 0; i < 400; i++ {
		if runtime.NumGoroutine() <= want {
			return
		}
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
}

func TestLoaderSameForEveryNumWorkers(t *testing.T) {
	g := powerLaw(t, 5000, 60000, 11)
	seeds := rangeIDs(100, 1100)
	s := NeighborSampler{Fanouts: []int{5, 10, 15}}
	var ref [][]batch
	for _, nw := range []int{0, 1, 4} {
		dl := newLoader(t, g, seeds, s, LoaderOptions{BatchSize: 64, Shuffle: true, NumWorkers: nw, Seed: 3})
		var epochs [][]batch
		for e := 0; e < 2; e++ {
			epochs = append(epochs, epoch(t, dl))
		}
		if len(epochs[0]) != dl.Len() || dl.Len() != 16 {
			t.Fatalf("NumWorkers %d: %d batches, Len %d, want 16", nw, len(epochs[0]), dl.Len())
		}
		if ref == nil {
			ref = epochs
			for _, b := range epochs[0] {
				checkBlocks(t, g, s, b.out, sampleAgain(t, s, g, b.out, EpochSeed(3, 0)))
			}
			continue
		}
		for e := range epochs {
			for i := range epochs[e] {
				if fmt.Sprint(epochs[e][i]) != fmt.Sprint(ref[e][i]) {
					t.Fatalf("NumWorkers %d: epoch %d batch %d differs from NumWorkers 0", nw, e, i)
				}
			}
		}
	}
	if fmt.Sprint(ref[0][0]) == fmt.Sprint(ref[1][0]) {
		t.Error("two epochs gave the same first batch")
	}
}

func sampleAgain(t *testing.T, s NeighborSampler, g *graph.Graph, seeds []int64, es uint64) []*graph.Block {
	t.Helper()
	return mustSample(t, s, g, seeds, es)
}

func TestLoaderSameSampleForEveryBatching(t *testing.T) {
	g := powerLaw(t, 3000, 30000, 12)
	seeds := rangeIDs(0, 300)
	s := NeighborSampler{Fanouts: []int{4, 6}}
	// trees[seed] for each configuration must agree.
	var ref map[int64]string
	for _, o := range []LoaderOptions{
		{BatchSize: 1},
		{BatchSize: 7, Shuffle: true, NumWorkers: 2},
		{BatchSize: 300},
		{BatchSize: 64, Shuffle: true, Seed: 99}, // another shuffle, same sampler seed below
	} {
		dl := newLoader(t, g, seeds, s, o)
		trees := map[int64]string{}
		for dl.Next() {
			for _, v := range dl.OutputNodes().Int64s() {
				trees[v] = fmt.Sprint(tree(dl.Blocks(), v))
			}
		}
		if err := dl.Err(); err != nil {
			t.Fatal(err)
		}
		if o.Seed != 0 {
			continue // a different Seed samples differently; only its coverage counts
		}
		if len(trees) != len(seeds) {
			t.Fatalf("%+v: %d seeds seen, want %d", o, len(trees), len(seeds))
		}
		if ref == nil {
			ref = trees
			continue
		}
		for v, tr := range trees {
			if tr != ref[v] {
				t.Fatalf("%+v: the sample of seed %d differs from batch size 1", o, v)
			}
		}
	}
}

func TestLoaderShuffleDropLast(t *testing.T) {
	g := powerLaw(t, 1000, 5000, 13)
	seeds := rangeIDs(10, 110) // 100 seeds
	s := NeighborSampler{Fanouts: []int{3}}
	collect := func(o LoaderOptions, epochs int) [][]int64 {
		dl := newLoader(t, g, seeds, s, o)
		var out [][]int64
		for e := 0; e < epochs; e++ {
			var ids []int64
			sizes := []int{}
			for dl.Next() {
				ids = append(ids, dl.OutputNodes().Int64s()...)
				sizes = append(sizes, dl.OutputNodes().Numel())
				if dl.BatchIndex() != len(sizes)-1 {
					t.Fatalf("BatchIndex %d at batch %d", dl.BatchIndex(), len(sizes)-1)
				}
			}
			if dl.Err() != nil {
				t.Fatal(dl.Err())
			}
			if len(sizes) != dl.Len() {
				t.Fatalf("%+v: %d batches, Len %d", o, len(sizes), dl.Len())
			}
			for i, n := range sizes {
				if n != o.BatchSize && (o.DropLast || i != len(sizes)-1) {
					t.Fatalf("%+v: batch %d has %d seeds", o, i, n)
				}
			}
			out = append(out, ids)
		}
		return out
	}
	plain := collect(LoaderOptions{BatchSize: 30}, 2)
	if !slices.Equal(plain[0], seeds) || !slices.Equal(plain[1], seeds) {
		t.Error("without Shuffle the seeds must come in their order")
	}
	dropped := collect(LoaderOptions{BatchSize: 30, DropLast: true}, 1)
	if !slices.Equal(dropped[0], seeds[:90]) {
		t.Errorf("DropLast: got %d seeds", len(dropped[0]))
	}
	sh := collect(LoaderOptions{BatchSize: 30, Shuffle: true, Seed: 5}, 2)
	for e, ids := range sh {
		sorted := slices.Sorted(slices.Values(ids))
		if !slices.Equal(sorted, seeds) {
			t.Errorf("epoch %d: shuffled seeds are not a permutation", e)
		}
		if slices.Equal(ids, seeds) {
			t.Errorf("epoch %d: Shuffle left the order unchanged", e)
		}
	}
	if slices.Equal(sh[0], sh[1]) {
		t.Error("two epochs shuffled the same way")
	}
	if again := collect(LoaderOptions{BatchSize: 30, Shuffle: true, Seed: 5}, 1); !slices.Equal(again[0], sh[0]) {
		t.Error("the same Seed shuffled differently")
	}
	shd := collect(LoaderOptions{BatchSize: 30, Shuffle: true, DropLast: true, Seed: 5}, 1)
	if len(shd[0]) != 90 || !slices.Equal(shd[0], sh[0][:90]) {
		t.Error("Shuffle with DropLast must drop the tail of the shuffled order")
	}
	// Batch size 0 means 1.
	dl := newLoader(t, g, seeds[:3], s, LoaderOptions{})
	if dl.Len() != 3 || dl.Options().BatchSize != 1 {
		t.Errorf("default batch size: Len %d, options %+v", dl.Len(), dl.Options())
	}
	// SetEpoch replays an epoch.
	dl2 := newLoader(t, g, seeds, s, LoaderOptions{BatchSize: 30, Shuffle: true, Seed: 5})
	dl2.SetEpoch(1)
	var ids []int64
	for dl2.Next() {
		ids = append(ids, dl2.OutputNodes().Int64s()...)
	}
	if !slices.Equal(ids, sh[1]) || dl2.Epoch() != 2 {
		t.Errorf("SetEpoch(1) did not replay epoch 1 (epoch now %d)", dl2.Epoch())
	}
}

func TestLoaderFeatures(t *testing.T) {
	d := loadCora(t)
	g := d.Graph
	s := NeighborSampler{Fanouts: []int{15, 10}}
	dl, err := NewDataLoader(g, g.NData("train_mask"), s, LoaderOptions{BatchSize: 32, Shuffle: true,
		NumWorkers: 2, PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}})
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	if dl.NumSeeds() != 140 || dl.Len() != 5 {
		t.Fatalf("%v", dl)
	}
	feat, label := g.NData("feat").Float32s(), g.NData("label").Int64s()
	f := g.NData("feat").Size(1)
	seen := 0
	for dl.Next() {
		blocks := dl.Blocks()
		in, out := dl.InputNodes().Int64s(), dl.OutputNodes().Int64s()
		checkBlocks(t, g, s, out, blocks)
		x := blocks[0].SrcData("feat")
		if x.Size(0) != len(in) || x.Size(1) != f {
			t.Fatalf("feat shape %v for %d input nodes", x.Shape(), len(in))
		}
		for i, v := range in {
			if !slices.Equal(x.Float32s()[i*f:(i+1)*f], feat[int(v)*f:int(v+1)*f]) {
				t.Fatalf("feat row %d is not node %d's", i, v)
			}
		}
		y := blocks[1].DstData("label").Int64s()
		for i, v := range out {
			if y[i] != label[v] || !g.NData("train_mask").Bools()[v] {
				t.Fatalf("label of output %d (node %d)", i, v)
			}
		}
		seen += len(out)
	}
	if dl.Err() != nil || seen != 140 {
		t.Fatalf("err %v, %d seeds", dl.Err(), seen)
	}
	// Edge features and the int64 tensor constructor.
	w := make([]float32, g.NumEdges())
	for i := range w {
		w[i] = float32(i)
	}
	_ = g.SetEData("ew", tensor.FromFloat32(w))
	dl2, err := NewDataLoader(g, d.ValIdx, s, LoaderOptions{BatchSize: 100, PrefetchEdgeFeats: []string{"ew"}})
	if err != nil {
		t.Fatal(err)
	}
	for dl2.Next() {
		for _, b := range dl2.Blocks() {
			for p, e := range b.EIDs().Int64s() {
				if b.EData("ew").Float32s()[p] != float32(e) {
					t.Fatal("edge feature not gathered by parent edge id")
				}
			}
		}
	}
	if dl2.Err() != nil {
		t.Fatal(dl2.Err())
	}
}

func TestLoaderErrors(t *testing.T) {
	g := star(t, 5)
	s := NeighborSampler{Fanouts: []int{2}}
	cases := []struct {
		seeds []int64
		s     Sampler
		o     LoaderOptions
		want  string
	}{
		{[]int64{1, 9}, s, LoaderOptions{}, "seed node id 9"},
		{[]int64{-1}, s, LoaderOptions{}, "seed node id -1"},
		{[]int64{1}, s, LoaderOptions{BatchSize: -4}, "BatchSize (-4)"},
		{[]int64{1}, s, LoaderOptions{NumWorkers: -1}, "NumWorkers (-1)"},
		{[]int64{1}, s, LoaderOptions{PrefetchNodeFeats: []string{"feat"}}, `PrefetchNodeFeats: no node data "feat"`},
		{[]int64{1}, s, LoaderOptions{PrefetchLabels: []string{"y"}}, `PrefetchLabels: no node data "y"`},
		{[]int64{1}, s, LoaderOptions{PrefetchEdgeFeats: []string{"e"}}, `PrefetchEdgeFeats: no edge data "e"`},
		{[]int64{1}, NeighborSampler{Fanouts: []int{-7}}, LoaderOptions{}, "Fanouts[0] = -7"},
		{[]int64{1}, nil, LoaderOptions{}, "sampler is nil"},
		{[]int64{1}, s, LoaderOptions{Device: "tpu"}, `Device "tpu"`},
	}
	for _, c := range cases {
		_, err := NewDataLoader(g, tensor.FromInt64(c.seeds), c.s, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrArgument) {
			t.Errorf("%v %+v: error %v, want one naming %q", c.seeds, c.o, err, c.want)
		}
	}
	if _, err := NewDataLoader(g, tensor.Zeros(3), s, LoaderOptions{}); err == nil || !strings.Contains(err.Error(), "bool mask") {
		t.Errorf("float seeds: %v", err)
	}
	// A sampler error mid-epoch ends the epoch with that error, and a
	// panicking sampler becomes an error even in a worker goroutine.
	for _, nw := range []int{0, 2} {
		dl := newLoader(t, g, []int64{0, 1, 2, 3}, failing{at: 2}, LoaderOptions{NumWorkers: nw})
		n := 0
		for dl.Next() {
			n++
		}
		if n != 2 || dl.Err() == nil || !strings.Contains(dl.Err().Error(), "seed 2") {
			t.Errorf("NumWorkers %d: %d batches, err %v", nw, n, dl.Err())
		}
		dl = newLoader(t, g, []int64{0, 1, 2}, failing{at: 1, panics: true}, LoaderOptions{NumWorkers: nw})
		for dl.Next() {
		}
		if dl.Err() == nil || !strings.Contains(dl.Err().Error(), "panic") {
			t.Errorf("NumWorkers %d: panicking sampler gave %v", nw, dl.Err())
		}
	}
}

// failing samples with a full sampler but fails on seed at.
type failing struct {
	at     int64
	panics bool
}

func (f failing) SampleBlocks(g *graph.Graph, seeds []int64, es uint64) ([]*graph.Block, error) {
	for _, v := range seeds {
		if v == f.at {
			if f.panics {
				panic("boom")
			}
			return nil, fmt.Errorf("failing: seed %d", v)
		}
	}
	return MultiLayerFullNeighborSampler{NumLayers: 1}.SampleBlocks(g, seeds, es)
}

func TestLoaderCancel(t *testing.T) {
	g := powerLaw(t, 5000, 50000, 14)
	seeds := rangeIDs(0, 2000)
	s := NeighborSampler{Fanouts: []int{10, 10}}
	base := runtime.NumGoroutine()
	for _, nw := range []int{0, 1, 4} {
		dl := newLoader(t, g, seeds, s, LoaderOptions{BatchSize: 50, NumWorkers: nw})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		restore := runctx.Set(ctx)
		n := 0
		for dl.Next() {
			n++
			if n == 3 {
				cancel() // Ctrl-C during the third batch
			}
		}
		if n != 3 || !errors.Is(dl.Err(), context.Canceled) {
			t.Errorf("NumWorkers %d: %d batches, err %v; want 3 and context.Canceled", nw, n, dl.Err())
		}
		if dl.Next() || !errors.Is(dl.Err(), context.Canceled) {
			t.Errorf("NumWorkers %d: Next ran under a cancelled context", nw)
		}
		waitGoroutines(t, base)
		restore()
		// The next epoch runs in full once the interrupt is over.
		if got := len(epoch(t, dl)); got != dl.Len() {
			t.Errorf("NumWorkers %d: %d batches after the interrupt, want %d", nw, got, dl.Len())
		}
		waitGoroutines(t, base)
	}
	// Cancelled before the first batch.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	restore := runctx.Set(ctx)
	dl := newLoader(t, g, seeds, s, LoaderOptions{BatchSize: 50, NumWorkers: 2})
	if dl.Next() || !errors.Is(dl.Err(), context.Canceled) || dl.Epoch() != 0 {
		t.Errorf("cancelled context: err %v, epoch %d", dl.Err(), dl.Epoch())
	}
	restore()
	waitGoroutines(t, base)
}

func TestLoaderNoLeak(t *testing.T) {
	g := powerLaw(t, 2000, 20000, 15)
	seeds := rangeIDs(0, 1000)
	s := NeighborSampler{Fanouts: []int{5, 5}}
	base := runtime.NumGoroutine()
	// Break out mid-epoch, then Reset, Close, or drop the loader.
	dl := newLoader(t, g, seeds, s, LoaderOptions{BatchSize: 10, NumWorkers: 3})
	for i := 0; i < 4 && dl.Next(); i++ {
	}
	// Without Reset, Next continues the same epoch.
	if !dl.Next() || dl.BatchIndex() != 4 {
		t.Fatalf("continuing: batch %d", dl.BatchIndex())
	}
	dl.Reset()
	waitGoroutines(t, base)
	if !dl.Next() || dl.BatchIndex() != 0 || dl.Epoch() != 1 {
		t.Fatalf("after Reset: batch %d of epoch %d", dl.BatchIndex(), dl.Epoch())
	}
	dl.Close()
	waitGoroutines(t, base)
	if dl.Next() || !errors.Is(dl.Err(), ErrClosed) {
		t.Errorf("after Close: err %v", dl.Err())
	}
	func() {
		dl, err := NewDataLoader(g, tensor.FromInt64(seeds), s, LoaderOptions{BatchSize: 10, NumWorkers: 3})
		if err != nil {
			t.Fatal(err)
		}
		dl.Next()
	}()
	waitGoroutines(t, base) // the abandoned loader's cleanup stops its workers
}

func TestLoaderMemoryAccounting(t *testing.T) {
	g := powerLaw(t, 20000, 400000, 16)
	dl := newLoader(t, g, rangeIDs(0, 5000), NeighborSampler{Fanouts: []int{20, 20}}, LoaderOptions{BatchSize: 5000})
	// No collection (hence no release of other tests' tensors) while
	// measuring; the blocks are large enough that a release still in
	// flight cannot hide them.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	runtime.GC()
	before := tensor.MemoryAllocated("cpu")
	if !dl.Next() {
		t.Fatal(dl.Err())
	}
	var blockBytes int64
	for _, b := range dl.Blocks() {
		blockBytes += int64(b.NumSrcNodes()+2*b.NumEdges()+b.NumDstNodes()+1) * 8
	}
	got := tensor.MemoryAllocated("cpu") - before
	t.Logf("blocks hold %d bytes; the accounting grew by %d", blockBytes, got)
	if got < blockBytes*9/10 {
		t.Errorf("accounting grew by %d bytes, less than the blocks' %d", got, blockBytes)
	}
}

// TestLoaderMetaDevice: with Device "meta" the loader samples the same
// blocks as on the CPU and its batches are meta tensors of the gathered
// shapes and dtypes; the float32 features carry the density of their rows.
func TestLoaderMetaDevice(t *testing.T) {
	d := loadCora(t)
	g := d.Graph
	opts := LoaderOptions{BatchSize: 64, Shuffle: true, Seed: 3, PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}}
	cpu, err := NewDataLoader(g, d.TrainIdx, NeighborSampler{Fanouts: []int{5, 5}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	opts.Device = "meta"
	meta, err := NewDataLoader(g, d.TrainIdx, NeighborSampler{Fanouts: []int{5, 5}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer meta.Close()
	for cpu.Next() {
		if !meta.Next() {
			t.Fatalf("meta loader ended early: %v", meta.Err())
		}
		cb, mb := cpu.Blocks(), meta.Blocks()
		for l := range cb {
			if cb[l].NumEdges() != mb[l].NumEdges() || cb[l].NumSrcNodes() != mb[l].NumSrcNodes() {
				t.Fatalf("block %d: cpu %v, meta %v", l, cb[l], mb[l])
			}
		}
		x, mx := cb[0].SrcData("feat"), mb[0].SrcData("feat")
		if !mx.IsMeta() || fmt.Sprint(mx.Shape()) != fmt.Sprint(x.Shape()) || mx.DType() != x.DType() {
			t.Fatalf("features: meta %v %v on %s, cpu %v", mx.Shape(), mx.DType(), mx.Device(), x.Shape())
		}
		nnz := 0
		for _, v := range x.Float32s() {
			if v != 0 {
				nnz++
			}
		}
		if want := float64(nnz) / float64(x.Numel()); math.Abs(mx.MetaDensity()-want) > 1e-12 {
			t.Fatalf("density %g, want %g", mx.MetaDensity(), want)
		}
		if y := mb[len(mb)-1].DstData("label"); !y.IsMeta() || y.DType() != tensor.Int64 {
			t.Fatalf("labels %v on %s", y.DType(), y.Device())
		}
	}
	if err := cpu.Err(); err != nil {
		t.Fatal(err)
	}
}
