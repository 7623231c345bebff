package featstore

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// starGraph returns a directed graph of n nodes where node 0 points to
// every other node (out-degree n-1), every node v > 0 points to v+1 when
// v+1 < n, and node n-1 also has in-edges from 1 and 2.
func starGraph(t testing.TB, n int) *graph.Graph {
	var src, dst []int64
	for v := 1; v < n; v++ {
		src, dst = append(src, 0), append(dst, int64(v))
		if v+1 < n {
			src, dst = append(src, int64(v)), append(dst, int64(v+1))
		}
	}
	src, dst = append(src, 1, 2), append(dst, int64(n-1), int64(n-1))
	g, err := graph.New(n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestHotNodesOrder(t *testing.T) {
	got := HotNodes([]int64{3, 1, 3, 7, 0, 1}, 4)
	if want := []int64{3, 0, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("HotNodes = %v, want %v", got, want)
	}
	if got := HotNodes([]int64{1, 2}, 5); len(got) != 2 {
		t.Errorf("clamped: %v", got)
	}
	g := starGraph(t, 10)
	in, _ := degrees("t", g, "in")
	out, _ := degrees("t", g, "out")
	tot, _ := degrees("t", g, "total")
	if in[9] != 4 || out[0] != 9 || tot[1] != 3 || in[0] != 0 {
		t.Errorf("degrees: in %v out %v total %v", in, out, tot)
	}
	c, err := NewHotCache(mustInt8(t, 10, 4), g, HotCacheOptions{Capacity: 2, Degree: "in"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Nodes(); !slices.Equal(got, []int64{9, 2}) {
		t.Errorf("in-degree order: %v", got)
	}
	c, err = NewHotCache(mustInt8(t, 10, 4), g, HotCacheOptions{Fraction: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Nodes(); !slices.Equal(got, []int64{0}) || !c.IsCached(0) || c.IsCached(9) || c.IsCached(-1) {
		t.Errorf("out-degree order (the default): %v", got)
	}
}

func mustInt8(t testing.TB, n, f int) *Int8 {
	s, err := NewInt8(randFeatures(n, f, uint64(n*f)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHotCacheValuesAndStats checks that a HotCache returns its backing
// store's values bit for bit, for hits, misses and mixed batches, large
// and small, and counts each row once.
func TestHotCacheValuesAndStats(t *testing.T) {
	const n, f = 4000, 24
	back := mustInt8(t, n, f)
	hot := make([]int64, 0, n/4)
	for v := int64(0); v < n; v += 4 {
		hot = append(hot, v)
	}
	c, err := NewHotCacheNodes(back, hot)
	if err != nil {
		t.Fatal(err)
	}
	batches := [][]int64{{0, 4, 8}, {1, 2, 3}, {0, 1, 4, 5, 4, 1}, allIDs(n)}
	var hits, misses int64
	for _, ids := range batches {
		got, want := c.Gather(ids).Float32s(), back.Gather(ids).Float32s()
		if !slices.Equal(got, want) {
			t.Fatalf("batch %v: HotCache values differ from the backing store", ids[:min(len(ids), 6)])
		}
		for _, v := range ids {
			if v%4 == 0 {
				hits++
			} else {
				misses++
			}
		}
	}
	st := c.Stats()
	if st.Hits != hits || st.Misses != misses || st.HitRate != float64(hits)/float64(hits+misses) {
		t.Errorf("Stats = %+v, want hits %d misses %d", st, hits, misses)
	}
	if !strings.Contains(c.String(), "cached=1000 of 4000 (25.0%)") {
		t.Errorf("String: %s", c)
	}
	c.Reset()
	if c.Stats() != (CacheStats{}) {
		t.Errorf("after Reset: %+v", c.Stats())
	}
	if want := back.Bytes() + 1000*f*4 + n*4; c.Bytes() != int64(want) {
		t.Errorf("Bytes = %d, want %d", c.Bytes(), want)
	}
	if c.DType() != tensor.Int8 || c.Capacity() != 1000 || c.Backing() != Store(back) {
		t.Errorf("metadata: %v", c)
	}
}

func TestHotCacheErrors(t *testing.T) {
	g := starGraph(t, 10)
	s := mustInt8(t, 10, 3)
	for _, c := range []struct {
		opts HotCacheOptions
		want string
	}{
		{HotCacheOptions{}, "set Capacity"},
		{HotCacheOptions{Capacity: -1}, "Capacity -1 is negative"},
		{HotCacheOptions{Fraction: 1.5}, "Fraction 1.5 is outside"},
		{HotCacheOptions{Capacity: 2, Fraction: 0.5}, "both set"},
		{HotCacheOptions{Capacity: 2, Degree: "sideways"}, `Degree "sideways"`},
	} {
		if _, err := NewHotCache(s, g, c.opts); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.opts, err, c.want)
		}
	}
	if _, err := NewHotCache(mustInt8(t, 11, 3), g, HotCacheOptions{Capacity: 1}); !errors.Is(err, ErrArgument) ||
		!strings.Contains(err.Error(), "11") {
		t.Errorf("node count mismatch: %v", err)
	}
	if _, err := NewHotCache(nil, g, HotCacheOptions{Capacity: 1}); !errors.Is(err, ErrArgument) {
		t.Errorf("nil store: %v", err)
	}
	if _, err := NewHotCacheNodes(s, []int64{1, 10}); !errors.Is(err, ErrIndex) || !strings.Contains(err.Error(), "node id 10") {
		t.Errorf("bad id: %v", err)
	}
	if _, err := NewHotCacheNodes(s, []int64{1, 2, 1}); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "repeated") {
		t.Errorf("repeated id: %v", err)
	}
	c, err := NewHotCache(s, g, HotCacheOptions{Capacity: 100})
	if err != nil || c.Capacity() != 10 {
		t.Errorf("capacity above N: %v, %v", c, err)
	}
}
