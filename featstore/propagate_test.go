package featstore

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// denseHops computes [X, ÂX, ..., Â^k X] in float64 from a dense Ã, the
// reference for Propagate: Ã[v][u] counts the edges u -> v, plus one self
// loop for every node that has none.
func denseHops(n int, src, dst []int64, x []float32, f, k int, norm string) [][]float64 {
	a := make([][]float64, n)
	for v := range a {
		a[v] = make([]float64, n)
	}
	for i := range src {
		a[dst[i]][src[i]]++
	}
	deg := make([]float64, n)
	for v := 0; v < n; v++ {
		if a[v][v] == 0 {
			a[v][v] = 1
		}
		for u := 0; u < n; u++ {
			deg[v] += a[v][u]
		}
	}
	for v := 0; v < n; v++ {
		for u := 0; u < n; u++ {
			switch norm {
			case "both":
				a[v][u] /= math.Sqrt(deg[u] * deg[v])
			case "right":
				a[v][u] /= deg[v]
			}
		}
	}
	cur := make([]float64, n*f)
	for i, v := range x {
		cur[i] = float64(v)
	}
	hops := [][]float64{cur}
	for h := 1; h <= k; h++ {
		next := make([]float64, n*f)
		for v := 0; v < n; v++ {
			for u := 0; u < n; u++ {
				if a[v][u] != 0 {
					for j := 0; j < f; j++ {
						next[v*f+j] += a[v][u] * cur[u*f+j]
					}
				}
			}
		}
		hops = append(hops, next)
		cur = next
	}
	return hops
}

