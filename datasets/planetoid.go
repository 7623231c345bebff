package datasets

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// PlanetoidRaw is a Planetoid dataset (Cora, CiteSeer or PubMed) with the
// standard split, as plain Go slices. It is assembled exactly as the
// reference load_data of Kipf and Welling (tkipf/gcn, gcn/utils.py) does, so
// node ids, features, labels and the train/val/test indices are the ones the
// published GCN and GAT numbers use. Features are not normalised (see
// RowNormalize) and no self loops are added.
type PlanetoidRaw struct {
	Name        string // "cora", "citeseer" or "pubmed"
	NumNodes    int    // N: number of feature rows, = len(graph)
	NumFeatures int    // F: feature dimension
	NumClasses  int    // C: width of the one-hot label matrices

	// Src, Dst is the directed edge list (COO) of the symmetric adjacency
	// built from the graph dict: every stored neighbour entry u -> v and its
	// reverse v -> u, with duplicates removed, sorted by (src, dst) (the row
	// order of the reference's scipy CSR adjacency). Self loops present in the
	// files are kept; SelfLoops counts them. len(Src) = len(Dst) = NumEdges().
	Src, Dst []int64

	// AdjEntries is the number of neighbour entries stored in the graph file
	// (sum of list lengths, duplicates included).
	AdjEntries int

	// SelfLoops is the number of u -> u pairs in Src, Dst (nodes with a self
	// loop in the file).
	SelfLoops int

	// Features is the (N, F) float32 feature matrix, row-major: node i's
	// features are Features[i*F : (i+1)*F]. Rows 0..len(allx)-1 are allx, row
	// test.index[i] is tx row i, and rows of test ids missing from test.index
	// (CiteSeer's 15) are zero, as in the reference.
	Features []float32

	// FeatureNNZ is the number of non-zero entries of Features.
	FeatureNNZ int

	// Labels is the (N,) int64 class id of every node: the argmax of its
	// one-hot row of ally/ty, assembled like Features. A node whose label row
	// is all zero gets class 0, as numpy's argmax gives in the reference; it
	// is also listed in Unlabelled.
	Labels []int64

	// TrainIdx is 0..len(y)-1, ValIdx is len(y)..len(y)+499, TestIdx is the
	// test.index values sorted ascending (idx_train, idx_val, idx_test).
	TrainIdx, ValIdx, TestIdx []int64

	// Unlabelled lists, ascending, the nodes whose one-hot label row is all
	// zero (CiteSeer's 15 test ids without a tx/ty row; empty otherwise).
	Unlabelled []int64
}

// NumEdges returns the number of directed edges len(Src), self loops
// included (Cora 10,556; CiteSeer 9,228; PubMed 88,651).
func (d *PlanetoidRaw) NumEdges() int { return len(d.Src) }

// NumUndirectedEdges returns the number of undirected edges without self
// loops, (NumEdges() - SelfLoops) / 2 (Cora 5,278; CiteSeer 4,552; PubMed
// 44,324).
func (d *PlanetoidRaw) NumUndirectedEdges() int { return (len(d.Src) - d.SelfLoops) / 2 }

// valSize is the size of the standard validation set.
const valSize = 500

// LoadPlanetoidRaw loads the Planetoid dataset name ("cora", "citeseer" or
// "pubmed", case-insensitive) from the eight original files
// <dir>/<name>/ind.<name>.{x,y,tx,ty,allx,ally,graph,test.index}, downloading
// missing files from PlanetoidMirrors (see DataDir for choosing dir).
//
// The split and node order follow load_data in tkipf/gcn (gcn/utils.py),
// whose semantics are:
//
//	N         = max(test.index) + 1, with min(test.index) = len(allx)
//	features  = allx in rows 0..len(allx)-1; tx row i in row test.index[i];
//	            zero rows for ids in min..max missing from test.index
//	labels    = argmax of ally / ty, assembled the same way
//	idx_train = 0 .. len(y)-1, idx_val = len(y) .. len(y)+499,
//	idx_test  = sorted(test.index)
//	adjacency = the graph dict, symmetrised, duplicates removed
//
// Source: Z. Yang, W. W. Cohen, R. Salakhutdinov, "Revisiting Semi-Supervised
// Learning with Graph Embeddings", ICML 2016 (files: kimiyoung/planetoid);
// T. N. Kipf, M. Welling, ICLR 2017 (split assembly).
//
// Every file is checked against its pinned size and sha256 before it is
// parsed. Errors name the file: an unknown name wraps ErrArgument, a missing
// file that cannot be downloaded wraps ErrMissing, a corrupt or truncated
// file wraps ErrChecksum, and a file whose structure differs from the
// documented layout wraps ErrFormat.
func LoadPlanetoidRaw(dir, name string) (*PlanetoidRaw, error) {
	name, err := planetoidName(name)
	if err != nil {
		return nil, err
	}
	specs, err := PlanetoidFiles(name)
	if err != nil {
		return nil, err
	}
	raw := make(map[string][]byte, len(specs))
	for i, s := range specs {
		b, err := ensureFile(dir, s)
		if err != nil {
			return nil, err
		}
		raw[PlanetoidSuffixes[i]] = b
	}
	path := func(suffix string) string { return PlanetoidPath(dir, name, suffix) }
	return assemblePlanetoid(name, raw, path)
}

