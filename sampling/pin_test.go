package sampling

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// fakeUploader stands for the pinned uploader on the CPU: its "device"
// tensors are clones, and it logs the order of starts and readies.
type fakeUploader struct {
	log     []string
	n       int
	failAt  int // start number that fails (-1: none)
	closed  bool
	started map[*tensor.Tensor]bool // the tensors it made
}

type fakePending struct {
	f    *fakeUploader
	id   int
	outs []*tensor.Tensor
}

func (f *fakeUploader) start(ts []*tensor.Tensor) (pendingUpload, error) {
	id := f.n
	f.n++
	if id == f.failAt {
		return nil, errors.New("fake upload failure")
	}
	f.log = append(f.log, fmt.Sprintf("start %d", id))
	outs := make([]*tensor.Tensor, len(ts))
	for i, t := range ts {
		outs[i] = t.Clone()
		f.started[outs[i]] = true
	}
	return &fakePending{f, id, outs}, nil
}

func (f *fakeUploader) close() error { f.closed = true; return nil }

func (p *fakePending) ready() ([]*tensor.Tensor, error) {
	p.f.log = append(p.f.log, fmt.Sprintf("ready %d", p.id))
	return p.outs, nil
}

func pinGraph(t *testing.T) *graph.Graph {
	g := powerLaw(t, 300, 1500, 5)
	gen := tensor.NewGenerator(9)
	if err := g.SetNData("feat", tensor.Randn(gen, 300, 6)); err != nil {
		t.Fatal(err)
	}
	lab := make([]int64, 300)
	for i := range lab {
		lab[i] = int64(i % 7)
	}
	if err := g.SetNData("label", tensor.FromInt64(lab)); err != nil {
		t.Fatal(err)
	}
	if err := g.SetEData("w", tensor.Randn(gen, g.NumEdges())); err != nil {
		t.Fatal(err)
	}
	return g
}

