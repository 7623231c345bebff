package graph

import (
	"math"
	"slices"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// AnalyzeOptions configures Analyze. The zero value analyses structure and
// labels ("label") and gives training advice for a GraphSAGE/GCN-style model
// with HiddenSize 256, NumLayers 2 and BatchSize 1024 against the memory
// available on this machine.
type AnalyzeOptions struct {
	// LabelKey names the node data holding int64 class labels (N), for
	// homophily; "" means "label". Negative labels mark unlabelled nodes.
	LabelKey string
	// FeatKey names the node data holding the input features (N, F), whose
	// width enters the memory advice; "" means "feat".
	FeatKey string

	// MemoryBudget is the memory, in bytes, that training may use. 0 means
	// MemAvailable from /proc/meminfo (or no fit verdicts where that is not
	// readable); a negative value turns the advice off.
	MemoryBudget int64
	// HiddenSize, NumLayers, BatchSize and NumClasses describe the model and
	// loader (DGL's hid_size, num_layers, batch_size). Zero means 256, 2,
	// 1024 and the number of label classes.
	HiddenSize, NumLayers, BatchSize, NumClasses int
	// Fanouts lists candidate fanouts to judge, each with NumLayers entries,
	// in DGL's order (Fanouts[i][0] is the input layer's). nil means
	// uniform fanouts [k, ..., k] for k = 30, 25, 20, 15, 10, 5, 3, 2, 1.
	Fanouts [][]int
}

// DegreeStats summarises a degree sequence (one entry per node).
type DegreeStats struct {
	Min, Max int64
	// Mean and Std are the mean and population standard deviation; Median,
	// P90 and P99 are percentiles with linear interpolation between order
	// statistics (numpy.percentile's default).
	Mean, Std, Median, P90, P99 float64
	// Zero counts nodes of degree 0.
	Zero int
	// Gini is the Gini coefficient of the degrees: 0 when every node has
	// the same degree, towards 1 when a few hubs hold all edges.
	Gini float64
	// PowerLawAlpha is the exponent α of a discrete power law p(d) ∝ d^-α
	// fitted to the degrees >= PowerLawXmin by the approximate maximum
	// likelihood estimator α = 1 + n / Σ ln(d / (xmin - 1/2)) of Clauset,
	// Shalizi and Newman, "Power-law distributions in empirical data", SIAM
	// Review 51(4) 2009, eq. 3.7, with xmin chosen to minimise the
	// Kolmogorov-Smirnov distance PowerLawKS between the fitted and the
	// empirical tail (their section 3.3). PowerLawTail counts the nodes in
	// the fitted tail. All are 0 when fewer than 10 nodes have degree >= 1.
	PowerLawAlpha, PowerLawKS float64
	PowerLawXmin              int64
	PowerLawTail              int
}

// DegreeBin is one logarithmic bin of the degree histogram: degrees in
// [Lo, Hi], with the number of nodes whose in- and out-degree fall in it.
// Bins double in width: [1,1], [2,3], [4,7], ...; degree 0 is counted in
// DegreeStats.Zero instead.
type DegreeBin struct {
	Lo, Hi  int64
	In, Out int
}

// DataFootprint is the memory of one node or edge data tensor.
type DataFootprint struct {
	Name  string // "feat", or "user/feat" on a heterogeneous graph
	Shape []int
	DType tensor.DType
	Bytes int64
}

// Footprint is the memory of a graph's formats and data, in bytes. COO is
// the edge list the graph keeps (src and dst, int64); CSR and CSC are the
// out- and in-edge adjacencies (indptr, indices and edge ids, int64), which
// the graph builds on first use (Adj for message passing and sampling,
// OutAdj for out-degrees and edge_dir="out").
type Footprint struct {
	COO, CSR, CSC int64
	NData, EData  []DataFootprint
	// Total is COO + CSR + CSC plus every data tensor.
	Total int64
}

// Analysis is the result of Analyze: the structure, degree distribution,
// connectivity, label homophily and memory of a graph, and advice on how to
// train on it. Print it with String (text) or HTML (notebooks); plot the
// degree distribution with DegreePlotPNG.
type Analysis struct {
	// Heterogeneous graphs are analysed as their homogeneous view (every
	// node type's ids offset after the previous types', every edge type
	// merged, as dgl.to_homogeneous); NTypes and ETypes list the types.
	NTypes            []string
	NumNodesPerType   []int
	ETypes            []CanonicalEType
	NumEdgesPerType   []int
	NumNodes          int
	NumEdges          int
	InDegree          DegreeStats
	OutDegree         DegreeStats
	DegreeHistogram   []DegreeBin
	IsolatedNodes     int // no in- or out-edges (a self loop counts as an edge)
	SelfLoops         int // edges u -> u
	DuplicateEdges    int // edges repeating an earlier (u, v): E minus distinct pairs
	Reciprocity       float64
	NumComponents     int   // weakly connected components, isolated nodes included
	LargestComponent  int   // nodes in the largest one
	ComponentSizes    []int // the largest sizes, at most 10, descending
	HasLabels         bool
	NumClasses        int
	EdgeHomophily     float64
	NodeHomophily     float64
	Memory            Footprint
	Advice            Advice
	LabelKey, FeatKey string
}

// Analyze computes the structure of g in one pass over its edges (DGL and
// PyG users know these numbers from networkx and torch_geometric.utils):
//
//   - node and edge counts (per type on a heterogeneous graph);
//   - in- and out-degree distributions (DegreeStats) and a logarithmic
//     degree histogram (DegreeHistogram, DegreePlotPNG);
//   - isolated nodes, self loops, duplicate edges and Reciprocity, the
//     fraction of non-loop edges u -> v whose reverse v -> u exists (1 for
//     an undirected graph stored both ways);
//   - weakly connected components by union-find (networkx's
//     number_weakly_connected_components);
//   - when node data opts.LabelKey holds int64 labels (N): EdgeHomophily,
//     the fraction of edges joining same-label nodes, and NodeHomophily, the
//     mean over nodes with labelled in-neighbours of the fraction of those
//     in-neighbours sharing the node's label (Zhu et al., "Beyond Homophily
//     in Graph Neural Networks", NeurIPS 2020; Pei et al., Geom-GCN, ICLR
//     2020; PyG's homophily(method="edge"/"node")). Edges touching a node
//     with a negative label are left out;
//   - the memory of COO, CSR and CSC and of every node and edge data
//     tensor (Footprint);
//   - Advice: whether full-graph training fits a memory budget, otherwise
//     which fanouts do.
//
// It builds g's CSC and CSR adjacencies when they are not built yet (a
// homogeneous graph keeps them). Time and extra memory are linear in nodes
// and edges. It panics with *Error when the label data is not a 1-D int64
// tensor. When the running evaluation is cancelled (runctx: Ctrl-C, a
// Jupyter interrupt) it stops before its next pass and panics with an
// *Error wrapping the context's error (errors.Is(err, context.Canceled)),
// which a session reports as the cell's interrupt, nothing assigned;
// outside a session runctx is never cancelled.
func Analyze(g *Graph, opts AnalyzeOptions) *Analysis {
	if opts.LabelKey == "" {
		opts.LabelKey = "label"
	}
	if opts.FeatKey == "" {
		opts.FeatKey = "feat"
	}
	a := &Analysis{NTypes: g.NTypes(), ETypes: g.CanonicalETypes(), LabelKey: opts.LabelKey, FeatKey: opts.FeatKey}
	for _, n := range g.numNodes {
		a.NumNodesPerType = append(a.NumNodesPerType, n)
		a.NumNodes += n
	}
	for _, r := range g.rels {
		a.NumEdgesPerType = append(a.NumEdgesPerType, len(r.src))
		a.NumEdges += len(r.src)
	}
	interrupted()
	v := homogeneousView(g)
	interrupted()
	inDeg, outDeg := v.in.InDegrees(), v.out.InDegrees()
	a.InDegree, a.OutDegree = degreeStats(inDeg), degreeStats(outDeg)
	a.DegreeHistogram = degreeHistogram(inDeg, outDeg)
	for i := range inDeg {
		if inDeg[i] == 0 && outDeg[i] == 0 {
			a.IsolatedNodes++
		}
	}
	interrupted()
	a.SelfLoops, a.DuplicateEdges, a.Reciprocity = edgeStructure(v)
	interrupted()
	a.NumComponents, a.ComponentSizes = components(v.n, v.src, v.dst)
	if len(a.ComponentSizes) > 0 {
		a.LargestComponent = a.ComponentSizes[0]
	}
	interrupted()
	if labels := v.labels(g, opts.LabelKey); labels != nil {
		a.HasLabels = true
		a.NumClasses, a.EdgeHomophily, a.NodeHomophily = homophily(labels, v)
	}
	interrupted()
	a.Memory = footprint(g)
	a.Advice = advise(g, a, opts, inDeg, outDeg)
	return a
}

// interrupted panics with runctx's error when the running evaluation is
// cancelled (Analyze has no error result).
func interrupted() {
	if err := runctx.Err(); err != nil {
		panicf(err, "Analyze: interrupted")
	}
}

// view is a graph's homogeneous view: global node ids, one edge list and
// its adjacencies.
type view struct {
	n        int
	src, dst []int64
	in, out  *tensor.Adj
	offsets  []int64 // first global id of each node type
}

func homogeneousView(g *Graph) *view {
	if g.IsHomogeneous() {
		r := g.rels[0]
		return &view{n: g.numNodes[0], src: r.src, dst: r.dst, in: r.inAdj(), out: r.outAdj(), offsets: []int64{0}}
	}
	v := &view{}
	for i, n := range g.numNodes {
		v.offsets = append(v.offsets, int64(v.n))
		_ = i
		v.n += n
	}
	for _, r := range g.rels {
		so, do := v.offsets[g.ntypeIndex(r.ce.Src)], v.offsets[g.ntypeIndex(r.ce.Dst)]
		for i := range r.src {
			v.src = append(v.src, r.src[i]+so)
			v.dst = append(v.dst, r.dst[i]+do)
		}
	}
	v.in = compress(v.n, v.n, v.dst, v.src)
	v.out = compress(v.n, v.n, v.src, v.dst)
	return v
}

// labels returns the int64 labels of every node of the view, -1 for node
// types without them, or nil when no node type has data key.
func (v *view) labels(g *Graph, key string) []int64 {
	var out []int64
	for i, nt := range g.ntypes {
		t, ok := g.ndata[i][key]
		if !ok {
			continue
		}
		if t.DType() != tensor.Int64 || t.Dim() != 1 {
			kind := engerr.ErrShape
			if t.DType() != tensor.Int64 {
				kind = engerr.ErrDType
			}
			panicf(kind, "Analyze: label data %q of node type %q must be (N) int64, got %v %s", key, nt, t.Shape(), t.DType())
		}
		if out == nil {
			out = make([]int64, v.n)
			for j := range out {
				out[j] = -1
			}
		}
		copy(out[v.offsets[i]:], t.Int64s())
	}
	return out
}

func degreeStats(deg []int64) DegreeStats {
	var s DegreeStats
	n := len(deg)
	if n == 0 {
		return s
	}
	d := slices.Clone(deg)
	slices.Sort(d)
	s.Min, s.Max = d[0], d[n-1]
	var sum, weighted float64
	for i, x := range d {
		sum += float64(x)
		weighted += float64(i+1) * float64(x)
		if x == 0 {
			s.Zero++
		}
	}
	s.Mean = sum / float64(n)
	var ss float64
	for _, x := range d {
		ss += (float64(x) - s.Mean) * (float64(x) - s.Mean)
	}
	s.Std = math.Sqrt(ss / float64(n))
	s.Median, s.P90, s.P99 = percentile(d, 50), percentile(d, 90), percentile(d, 99)
	if sum > 0 {
		s.Gini = 2*weighted/(float64(n)*sum) - float64(n+1)/float64(n)
	}
	s.PowerLawAlpha, s.PowerLawXmin, s.PowerLawKS, s.PowerLawTail = fitPowerLaw(d)
	return s
}

// percentile returns the p-th percentile of sorted d with linear
// interpolation (numpy.percentile, method="linear").
func percentile(d []int64, p float64) float64 {
	pos := p / 100 * float64(len(d)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(d)-1)
	f := pos - float64(lo)
	return float64(d[lo])*(1-f) + float64(d[hi])*f
}

// fitPowerLaw fits a discrete power law to the tail of the ascending
// degrees d (see DegreeStats.PowerLawAlpha). At most 64 candidate values of
// xmin are tried, spread over the distinct degrees that leave at least 10
// nodes in the tail.
func fitPowerLaw(d []int64) (alpha float64, xmin int64, ks float64, tail int) {
	first := sortSearch(d, 1) // first index with degree >= 1
	if len(d)-first < 10 {
		return 0, 0, 0, 0
	}
	// Distinct degrees >= 1 and where each starts.
	var vals []int64
	var starts []int
	for i := first; i < len(d); i++ {
		if i == first || d[i] != d[i-1] {
			vals, starts = append(vals, d[i]), append(starts, i)
		}
	}
	last := len(vals) - 1
	for last > 0 && len(d)-starts[last] < 10 {
		last--
	}
	step := max(1, (last+1+63)/64)
	ks = math.Inf(1)
	for c := 0; c <= last; c += step {
		x0 := vals[c]
		n := len(d) - starts[c]
		var sl float64
		for _, x := range d[starts[c]:] {
			sl += math.Log(float64(x) / (float64(x0) - 0.5))
		}
		if sl <= 0 {
			continue
		}
		a := 1 + float64(n)/sl
		// KS distance between the empirical and fitted tail CCDFs,
		// P(D >= x) = ((x - 1/2) / (xmin - 1/2))^(1 - α).
		var dist float64
		for k := c; k < len(vals); k++ {
			emp := float64(len(d)-starts[k]) / float64(n)
			fit := math.Pow((float64(vals[k])-0.5)/(float64(x0)-0.5), 1-a)
			dist = max(dist, math.Abs(emp-fit))
		}
		if dist < ks {
			alpha, xmin, ks, tail = a, x0, dist, n
		}
	}
	if math.IsInf(ks, 1) {
		return 0, 0, 0, 0
	}
	return alpha, xmin, ks, tail
}

// sortSearch returns the first index of ascending d holding a value >= x.
func sortSearch(d []int64, x int64) int {
	i, _ := slices.BinarySearch(d, x)
	return i
}

func degreeHistogram(in, out []int64) []DegreeBin {
	var bins []DegreeBin
	bin := func(x int64) int { // floor(log2 x) for x >= 1
		k := 0
		for x > 1 {
			x >>= 1
			k++
		}
		return k
	}
	add := func(x int64, isIn bool) {
		if x <= 0 {
			return
		}
		k := bin(x)
		for len(bins) <= k {
			lo := int64(1) << len(bins)
			bins = append(bins, DegreeBin{Lo: lo, Hi: 2*lo - 1})
		}
		if isIn {
			bins[k].In++
		} else {
			bins[k].Out++
		}
	}
	for i := range in {
		add(in[i], true)
		add(out[i], false)
	}
	return bins
}

// edgeStructure counts self loops and duplicate edges and measures
// reciprocity with one stamp array per question, in O(N + E).
func edgeStructure(v *view) (selfLoops, dups int, reciprocity float64) {
	seen := make([]int64, v.n) // seen[x] == u+1: u -> x already met
	isIn := make([]int64, v.n) // isIn[x] == u+1: x -> u exists
	var nonLoop, recip int
	out, in := v.out, v.in
	for u := 0; u < v.n; u++ {
		stamp := int64(u) + 1
		for p := in.Indptr[u]; p < in.Indptr[u+1]; p++ {
			isIn[in.Indices[p]] = stamp
		}
		for p := out.Indptr[u]; p < out.Indptr[u+1]; p++ {
			x := out.Indices[p]
			if seen[x] == stamp {
				dups++
			}
			seen[x] = stamp
			if x == int64(u) {
				selfLoops++
				continue
			}
			nonLoop++
			if isIn[x] == stamp {
				recip++
			}
		}
	}
	if nonLoop > 0 {
		reciprocity = float64(recip) / float64(nonLoop)
	}
	return selfLoops, dups, reciprocity
}

// components returns the number of weakly connected components and the
// largest sizes (at most 10, descending), by union-find with union by size
// and path halving.
func components(n int, src, dst []int64) (int, []int) {
	parent := make([]int64, n)
	size := make([]int64, n)
	for i := range parent {
		parent[i], size[i] = int64(i), 1
	}
	find := func(x int64) int64 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	count := n
	for i := range src {
		a, b := find(src[i]), find(dst[i])
		if a == b {
			continue
		}
		if size[a] < size[b] {
			a, b = b, a
		}
		parent[b] = a
		size[a] += size[b]
		count--
	}
	var sizes []int
	for i := range parent {
		if parent[i] == int64(i) {
			sizes = append(sizes, int(size[i]))
		}
	}
	slices.SortFunc(sizes, func(a, b int) int { return b - a })
	if len(sizes) > 10 {
		sizes = sizes[:10]
	}
	return count, sizes
}

// homophily returns the number of classes (largest label + 1), the edge
// homophily and the node homophily over edges between labelled nodes.
func homophily(labels []int64, v *view) (classes int, edgeH, nodeH float64) {
	for _, y := range labels {
		classes = max(classes, int(y)+1)
	}
	var same, total int
	var nodeSum float64
	var nodes int
	in := v.in
	for d := 0; d < v.n; d++ {
		yd := labels[d]
		if yd < 0 {
			continue
		}
		var s, t int
		for p := in.Indptr[d]; p < in.Indptr[d+1]; p++ {
			ys := labels[in.Indices[p]]
			if ys < 0 {
				continue
			}
			t++
			if ys == yd {
				s++
			}
		}
		same += s
		total += t
		if t > 0 {
			nodeSum += float64(s) / float64(t)
			nodes++
		}
	}
	if total > 0 {
		edgeH = float64(same) / float64(total)
	}
	if nodes > 0 {
		nodeH = nodeSum / float64(nodes)
	}
	return classes, edgeH, nodeH
}

// adjBytes is the size of an Adj as the graph builds it: indptr, indices
// and edge ids, int64.
func adjBytes(nodes, edges int) int64 { return 8 * (int64(nodes) + 1 + 2*int64(edges)) }

func footprint(g *Graph) Footprint {
	var f Footprint
	for _, r := range g.rels {
		e := len(r.src)
		f.COO += 16 * int64(e)
		f.CSR += adjBytes(r.srcN, e)
		f.CSC += adjBytes(r.dstN, e)
	}
	prefix := func(t string) string {
		if g.IsHomogeneous() {
			return ""
		}
		return t + "/"
	}
	for i, nt := range g.ntypes {
		for _, name := range g.ndata[i].names() {
			t := g.ndata[i][name]
			f.NData = append(f.NData, DataFootprint{Name: prefix(nt) + name, Shape: t.Shape(), DType: t.DType(), Bytes: t.Nbytes()})
		}
	}
	for _, r := range g.rels {
		for _, name := range r.edata.names() {
			t := r.edata[name]
			f.EData = append(f.EData, DataFootprint{Name: prefix(r.ce.EType) + name, Shape: t.Shape(), DType: t.DType(), Bytes: t.Nbytes()})
		}
	}
	f.Total = f.COO + f.CSR + f.CSC
	for _, d := range f.NData {
		f.Total += d.Bytes
	}
	for _, d := range f.EData {
		f.Total += d.Bytes
	}
	return f
}
