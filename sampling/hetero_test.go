package sampling

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// heteroGraph returns a small random heterograph: authors write papers,
// papers cite papers and have topics (fields), two relations share the
// edge type name "rel" (ambiguous), and node type "venue" has no nodes and
// no edges. Papers have float32 "feat" (N, 3) equal to [id, 1, 2] and int64
// "label" id % 5; authors have "feat" [id, -1, -2].
func heteroGraph(t testing.TB, seed uint64) *graph.Graph {
	t.Helper()
	st := stream{state: seed}
	n := map[string]int{"author": 300, "paper": 500, "field": 20, "venue": 0}
	rnd := func(src, dst string, m int) graph.EdgeList {
		var el graph.EdgeList
		for i := 0; i < m; i++ {
			el.Src = append(el.Src, st.intn(int64(n[src])))
			el.Dst = append(el.Dst, st.intn(int64(n[dst])))
		}
		return el
	}
	writes := rnd("author", "paper", 1500)
	edges := map[graph.CanonicalEType]graph.EdgeList{
		{Src: "author", EType: "writes", Dst: "paper"}:     writes,
		{Src: "paper", EType: "rev_writes", Dst: "author"}: {Src: writes.Dst, Dst: writes.Src},
		{Src: "paper", EType: "cites", Dst: "paper"}:       rnd("paper", "paper", 3000),
		{Src: "paper", EType: "has_topic", Dst: "field"}:   rnd("paper", "field", 800),
		{Src: "field", EType: "rel", Dst: "paper"}:         rnd("field", "paper", 400),
		{Src: "author", EType: "rel", Dst: "author"}:       rnd("author", "author", 200),
		{Src: "venue", EType: "publishes", Dst: "paper"}:   {},
	}
	g, err := graph.NewHetero(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	for _, nt := range []string{"paper", "author"} {
		k := g.NumNodesOf(nt)
		f := make([]float32, 3*k)
		lab := make([]int64, k)
		for i := 0; i < k; i++ {
			f[3*i], f[3*i+1], f[3*i+2] = float32(i), 1, 2
			if nt == "author" {
				f[3*i+1], f[3*i+2] = -1, -2
			}
			lab[i] = int64(i % 5)
		}
		if err := g.SetNDataOf(nt, "feat", tensor.FromFloat32(f, k, 3)); err != nil {
			t.Fatal(err)
		}
		if nt == "paper" {
			if err := g.SetNDataOf(nt, "label", tensor.FromInt64(lab)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return g
}

// heteroFanouts gives every edge type of heteroGraph a fanout per layer.
func heteroFanouts(f ...int) []map[string]int {
	var out []map[string]int
	for i, k := range f {
		out = append(out, map[string]int{"writes": k, "rev_writes": k, "cites": k, "has_topic": k + i,
			"field:rel:paper": -1, `("author", "rel", "author")`: 2, "publishes": k})
	}
	return out
}

// checkHeteroBlocks checks every structural invariant of hetero blocks.
func checkHeteroBlocks(t *testing.T, g *graph.Graph, fans [][]int, replace bool, seeds map[string][]int64, blocks []*graph.HeteroBlock) {
	t.Helper()
	if len(blocks) != len(fans) {
		t.Fatalf("%d blocks for %d layers", len(blocks), len(fans))
	}
	ces := g.CanonicalETypes()
	last := blocks[len(blocks)-1]
	for _, nt := range g.NTypes() {
		if !slices.Equal(last.DstNodeIDs(nt), seeds[nt]) && !(len(seeds[nt]) == 0 && last.NumDstNodes(nt) == 0) {
			t.Fatalf("last block: %q destinations %v are not the seeds %v", nt, head(last.DstNodeIDs(nt)), head(seeds[nt]))
		}
	}
	for l, b := range blocks {
		if !slices.Equal(b.NTypes(), g.NTypes()) || !slices.Equal(b.CanonicalETypes(), ces) {
			t.Fatalf("block %d: types %v %v, want the graph's %v %v", l, b.NTypes(), b.CanonicalETypes(), g.NTypes(), ces)
		}
		for _, nt := range g.NTypes() {
			src := b.SrcNodeIDs(nt)
			nd := b.NumDstNodes(nt)
			if !slices.Equal(b.DstNodeIDs(nt), src[:nd]) {
				t.Fatalf("block %d: %q destinations are not a prefix of the sources", l, nt)
			}
			if l+1 < len(blocks) && !slices.Equal(b.DstNodeIDs(nt), blocks[l+1].SrcNodeIDs(nt)) {
				t.Fatalf("block %d: %q destinations are not block %d's sources", l, nt, l+1)
			}
			if !slices.Equal(b.SrcData(nt, graph.NID).Int64s(), src) {
				t.Fatalf("block %d: %q SrcData(NID) differs from the source ids", l, nt)
			}
			seen := map[int64]bool{}
			for _, v := range src[:nd] {
				seen[v] = true
			}
			for i, v := range src {
				if v < 0 || v >= int64(g.NumNodesOf(nt)) {
					t.Fatalf("block %d: %q source %d has id %d out of range", l, nt, i, v)
				}
				if i >= nd {
					if seen[v] {
						t.Fatalf("block %d: %q id %d appears twice among the sources", l, nt, v)
					}
					seen[v] = true
				}
			}
		}
		reached := map[string]map[int64]bool{}
		for r, ce := range ces {
			key := ce.String()
			a := b.AdjOf(key)
			if err := a.Validate(); err != nil {
				t.Fatalf("block %d %v: %v", l, ce, err)
			}
			if a.NumDst != b.NumDstNodes(ce.Dst) || a.NumSrc != b.NumSrcNodes(ce.Src) {
				t.Fatalf("block %d %v: adjacency %dx%d, want %dx%d", l, ce, a.NumDst, a.NumSrc, b.NumDstNodes(ce.Dst), b.NumSrcNodes(ce.Src))
			}
			eids := b.EIDs(key).Int64s()
			if !slices.Equal(b.EData(key, graph.EID).Int64s(), eids) {
				t.Fatalf("block %d %v: EData(EID) differs from EIDs", l, ce)
			}
			ps, pd := g.EdgesOf(key)
			psrc, pdst := ps.Int64s(), pd.Int64s()
			padj := g.AdjOf(key)
			srcIDs, dstIDs := b.SrcNodeIDs(ce.Src), b.DstNodeIDs(ce.Dst)
			if reached[ce.Src] == nil {
				reached[ce.Src] = map[int64]bool{}
			}
			f := fans[l][r]
			for d, v := range dstIDs {
				lo, hi := a.Indptr[d], a.Indptr[d+1]
				es := map[int64]bool{}
				for p := lo; p < hi; p++ {
					e, u := eids[p], srcIDs[a.Indices[p]]
					reached[ce.Src][a.Indices[p]] = true
					if psrc[e] != u || pdst[e] != v {
						t.Fatalf("block %d %v: edge %d (%d -> %d) is parent edge %d = %d -> %d", l, ce, p, u, v, e, psrc[e], pdst[e])
					}
					if es[e] && !replace {
						t.Fatalf("block %d %v: edge %d sampled twice", l, ce, e)
					}
					es[e] = true
				}
				deg := padj.Indptr[v+1] - padj.Indptr[v]
				var want int64
				switch {
				case deg == 0 || f == 0:
				case f < 0:
					want = deg
				case replace:
					want = int64(f)
				default:
					want = min(int64(f), deg)
				}
				if hi-lo != want {
					t.Fatalf("block %d %v: node %d (degree %d, fanout %d) got %d edges, want %d", l, ce, v, deg, f, hi-lo, want)
				}
			}
		}
		for _, nt := range g.NTypes() {
			for i := b.NumDstNodes(nt); i < b.NumSrcNodes(nt); i++ {
				if !reached[nt][int64(i)] {
					t.Fatalf("block %d: %q source %d is reached by no edge", l, nt, i)
				}
			}
		}
	}
}

func TestHeteroSamplerBlocks(t *testing.T) {
	g := heteroGraph(t, 1)
	seeds := map[string][]int64{"paper": {3, 7, 7, 499, 0}, "author": {5, 250}}
	for _, replace := range []bool{false, true} {
		s := HeteroNeighborSampler{Fanouts: heteroFanouts(4, 3), Replace: replace}
		blocks, err := s.SampleHeteroBlocks(g, seeds, 11)
		if err != nil {
			t.Fatal(err)
		}
		fans, err := s.resolveFanouts("test", g)
		if err != nil {
			t.Fatal(err)
		}
		checkHeteroBlocks(t, g, fans, replace, seeds, blocks)
		// Every node type is present, even with no nodes.
		if n := blocks[0].NumSrcNodes("venue"); n != 0 {
			t.Errorf("venue has %d source nodes", n)
		}
		if blocks[0].NumSrcNodes("field") == 0 || blocks[0].NumEdgesOf("has_topic") == 0 {
			t.Errorf("the first block reached no fields: %v", blocks[0])
		}
		// Deterministic: again gives the same; another epoch differs.
		again, _ := s.SampleHeteroBlocks(g, seeds, 11)
		if !heteroEqual(blocks, again) {
			t.Error("two samples with the same epoch seed differ")
		}
		other, _ := s.SampleHeteroBlocks(g, seeds, 12)
		if heteroEqual(blocks, other) {
			t.Error("two epoch seeds gave the same sample")
		}
	}
	// A plain NeighborSampler applies its fanouts to every edge type.
	ns := NeighborSampler{Fanouts: []int{3, -1}}
	blocks, err := ns.SampleHeteroBlocks(g, seeds, 5)
	if err != nil {
		t.Fatal(err)
	}
	nr := len(g.CanonicalETypes())
	fans := [][]int{slices.Repeat([]int{3}, nr), slices.Repeat([]int{-1}, nr)}
	checkHeteroBlocks(t, g, fans, false, seeds, blocks)
	star := HeteroNeighborSampler{Fanouts: []map[string]int{{"*": 3}, {"*": -1}}}
	b2, err := star.SampleHeteroBlocks(g, seeds, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !heteroEqual(blocks, b2) {
		t.Error(`{"*": k} differs from NeighborSampler{Fanouts: k}`)
	}
	// Weighted sampling: weight 0 edges are never taken.
	for _, ce := range g.CanonicalETypes() {
		m := g.NumEdgesOf(ce.String())
		w := make([]float32, m)
		for i := range w {
			w[i] = float32(i % 3)
		}
		if err := g.SetEDataOf(ce.String(), "w", tensor.FromFloat32(w)); err != nil {
			t.Fatal(err)
		}
	}
	ws := HeteroNeighborSampler{Fanouts: heteroFanouts(3, 2), Prob: "w"}
	wb, err := ws.SampleHeteroBlocks(g, seeds, 3)
	if err != nil {
		t.Fatal(err)
	}
	for l, b := range wb {
		for _, ce := range g.CanonicalETypes() {
			for _, e := range b.EIDList(ce.String()) {
				if e%3 == 0 {
					t.Fatalf("block %d %v: edge %d of weight 0 sampled", l, ce, e)
				}
			}
		}
	}
}

// heteroEqual reports whether two samples are identical.
func heteroEqual(a, b []*graph.HeteroBlock) bool {
	if len(a) != len(b) {
		return false
	}
	for l := range a {
		for _, nt := range a[l].NTypes() {
			if !slices.Equal(a[l].SrcNodeIDs(nt), b[l].SrcNodeIDs(nt)) || a[l].NumDstNodes(nt) != b[l].NumDstNodes(nt) {
				return false
			}
		}
		for _, ce := range a[l].CanonicalETypes() {
			x, y := a[l].AdjOf(ce.String()), b[l].AdjOf(ce.String())
			if !slices.Equal(x.Indptr, y.Indptr) || !slices.Equal(x.Indices, y.Indices) ||
				!slices.Equal(a[l].EIDList(ce.String()), b[l].EIDList(ce.String())) {
				return false
			}
		}
	}
	return true
}

// TestHeteroEqualsHomogeneous checks that on a graph of one node type and
// one edge type the hetero samplers give NeighborSampler's blocks, in the
// serial and the parallel picking paths.
func TestHeteroEqualsHomogeneous(t *testing.T) {
	g := powerLaw(t, 3000, 60000, 3)
	w := make([]float32, g.NumEdges())
	for i := range w {
		w[i] = float32(i%7) / 3
	}
	if err := g.SetEData("w", tensor.FromFloat32(w)); err != nil {
		t.Fatal(err)
	}
	seeds := rangeIDs(100, 700)
	defer func(p int64) { parallelEdges = p }(parallelEdges)
	for _, pe := range []int64{1 << 14, 64} {
		parallelEdges = pe
		for _, s := range []NeighborSampler{
			{Fanouts: []int{10, 5}},
			{Fanouts: []int{4, -1}, Replace: true},
			{Fanouts: []int{6, 3}, Prob: "w"},
			{Fanouts: []int{6, 3}, Prob: "w", Replace: true},
		} {
			want := mustSample(t, s, g, seeds, 9)
			hs := HeteroNeighborSampler{Prob: s.Prob, Replace: s.Replace}
			for _, f := range s.Fanouts {
				hs.Fanouts = append(hs.Fanouts, map[string]int{graph.DefaultEType: f})
			}
			for name, smp := range map[string]HeteroSampler{"HeteroNeighborSampler": hs, "NeighborSampler": s} {
				got, err := smp.SampleHeteroBlocks(g, map[string][]int64{graph.DefaultNType: seeds}, 9)
				if err != nil {
					t.Fatal(err)
				}
				for l := range want {
					a, b := want[l], got[l]
					ce := graph.DefaultEType
					if !slices.Equal(a.SrcNodeIDs(), b.SrcNodeIDs(graph.DefaultNType)) || a.NumDstNodes() != b.NumDstNodes(graph.DefaultNType) ||
						!slices.Equal(a.Adj().Indptr, b.AdjOf(ce).Indptr) || !slices.Equal(a.Adj().Indices, b.AdjOf(ce).Indices) ||
						!slices.Equal(a.EIDs().Int64s(), b.EIDList(ce)) {
						t.Fatalf("%s %v (parallel from %d edges): block %d differs from NeighborSampler's", name, s, pe, l)
					}
				}
			}
		}
	}
}

func heteroEpoch(t *testing.T, dl *HeteroDataLoader) [][]*graph.HeteroBlock {
	t.Helper()
	var out [][]*graph.HeteroBlock
	for dl.Next() {
		out = append(out, dl.Blocks())
	}
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestHeteroLoader(t *testing.T) {
	g := heteroGraph(t, 2)
	papers := rangeIDs(0, 230)
	mask := make([]bool, 300)
	for i := 0; i < 300; i += 7 {
		mask[i] = true
	}
	seeds := map[string]*tensor.Tensor{"paper": tensor.FromInt64(papers), "author": tensor.FromBool(mask)}
	s := HeteroNeighborSampler{Fanouts: heteroFanouts(3, 2)}
	opts := LoaderOptions{BatchSize: 37, Shuffle: true, Seed: 4, PrefetchNodeFeats: []string{"feat"}}
	var ref [][]*graph.HeteroBlock
	for _, nw := range []int{0, 1, 3} {
		o := opts
		o.NumWorkers = nw
		dl, err := NewHeteroDataLoader(g, seeds, s, o)
		if err != nil {
			t.Fatal(err)
		}
		if dl.NumSeeds() != 230+43 || dl.Len() != (273+36)/37 {
			t.Fatalf("%d seeds, %d batches", dl.NumSeeds(), dl.Len())
		}
		for e := 0; e < 2; e++ {
			got := heteroEpoch(t, dl)
			if len(got) != dl.Len() {
				t.Fatalf("NumWorkers %d: %d batches, want %d", nw, len(got), dl.Len())
			}
			if nw == 0 && e == 0 {
				ref = got
				// Seeds cover every paper and masked author once.
				count := map[string]int{}
				for _, bl := range got {
					last := bl[len(bl)-1]
					for _, nt := range []string{"paper", "author"} {
						count[nt] += last.NumDstNodes(nt)
					}
					// Features gathered per node type.
					first := bl[0]
					for _, nt := range []string{"paper", "author"} {
						f := first.SrcData(nt, "feat").Float32s()
						for i, v := range first.SrcNodeIDs(nt) {
							if f[3*i] != float32(v) {
								t.Fatalf("%q feat row %d is %v, want id %d", nt, i, f[3*i:3*i+3], v)
							}
						}
					}
					if first.HasSrcData("field", "feat") {
						t.Fatal("field has no feat but got one")
					}
				}
				if count["paper"] != 230 || count["author"] != 43 {
					t.Fatalf("seeds per type %v", count)
				}
			}
			if e == 0 {
				for i := range ref {
					if !heteroEqual(ref[i], got[i]) {
						t.Fatalf("NumWorkers %d: batch %d differs from NumWorkers 0", nw, i)
					}
				}
			}
		}
		dl.Close()
	}
	// Labels for the seed type; InputNodes / OutputNodes.
	dl, err := NewHeteroDataLoader(g, map[string]*tensor.Tensor{"paper": tensor.FromInt64(papers)}, NeighborSampler{Fanouts: []int{2, 2}},
		LoaderOptions{BatchSize: 64, PrefetchLabels: []string{"label"}, NumWorkers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for dl.Next() {
		bl := dl.Blocks()
		last := bl[len(bl)-1]
		lab := last.DstData("paper", "label").Int64s()
		out := dl.OutputNodes()
		for i, v := range out["paper"].Int64s() {
			if lab[i] != v%5 {
				t.Fatalf("label %d of paper %d", lab[i], v)
			}
		}
		if out["author"].Size(0) != 0 || dl.InputNodes()["author"].Size(0) != bl[0].NumSrcNodes("author") {
			t.Fatal("input / output nodes per type")
		}
	}
	if dl.Err() != nil {
		t.Fatal(dl.Err())
	}
	// StateDict: resuming at batch 3 gives the batches that followed.
	dl2, _ := NewHeteroDataLoader(g, seeds, s, opts)
	all := heteroEpoch(t, dl2)
	dl2.Next()
	dl2.Next()
	dl2.Next()
	sd := dl2.StateDict()
	dl3, _ := NewHeteroDataLoader(g, seeds, s, opts)
	if err := dl3.LoadStateDict(sd); err != nil {
		t.Fatal(err)
	}
	rest := heteroEpoch(t, dl3)
	_ = all
	want := heteroEpoch(t, dl2)
	if len(rest) != len(want) {
		t.Fatalf("resumed %d batches, want %d", len(rest), len(want))
	}
	for i := range rest {
		if !heteroEqual(rest[i], want[i]) {
			t.Fatalf("resumed batch %d differs", i)
		}
	}
}

func TestHeteroLoaderCancel(t *testing.T) {
	g := heteroGraph(t, 3)
	seeds := map[string]*tensor.Tensor{"paper": tensor.FromInt64(rangeIDs(0, 500))}
	for _, nw := range []int{0, 2} {
		dl, err := NewHeteroDataLoader(g, seeds, NeighborSampler{Fanouts: []int{3, 3}}, LoaderOptions{BatchSize: 20, NumWorkers: nw})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		restore := runctx.Set(ctx)
		n := 0
		for dl.Next() {
			n++
			if n == 2 {
				cancel()
			}
		}
		restore()
		cancel()
		if n != 2 || !errors.Is(dl.Err(), context.Canceled) {
			t.Errorf("NumWorkers %d: %d batches, err %v; want 2 and context.Canceled", nw, n, dl.Err())
		}
		if got := len(heteroEpoch(t, dl)); got != dl.Len() {
			t.Errorf("NumWorkers %d: %d batches after the interrupt", nw, got)
		}
		dl.Close()
	}
}

func TestHeteroErrors(t *testing.T) {
	g := heteroGraph(t, 4)
	seeds := map[string][]int64{"paper": {1, 2}}
	fan := func(edit func(m map[string]int)) HeteroNeighborSampler {
		f := heteroFanouts(2)
		edit(f[0])
		return HeteroNeighborSampler{Fanouts: f}
	}
	cases := []struct {
		name string
		err  error
		want []string
	}{
		{"unknown etype", sampleErr(g, fan(func(m map[string]int) { m["likes"] = 3 }), seeds), []string{`"likes"`, "no edge type"}},
		{"ambiguous etype", sampleErr(g, fan(func(m map[string]int) { delete(m, "field:rel:paper"); m["rel"] = 3 }), seeds), []string{`"rel"`, "ambiguous"}},
		{"missing etype", sampleErr(g, fan(func(m map[string]int) { delete(m, "cites") }), seeds), []string{"paper:cites:paper", "no fanout"}},
		{"same etype twice", sampleErr(g, fan(func(m map[string]int) { m["paper:cites:paper"] = 1 }), seeds), []string{"same edge type"}},
		{"bad fanout", sampleErr(g, fan(func(m map[string]int) { m["cites"] = -2 }), seeds), []string{`"cites"`, "-2"}},
		{"unknown ntype seeds", sampleErr(g, HeteroNeighborSampler{Fanouts: heteroFanouts(2)}, map[string][]int64{"journal": {0}}), []string{`"journal"`}},
		{"seed out of range", sampleErr(g, HeteroNeighborSampler{Fanouts: heteroFanouts(2)}, map[string][]int64{"field": {3, 20}}), []string{`"field"`, "20", "[0, 20)"}},
		{"out edges", sampleErr(g, NeighborSampler{Fanouts: []int{2}, EdgeDir: "out"}, seeds), []string{"EdgeDir"}},
		{"missing prob", sampleErr(g, NeighborSampler{Fanouts: []int{2}, Prob: "nope"}, seeds), []string{`"nope"`}},
		{"empty fanouts", sampleErr(g, HeteroNeighborSampler{}, seeds), []string{"Fanouts is empty"}},
	}
	load := func(seeds map[string]*tensor.Tensor, s HeteroSampler, o LoaderOptions) error {
		_, err := NewHeteroDataLoader(g, seeds, s, o)
		return err
	}
	ok := HeteroNeighborSampler{Fanouts: heteroFanouts(2)}
	ps := map[string]*tensor.Tensor{"paper": tensor.FromInt64([]int64{1})}
	cases = append(cases, []struct {
		name string
		err  error
		want []string
	}{
		{"loader unknown ntype", load(map[string]*tensor.Tensor{"journal": tensor.FromInt64([]int64{0})}, ok, LoaderOptions{}), []string{`"journal"`}},
		{"loader out of range", load(map[string]*tensor.Tensor{"author": tensor.FromInt64([]int64{0, 300})}, ok, LoaderOptions{}), []string{`"author"`, "300"}},
		{"loader bad seeds", load(map[string]*tensor.Tensor{"author": tensor.FromFloat32([]float32{0})}, ok, LoaderOptions{}), []string{`"author"`, "int64"}},
		{"loader no seeds", load(nil, ok, LoaderOptions{}), []string{"no seeds"}},
		{"loader nil sampler", load(ps, nil, LoaderOptions{}), []string{"sampler is nil"}},
		{"loader missing etype", load(ps, fan(func(m map[string]int) { delete(m, "writes") }), LoaderOptions{}), []string{"author:writes:paper"}},
		{"loader feats", load(ps, ok, LoaderOptions{PrefetchNodeFeats: []string{"emb"}}), []string{`"emb"`}},
		{"loader labels", load(map[string]*tensor.Tensor{"author": tensor.FromInt64([]int64{1})}, ok, LoaderOptions{PrefetchLabels: []string{"label"}}), []string{`"author"`, `"label"`}},
		{"loader options", load(ps, ok, LoaderOptions{BatchSize: -1}), []string{"BatchSize"}},
	}...)
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(c.err, ErrArgument) {
			t.Errorf("%s: %v does not wrap ErrArgument", c.name, c.err)
		}
		for _, w := range c.want {
			if !strings.Contains(c.err.Error(), w) {
				t.Errorf("%s: %q does not mention %s", c.name, c.err, w)
			}
		}
	}
	// The homogeneous DataLoader points at the hetero one.
	_, err := NewDataLoader(g, tensor.FromInt64([]int64{0}), NeighborSampler{Fanouts: []int{1}}, LoaderOptions{})
	if err == nil || !strings.Contains(err.Error(), "NewHeteroDataLoader") {
		t.Errorf("NewDataLoader on a heterograph: %v", err)
	}
}

func sampleErr(g *graph.Graph, s HeteroSampler, seeds map[string][]int64) error {
	_, err := s.SampleHeteroBlocks(g, seeds, 1)
	return err
}

func TestHeteroSamplerString(t *testing.T) {
	s := HeteroNeighborSampler{Fanouts: []map[string]int{{"cites": 2, "writes": -1}}}
	if got, want := s.String(), `HeteroNeighborSampler(fanouts=[{"cites": 2, "writes": -1}], edge_dir="in", prob="", replace=false)`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	g := heteroGraph(t, 5)
	b, err := NeighborSampler{Fanouts: []int{1}}.SampleHeteroBlocks(g, map[string][]int64{"paper": {0}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(fmt.Sprint(b[0]), "HeteroBlock(num_src_nodes={'author': ") {
		t.Errorf("block String %s", b[0])
	}
}
