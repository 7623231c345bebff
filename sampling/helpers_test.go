package sampling

import (
	"math"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
)

// sharedData returns ../shared/data relative to the module root (or
// $GNNREPL_SHARED_DATA) and skips the test only when it is absent.
func sharedData(t testing.TB) string {
	return shareddata.Dir(t)
}

// loadCora returns real Cora with feat and label node data.
func loadCora(t testing.TB) *datasets.Dataset {
	t.Helper()
	d, err := datasets.LoadPlanetoid("cora", sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// powerLaw returns a deterministic directed graph of n nodes and m edges
// whose in- and out-degrees follow a power law (endpoints drawn as
// floor(n * u^a) of a fixed permutation), with some parallel edges and self
// loops, as real graphs have. It is built from a splitmix64 stream.
func powerLaw(tb testing.TB, n, m int, seed uint64) *graph.Graph {
	tb.Helper()
	src, dst := powerLawEdges(n, m, seed)
	g, err := graph.New(n, src, dst)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func powerLawEdges(n, m int, seed uint64) (src, dst []int64) {
	st := stream{state: seed}
	perm := make([]int64, n)
	for i := range perm {
		perm[i] = int64(i)
	}
	for i := n - 1; i > 0; i-- {
		j := st.intn(int64(i + 1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	pick := func(a float64) int64 {
		u := st.open01()
		return perm[min(int(float64(n)*math.Pow(u, a)), n-1)]
	}
	src, dst = make([]int64, m), make([]int64, m)
	for e := range src {
		src[e], dst[e] = pick(2), pick(3)
	}
	return src, dst
}

// edgeList returns g's edges as slices.
func edgeList(g *graph.Graph) (src, dst []int64) {
	s, d := g.Edges()
	return s.Int64s(), d.Int64s()
}

// checkBlocks checks every invariant of a sample of seeds by s on g and
// fails the test naming the first one broken.
func checkBlocks(t *testing.T, g *graph.Graph, s NeighborSampler, seeds []int64, blocks []*graph.Block) {
	t.Helper()
	if len(blocks) != len(s.Fanouts) {
		t.Fatalf("%d blocks for %d fanouts", len(blocks), len(s.Fanouts))
	}
	n := int64(g.NumNodes())
	esrc, edst := edgeList(g)
	adj := g.Adj()
	if s.EdgeDir == "out" {
		adj = g.OutAdj()
	}
	var weights []float32
	if s.Prob != "" {
		weights = g.EData(s.Prob).Float32s()
	}
	if last := blocks[len(blocks)-1]; !slices.Equal(last.DstNodeIDs(), seeds) {
		t.Fatalf("the last block's destinations %v are not the seeds %v", head(last.DstNodeIDs()), head(seeds))
	}
	for l, b := range blocks {
		if l+1 < len(blocks) && !slices.Equal(b.DstNodeIDs(), blocks[l+1].SrcNodeIDs()) {
			t.Fatalf("block %d: destinations are not block %d's sources", l, l+1)
		}
		if err := b.Adj().Validate(); err != nil {
			t.Fatalf("block %d: %v", l, err)
		}
		srcIDs, nd := b.SrcNodeIDs(), b.NumDstNodes()
		if !slices.Equal(b.SrcData(graph.NID).Int64s(), srcIDs) {
			t.Fatalf("block %d: SrcData(NID) differs from the source ids", l)
		}
		eids := b.EIDs().Int64s()
		if !slices.Equal(b.EData(graph.EID).Int64s(), eids) {
			t.Fatalf("block %d: EData(EID) differs from EIDs", l)
		}
		// Source ids in range; the non-destination ones unique and new.
		seen := map[int64]bool{}
		for _, v := range srcIDs[:nd] {
			seen[v] = true
		}
		for i, v := range srcIDs {
			if v < 0 || v >= n {
				t.Fatalf("block %d: source %d has parent id %d outside [0, %d)", l, i, v, n)
			}
			if i >= nd {
				if seen[v] {
					t.Fatalf("block %d: parent id %d appears twice among the sources", l, v)
				}
				seen[v] = true
			}
		}
		// Relabelling: new sources appear in order of first appearance.
		next := int64(nd)
		a := b.Adj()
		for _, u := range a.Indices {
			if u >= next {
				if u != next {
					t.Fatalf("block %d: source %d appears before source %d", l, u, next)
				}
				next++
			}
		}
		if next != int64(len(srcIDs)) {
			t.Fatalf("block %d: %d sources but only %d reached by edges", l, len(srcIDs), next)
		}
		f := s.Fanouts[l]
		for d := 0; d < nd; d++ {
			v := srcIDs[d]
			deg := adj.Indptr[v+1] - adj.Indptr[v]
			lo, hi := a.Indptr[d], a.Indptr[d+1]
			got := hi - lo
			es := map[int64]bool{}
			for p := lo; p < hi; p++ {
				e, u := eids[p], srcIDs[a.Indices[p]]
				if e < 0 || e >= int64(len(esrc)) {
					t.Fatalf("block %d: edge id %d out of range", l, e)
				}
				ps, pd := esrc[e], edst[e]
				if s.EdgeDir == "out" {
					ps, pd = pd, ps
				}
				if ps != u || pd != v {
					t.Fatalf("block %d: edge %d (%d -> %d) is parent edge %d = %d -> %d (EdgeDir %q)", l, p, u, v, e, esrc[e], edst[e], s.EdgeDir)
				}
				if weights != nil && weights[e] == 0 {
					t.Fatalf("block %d: edge %d of weight 0 was sampled", l, e)
				}
				if es[e] && !s.Replace {
					t.Fatalf("block %d: edge %d sampled twice without replacement", l, e)
				}
				es[e] = true
			}
			var want int64
			switch {
			case deg == 0:
				want = 0
			case f < 0:
				want = deg
			case s.Replace:
				want = int64(f)
			default:
				want = min(int64(f), deg)
			}
			if weights != nil {
				if got > want {
					t.Fatalf("block %d: node %d got %d edges, more than %d", l, v, got, want)
				}
			} else if got != want {
				t.Fatalf("block %d: node %d (degree %d, fanout %d, replace %v) got %d edges, want %d", l, v, deg, f, s.Replace, got, want)
			}
		}
	}
}

func head(s []int64) []int64 { return s[:min(len(s), 8)] }

func mustSample(t testing.TB, s Sampler, g *graph.Graph, seeds []int64, epochSeed uint64) []*graph.Block {
	t.Helper()
	b, err := s.SampleBlocks(g, seeds, epochSeed)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tree returns the sorted (layer, parent edge id) pairs of the computation
// tree of seed v in blocks: the edges into v in the last block, the edges
// into their sources in the block before, and so on.
func tree(blocks []*graph.Block, v int64) [][2]int64 {
	var out [][2]int64
	front := map[int64]bool{v: true}
	for l := len(blocks) - 1; l >= 0; l-- {
		b := blocks[l]
		a, src, eids := b.Adj(), b.SrcNodeIDs(), b.EIDs().Int64s()
		nf := map[int64]bool{}
		done := map[int64]bool{}
		for d, dv := range b.DstNodeIDs() {
			if !front[dv] || done[dv] {
				continue
			}
			done[dv] = true
			for p := a.Indptr[d]; p < a.Indptr[d+1]; p++ {
				out = append(out, [2]int64{int64(l), eids[p]})
				nf[src[a.Indices[p]]] = true
			}
		}
		for k := range front {
			nf[k] = true // a destination is also its own source
		}
		front = nf
	}
	slices.SortFunc(out, func(x, y [2]int64) int {
		if x[0] != y[0] {
			return int(x[0] - y[0])
		}
		return int(x[1] - y[1])
	})
	return out
}