// planetoidParts holds the decoded files of one dataset.
type planetoidParts struct {
	x, tx, allx        *csrMatrix
	yRows, yCols       int
	tyRows, tyCols     int
	allyRows, allyCols int
	ty, ally           []int32
	graph              *defaultDict
	testIndex          []int
}

// decodePlanetoid decodes the eight files in raw (keyed by suffix). Errors
// name the file through path.
func decodePlanetoid(raw map[string][]byte, path func(string) string) (*planetoidParts, error) {
	var p planetoidParts
	fail := func(suffix string, err error) error {
		// err wraps ErrFormat; put the file name right after its text.
		msg := strings.TrimPrefix(err.Error(), ErrFormat.Error()+": ")
		return fmt.Errorf("%w: %s: %s", ErrFormat, path(suffix), msg)
	}
	var err error
	for _, c := range []struct {
		suffix string
		m      **csrMatrix
	}{{"x", &p.x}, {"tx", &p.tx}, {"allx", &p.allx}} {
		if *c.m, err = decodeCSR(raw[c.suffix]); err != nil {
			return nil, fail(c.suffix, err)
		}
	}
	if p.yRows, p.yCols, _, err = decodeInt2D(raw["y"]); err != nil {
		return nil, fail("y", err)
	}
	if p.tyRows, p.tyCols, p.ty, err = decodeInt2D(raw["ty"]); err != nil {
		return nil, fail("ty", err)
	}
	if p.allyRows, p.allyCols, p.ally, err = decodeInt2D(raw["ally"]); err != nil {
		return nil, fail("ally", err)
	}
	if p.graph, err = decodeGraph(raw["graph"]); err != nil {
		return nil, fail("graph", err)
	}
	if p.testIndex, err = parseIndex(raw["test.index"]); err != nil {
		return nil, fail("test.index", err)
	}
	return &p, nil
}

// parseIndex parses one decimal integer per line (LF or CRLF, trailing newline
// optional), as parse_index_file in tkipf/gcn does.
func parseIndex(b []byte) ([]int, error) {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil, fmt.Errorf("%w: empty index file", ErrFormat)
	}
	lines := strings.Split(s, "\n")
	out := make([]int, len(lines))
	for i, l := range lines {
		v, err := strconv.Atoi(strings.TrimSpace(l))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%w: line %d: %q is not a non-negative integer", ErrFormat, i+1, l)
		}
		out[i] = v
	}
	return out, nil
}

