package sampling

import (
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// userItemGraph is a small bipartite heterograph: "listens" user -> item,
// "rev-listens" its reverse (edge i reversed), and symmetric "friends"
// user -> user whose reverse ids are returned.
func userItemGraph(t testing.TB, seed int64) (*graph.Graph, []int64) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	const nu, ni = 30, 40
	var ls, ld []int64
	seen := map[[2]int64]bool{}
	for len(ls) < 200 {
		u, i := rng.Int63n(nu), rng.Int63n(ni)
		if !seen[[2]int64{u, i}] {
			seen[[2]int64{u, i}] = true
			ls, ld = append(ls, u), append(ld, i)
		}
	}
	var fs, fd, rev []int64
	for len(fs) < 80 {
		a, b := rng.Int63n(nu), rng.Int63n(nu)
		if a == b || seen[[2]int64{-1 - a, b}] {
			continue
		}
		seen[[2]int64{-1 - a, b}], seen[[2]int64{-1 - b, a}] = true, true
		n := int64(len(fs))
		fs, fd = append(fs, a, b), append(fd, b, a)
		rev = append(rev, n+1, n)
	}
	g, err := graph.NewHetero(map[string]int{"user": nu, "item": ni}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "user", EType: "listens", Dst: "item"}:     {Src: ls, Dst: ld},
		{Src: "item", EType: "rev-listens", Dst: "user"}: {Src: ld, Dst: ls},
		{Src: "user", EType: "friends", Dst: "user"}:     {Src: fs, Dst: fd},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g, rev
}

func arange(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i)
	}
	return s
}

// heteroEdgeBatch is what one batch of a heterograph edge loader gave.
type heteroEdgeBatch struct {
	pairE, pairS, pairD map[string][]int64 // per etype: EIDs, parent src/dst
	negS, negD          map[string][]int64 // parent ids of negatives
	blockE              []map[string][]int64
	out                 map[string][]int64
}

