package sampling

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// weighted returns g with edge data "w": zero on every third edge, else a
// value in (0, 4).
func weighted(t testing.TB, g *graph.Graph) *graph.Graph {
	t.Helper()
	w := make([]float32, g.NumEdges())
	st := stream{state: 99}
	for e := range w {
		if e%3 != 0 {
			w[e] = float32(4 * st.open01())
		}
	}
	if err := g.SetEData("w", tensor.FromFloat32(w)); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestInvariantsPowerLaw(t *testing.T) {
	g := weighted(t, powerLaw(t, 3000, 40000, 1))
	seeds := []int64{5, 17, 2999, 0, 1234, 77, 5, 800} // a repeat on purpose
	for _, s := range []NeighborSampler{
		{Fanouts: []int{15, 10, 5}},
		{Fanouts: []int{3, 2}, Replace: true},
		{Fanouts: []int{-1, 4}},
		{Fanouts: []int{0, 25}},
		{Fanouts: []int{10, 5}, EdgeDir: "out"},
		{Fanouts: []int{10, 5}, EdgeDir: "in", Prob: "w"},
		{Fanouts: []int{10, 5}, Prob: "w", Replace: true},
		{Fanouts: []int{-1, 5}, Prob: "w", EdgeDir: "out"},
		{Fanouts: []int{200, 100}}, // Fisher–Yates path on hubs
	} {
		t.Run(fmt.Sprintf("%v/%s/%s/%v", s.Fanouts, s.EdgeDir, s.Prob, s.Replace), func(t *testing.T) {
			for es := uint64(0); es < 3; es++ {
				blocks := mustSample(t, s, g, seeds, es)
				checkBlocks(t, g, s, seeds, blocks)
				again := mustSample(t, s, g, seeds, es)
				for l := range blocks {
					if !slices.Equal(blocks[l].EIDs().Int64s(), again[l].EIDs().Int64s()) {
						t.Fatalf("epoch seed %d: sampling twice gave different edges in block %d", es, l)
					}
				}
			}
		})
	}
}

func TestCoraInvariants(t *testing.T) {
	d := loadCora(t)
	g := d.Graph
	seeds := d.TrainIdx.Int64s()
	for _, s := range []NeighborSampler{
		{Fanouts: []int{15, 10}},
		{Fanouts: []int{15, 10, 5}, Replace: true},
		{Fanouts: []int{25, 10}, EdgeDir: "out"},
	} {
		blocks := mustSample(t, s, g, seeds, 42)
		checkBlocks(t, g, s, seeds, blocks)
	}
	full := mustSample(t, MultiLayerFullNeighborSampler{NumLayers: 2}, g, seeds, 0)
	checkBlocks(t, g, NeighborSampler{Fanouts: []int{-1, -1}}, seeds, full)
	// The full sampler's last block holds every in-edge of the seeds.
	deg := g.InDegrees().Int64s()
	var want int64
	for _, v := range seeds {
		want += deg[v]
	}
	if got := int64(full[1].NumEdges()); got != want {
		t.Errorf("full sampler: %d edges into the seeds, want %d", got, want)
	}
}

func TestZeroInDegree(t *testing.T) {
	// 0 -> 1, 2 -> 1; nodes 0, 2, 3 have no in-edges, 3 none at all.
	g, err := graph.New(4, []int64{0, 2}, []int64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetEData("w", tensor.FromFloat32([]float32{1, 0})); err != nil {
		t.Fatal(err)
	}
	for _, s := range []NeighborSampler{
		{Fanouts: []int{5, 5}},
		{Fanouts: []int{5, 5}, Replace: true},
		{Fanouts: []int{-1, -1}},
		{Fanouts: []int{5, 5}, Prob: "w", Replace: true},
		{Fanouts: []int{5, 5}, Prob: "w"},
	} {
		seeds := []int64{3, 0, 2}
		blocks := mustSample(t, s, g, seeds, 7)
		checkBlocks(t, g, s, seeds, blocks)
		for l, b := range blocks {
			if b.NumEdges() != 0 || b.NumSrcNodes() != 3 {
				t.Errorf("%+v block %d: %v, want no edges and the 3 seeds as sources", s, l, b)
			}
		}
	}
}

func TestFanoutAboveDegree(t *testing.T) {
	g := powerLaw(t, 500, 4000, 3)
	adj := g.Adj()
	seeds := make([]int64, 500)
	for i := range seeds {
		seeds[i] = int64(i)
	}
	s := NeighborSampler{Fanouts: []int{1 << 20}}
	b := mustSample(t, s, g, seeds, 1)[0]
	eids := b.EIDs().Int64s()
	for d, v := range seeds {
		got := slices.Clone(eids[b.Adj().Indptr[d]:b.Adj().Indptr[d+1]])
		want := slices.Clone(adj.EIDs[adj.Indptr[v]:adj.Indptr[v+1]])
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("node %d: sampled edges %v, want each in-edge once %v", v, got, want)
		}
	}
}

// star returns a graph where node 0 has in-edges from nodes 1..deg (edge
// i-1 from node i).
func star(t testing.TB, deg int) *graph.Graph {
	src, dst := make([]int64, deg), make([]int64, deg)
	for i := range src {
		src[i] = int64(i + 1)
	}
	g, err := graph.New(deg+1, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// chiSquare returns sum (obs - exp)^2 / exp.
func chiSquare(obs []int, exp []float64) float64 {
	x := 0.0
	for i, o := range obs {
		d := float64(o) - exp[i]
		x += d * d / exp[i]
	}
	return x
}

// chi2Crit999 approximates the 0.999 quantile of chi-square with k degrees
// of freedom (Wilson–Hilferty).
func chi2Crit999(k int) float64 {
	const z = 3.0902 // standard normal 0.999 quantile
	h := 2 / (9 * float64(k))
	return float64(k) * math.Pow(1-h+z*math.Sqrt(h), 3)
}

func TestUniformWithoutReplacementChiSquare(t *testing.T) {
	const deg, trials = 10, 24000
	g := star(t, deg)
	for _, k := range []int{3, 6} { // Floyd's algorithm; partial Fisher–Yates
		s := NeighborSampler{Fanouts: []int{k}}
		perEdge := make([]int, deg)
		subsets := map[string]int{}
		for es := uint64(0); es < trials; es++ {
			b := mustSample(t, s, g, []int64{0}, es)[0]
			e := b.EIDs().Int64s()
			if len(e) != k {
				t.Fatalf("fanout %d: %d edges", k, len(e))
			}
			for _, x := range e {
				perEdge[x]++
			}
			subsets[fmt.Sprint(e)]++
		}
		exp := make([]float64, deg)
		for i := range exp {
			exp[i] = float64(trials*k) / deg
		}
		x, c := chiSquare(perEdge, exp), chi2Crit999(deg-1)
		t.Logf("fanout %d of %d: per-neighbour chi-square %.1f (0.999 critical %.1f)", k, deg, x, c)
		if x > c {
			t.Errorf("fanout %d: per-neighbour chi-square %.1f > %.1f (counts %v)", k, x, c, perEdge)
		}
		nsub := binom(deg, k)
		if len(subsets) != nsub {
			t.Errorf("fanout %d: saw %d distinct subsets of %d", k, len(subsets), nsub)
		}
		obs := make([]int, 0, nsub)
		for _, c := range subsets {
			obs = append(obs, c)
		}
		for len(obs) < nsub {
			obs = append(obs, 0)
		}
		expS := make([]float64, nsub)
		for i := range expS {
			expS[i] = float64(trials) / float64(nsub)
		}
		x, c = chiSquare(obs, expS), chi2Crit999(nsub-1)
		t.Logf("fanout %d of %d: chi-square over the %d subsets %.1f (0.999 critical %.1f)", k, deg, nsub, x, c)
		if x > c {
			t.Errorf("fanout %d: subset chi-square %.1f > %.1f", k, x, c)
		}
	}
}

// TestUniformAcrossNodes checks uniformity across the streams of many
// nodes under one epoch seed: 3000 destinations with 10 in-edges each.
func TestUniformAcrossNodes(t *testing.T) {
	const nodes, deg, k = 3000, 10, 4
	var src, dst []int64
	for v := 0; v < nodes; v++ {
		for i := 0; i < deg; i++ {
			src, dst = append(src, int64(nodes+i)), append(dst, int64(v))
		}
	}
	g, err := graph.New(nodes+deg, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]int64, nodes)
	for i := range seeds {
		seeds[i] = int64(i)
	}
	b := mustSample(t, NeighborSampler{Fanouts: []int{k}}, g, seeds, 12345)[0]
	counts := make([]int, deg)
	for _, e := range b.EIDs().Int64s() {
		counts[e%deg]++ // edge v*deg+i comes from node nodes+i
	}
	exp := make([]float64, deg)
	for i := range exp {
		exp[i] = nodes * k / deg
	}
	x, c := chiSquare(counts, exp), chi2Crit999(deg-1)
	t.Logf("across %d nodes: chi-square %.1f (0.999 critical %.1f)", nodes, x, c)
	if x > c {
		t.Errorf("chi-square %.1f > %.1f (counts %v)", x, c, counts)
	}
}

func binom(n, k int) int {
	r := 1
	for i := 0; i < k; i++ {
		r = r * (n - i) / (i + 1)
	}
	return r
}

func TestUniformWithReplacementChiSquare(t *testing.T) {
	const deg, trials, k = 7, 10000, 4
	g := star(t, deg)
	s := NeighborSampler{Fanouts: []int{k}, Replace: true}
	counts := make([]int, deg)
	for es := uint64(0); es < trials; es++ {
		for _, e := range mustSample(t, s, g, []int64{0}, es)[0].EIDs().Int64s() {
			counts[e]++
		}
	}
	exp := make([]float64, deg)
	for i := range exp {
		exp[i] = float64(trials*k) / deg
	}
	x, c := chiSquare(counts, exp), chi2Crit999(deg-1)
	t.Logf("with replacement: chi-square %.1f (0.999 critical %.1f)", x, c)
	if x > c {
		t.Errorf("chi-square %.1f > %.1f (counts %v)", x, c, counts)
	}
}

func TestWeighted(t *testing.T) {
	const deg, trials = 8, 20000
	g := star(t, deg)
	w := []float32{0, 1, 2, 0, 4, 1, 0, 8} // 3 zero-weight edges
	if err := g.SetEData("w", tensor.FromFloat32(w)); err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, x := range w {
		total += float64(x)
	}
	// Frequencies proportional to the weight: with replacement, and A-ES
	// with fanout 1 (its first pick is weight-proportional).
	for _, s := range []NeighborSampler{
		{Fanouts: []int{3}, Prob: "w", Replace: true},
		{Fanouts: []int{1}, Prob: "w"},
	} {
		counts := make([]int, deg)
		n := 0
		for es := uint64(0); es < trials; es++ {
			for _, e := range mustSample(t, s, g, []int64{0}, es)[0].EIDs().Int64s() {
				counts[e]++
				n++
			}
		}
		var obs []int
		var exp []float64
		for e, x := range w {
			if x == 0 {
				if counts[e] != 0 {
					t.Errorf("%+v: zero-weight edge %d sampled %d times", s, e, counts[e])
				}
				continue
			}
			obs = append(obs, counts[e])
			exp = append(exp, float64(n)*float64(x)/total)
		}
		x, c := chiSquare(obs, exp), chi2Crit999(len(obs)-1)
		t.Logf("%+v: weight-proportional chi-square %.1f (0.999 critical %.1f)", s, x, c)
		if x > c {
			t.Errorf("%+v: chi-square %.1f > %.1f (counts %v)", s, x, c, counts)
		}
	}
	// Without replacement and a fanout above the positive count: exactly
	// the positive-weight edges, whatever the fanout.
	for _, f := range []int{5, 6, 100, -1} {
		s := NeighborSampler{Fanouts: []int{f}, Prob: "w"}
		for es := uint64(0); es < 50; es++ {
			e := mustSample(t, s, g, []int64{0}, es)[0].EIDs().Int64s()
			if !slices.Equal(e, []int64{1, 2, 4, 5, 7}) {
				t.Fatalf("fanout %d: got edges %v, want the positive ones [1 2 4 5 7]", f, e)
			}
		}
	}
	// Fanout 3 of 5 positive edges: distinct, never a zero-weight edge, and
	// heavier edges more often.
	s := NeighborSampler{Fanouts: []int{3}, Prob: "w"}
	counts := make([]int, deg)
	for es := uint64(0); es < 5000; es++ {
		e := mustSample(t, s, g, []int64{0}, es)[0].EIDs().Int64s()
		if len(e) != 3 {
			t.Fatalf("got %d edges, want 3", len(e))
		}
		for i, x := range e {
			if w[x] == 0 || i > 0 && e[i-1] == x {
				t.Fatalf("bad sample %v", e)
			}
			counts[x]++
		}
	}
	if !(counts[7] > counts[4] && counts[4] > counts[2] && counts[2] > counts[1]) {
		t.Errorf("A-ES inclusion counts %v do not follow the weights %v", counts, w)
	}
	// A node whose weights are all zero gets no edges.
	if err := g.SetEData("z", tensor.Zeros(deg)); err != nil {
		t.Fatal(err)
	}
	for _, rep := range []bool{false, true} {
		b := mustSample(t, NeighborSampler{Fanouts: []int{4}, Prob: "z", Replace: rep}, g, []int64{0}, 1)[0]
		if b.NumEdges() != 0 || b.NumSrcNodes() != 1 {
			t.Errorf("all-zero weights, replace %v: %v", rep, b)
		}
	}
}

func TestOutEdges(t *testing.T) {
	// 0 -> 1, 0 -> 2, 3 -> 0: out-neighbours of 0 are 1 and 2.
	g, err := graph.New(4, []int64{0, 0, 3}, []int64{1, 2, 0})
	if err != nil {
		t.Fatal(err)
	}
	b := mustSample(t, NeighborSampler{Fanouts: []int{-1}, EdgeDir: "out"}, g, []int64{0}, 0)[0]
	if !slices.Equal(b.SrcNodeIDs(), []int64{0, 1, 2}) || !slices.Equal(b.EIDs().Int64s(), []int64{0, 1}) {
		t.Errorf("out-edges: sources %v, edges %v", b.SrcNodeIDs(), b.EIDs().Int64s())
	}
	b = mustSample(t, NeighborSampler{Fanouts: []int{-1}}, g, []int64{0}, 0)[0]
	if !slices.Equal(b.SrcNodeIDs(), []int64{0, 3}) || !slices.Equal(b.EIDs().Int64s(), []int64{2}) {
		t.Errorf("in-edges: sources %v, edges %v", b.SrcNodeIDs(), b.EIDs().Int64s())
	}
}

func TestSamplerErrors(t *testing.T) {
	g := star(t, 4)
	_ = g.SetEData("w", tensor.FromFloat32([]float32{1, 1, -1, 1}))
	_ = g.SetEData("nan", tensor.FromFloat32([]float32{1, float32(math.NaN()), 1, 1}))
	_ = g.SetEData("inf", tensor.FromFloat32([]float32{1, 1, float32(math.Inf(1)), 1}))
	_ = g.SetEData("ids", tensor.FromInt64([]int64{1, 1, 1, 1}))
	_ = g.SetEData("wide", tensor.Ones(4, 2))
	hetero, err := graph.NewHetero(map[string]int{"a": 2, "b": 2},
		map[graph.CanonicalEType]graph.EdgeList{{Src: "a", EType: "r", Dst: "b"}: {Src: []int64{0}, Dst: []int64{1}}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		s     Sampler
		g     *graph.Graph
		seeds []int64
		want  []string
	}{
		{NeighborSampler{Fanouts: []int{5, -2}}, g, []int64{0}, []string{"Fanouts[1] = -2", "-1"}},
		{NeighborSampler{}, g, []int64{0}, []string{"Fanouts is empty"}},
		{NeighborSampler{Fanouts: []int{5}, EdgeDir: "both"}, g, []int64{0}, []string{`EdgeDir "both"`, `"in"`, `"out"`}},
		{NeighborSampler{Fanouts: []int{5}, Prob: "p"}, g, []int64{0}, []string{`Prob "p"`, "not edge data"}},
		{NeighborSampler{Fanouts: []int{5}, Prob: "ids"}, g, []int64{0}, []string{`Prob "ids"`, "float32", "int64"}},
		{NeighborSampler{Fanouts: []int{5}, Prob: "wide"}, g, []int64{0}, []string{`Prob "wide"`, "[4 2]"}},
		{NeighborSampler{Fanouts: []int{2}, Prob: "w"}, g, []int64{0}, []string{`Prob "w"`, "edge 2", "-1"}},
		{NeighborSampler{Fanouts: []int{2}, Prob: "nan", Replace: true}, g, []int64{0}, []string{"edge 1", "NaN"}},
		{NeighborSampler{Fanouts: []int{-1}, Prob: "inf"}, g, []int64{0}, []string{"edge 2", "Inf"}},
		{NeighborSampler{Fanouts: []int{2}}, g, []int64{0, 5}, []string{"seed node id 5", "[0, 5)"}},
		{NeighborSampler{Fanouts: []int{2}}, g, []int64{-3}, []string{"seed node id -3"}},
		{NeighborSampler{Fanouts: []int{2}}, hetero, []int64{0}, []string{"homogeneous"}},
		{NeighborSampler{Fanouts: []int{2}}, nil, []int64{0}, []string{"nil"}},
		{MultiLayerFullNeighborSampler{}, g, []int64{0}, []string{"NumLayers = 0"}},
	}
	for _, c := range cases {
		_, err := c.s.SampleBlocks(c.g, c.seeds, 1)
		if err == nil {
			t.Errorf("%+v: no error", c.s)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %q does not mention %q", c.s, err, w)
			}
		}
		if !errors.Is(err, ErrArgument) && !errors.Is(err, graph.ErrHetero) {
			t.Errorf("%+v: error %q does not wrap ErrArgument", c.s, err)
		}
	}
	// Validate finds a bad weight that a sample may never read.
	if err := (NeighborSampler{Fanouts: []int{1}, Prob: "w"}).Validate(g); err == nil || !strings.Contains(err.Error(), "edge 2") {
		t.Errorf("Validate: %v", err)
	}
}

func TestWorkspaceReuseAndAccounting(t *testing.T) {
	g := powerLaw(t, 2000, 20000, 5)
	s := NeighborSampler{Fanouts: []int{10, 10}}
	// A marker left dirty would change the relabelling of a later call.
	a := mustSample(t, s, g, []int64{1, 2, 3}, 9)
	for i := 0; i < 20; i++ {
		mustSample(t, s, g, []int64{int64(i * 50)}, uint64(i))
	}
	b := mustSample(t, s, g, []int64{1, 2, 3}, 9)
	for l := range a {
		if !slices.Equal(a[l].SrcNodeIDs(), b[l].SrcNodeIDs()) || !slices.Equal(a[l].Adj().Indices, b[l].Adj().Indices) {
			t.Fatalf("block %d differs after other calls", l)
		}
	}
	ws := getWorkspace(5000)
	if ws.acct.Load() < 5000*4 {
		t.Errorf("workspace of %d bytes counts %d", 5000*4, ws.acct.Load())
	}
	for _, m := range ws.mark {
		if m != 0 {
			t.Fatal("a pooled marker is not zero")
		}
	}
	putWorkspace(ws)
}

// TestParallelPickMatchesSequential checks that splitting the picking over
// goroutines gives exactly the blocks of one goroutine.
func TestParallelPickMatchesSequential(t *testing.T) {
	g := weighted(t, powerLaw(t, 4000, 60000, 21))
	seeds := rangeIDs(0, 1500)
	defer func(pe int64, mp int) { parallelEdges, maxProcs = pe, mp }(parallelEdges, maxProcs)
	for _, s := range []NeighborSampler{
		{Fanouts: []int{15, 10, 5}},
		{Fanouts: []int{5, 5}, Replace: true},
		{Fanouts: []int{10, 4}, Prob: "w"}, // zero weights: short ranges to join
		{Fanouts: []int{-1, 3}, Prob: "w", EdgeDir: "out"},
	} {
		parallelEdges, maxProcs = 1<<62, 1
		ref := mustSample(t, s, g, seeds, 3)
		for _, p := range []int{2, 3, 7} {
			parallelEdges, maxProcs = 64, p
			got := mustSample(t, s, g, seeds, 3)
			checkBlocks(t, g, s, seeds, got)
			for l := range ref {
				a, b := ref[l].Adj(), got[l].Adj()
				if !slices.Equal(a.Indptr, b.Indptr) || !slices.Equal(a.Indices, b.Indices) ||
					!slices.Equal(ref[l].EIDs().Int64s(), got[l].EIDs().Int64s()) ||
					!slices.Equal(ref[l].SrcNodeIDs(), got[l].SrcNodeIDs()) {
					t.Fatalf("%+v, %d goroutines: block %d differs from one goroutine", s, p, l)
				}
			}
		}
	}
}