// assemblePlanetoid decodes raw and builds the standard split.
func assemblePlanetoid(name string, raw map[string][]byte, path func(string) string) (*PlanetoidRaw, error) {
	p, err := decodePlanetoid(raw, path)
	if err != nil {
		return nil, err
	}
	bad := func(suffix, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrFormat, path(suffix), fmt.Sprintf(format, args...))
	}

	// Shapes.
	F, C := p.allx.cols, p.allyCols
	switch {
	case p.x.cols != F:
		return nil, bad("x", "%d columns, allx has %d", p.x.cols, F)
	case p.tx.cols != F:
		return nil, bad("tx", "%d columns, allx has %d", p.tx.cols, F)
	case p.yCols != C:
		return nil, bad("y", "%d classes, ally has %d", p.yCols, C)
	case p.tyCols != C:
		return nil, bad("ty", "%d classes, ally has %d", p.tyCols, C)
	case p.x.rows != p.yRows:
		return nil, bad("y", "%d rows, x has %d", p.yRows, p.x.rows)
	case p.allyRows != p.allx.rows:
		return nil, bad("ally", "%d rows, allx has %d", p.allyRows, p.allx.rows)
	case p.tyRows != p.tx.rows:
		return nil, bad("ty", "%d rows, tx has %d", p.tyRows, p.tx.rows)
	case len(p.testIndex) != p.tx.rows:
		return nil, bad("test.index", "%d ids, tx has %d rows", len(p.testIndex), p.tx.rows)
	case C == 0:
		return nil, bad("ally", "no classes")
	}

	// Node range: test ids span len(allx)..max; N = max+1.
	nAll := p.allx.rows
	lo, hi := slices.Min(p.testIndex), slices.Max(p.testIndex)
	if lo != nAll {
		return nil, bad("test.index", "smallest test id is %d, want len(allx) = %d", lo, nAll)
	}
	N := hi + 1
	if len(p.graph.keys) != N {
		return nil, bad("graph", "%d nodes, but test.index implies %d", len(p.graph.keys), N)
	}
	seen := make([]bool, N)
	for _, t := range p.testIndex {
		if seen[t] {
			return nil, bad("test.index", "test id %d occurs twice", t)
		}
		seen[t] = true
	}
	if p.yRows+valSize > N {
		return nil, bad("y", "%d train rows + %d validation nodes exceed %d nodes", p.yRows, valSize, N)
	}

	d := &PlanetoidRaw{Name: name, NumNodes: N, NumFeatures: F, NumClasses: C}

	// Features: allx rows, then tx row i at node test.index[i].
	d.Features = make([]float32, N*F)
	scatter := func(m *csrMatrix, suffix string, dst func(i int) int) error {
		for i := 0; i < m.rows; i++ {
			row := d.Features[dst(i)*F : (dst(i)+1)*F]
			prev := int32(-1)
			for k := m.indptr[i]; k < m.indptr[i+1]; k++ {
				c := m.indices[k]
				if c <= prev {
					return bad(suffix, "column ids not strictly increasing in row %d", i)
				}
				prev = c
				row[c] = m.data[k]
				if m.data[k] != 0 {
					d.FeatureNNZ++
				}
			}
		}
		return nil
	}
	if err := scatter(p.allx, "allx", func(i int) int { return i }); err != nil {
		return nil, err
	}
	if err := scatter(p.tx, "tx", func(i int) int { return p.testIndex[i] }); err != nil {
		return nil, err
	}

	// Labels: argmax of the one-hot rows (first maximum, like numpy); all-zero
	// rows (and test ids without a ty row) are unlabelled and get class 0.
	d.Labels = make([]int64, N)
	hasLabel := make([]bool, N)
	setLabels := func(m []int32, rows int, dst func(i int) int) {
		for i := 0; i < rows; i++ {
			r := m[i*C : (i+1)*C]
			best := 0
			for c := 1; c < C; c++ {
				if r[c] > r[best] {
					best = c
				}
			}
			d.Labels[dst(i)] = int64(best)
			hasLabel[dst(i)] = slices.ContainsFunc(r, func(v int32) bool { return v != 0 })
		}
	}
	setLabels(p.ally, p.allyRows, func(i int) int { return i })
	setLabels(p.ty, p.tyRows, func(i int) int { return p.testIndex[i] })
	for i, ok := range hasLabel {
		if !ok {
			d.Unlabelled = append(d.Unlabelled, int64(i))
		}
	}

	// Edges: the graph dict, symmetrised and deduplicated, sorted by (src,
	// dst). Counting sort by src, then a small sort per node.
	g := p.graph
	isKey := make([]bool, N)
	off := make([]int, N+1)
	for j, u := range g.keys {
		if u < 0 || u >= N {
			return nil, bad("graph", "node id %d outside [0, %d)", u, N)
		}
		if isKey[u] {
			return nil, bad("graph", "node id %d occurs twice", u)
		}
		isKey[u] = true
		for _, v := range g.vals[j] {
			if v < 0 || v >= N {
				return nil, bad("graph", "neighbour %d of node %d outside [0, %d)", v, u, N)
			}
			off[u+1]++
			off[v+1]++
		}
		d.AdjEntries += len(g.vals[j])
	}
	for i := 0; i < N; i++ {
		off[i+1] += off[i]
	}
	nbr := make([]int64, off[N])
	pos := slices.Clone(off[:N])
	for j, u := range g.keys {
		for _, v := range g.vals[j] {
			nbr[pos[u]] = int64(v)
			pos[u]++
			nbr[pos[v]] = int64(u)
			pos[v]++
		}
	}
	d.Src = make([]int64, 0, len(nbr))
	d.Dst = make([]int64, 0, len(nbr))
	for u := 0; u < N; u++ {
		seg := nbr[off[u]:off[u+1]]
		slices.Sort(seg)
		seg = slices.Compact(seg)
		for _, v := range seg {
			d.Src = append(d.Src, int64(u))
			d.Dst = append(d.Dst, v)
			if v == int64(u) {
				d.SelfLoops++
			}
		}
	}

	// Split.
	d.TrainIdx = arange(0, p.yRows)
	d.ValIdx = arange(p.yRows, p.yRows+valSize)
	d.TestIdx = make([]int64, len(p.testIndex))
	for i, t := range p.testIndex {
		d.TestIdx[i] = int64(t)
	}
	slices.Sort(d.TestIdx)
	return d, nil
}

func arange(lo, hi int) []int64 {
	out := make([]int64, hi-lo)
	for i := range out {
		out[i] = int64(lo + i)
	}
	return out
}
