package sampling

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// undirected returns a power-law graph with both directions of every edge:
// edge e and e+m are reverses; rev maps each edge to its reverse.
func undirected(t testing.TB, n, m int, seed uint64) (g *graph.Graph, rev []int64) {
	t.Helper()
	s, d := powerLawEdges(n, m, seed)
	src, dst := append(slices.Clone(s), d...), append(slices.Clone(d), s...)
	g, err := graph.New(n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	rev = make([]int64, 2*m)
	for e := 0; e < m; e++ {
		rev[e], rev[e+m] = int64(e+m), int64(e)
	}
	return g, rev
}

func TestNegativeSamplers(t *testing.T) {
	g, _ := undirected(t, 300, 2000, 7)
	esrc, _ := edgeList(g)
	eids := []int64{5, 17, 3999, 5}
	ps := PerSourceUniform(4)
	s1, d1, err := ps.SampleNegatives(g, eids, 11)
	if err != nil {
		t.Fatal(err)
	}
	if len(s1) != 16 || len(d1) != 16 {
		t.Fatalf("%d pairs, want 16", len(s1))
	}
	for i := range s1 {
		if s1[i] != esrc[eids[i/4]] || d1[i] < 0 || d1[i] >= 300 {
			t.Fatalf("pair %d: %d -> %d for edge %d", i, s1[i], d1[i], eids[i/4])
		}
	}
	// Keyed by edge: edge 5's negatives are the same at both positions and
	// in another batch; another seed draws others.
	if !slices.Equal(d1[:4], d1[12:]) {
		t.Errorf("edge 5 got %v and %v", d1[:4], d1[12:])
	}
	_, d2, _ := ps.SampleNegatives(g, []int64{17}, 11)
	if !slices.Equal(d2, d1[4:8]) {
		t.Errorf("edge 17 alone got %v, in the batch %v", d2, d1[4:8])
	}
	if _, d3, _ := ps.SampleNegatives(g, eids, 12); slices.Equal(d3, d1) {
		t.Errorf("seeds 11 and 12 drew the same negatives")
	}

	gu := GlobalUniform(5)
	batch := rangeIDs(0, 200)
	s4, d4, err := gu.SampleNegatives(g, batch, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(s4) != 1000 {
		t.Errorf("GlobalUniform gave %d pairs on a sparse graph, want 1000", len(s4))
	}
	edges := map[[2]int64]bool{}
	es, ed := edgeList(g)
	for e := range es {
		edges[[2]int64{es[e], ed[e]}] = true
	}
	seen := map[[2]int64]bool{}
	for i := range s4 {
		p := [2]int64{s4[i], d4[i]}
		if edges[p] || s4[i] == d4[i] || seen[p] {
			t.Fatalf("GlobalUniform pair %v: edge %v, self loop %v, repeat %v", p, edges[p], s4[i] == d4[i], seen[p])
		}
		seen[p] = true
	}
	s5, d5, _ := gu.SampleNegatives(g, batch, 3)
	if !slices.Equal(s4, s5) || !slices.Equal(d4, d5) {
		t.Errorf("GlobalUniform is not deterministic")
	}
	// A complete graph with self loops leaves nothing to draw.
	full := func() *graph.Graph {
		var s, d []int64
		for u := int64(0); u < 3; u++ {
			for v := int64(0); v < 3; v++ {
				s, d = append(s, u), append(d, v)
			}
		}
		g, _ := graph.New(3, s, d)
		return g
	}()
	if s, _, err := GlobalUniform(2).SampleNegatives(full, []int64{0, 1}, 1); err != nil || len(s) != 0 {
		t.Errorf("complete graph: %d pairs, %v", len(s), err)
	}
	// The tensor form.
	ts, td, err := SampleNegativePairs(ps, g, tensor.FromInt64(eids), 11)
	if err != nil || !slices.Equal(ts.Int64s(), s1) || !slices.Equal(td.Int64s(), d1) {
		t.Errorf("SampleNegativePairs: %v", err)
	}
	if ps.String() != "PerSourceUniform(k=4)" || gu.String() != "GlobalUniform(k=5, exclude_self_loops=true, replace=false)" {
		t.Errorf("String: %s, %s", ps, gu)
	}
}

func TestNegativeSamplerErrors(t *testing.T) {
	g, _ := undirected(t, 10, 20, 1)
	for _, c := range []struct {
		name string
		ns   NegativeSampler
		eids []int64
		want string
	}{
		{"k=0", PerSourceUniform(0), []int64{0}, "PerSourceUniform: k = 0 negatives per edge; want k >= 1"},
		{"k<0", GlobalUniform(-2), []int64{0}, "GlobalUniform: k = -2"},
		{"k>N", PerSourceUniform(11), []int64{0}, "k = 11 negatives per edge is more than the graph's 10 nodes"},
		{"k>N global", GlobalUniform(11), []int64{0}, "more than the graph's 10 nodes"},
		{"eid", PerSourceUniform(2), []int64{0, 40}, "edge id 40 (position 1) is outside [0, 40)"},
		{"eid global", GlobalUniform(2), []int64{-1}, "edge id -1 (position 0)"},
	} {
		_, _, err := c.ns.SampleNegatives(g, c.eids, 1)
		if !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, err := SampleNegativePairs(PerSourceUniform(1), g, tensor.Zeros(2), 0); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "eids must be 1-D int64") {
		t.Errorf("float eids: %v", err)
	}
}

// TestSampleBlocksExcluding: excluded edges are never sampled, affected
// nodes get min(fanout, remaining degree) edges, the others the same
// edges as without exclusion; uniform and weighted, in and out.
func TestSampleBlocksExcluding(t *testing.T) {
	g, _ := undirected(t, 400, 3000, 3)
	w := make([]float32, g.NumEdges())
	for i := range w {
		w[i] = float32(i%5) + 0.5
	}
	if err := g.SetEData("w", tensor.FromFloat32(w)); err != nil {
		t.Fatal(err)
	}
	seeds := rangeIDs(0, 60)
	var excl []int64
	for e := int64(0); e < int64(g.NumEdges()); e += 3 {
		excl = append(excl, e)
	}
	isExcl := map[int64]bool{}
	for _, e := range excl {
		isExcl[e] = true
	}
	for _, s := range []NeighborSampler{
		{Fanouts: []int{5, 3}},
		{Fanouts: []int{-1, 4}},
		{Fanouts: []int{3, 30}, Replace: true},
		{Fanouts: []int{4, 4}, EdgeDir: "out"},
		{Fanouts: []int{4, 2}, Prob: "w"},
	} {
		got, err := s.SampleBlocksExcluding(g, seeds, 9, excl)
		if err != nil {
			t.Fatal(err)
		}
		plain := mustSample(t, s, g, seeds, 9)
		adj := g.Adj()
		if s.EdgeDir == "out" {
			adj = g.OutAdj()
		}
		// The last block has the same destinations; compare node by node.
		b, pb := got[1], plain[1]
		a, pa := b.Adj(), pb.Adj()
		eids, peids := b.EIDs().Int64s(), pb.EIDs().Int64s()
		for d, v := range b.DstNodeIDs() {
			var remaining, affected int64
			for p := adj.Indptr[v]; p < adj.Indptr[v+1]; p++ {
				if isExcl[eidAt(adj, p)] {
					affected++
				} else {
					remaining++
				}
			}
			mine := eids[a.Indptr[d]:a.Indptr[d+1]]
			for _, e := range mine {
				if isExcl[e] {
					t.Fatalf("%v: node %d got excluded edge %d", s, v, e)
				}
			}
			if affected == 0 && !slices.Equal(mine, peids[pa.Indptr[d]:pa.Indptr[d+1]]) {
				t.Fatalf("%v: unaffected node %d got %v, without exclusion %v", s, v, mine, peids[pa.Indptr[d]:pa.Indptr[d+1]])
			}
			f := int64(s.Fanouts[1])
			want := min(f, remaining)
			if s.Replace && remaining > 0 {
				want = f
			}
			if int64(len(mine)) != want {
				t.Fatalf("%v: node %d (%d remaining edges) got %d edges, want %d", s, v, remaining, len(mine), want)
			}
		}
		for _, blk := range got {
			for _, e := range blk.EIDs().Int64s() {
				if isExcl[e] {
					t.Fatalf("%v: excluded edge %d sampled", s, e)
				}
			}
		}
		// The workspace's marks are cleared: sampling again without
		// exclusion matches.
		again := mustSample(t, s, g, seeds, 9)
		if !slices.Equal(again[1].EIDs().Int64s(), peids) {
			t.Fatalf("%v: exclusion marks leaked into a later call", s)
		}
	}
	// The parallel picking gives the same sample.
	s := NeighborSampler{Fanouts: []int{5, 3}}
	seq, err := s.SampleBlocksExcluding(g, rangeIDs(0, 400), 2, excl)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func(pe int64, mp int) { parallelEdges, maxProcs = pe, mp }(parallelEdges, maxProcs)
		parallelEdges, maxProcs = 64, 3
		par, err := s.SampleBlocksExcluding(g, rangeIDs(0, 400), 2, excl)
		if err != nil {
			t.Fatal(err)
		}
		for l := range seq {
			if !slices.Equal(seq[l].EIDs().Int64s(), par[l].EIDs().Int64s()) || !slices.Equal(seq[l].SrcNodeIDs(), par[l].SrcNodeIDs()) {
				t.Fatalf("block %d differs between sequential and parallel picking", l)
			}
		}
	}()
	if _, err := (NeighborSampler{Fanouts: []int{2}}).SampleBlocksExcluding(g, seeds, 1, []int64{int64(g.NumEdges())}); !errors.Is(err, ErrArgument) ||
		!strings.Contains(err.Error(), "excluded edge id 6000 (position 0) is outside [0, 6000)") {
		t.Errorf("bad excluded id: %v", err)
	}
}

// edgeBatch is a copy of one edge batch.
type edgeBatch struct {
	batch
	eids, nid, pu, pv, nu, nv []int64
}

func edgeSnapshot(t *testing.T, dl *DataLoader) edgeBatch {
	t.Helper()
	p, n := dl.PairGraph(), dl.NegPairGraph()
	b := edgeBatch{batch: snapshot(dl), eids: slices.Clone(p.EData(graph.EID).Int64s()), nid: slices.Clone(p.NData(graph.NID).Int64s())}
	s, d := edgeList(p)
	b.pu, b.pv = slices.Clone(s), slices.Clone(d)
	if n != nil {
		s, d = edgeList(n)
		b.nu, b.nv = slices.Clone(s), slices.Clone(d)
	}
	return b
}

func edgeEpoch(t *testing.T, dl *DataLoader) []edgeBatch {
	t.Helper()
	var out []edgeBatch
	for dl.Next() {
		out = append(out, edgeSnapshot(t, dl))
	}
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEdgeDataLoader(t *testing.T) {
	g, rev := undirected(t, 500, 4000, 5)
	esrc, edst := edgeList(g)
	train := rangeIDs(0, 4000)
	for _, exclude := range []string{"", "self", "reverse_id"} {
		o := EdgePredictionOptions{Exclude: exclude, NegativeSampler: PerSourceUniform(3)}
		if exclude == "reverse_id" {
			o.ReverseEIDs = tensor.FromInt64(rev)
		}
		es := AsEdgePredictionSampler(NeighborSampler{Fanouts: []int{6, 4}}, o)
		var runs [][]edgeBatch
		for _, workers := range []int{0, 3} {
			dl, err := NewEdgeDataLoader(g, tensor.FromInt64(train), es, LoaderOptions{BatchSize: 256, Shuffle: true, Seed: 4, NumWorkers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if dl.Len() != 16 {
				t.Fatalf("Len %d", dl.Len())
			}
			runs = append(runs, edgeEpoch(t, dl))
			dl.Close()
		}
		if !slices.EqualFunc(runs[0], runs[1], func(a, b edgeBatch) bool {
			return slices.Equal(a.eids, b.eids) && slices.Equal(a.nid, b.nid) && slices.Equal(a.nv, b.nv) && slices.EqualFunc(a.blocks, b.blocks, func(x, y [4][]int64) bool {
				return slices.Equal(x[0], y[0]) && slices.Equal(x[3], y[3]) && slices.Equal(x[2], y[2])
			})
		}) {
			t.Fatalf("exclude %q: batches differ between 0 and 3 workers", exclude)
		}
		seen := map[int64]bool{}
		for bi, b := range runs[0] {
			for _, e := range b.eids {
				seen[e] = true
			}
			// The pair graphs are over the compacted nodes, which are the
			// last block's destinations (OutputNodes).
			if !slices.Equal(b.nid, b.out) {
				t.Fatalf("batch %d: pair graph nodes are not the output nodes", bi)
			}
			if len(b.pu) != len(b.eids) || len(b.nu) != 3*len(b.eids) {
				t.Fatalf("batch %d: %d positive and %d negative pairs for %d edges", bi, len(b.pu), len(b.nu), len(b.eids))
			}
			for i, e := range b.eids {
				if b.nid[b.pu[i]] != esrc[e] || b.nid[b.pv[i]] != edst[e] {
					t.Fatalf("batch %d: pair %d is %d -> %d, edge %d is %d -> %d", bi, i, b.nid[b.pu[i]], b.nid[b.pv[i]], e, esrc[e], edst[e])
				}
				for j := 0; j < 3; j++ {
					if b.nid[b.nu[3*i+j]] != esrc[e] {
						t.Fatalf("batch %d: negative %d of edge %d starts at %d", bi, j, e, b.nid[b.nu[3*i+j]])
					}
				}
			}
			// First appearance order, each node once.
			if len(slices.Compact(slices.Sorted(slices.Values(b.nid)))) != len(b.nid) || b.nid[0] != esrc[b.eids[0]] {
				t.Fatalf("batch %d: compacted nodes repeat or are out of order", bi)
			}
			excluded := map[int64]bool{}
			if exclude != "" {
				for _, e := range b.eids {
					excluded[e] = true
					if exclude == "reverse_id" {
						excluded[rev[e]] = true
					}
				}
			}
			found := false
			for _, blk := range b.blocks {
				for _, e := range blk[3] {
					if excluded[e] {
						t.Fatalf("exclude %q, batch %d: excluded edge %d sampled", exclude, bi, e)
					}
					if rev[e] < 4000 && slices.Contains(b.eids, rev[e]) || slices.Contains(b.eids, e) {
						found = true
					}
				}
			}
			if exclude == "" && bi == 0 && !found {
				t.Errorf("without exclusion the batch's edges (or reverses) were never sampled")
			}
		}
		if len(seen) != 4000 {
			t.Errorf("exclude %q: an epoch visited %d edges, want 4000", exclude, len(seen))
		}
	}
	// No negative sampler: no negative graph; a node DataLoader has no pair
	// graphs.
	dl, err := NewEdgeDataLoader(g, tensor.FromInt64(train[:10]), AsEdgePredictionSampler(MultiLayerFullNeighborSampler{NumLayers: 1}, EdgePredictionOptions{Exclude: "self"}), LoaderOptions{BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !dl.Next() || dl.PairGraph() == nil || dl.NegPairGraph() != nil || dl.PairGraph().NumEdges() != 4 {
		t.Errorf("without a negative sampler: %v %v", dl.PairGraph(), dl.NegPairGraph())
	}
	if !strings.HasPrefix(dl.String(), "EdgeDataLoader(num_edges=10, batch_size=4, num_batches=3") {
		t.Errorf("String: %s", dl)
	}
	dl.Close()
	nl := newLoader(t, g, []int64{1, 2}, NeighborSampler{Fanouts: []int{2}}, LoaderOptions{})
	if !nl.Next() || nl.PairGraph() != nil || nl.NegPairGraph() != nil {
		t.Errorf("node loader has pair graphs")
	}
}

type plainSampler struct{}

func (plainSampler) SampleBlocks(g *graph.Graph, seeds []int64, es uint64) ([]*graph.Block, error) {
	return NeighborSampler{Fanouts: []int{1}}.SampleBlocks(g, seeds, es)
}

func TestEdgeDataLoaderErrors(t *testing.T) {
	g, rev := undirected(t, 20, 30, 2)
	ns := NeighborSampler{Fanouts: []int{2}}
	ids := tensor.FromInt64([]int64{0, 1, 2})
	for _, c := range []struct {
		name string
		eids *tensor.Tensor
		s    *EdgePredictionSampler
		opts LoaderOptions
		want string
	}{
		{"exclude", ids, AsEdgePredictionSampler(ns, EdgePredictionOptions{Exclude: "reverse"}), LoaderOptions{}, `Exclude "reverse"; want "" (none), "self" or "reverse_id"`},
		{"no reverse", ids, AsEdgePredictionSampler(ns, EdgePredictionOptions{Exclude: "reverse_id"}), LoaderOptions{}, `Exclude "reverse_id" needs ReverseEIDs`},
		{"reverse unused", ids, AsEdgePredictionSampler(ns, EdgePredictionOptions{Exclude: "self", ReverseEIDs: tensor.FromInt64(rev)}), LoaderOptions{}, `ReverseEIDs is set but Exclude is "self"`},
		{"reverse shape", ids, AsEdgePredictionSampler(ns, EdgePredictionOptions{Exclude: "reverse_id", ReverseEIDs: tensor.FromInt64(rev[:5])}), LoaderOptions{}, "ReverseEIDs must be (60) int64"},
		{"reverse range", ids, AsEdgePredictionSampler(ns, EdgePredictionOptions{Exclude: "reverse_id", ReverseEIDs: tensor.FromInt64(append(slices.Clone(rev[:59]), 60))}), LoaderOptions{}, "ReverseEIDs[59] = 60 is outside [0, 60)"},
		{"eid range", tensor.FromInt64([]int64{0, 60}), AsEdgePredictionSampler(ns, EdgePredictionOptions{}), LoaderOptions{}, "edge id 60 (position 1) is outside [0, 60)"},
		{"eid dtype", tensor.Zeros(3), AsEdgePredictionSampler(ns, EdgePredictionOptions{}), LoaderOptions{}, "eids must be 1-D int64 edge ids, got float32"},
		{"k", ids, AsEdgePredictionSampler(ns, EdgePredictionOptions{NegativeSampler: PerSourceUniform(0)}), LoaderOptions{}, "NegativeSampler: sampling.PerSourceUniform: k = 0"},
		{"k>N", ids, AsEdgePredictionSampler(ns, EdgePredictionOptions{NegativeSampler: GlobalUniform(21)}), LoaderOptions{}, "more than the graph's 20 nodes"},
		{"not excluding", ids, AsEdgePredictionSampler(plainSampler{}, EdgePredictionOptions{Exclude: "self"}), LoaderOptions{}, "sampling.plainSampler is not"},
		{"no inner", ids, AsEdgePredictionSampler(nil, EdgePredictionOptions{}), LoaderOptions{}, "no inner Sampler"},
		{"nil", ids, nil, LoaderOptions{}, "sampler is nil"},
		{"nil eids", nil, AsEdgePredictionSampler(ns, EdgePredictionOptions{}), LoaderOptions{}, "eids (the edge ids) is nil"},
		{"batch size", ids, AsEdgePredictionSampler(ns, EdgePredictionOptions{}), LoaderOptions{BatchSize: -1}, "LoaderOptions.BatchSize (-1) must be >= 0"},
		{"fanout", ids, AsEdgePredictionSampler(NeighborSampler{Fanouts: []int{-3}}, EdgePredictionOptions{}), LoaderOptions{}, "Fanouts[0] = -3"},
	} {
		dl, err := NewEdgeDataLoader(g, c.eids, c.s, c.opts)
		if dl != nil || !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v; want an ErrArgument containing %q", c.name, err, c.want)
		}
	}
	// A heterograph is pointed to the heterograph edge loader.
	hg, err := graph.NewHetero(map[string]int{"user": 3, "item": 2}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "user", EType: "buys", Dst: "item"}: {Src: []int64{0, 1}, Dst: []int64{1, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewEdgeDataLoader(hg, tensor.FromInt64([]int64{0}), AsEdgePredictionSampler(ns, EdgePredictionOptions{}), LoaderOptions{}); !errors.Is(err, graph.ErrHetero) || !strings.Contains(err.Error(), "use NewHeteroEdgeDataLoader") {
		t.Errorf("heterograph: got %v, want ErrHetero naming NewHeteroEdgeDataLoader", err)
	}
	// A plain Sampler works without exclusion.
	dl, err := NewEdgeDataLoader(g, ids, AsEdgePredictionSampler(plainSampler{}, EdgePredictionOptions{}), LoaderOptions{BatchSize: 2})
	if err != nil || len(epochEdges(t, dl)) != 2 {
		t.Errorf("plain sampler: %v", err)
	}
}

func epochEdges(t *testing.T, dl *DataLoader) []edgeBatch {
	defer dl.Close()
	return edgeEpoch(t, dl)
}

// BenchmarkEdgeDataLoader times one batch of 1024 edges of a 20K-node,
// 200K-edge undirected power-law graph: PerSourceUniform(1) negatives, two
// layers [10, 10] sampled without the batch's edges and their reverses.
func BenchmarkEdgeDataLoader(b *testing.B) {
	g, rev := undirected(b, 20_000, 100_000, 9)
	es := AsEdgePredictionSampler(NeighborSampler{Fanouts: []int{10, 10}},
		EdgePredictionOptions{Exclude: "reverse_id", ReverseEIDs: tensor.FromInt64(rev), NegativeSampler: PerSourceUniform(1)})
	dl, err := NewEdgeDataLoader(g, tensor.FromInt64(rangeIDs(0, 100_000)), es, LoaderOptions{BatchSize: 1024, Shuffle: true})
	if err != nil {
		b.Fatal(err)
	}
	defer dl.Close()
	edges := 0
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !dl.Next() {
			if err := dl.Err(); err != nil {
				b.Fatal(err)
			}
			dl.Next()
		}
		for _, blk := range dl.Blocks() {
			edges += blk.NumEdges()
		}
	}
	reportEdges(b, edges, cpu0)
}
