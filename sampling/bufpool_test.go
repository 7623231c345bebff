package sampling

import (
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestReuseBuffers checks LoaderOptions.ReuseBuffers: the batches (blocks
// and gathered features, read before the next Next) are those of a loader
// without it, for every NumWorkers, over two epochs, and from the third
// batch on the features land in recycled memory.
func TestReuseBuffers(t *testing.T) {
	defer func(n int) { minPooledFloats = n }(minPooledFloats)
	minPooledFloats = 1 // pool the small test features too
	g := heteroGraph(t, 3)
	seeds := map[string]*tensor.Tensor{"paper": tensor.FromInt64(rangeIDs(0, 300)), "author": tensor.FromInt64(rangeIDs(0, 100))}
	s := HeteroNeighborSampler{Fanouts: heteroFanouts(3, 2)}
	type batch struct {
		blocks []string
		feats  map[string][]float32
	}
	run := func(nw int, reuse bool) ([]batch, int) {
		dl, err := NewHeteroDataLoader(g, seeds, s, LoaderOptions{BatchSize: 41, Shuffle: true, Seed: 7, NumWorkers: nw,
			PrefetchNodeFeats: []string{"feat"}, ReuseBuffers: reuse})
		if err != nil {
			t.Fatal(err)
		}
		defer dl.Close()
		var out []batch
		seen := map[*float32]bool{}
		reused := 0
		for e := 0; e < 2; e++ {
			for dl.Next() {
				bl := dl.Blocks()
				b := batch{feats: map[string][]float32{}}
				for _, blk := range bl {
					b.blocks = append(b.blocks, blk.String())
				}
				for _, nt := range []string{"paper", "author"} {
					f := bl[0].SrcData(nt, "feat").Float32s()
					b.feats[nt] = slices.Clone(f)
					if len(f) > 0 {
						if seen[&f[0]] {
							reused++
						}
						seen[&f[0]] = true
					}
				}
				out = append(out, b)
			}
			if err := dl.Err(); err != nil {
				t.Fatal(err)
			}
		}
		return out, reused
	}
	ref, _ := run(0, false)
	for _, nw := range []int{0, 1, 3} {
		got, reused := run(nw, true)
		t.Logf("NumWorkers %d: %d of %d feature tensors reused", nw, reused, 2*len(ref))
		if len(got) != len(ref) {
			t.Fatalf("NumWorkers %d: %d batches, want %d", nw, len(got), len(ref))
		}
		for i := range ref {
			if !slices.Equal(got[i].blocks, ref[i].blocks) {
				t.Fatalf("NumWorkers %d: batch %d: blocks differ with ReuseBuffers", nw, i)
			}
			for nt, f := range ref[i].feats {
				if !slices.Equal(got[i].feats[nt], f) {
					t.Fatalf("NumWorkers %d: batch %d: %s features differ with ReuseBuffers", nw, i, nt)
				}
			}
		}
		// Two feature tensors per batch. Without workers every batch after
		// the first reuses the previous one's memory, except where a batch
		// outgrows it; with workers which buffer a batch gets depends on
		// timing, so only some reuse is required.
		want := 1
		if nw == 0 {
			want = 2 * (len(ref) - 2)
		}
		if reused < want {
			t.Errorf("NumWorkers %d: %d of %d feature tensors in recycled memory, want at least %d", nw, reused, 2*len(ref), want)
		}
	}
}

// TestBufPool checks the pool's best fit and its bound.
func TestBufPool(t *testing.T) {
	p := &bufPool{max: 2}
	a, b, c := p.get(100), p.get(50), p.get(200)
	if len(a) != 100 || cap(a) < 100 || len(c) != 200 {
		t.Fatalf("get: len %d cap %d, len %d", len(a), cap(a), len(c))
	}
	p.put([][]float32{a, b, c}) // the smallest (b) is dropped
	if len(p.free) != 2 {
		t.Fatalf("%d idle buffers, want 2", len(p.free))
	}
	if d := p.get(90); &d[0] != &a[0] {
		t.Errorf("get(90) did not take the best fit (the 100-value buffer)")
	}
	if d := p.get(300); cap(d) < 300 || &d[0] == &c[0] {
		t.Errorf("get(300) reused a buffer too small")
	}
	p.reset()
	if len(p.free) != 0 {
		t.Errorf("reset left %d buffers", len(p.free))
	}
}

// TestReuseBuffersHomogeneous is TestReuseBuffers for a DataLoader on Cora
// (1433 features a node: large enough for the pool as it is).
func TestReuseBuffersHomogeneous(t *testing.T) {
	d := loadCora(t)
	g := d.Graph
	s := NeighborSampler{Fanouts: []int{10, 5}}
	run := func(reuse bool) ([][]float32, int) {
		dl, err := NewDataLoader(g, d.TrainIdx, s, LoaderOptions{BatchSize: 16, Shuffle: true, Seed: 2, NumWorkers: 2,
			PrefetchNodeFeats: []string{"feat"}, ReuseBuffers: reuse})
		if err != nil {
			t.Fatal(err)
		}
		defer dl.Close()
		var out [][]float32
		seen := map[*float32]bool{}
		reused := 0
		for e := 0; e < 2; e++ {
			for dl.Next() {
				f := dl.Blocks()[0].SrcData("feat").Float32s()
				out = append(out, slices.Clone(f))
				if seen[&f[0]] {
					reused++
				}
				seen[&f[0]] = true
			}
			if err := dl.Err(); err != nil {
				t.Fatal(err)
			}
		}
		return out, reused
	}
	ref, _ := run(false)
	got, reused := run(true)
	if len(got) != len(ref) {
		t.Fatalf("%d batches, want %d", len(got), len(ref))
	}
	for i := range ref {
		if !slices.Equal(got[i], ref[i]) {
			t.Fatalf("batch %d: features differ with ReuseBuffers", i)
		}
	}
	if reused == 0 {
		t.Errorf("no batch of %d reused a buffer", len(got))
	}
	t.Logf("%d of %d batches in recycled memory", reused, len(got))
}