// pinnedLoader is a CPU loader switched to the PinMemory path with a fake
// uploader.
func pinnedLoader(t *testing.T, g *graph.Graph, opts LoaderOptions, f *fakeUploader) *DataLoader {
	dl, err := NewDataLoader(g, tensor.Arange(200), NeighborSampler{Fanouts: []int{4, 3}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	dl.src.pin = true
	dl.ctl.up = f
	return dl
}

// TestPinMemoryOrder: with PinMemory the loader queues the upload of batch
// i+1 before it hands out batch i (so the copy overlaps batch i's compute),
// waits for batch i's copy before handing it out, hands out the uploaded
// tensors, and its batches equal the plain loader's, with and without
// workers.
func TestPinMemoryOrder(t *testing.T) {
	g := pinGraph(t)
	for _, workers := range []int{0, 2} {
		opts := LoaderOptions{BatchSize: 32, Shuffle: true, Seed: 4, NumWorkers: workers,
			PrefetchNodeFeats: []string{"feat"}, PrefetchLabels: []string{"label"}, PrefetchEdgeFeats: []string{"w"}}
		plain, err := NewDataLoader(g, tensor.Arange(200), NeighborSampler{Fanouts: []int{4, 3}}, opts)
		if err != nil {
			t.Fatal(err)
		}
		f := &fakeUploader{failAt: -1, started: map[*tensor.Tensor]bool{}}
		pin := pinnedLoader(t, g, opts, f)
		for epoch := 0; epoch < 2; epoch++ {
			f.log, f.n = nil, 0
			i := 0
			for pin.Next() {
				if !plain.Next() {
					t.Fatal("plain loader ended first")
				}
				// Batch i is ready; batch i+1's upload is queued.
				want := []string{fmt.Sprintf("ready %d", i)}
				if i+1 < pin.Len() {
					want = append(want, fmt.Sprintf("start %d", i+1))
				}
				if got := f.log[len(f.log)-len(want):]; !slices.Equal(got, want) {
					t.Fatalf("workers %d batch %d: log ends %v, want %v (log %v)", workers, i, got, want, f.log)
				}
				pb, qb := pin.Blocks(), plain.Blocks()
				x := pb[0].SrcData("feat")
				if !f.started[x] || !f.started[pb[len(pb)-1].DstData("label")] || !f.started[pb[1].EData("w")] {
					t.Fatalf("batch %d holds host tensors, not the uploaded ones", i)
				}
				if !slices.Equal(x.Float32s(), qb[0].SrcData("feat").Float32s()) ||
					!slices.Equal(pb[1].DstData("label").Int64s(), qb[1].DstData("label").Int64s()) ||
					!slices.Equal(pb[0].EData("w").Float32s(), qb[0].EData("w").Float32s()) {
					t.Fatalf("batch %d differs from the plain loader's", i)
				}
				i++
			}
			if err := pin.Err(); err != nil {
				t.Fatal(err)
			}
			if plain.Next() {
				t.Fatal("plain loader has more batches")
			}
			if i != pin.Len() || f.n != pin.Len() {
				t.Fatalf("%d batches, %d uploads, want %d", i, f.n, pin.Len())
			}
		}
		// Reset with an upload queued: it is waited for before it is dropped.
		f.log, f.n = nil, 0
		if !pin.Next() {
			t.Fatal(pin.Err())
		}
		pin.Reset()
		if want := []string{"start 0", "ready 0", "start 1", "ready 1"}; !slices.Equal(f.log, want) {
			t.Fatalf("log after Reset %v, want %v", f.log, want)
		}
		if err := pin.Close(); err != nil || !f.closed {
			t.Fatalf("Close: %v, uploader closed %v", err, f.closed)
		}
		plain.Close()
	}
}

// TestPinMemoryUploadError: a failing upload of batch 2 ends the epoch at
// the Next that would hand out batch 2, after batches 0 and 1.
func TestPinMemoryUploadError(t *testing.T) {
	g := pinGraph(t)
	f := &fakeUploader{failAt: 2, started: map[*tensor.Tensor]bool{}}
	dl := pinnedLoader(t, g, LoaderOptions{BatchSize: 32, PrefetchNodeFeats: []string{"feat"}}, f)
	defer dl.Close()
	n := 0
	for dl.Next() {
		n++
	}
	if n != 2 || dl.Err() == nil || !strings.Contains(dl.Err().Error(), "batch 2: fake upload failure") {
		t.Fatalf("%d batches, Err %v; want 2 and the failure of batch 2", n, dl.Err())
	}
}

// TestPinMemoryDevices: PinMemory is ignored on the CPU and meta devices; on
// a machine without a GPU, Device "cuda" (with or without it) is an error
// naming the missing driver; UseUVA is not implemented.
func TestPinMemoryDevices(t *testing.T) {
	g := pinGraph(t)
	seeds := tensor.Arange(50)
	for _, dev := range []string{"", "cpu", "meta"} {
		dl, err := NewDataLoader(g, seeds, NeighborSampler{Fanouts: []int{2}}, LoaderOptions{Device: dev, PinMemory: true, PrefetchNodeFeats: []string{"feat"}})
		if err != nil {
			t.Fatalf("Device %q PinMemory: %v", dev, err)
		}
		if dl.ctl.up != nil || dl.src.pin {
			t.Errorf("Device %q: PinMemory not ignored", dev)
		}
		if !dl.Next() {
			t.Fatal(dl.Err())
		}
		dl.Close()
	}
	_, err := NewDataLoader(g, seeds, NeighborSampler{Fanouts: []int{2}}, LoaderOptions{UseUVA: true})
	if !errors.Is(err, tensor.ErrNotImplemented) || !strings.Contains(err.Error(), "issue 13") {
		t.Errorf("UseUVA: %v, want ErrNotImplemented naming issue 13", err)
	}
	if ok, why := tensor.CUDAStatus(); !ok {
		for _, pin := range []bool{false, true} {
			_, err := NewDataLoader(g, seeds, NeighborSampler{Fanouts: []int{2}}, LoaderOptions{Device: "cuda", PinMemory: pin})
			if !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), why) || strings.Contains(err.Error(), "cpu only") {
				t.Errorf("Device cuda, PinMemory %v, no GPU: %v; want the driver's reason %q", pin, err, why)
			}
		}
	}
}