// smallGraph is directed, with self loops on some nodes (1, and twice on
// 4), a parallel edge (0 -> 2 twice) and an isolated node (6).
func smallGraph(t testing.TB) (*graph.Graph, []int64, []int64) {
	src := []int64{0, 0, 1, 1, 2, 3, 4, 4, 5, 0, 2, 5}
	dst := []int64{1, 2, 1, 3, 0, 4, 4, 4, 3, 2, 5, 2}
	g, err := graph.New(7, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g, src, dst
}

func TestPropagateDense(t *testing.T) {
	g, src, dst := smallGraph(t)
	const f, k = 3, 4
	x := randFeatures(7, f, 11)
	for _, norm := range []string{"both", "right", "none", "", "sym", "rw"} {
		hops, err := Propagate(g, x, k, norm)
		if err != nil {
			t.Fatal(err)
		}
		if len(hops) != k+1 || hops[0] != x {
			t.Fatalf("%s: %d hops, first is x: %v", norm, len(hops), hops[0] == x)
		}
		ref := map[string]string{"": "both", "sym": "both", "rw": "right"}[norm]
		if ref == "" {
			ref = norm
		}
		want := denseHops(7, src, dst, x.Float32s(), f, k, ref)
		for h := range hops {
			for i, v := range hops[h].Float32s() {
				if d := math.Abs(float64(v) - want[h][i]); d > 1e-5*(1+math.Abs(want[h][i])) {
					t.Fatalf("norm %q hop %d value %d: %g, want %g", norm, h, i, v, want[h][i])
				}
			}
		}
	}
}

// randomGraph returns a directed graph of n nodes and m random edges.
func randomGraph(t testing.TB, n, m int, seed uint64) *graph.Graph {
	rng := rand.New(rand.NewPCG(seed, 2))
	src, dst := make([]int64, m), make([]int64, m)
	for i := range src {
		src[i], dst[i] = rng.Int64N(int64(n)), rng.Int64N(int64(n))
	}
	g, err := graph.New(n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPropagateDeterministic checks that the result does not depend on the
// number of goroutines.
func TestPropagateDeterministic(t *testing.T) {
	g := randomGraph(t, 3000, 30000, 1)
	x := randFeatures(3000, 16, 12)
	prev := runtime.GOMAXPROCS(1)
	one, err := Propagate(g, x, 2, "both")
	runtime.GOMAXPROCS(max(prev, 4))
	many, err2 := Propagate(g, x, 2, "both")
	runtime.GOMAXPROCS(prev)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	for h := range one {
		if !slices.Equal(one[h].Float32s(), many[h].Float32s()) {
			t.Errorf("hop %d differs between 1 and 4 goroutines", h)
		}
	}
}

func TestPropagateStore(t *testing.T) {
	g := randomGraph(t, 500, 4000, 3)
	const f, k = 8, 3
	x := randFeatures(500, f, 13)
	hops, err := Propagate(g, x, k, "both")
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{499, 0, 17, 17, 250}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float16, tensor.BFloat16, tensor.Int8} {
		s, err := PropagateStore(g, x, PropagateOptions{K: k, DType: dt})
		if err != nil {
			t.Fatal(err)
		}
		if s.Dim() != (k+1)*f || s.NumNodes() != 500 || s.DType() != dt {
			t.Fatalf("%v: shape or dtype: %v", dt, s)
		}
		got := s.Gather(ids).Float32s()
		for h := 0; h <= k; h++ {
			ref, _ := New(hops[h], dt)
			want := ref.Gather(ids).Float32s()
			for i := range ids {
				if !slices.Equal(got[i*(k+1)*f+h*f:i*(k+1)*f+h*f+f], want[i*f:i*f+f]) {
					t.Fatalf("%v hop %d row %d: %v, want %v", dt, h, ids[i], got[i*(k+1)*f+h*f:i*(k+1)*f+h*f+f], want[i*f:i*f+f])
				}
			}
		}
		if dt == tensor.Int8 {
			if r := float64(s.Bytes()) / float64(500*(k+1)*f*4); r > 0.5 {
				t.Errorf("int8 SIGN features take %.2fx float32", r)
			}
		}
	}
	last, err := PropagateStore(g, x, PropagateOptions{K: k, LastOnly: true, Norm: "right"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Propagate(g, x, k, "right")
	if last.Dim() != f || !slices.Equal(last.Gather(allIDs(500)).Float32s(), want[k].Float32s()) {
		t.Errorf("LastOnly: %v", last)
	}
	zero, err := PropagateStore(g, x, PropagateOptions{})
	if err != nil || zero.(*Float32).Tensor().Float32s()[0] != x.Float32s()[0] || zero.Dim() != f {
		t.Errorf("K = 0: %v, %v", zero, err)
	}
}

func TestPropagateErrors(t *testing.T) {
	g, _, _ := smallGraph(t)
	x := randFeatures(7, 2, 1)
	for _, c := range []struct {
		err  error
		kind error
		want string
	}{
		{second(Propagate(nil, x, 1, "")), ErrArgument, "graph is nil"},
		{second(Propagate(g, x, -1, "")), ErrArgument, "k (hops) = -1"},
		{second(Propagate(g, x, 1, "left")), ErrArgument, `norm "left"`},
		{second(Propagate(g, randFeatures(6, 2, 1), 1, "")), ErrShape, "6 rows, the graph 7 nodes"},
		{second(Propagate(g, tensor.Zeros(7), 1, "")), ErrShape, "(N, F)"},
		{second(PropagateStore(g, x, PropagateOptions{DType: tensor.Int64})), ErrArgument, "DType int64"},
	} {
		if !errors.Is(c.err, c.kind) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("got %v, want %v mentioning %q", c.err, c.kind, c.want)
		}
	}
	big := tensor.Full(4e4, 7, 2)
	if _, err := PropagateStore(g, big, PropagateOptions{K: 1, DType: tensor.Float16, Norm: "none"}); !errors.Is(err, ErrData) ||
		!strings.Contains(err.Error(), "hop 1") {
		t.Errorf("float16 overflow in hop 1: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	restore := runctx.Set(ctx)
	_, err := Propagate(g, x, 2, "")
	restore()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
