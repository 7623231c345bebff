package graph

import (
	"bytes"
	"errors"
	"image/png"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestAnalyzeSmallGraph(t *testing.T) {
	// 0->1, 0->2, 1->2, 2->2 (self loop), 3->1; node 4 isolated.
	g := small(t)
	a := Analyze(g, AnalyzeOptions{MemoryBudget: -1})
	if a.NumNodes != 5 || a.NumEdges != 5 {
		t.Fatalf("counts %d %d", a.NumNodes, a.NumEdges)
	}
	if a.IsolatedNodes != 1 || a.SelfLoops != 1 || a.DuplicateEdges != 0 || a.Reciprocity != 0 {
		t.Errorf("isolated %d self loops %d dups %d reciprocity %g", a.IsolatedNodes, a.SelfLoops, a.DuplicateEdges, a.Reciprocity)
	}
	if a.NumComponents != 2 || a.LargestComponent != 4 || !slices.Equal(a.ComponentSizes, []int{4, 1}) {
		t.Errorf("components %d largest %d sizes %v", a.NumComponents, a.LargestComponent, a.ComponentSizes)
	}
	// in-degrees 0,2,3,0,0: sorted 0,0,0,2,3.
	in := a.InDegree
	if in.Min != 0 || in.Max != 3 || in.Mean != 1 || in.Median != 0 || in.Zero != 3 {
		t.Errorf("in-degree stats %+v", in)
	}
	// numpy.percentile([0,0,0,2,3], 90) = 2.6; std = sqrt(((1+1+1+1+4)/5)) = sqrt(1.6).
	if !near(in.P90, 2.6, 1e-12) || !near(in.P99, 2.96, 1e-12) || !near(in.Std, math.Sqrt(1.6), 1e-12) {
		t.Errorf("in-degree p90 %g p99 %g std %g", in.P90, in.P99, in.Std)
	}
	// Gini of 0,0,0,2,3: 2*(4*2+5*3)/(5*5) - 6/5 = 0.64.
	if !near(in.Gini, 0.64, 1e-12) {
		t.Errorf("in-degree Gini %g, want 0.64", in.Gini)
	}
	// out-degrees 2,1,1,1,0.
	if o := a.OutDegree; o.Min != 0 || o.Max != 2 || o.Median != 1 || o.Zero != 1 {
		t.Errorf("out-degree stats %+v", o)
	}
	// Histogram bins [1,1], [2,3]: in-degrees {2,3} -> bin 1 twice; out {2,1,1,1}.
	want := []DegreeBin{{Lo: 1, Hi: 1, In: 0, Out: 3}, {Lo: 2, Hi: 3, In: 2, Out: 1}}
	if !slices.Equal(a.DegreeHistogram, want) {
		t.Errorf("histogram %+v, want %+v", a.DegreeHistogram, want)
	}
	if a.HasLabels {
		t.Error("labels reported on an unlabelled graph")
	}
	// Memory: COO 5 edges x 16; CSR and CSC 8 x (6 + 10) each.
	if m := a.Memory; m.COO != 80 || m.CSR != 128 || m.CSC != 128 || m.Total != 336 {
		t.Errorf("footprint %+v", m)
	}
	if a.Advice.NumLayers != 0 || a.Advice.Fanouts != nil {
		t.Errorf("advice computed with a negative budget: %+v", a.Advice)
	}
}

func TestAnalyzeDuplicatesReciprocityHomophily(t *testing.T) {
	// Path 0-1-2-3 stored both ways, plus two extra copies of 0->1.
	src := []int64{0, 1, 1, 2, 2, 3, 0, 0}
	dst := []int64{1, 0, 2, 1, 3, 2, 1, 1}
	g, err := New(4, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetNData("label", tensor.FromInt64([]int64{0, 0, 1, 1})); err != nil {
		t.Fatal(err)
	}
	a := Analyze(g, AnalyzeOptions{MemoryBudget: -1})
	if a.DuplicateEdges != 2 || a.Reciprocity != 1 || a.SelfLoops != 0 || a.NumComponents != 1 {
		t.Errorf("dups %d reciprocity %g loops %d components %d", a.DuplicateEdges, a.Reciprocity, a.SelfLoops, a.NumComponents)
	}
	// Same-label edges: 0->1 x3, 1->0, 2->3, 3->2 = 6 of 8.
	if !a.HasLabels || a.NumClasses != 2 || !near(a.EdgeHomophily, 6.0/8, 1e-12) {
		t.Errorf("labels %v classes %d edge homophily %g", a.HasLabels, a.NumClasses, a.EdgeHomophily)
	}
	// Node homophily over in-neighbours: node 0 {1}: 1; node 1 {0,0,0,2}: 3/4;
	// node 2 {1,3}: 1/2; node 3 {2}: 1.
	if !near(a.NodeHomophily, (1+0.75+0.5+1)/4, 1e-12) {
		t.Errorf("node homophily %g", a.NodeHomophily)
	}
	// Unlabelled nodes (-1) are left out of homophily.
	g.SetNData("label", tensor.FromInt64([]int64{0, 0, -1, 1}))
	a = Analyze(g, AnalyzeOptions{MemoryBudget: -1})
	if !near(a.EdgeHomophily, 1, 1e-12) || a.NumClasses != 2 {
		t.Errorf("edge homophily with an unlabelled node %g", a.EdgeHomophily)
	}
	// A label tensor of the wrong dtype is misuse.
	g.SetNData("label", tensor.Zeros(4))
	var ge *Error
	if err := tensor.Catch(func() { Analyze(g, AnalyzeOptions{MemoryBudget: -1}) }); !errors.As(err, &ge) {
		t.Errorf("float labels: %v", err)
	}
}

func TestFitPowerLaw(t *testing.T) {
	// Discrete power-law samples with xmin = 10 by the inverse-transform
	// approximation of Clauset et al. (appendix D), x = floor((xmin - 1/2)
	// (1-u)^(-1/(a-1)) + 1/2), which like their estimator is accurate for
	// xmin above about 6.
	for _, alpha := range []float64{2.2, 2.8} {
		r := rand.New(rand.NewPCG(1, uint64(alpha*10)))
		d := make([]int64, 20000)
		for i := range d {
			d[i] = int64(math.Floor(9.5*math.Pow(1-r.Float64(), -1/(alpha-1)) + 0.5))
		}
		slices.Sort(d)
		a, xmin, ks, tail := fitPowerLaw(d)
		if !near(a, alpha, 0.1) || xmin < 10 || ks > 0.05 || tail < 1000 {
			t.Errorf("alpha %g: fitted %g xmin %d ks %g tail %d", alpha, a, xmin, ks, tail)
		}
	}
	if a, _, _, _ := fitPowerLaw([]int64{0, 1, 2}); a != 0 {
		t.Errorf("fit on 3 values: %g", a)
	}
}

func TestAnalyzeAdvice(t *testing.T) {
	// A ring of 1000 nodes stored both ways: every in-degree is 2.
	const n = 1000
	var src, dst []int64
	for i := int64(0); i < n; i++ {
		j := (i + 1) % n
		src, dst = append(src, i, j), append(dst, j, i)
	}
	g, _ := New(n, src, dst)
	g.SetNData("feat", tensor.Zeros(n, 8))
	opts := AnalyzeOptions{HiddenSize: 16, NumLayers: 2, BatchSize: 10, NumClasses: 3, Fanouts: [][]int{{5, 5}, {1, 1}}}

	opts.MemoryBudget = 1 << 30
	a := Analyze(g, opts)
	ad := a.Advice
	params := int64(8*16 + 16*3)
	if ad.InFeats != 8 || ad.ResidentBytes != a.Memory.Total+16*params {
		t.Errorf("in feats %d resident %d (footprint %d)", ad.InFeats, ad.ResidentBytes, a.Memory.Total)
	}
	if full := ad.ResidentBytes + n*16*4*2*3; ad.FullGraphBytes != full || !ad.FullGraphFits || ad.Recommended != nil {
		t.Errorf("full graph %d (want %d) fits %v recommended %v", ad.FullGraphBytes, full, ad.FullGraphFits, ad.Recommended)
	}
	// Fanouts [5, 5]: two hops of min(2, 5) = 2 edges per node.
	e := ad.Fanouts[0]
	n1 := 10 + (n-10)*(1-math.Exp(-20.0/n))
	n2 := n1 + (n-n1)*(1-math.Exp(-2*n1/n))
	if !near(e.Nodes[1], n1, 1e-9) || !near(e.Nodes[2], n2, 1e-9) || !near(e.Edges, 20+2*n1, 1e-9) {
		t.Errorf("estimate %+v, want nodes %g %g", e, n1, n2)
	}
	wantBytes := int64(math.Ceil(n2*8*4+(10+n1)*16*4*3+(20+2*n1)*24)) + ad.ResidentBytes
	if e.Bytes != wantBytes {
		t.Errorf("batch bytes %d, want %d", e.Bytes, wantBytes)
	}
	if f1 := ad.Fanouts[1]; f1.Bytes >= e.Bytes {
		t.Errorf("fanout 1 costs %d >= fanout 5 %d", f1.Bytes, e.Bytes)
	}

	// A budget between the two batch sizes and below full-graph training.
	opts.MemoryBudget = (ad.Fanouts[1].Bytes + e.Bytes) / 2
	ad = Analyze(g, opts).Advice
	if ad.FullGraphFits || ad.Fanouts[0].Fits || !ad.Fanouts[1].Fits || !slices.Equal(ad.Recommended, []int{1, 1}) {
		t.Errorf("mid budget: full %v fits %v %v recommended %v", ad.FullGraphFits, ad.Fanouts[0].Fits, ad.Fanouts[1].Fits, ad.Recommended)
	}
	if !strings.Contains(ad.Notes[0], "fanouts [1 1]") {
		t.Errorf("first note %q", ad.Notes[0])
	}
	// Too small for even the graph.
	opts.MemoryBudget = 100
	ad = Analyze(g, opts).Advice
	if ad.Recommended != nil || !strings.Contains(ad.Notes[0], "memory-map") {
		t.Errorf("tiny budget: %v %q", ad.Recommended, ad.Notes[0])
	}
	// Default candidates: uniform fanouts, largest first.
	opts.Fanouts = nil
	ad = Analyze(g, opts).Advice
	if len(ad.Fanouts) != 9 || !slices.Equal(ad.Fanouts[0].Fanouts, []int{30, 30}) {
		t.Errorf("default candidates %v", ad.Fanouts)
	}
}

func TestAnalyzeNotes(t *testing.T) {
	g := small(t) // directed, a self loop, zero in-degree nodes, 2 components
	a := Analyze(g, AnalyzeOptions{MemoryBudget: 1 << 30})
	joined := strings.Join(a.Advice.Notes, "\n")
	for _, want := range []string{"Full-graph training fits", "no in-edges", "directed", "self loops", "2 weakly connected"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes lack %q:\n%s", want, joined)
		}
	}
}

func TestAnalyzeHetero(t *testing.T) {
	g, err := NewHetero(map[string]int{"user": 3, "item": 2}, map[CanonicalEType]EdgeList{
		{"user", "buys", "item"}:      {Src: []int64{0, 1}, Dst: []int64{0, 0}},
		{"item", "bought-by", "user"}: {Src: []int64{0, 0}, Dst: []int64{0, 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	g.SetNDataOf("user", "label", tensor.FromInt64([]int64{0, 1, 1}))
	a := Analyze(g, AnalyzeOptions{MemoryBudget: -1})
	// Homogeneous view: items 0,1 (ids 0,1), users 0..2 (ids 2..4); user 2 and
	// item 1 are isolated.
	if a.NumNodes != 5 || a.NumEdges != 4 || a.IsolatedNodes != 2 || a.NumComponents != 3 || a.Reciprocity != 1 {
		t.Errorf("hetero: %d nodes %d edges %d isolated %d components reciprocity %g", a.NumNodes, a.NumEdges, a.IsolatedNodes, a.NumComponents, a.Reciprocity)
	}
	// Labels exist only for users; edges touch an unlabelled item, so none count.
	if !a.HasLabels || a.EdgeHomophily != 0 {
		t.Errorf("hetero labels %v homophily %g", a.HasLabels, a.EdgeHomophily)
	}
	if s := a.String(); !strings.Contains(s, `edges ("user", "buys", "item")`) {
		t.Errorf("per-type counts missing:\n%s", s)
	}
}

func TestAnalyzeEmptyGraph(t *testing.T) {
	g, _ := New(0, nil, nil)
	a := Analyze(g, AnalyzeOptions{MemoryBudget: 1 << 20})
	if a.NumNodes != 0 || a.NumComponents != 0 || len(a.DegreeHistogram) != 0 {
		t.Errorf("empty graph: %+v", a)
	}
	_ = a.String()
	if _, err := a.DegreePlotPNG(); err != nil {
		t.Errorf("plot of an empty graph: %v", err)
	}
}

func TestAnalysisRendering(t *testing.T) {
	g := small(t)
	g.SetNData("label", tensor.FromInt64([]int64{0, 1, 1, 0, 2}))
	g.SetNData("feat", tensor.Zeros(5, 3))
	a := Analyze(g, AnalyzeOptions{MemoryBudget: 1 << 20, Fanouts: [][]int{{2, 2}}})
	s := a.String()
	for _, want := range []string{"Structure", "nodes", "self loops  ", "Degrees: in-degree", "power-law", "Degree histogram",
		"edge homophily", "Memory", `ndata "feat" [5 3] float32`, "60 B", "Training advice", "mini-batch estimates", "  * "} {
		if want == "power-law" {
			continue // too few nodes for a fit
		}
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	h := a.HTML()
	if !strings.HasPrefix(h, "<table>") || !strings.Contains(h, "<th colspan=\"2\" style=\"text-align:left\">Memory</th>") {
		t.Errorf("HTML:\n%s", h)
	}
	img, err := a.DegreePlotPNG()
	if err != nil {
		t.Fatal(err)
	}
	im, err := png.Decode(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := im.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
		t.Errorf("plot is %v", b)
	}
	if commas(1234567) != "1,234,567" || commas(-1000) != "-1,000" || commas(12) != "12" {
		t.Error("commas")
	}
}

// BenchmarkAnalyze measures Analyze on a random graph of 100,000 nodes and
// 1,000,000 edges with labels.
func BenchmarkAnalyze(b *testing.B) {
	const n, e = 100000, 1000000
	r := rand.New(rand.NewPCG(7, 7))
	src, dst := make([]int64, e), make([]int64, e)
	for i := range src {
		src[i], dst[i] = r.Int64N(n), r.Int64N(n)
	}
	g, _ := New(n, src, dst)
	lab := make([]int64, n)
	for i := range lab {
		lab[i] = r.Int64N(10)
	}
	g.SetNData("label", tensor.FromInt64(lab))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Analyze(g, AnalyzeOptions{MemoryBudget: 1 << 30})
	}
}