func collectHeteroEdges(t *testing.T, g *graph.Graph, dl *HeteroDataLoader) []heteroEdgeBatch {
	t.Helper()
	var res []heteroEdgeBatch
	for dl.Next() {
		p, n := dl.PairGraph(), dl.NegPairGraph()
		b := heteroEdgeBatch{pairE: map[string][]int64{}, pairS: map[string][]int64{}, pairD: map[string][]int64{},
			negS: map[string][]int64{}, negD: map[string][]int64{}, out: map[string][]int64{}}
		if !reflect.DeepEqual(p.CanonicalETypes(), g.CanonicalETypes()) || !reflect.DeepEqual(p.NTypes(), g.NTypes()) {
			t.Fatalf("pair graph types %v %v, want %v %v", p.NTypes(), p.CanonicalETypes(), g.NTypes(), g.CanonicalETypes())
		}
		for _, nt := range g.NTypes() {
			nid := p.NDataOf(nt, graph.NID).Int64s()
			b.out[nt] = dl.OutputNodes()[nt].Int64s()
			if !reflect.DeepEqual(append([]int64{}, nid...), append([]int64{}, b.out[nt]...)) {
				t.Fatalf("%s: pair NID %v != OutputNodes %v", nt, nid, b.out[nt])
			}
			if n != nil && !reflect.DeepEqual(n.NDataOf(nt, graph.NID).Int64s(), nid) {
				t.Fatalf("%s: negative pair graph NID differs", nt)
			}
		}
		for _, ce := range g.CanonicalETypes() {
			k := ce.String()
			gs, gd := g.EdgesOf(k)
			eid := p.EDataOf(k, graph.EID).Int64s()
			ps, pd := p.EdgesOf(k)
			sn, dn := p.NDataOf(ce.Src, graph.NID).Int64s(), p.NDataOf(ce.Dst, graph.NID).Int64s()
			for i, e := range eid {
				u, v := sn[ps.Int64s()[i]], dn[pd.Int64s()[i]]
				if u != gs.Int64s()[e] || v != gd.Int64s()[e] {
					t.Fatalf("%s: pair edge %d maps to %d -> %d, parent edge %d is %d -> %d", k, i, u, v, e, gs.Int64s()[e], gd.Int64s()[e])
				}
				b.pairS[k], b.pairD[k] = append(b.pairS[k], u), append(b.pairD[k], v)
			}
			b.pairE[k] = append([]int64{}, eid...)
			if n != nil {
				ns, nd := n.EdgesOf(k)
				for i := range ns.Int64s() {
					b.negS[k] = append(b.negS[k], sn[ns.Int64s()[i]])
					b.negD[k] = append(b.negD[k], dn[nd.Int64s()[i]])
				}
			}
		}
		for _, blk := range dl.Blocks() {
			m := map[string][]int64{}
			for _, ce := range blk.CanonicalETypes() {
				m[ce.String()] = append([]int64{}, blk.EIDList(ce.String())...)
			}
			b.blockE = append(b.blockE, m)
		}
		res = append(res, b)
	}
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestHeteroEdgeLoaderStructure(t *testing.T) {
	g, rev := userItemGraph(t, 1)
	lk := `("user", "listens", "item")`
	rk := `("item", "rev-listens", "user")`
	fk := `("user", "friends", "user")`
	ls, _ := g.EdgesOf(lk)
	for _, mode := range []string{ExcludeNone, ExcludeSelf, ExcludeReverseTypes, ExcludeReverseID} {
		t.Run("exclude="+mode, func(t *testing.T) {
			o := HeteroEdgePredictionOptions{Exclude: mode, NegativeSampler: PerSourceUniform(3)}
			switch mode {
			case ExcludeReverseTypes:
				o.ReverseETypes = map[string]string{"listens": "rev-listens"}
			case ExcludeReverseID:
				o.ReverseEIDs = map[string]*tensor.Tensor{"friends": tensor.FromInt64(rev)}
			}
			s := AsHeteroEdgePredictionSampler(NeighborSampler{Fanouts: []int{-1, -1}}, o)
			eids := map[string]*tensor.Tensor{"listens": tensor.FromInt64(arange(120)), "user:friends:user": tensor.FromInt64(arange(60))}
			var first []heteroEdgeBatch
			for _, w := range []int{0, 1, 2} {
				dl, err := NewHeteroEdgeDataLoader(g, eids, s, LoaderOptions{BatchSize: 16, Shuffle: true, Seed: 7, NumWorkers: w})
				if err != nil {
					t.Fatal(err)
				}
				var all []heteroEdgeBatch
				for ep := 0; ep < 2; ep++ {
					all = append(all, collectHeteroEdges(t, g, dl)...)
				}
				dl.Close()
				if w == 0 {
					first = all
					continue
				}
				if !reflect.DeepEqual(all, first) {
					t.Fatalf("NumWorkers=%d: batches differ from NumWorkers=0", w)
				}
			}
			// Every edge once per epoch, and exclusion.
			count := map[string]int{}
			for bi, b := range first {
				for k, e := range b.pairE {
					count[k] += len(e)
				}
				if got, want := len(b.negS[lk]), 3*len(b.pairE[lk]); got != want {
					t.Fatalf("batch %d: %d negatives of listens, want %d", bi, got, want)
				}
				for i := range b.negS[lk] {
					if b.negS[lk][i] != ls.Int64s()[b.pairE[lk][i/3]] {
						t.Fatalf("batch %d: negative %d has source %d, want the positive's", bi, i, b.negS[lk][i])
					}
				}
				if len(b.pairE[rk]) != 0 {
					t.Fatalf("batch %d has rev-listens edges %v, none were asked for", bi, b.pairE[rk])
				}
				banned := map[string]map[int64]bool{lk: {}, rk: {}, fk: {}}
				if mode != ExcludeNone {
					for _, e := range b.pairE[lk] {
						banned[lk][e] = true
						if mode == ExcludeReverseTypes {
							banned[rk][e] = true
						}
					}
					for _, e := range b.pairE[fk] {
						banned[fk][e] = true
						if mode == ExcludeReverseID {
							banned[fk][rev[e]] = true
						}
					}
				}
				seenBanned := false
				for l, m := range b.blockE {
					for k, es := range m {
						for _, e := range es {
							if banned[k][e] {
								t.Fatalf("batch %d: excluded edge %d of %s in block %d", bi, e, k, l)
							}
						}
						if mode == ExcludeNone {
							for _, e := range b.pairE[k] {
								for _, f := range es {
									seenBanned = seenBanned || f == e
								}
							}
						}
					}
				}
				if mode == ExcludeNone && bi == 0 && !seenBanned {
					t.Fatalf("without exclusion the full-neighbour blocks should hold the batch's edges")
				}
			}
			if count[lk] != 240 || count[fk] != 120 {
				t.Fatalf("edges over 2 epochs: %v, want 240 listens and 120 friends", count)
			}
		})
	}
}

func TestHeteroEdgeLoaderGlobalUniform(t *testing.T) {
	g, _ := userItemGraph(t, 2)
	s := AsHeteroEdgePredictionSampler(HeteroNeighborSampler{Fanouts: []map[string]int{{"*": 2}}},
		HeteroEdgePredictionOptions{Exclude: ExcludeSelf, NegativeSampler: GlobalUniform(2)})
	dl, err := NewHeteroEdgeDataLoader(g, map[string]*tensor.Tensor{"listens": tensor.FromInt64(arange(200))}, s, LoaderOptions{BatchSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	if !strings.Contains(dl.String(), "HeteroEdgeDataLoader(num_edges=200") {
		t.Fatalf("String: %s", dl)
	}
	lk := `("user", "listens", "item")`
	gs, gd := g.EdgesOf(lk)
	isEdge := map[[2]int64]bool{}
	for i := range gs.Int64s() {
		isEdge[[2]int64{gs.Int64s()[i], gd.Int64s()[i]}] = true
	}
	n := 0
	for _, b := range collectHeteroEdges(t, g, dl) {
		for i := range b.negS[lk] {
			if isEdge[[2]int64{b.negS[lk][i], b.negD[lk][i]}] {
				t.Fatalf("GlobalUniform returned the edge %d -> %d", b.negS[lk][i], b.negD[lk][i])
			}
			n++
		}
	}
	if n < 350 {
		t.Fatalf("%d negatives for 200 edges with k=2", n)
	}
}

func TestHeteroEdgeSamplerExcluding(t *testing.T) {
	g, _ := userItemGraph(t, 3)
	s := HeteroNeighborSampler{Fanouts: []map[string]int{{"*": 3}}}
	seeds := map[string][]int64{"user": arange(30), "item": arange(40)}
	plain, err := s.SampleHeteroBlocks(g, seeds, 5)
	if err != nil {
		t.Fatal(err)
	}
	none, err := s.SampleHeteroBlocksExcluding(g, seeds, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !heteroEqual(plain, none) {
		t.Fatal("excluding nothing differs from SampleHeteroBlocks")
	}
	ex, err := s.SampleHeteroBlocksExcluding(g, seeds, 5, map[string][]int64{"listens": arange(100)})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ex[0].EIDList("listens") {
		if e < 100 {
			t.Fatalf("excluded edge %d sampled", e)
		}
	}
	for _, bad := range []map[string][]int64{{"nope": {0}}, {"listens": {200}}, {"listens": {-1}}} {
		if _, err := s.SampleHeteroBlocksExcluding(g, seeds, 5, bad); !errors.Is(err, ErrArgument) {
			t.Fatalf("exclude %v: %v", bad, err)
		}
	}
}

func TestHeteroEdgeLoaderErrors(t *testing.T) {
	g, rev := userItemGraph(t, 4)
	ok := map[string]*tensor.Tensor{"listens": tensor.FromInt64(arange(10))}
	ns := NeighborSampler{Fanouts: []int{2}}
	mk := func(o HeteroEdgePredictionOptions) *HeteroEdgePredictionSampler {
		return AsHeteroEdgePredictionSampler(ns, o)
	}
	// g2 has a "rev" type with the wrong edge count.
	ls, ld := g.EdgesOf("listens")
	g2, err := graph.NewHetero(map[string]int{"user": 30, "item": 40}, map[graph.CanonicalEType]graph.EdgeList{
		{Src: "user", EType: "listens", Dst: "item"}: {Src: ls.Int64s(), Dst: ld.Int64s()},
		{Src: "item", EType: "rev", Dst: "user"}:     {Src: ld.Int64s()[:5], Dst: ls.Int64s()[:5]},
		{Src: "user", EType: "same", Dst: "item"}:    {Src: ls.Int64s(), Dst: ld.Int64s()},
		{Src: "item", EType: "shuffled", Dst: "user"}: {Src: append(ld.Int64s()[1:], ld.Int64s()[0]),
			Dst: append(ls.Int64s()[1:], ls.Int64s()[0])},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		g    *graph.Graph
		eids map[string]*tensor.Tensor
		s    *HeteroEdgePredictionSampler
		want string
	}{
		{"nil graph", nil, ok, mk(HeteroEdgePredictionOptions{}), "nil"},
		{"nil sampler", g, ok, nil, "nil"},
		{"nil inner", g, ok, &HeteroEdgePredictionSampler{}, "no inner Sampler"},
		{"no eids", g, nil, mk(HeteroEdgePredictionOptions{}), "no edges"},
		{"unknown etype", g, map[string]*tensor.Tensor{"likes": tensor.FromInt64([]int64{0})}, mk(HeteroEdgePredictionOptions{}), `"likes"`},
		{"same etype twice", g, map[string]*tensor.Tensor{"listens": tensor.FromInt64([]int64{0}), "user:listens:item": tensor.FromInt64([]int64{1})}, mk(HeteroEdgePredictionOptions{}), "same edge type"},
		{"nil eids", g, map[string]*tensor.Tensor{"listens": nil}, mk(HeteroEdgePredictionOptions{}), "nil"},
		{"float eids", g, map[string]*tensor.Tensor{"listens": tensor.FromFloat32([]float32{0}, 1)}, mk(HeteroEdgePredictionOptions{}), "1-D int64"},
		{"eid out of range", g, map[string]*tensor.Tensor{"friends": tensor.FromInt64([]int64{0, 80})}, mk(HeteroEdgePredictionOptions{}), "edge id 80"},
		{"bad exclude", g, ok, mk(HeteroEdgePredictionOptions{Exclude: "reverse"}), `Exclude "reverse"`},
		{"reverse_types without map", g, ok, mk(HeteroEdgePredictionOptions{Exclude: ExcludeReverseTypes}), "needs ReverseETypes"},
		{"map without reverse_types", g, ok, mk(HeteroEdgePredictionOptions{Exclude: ExcludeSelf, ReverseETypes: map[string]string{"listens": "rev-listens"}}), "ReverseETypes is set"},
		{"reverse unknown key", g, ok, mk(HeteroEdgePredictionOptions{Exclude: ExcludeReverseTypes, ReverseETypes: map[string]string{"likes": "rev-listens"}}), `"likes"`},
		{"reverse unknown value", g, ok, mk(HeteroEdgePredictionOptions{Exclude: ExcludeReverseTypes, ReverseETypes: map[string]string{"listens": "liked-by"}}), `"liked-by"`},
		{"reverse endpoint types", g2, ok, mk(HeteroEdgePredictionOptions{Exclude: ExcludeReverseTypes, ReverseETypes: map[string]string{"listens": "same"}}), "endpoint types"},
		{"reverse edge count", g2, ok, mk(HeteroEdgePredictionOptions{Exclude: ExcludeReverseTypes, ReverseETypes: map[string]string{"listens": "rev"}}), "item:rev:user 5"},
		{"reverse not aligned", g2, ok, mk(HeteroEdgePredictionOptions{Exclude: ExcludeReverseTypes, ReverseETypes: map[string]string{"listens": "shuffled"}}), "not its reverse"},
		{"reverse_id without ids", g, ok, mk(HeteroEdgePredictionOptions{Exclude: ExcludeReverseID}), "needs ReverseEIDs"},
		{"ids without reverse_id", g, ok, mk(HeteroEdgePredictionOptions{ReverseEIDs: map[string]*tensor.Tensor{"friends": tensor.FromInt64(rev)}}), "ReverseEIDs is set"},
		{"reverse ids shape", g, ok, mk(HeteroEdgePredictionOptions{Exclude: ExcludeReverseID, ReverseEIDs: map[string]*tensor.Tensor{"friends": tensor.FromInt64(rev[:3])}}), "must be (80) int64"},
		{"reverse ids range", g, ok, mk(HeteroEdgePredictionOptions{Exclude: ExcludeReverseID, ReverseEIDs: map[string]*tensor.Tensor{"friends": tensor.FromInt64(append(append([]int64{}, rev[:79]...), 999))}}), "= 999"},
		{"non-excluding sampler", g, ok, &HeteroEdgePredictionSampler{Sampler: plainHetero{}, HeteroEdgePredictionOptions: HeteroEdgePredictionOptions{Exclude: ExcludeSelf}}, "HeteroExcludingSampler"},
		{"k too large", g, ok, mk(HeteroEdgePredictionOptions{NegativeSampler: PerSourceUniform(41)}), `destination type "item"`},
		{"k zero", g, ok, mk(HeteroEdgePredictionOptions{NegativeSampler: GlobalUniform(0)}), "k = 0"},
	}
	for _, c := range cases {
		_, err := NewHeteroEdgeDataLoader(c.g, c.eids, c.s, LoaderOptions{BatchSize: 4})
		if !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrArgument containing %q", c.name, err, c.want)
		}
	}
}

// plainHetero is a HeteroSampler that cannot exclude edges.
type plainHetero struct{}

func (plainHetero) SampleHeteroBlocks(g *graph.Graph, seeds map[string][]int64, epochSeed uint64) ([]*graph.HeteroBlock, error) {
	return NeighborSampler{Fanouts: []int{1}}.SampleHeteroBlocks(g, seeds, epochSeed)
}
