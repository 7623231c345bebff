package datasets

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// GNNBenchmarkNPZ loads a node-classification dataset in the npz schema of
// shchur/gnn-benchmark (Shchur et al., "Pitfalls of Graph Neural Network
// Evaluation", 2018), the files PyG's Amazon, Coauthor and CitationFull and
// DGL's AmazonCoBuy/Coauthor datasets download: a zip of .npy arrays with
// the adjacency as CSR (adj_data, adj_indices, adj_indptr, adj_shape), the
// attributes as CSR (attr_data, attr_indices, attr_indptr, attr_shape),
// labels (N) of any integer dtype and optionally node_names, attr_names and
// class_names (unicode arrays; read them with ReadNPZ).
//
// The graph is built as PyG's read_npz(to_undirected=True): every stored
// entry A[i, j] with i != j gives the edges i -> j and j -> i, duplicates
// are removed and self loops dropped, sorted by (src, dst). Node data:
// "feat" (N, F) float32, the dense attribute matrix; "label" (N) int64; and
// the masks of a random split with DefaultTrainPerClass per class,
// DefaultNumVal and DefaultNumTest nodes drawn with seed 0 (the files have
// no standard split; call Dataset.RandomSplit for another seed). The
// dataset's name is the file name without ".npz".
//
// Shared-data counts: cora.npz 2,708 nodes, 10,556 directed edges (5,278
// undirected), 1,433 features, 7 classes; citeseer.npz 3,312 nodes, 9,072
// edges (4,536 undirected), 3,703 features, 6 classes.
//
// Errors wrap ErrMissing or ErrFormat and name the file and the array.
func GNNBenchmarkNPZ(path string) (*Dataset, error) {
	arrs, err := ReadNPZ(path)
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrFormat, path, fmt.Sprintf(format, args...))
	}
	get := func(key string, wantInt bool) (*NPYArray, error) {
		a, ok := arrs[key]
		if !ok {
			if key == "labels" && arrs["labels_data"] != nil {
				return nil, bad("multi-label CSR labels (labels_data, ...) are not supported")
			}
			return nil, bad("no array %q (has %s)", key, strings.Join(npzKeys(arrs), ", "))
		}
		if wantInt && a.Int64 == nil && a.Len() > 0 {
			return nil, bad("array %q has dtype %s, want integers", key, a.Descr)
		}
		return a, nil
	}
	adj, err := readCSR(arrs, "adj", get, bad)
	if err != nil {
		return nil, err
	}
	attr, err := readCSR(arrs, "attr", get, bad)
	if err != nil {
		return nil, err
	}
	lab, err := get("labels", true)
	if err != nil {
		return nil, err
	}
	n := adj.rows
	if adj.cols != n {
		return nil, bad("adj_shape %dx%d is not square", adj.rows, adj.cols)
	}
	if attr.rows != n || len(lab.Int64) != n || len(lab.Shape) != 1 {
		return nil, bad("%d nodes in adj_shape, but attr_shape has %d rows and labels has shape %v", n, attr.rows, lab.Shape)
	}
	classes := 0
	for i, y := range lab.Int64 {
		if y < 0 {
			return nil, bad("labels[%d] = %d is negative", i, y)
		}
		classes = max(classes, int(y)+1)
	}
	if cn, ok := arrs["class_names"]; ok && cn.Strings != nil {
		classes = max(classes, len(cn.Strings))
	}

	// Symmetrise, drop self loops, dedupe: keys src*n + dst, sorted.
	keys := make([]int64, 0, 2*len(adj.indices))
	for i := 0; i < n; i++ {
		for p := adj.indptr[i]; p < adj.indptr[i+1]; p++ {
			j := adj.indices[p]
			if j != int64(i) {
				keys = append(keys, int64(i)*int64(n)+j, j*int64(n)+int64(i))
			}
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	src, dst := make([]int64, len(keys)), make([]int64, len(keys))
	for k, key := range keys {
		src[k], dst[k] = key/int64(n), key%int64(n)
	}

	f := attr.cols
	feat := make([]float32, n*f)
	for i := 0; i < n; i++ {
		for p := attr.indptr[i]; p < attr.indptr[i+1]; p++ {
			feat[i*f+int(attr.indices[p])] += attr.data[p]
		}
	}
	name := strings.TrimSuffix(filepath.Base(path), ".npz")
	tr, va, te, err := RandomSplitIdx(lab.Int64, DefaultTrainPerClass, DefaultNumVal, DefaultNumTest, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return fromRaw(name, n, f, classes, src, dst, feat, lab.Int64, tr, va, te)
}

// npzCSR is a validated CSR matrix read from prefix_data, prefix_indices,
// prefix_indptr and prefix_shape.
type npzCSR struct {
	rows, cols      int
	indptr, indices []int64
	data            []float32
}

func readCSR(arrs map[string]*NPYArray, prefix string,
	get func(string, bool) (*NPYArray, error), bad func(string, ...any) error) (*npzCSR, error) {
	shape, err := get(prefix+"_shape", true)
	if err != nil {
		return nil, err
	}
	indptr, err := get(prefix+"_indptr", true)
	if err != nil {
		return nil, err
	}
	indices, err := get(prefix+"_indices", true)
	if err != nil {
		return nil, err
	}
	data, err := get(prefix+"_data", false)
	if err != nil {
		return nil, err
	}
	if len(shape.Int64) != 2 || shape.Int64[0] < 0 || shape.Int64[1] < 0 {
		return nil, bad("%s_shape must hold two non-negative sizes, got %v", prefix, shape.Int64)
	}
	m := &npzCSR{rows: int(shape.Int64[0]), cols: int(shape.Int64[1]), indptr: indptr.Int64, indices: indices.Int64}
	nnz := len(m.indices)
	switch {
	case data.Float32 != nil:
		m.data = data.Float32
	case data.Int64 != nil:
		m.data = make([]float32, len(data.Int64))
		for i, v := range data.Int64 {
			m.data[i] = float32(v)
		}
	case data.Len() == 0:
		m.data = []float32{}
	default:
		return nil, bad("%s_data has dtype %s, want numbers", prefix, data.Descr)
	}
	if len(m.indptr) != m.rows+1 || len(m.data) != nnz || (m.rows >= 0 && len(m.indptr) > 0 && (m.indptr[0] != 0 || m.indptr[m.rows] != int64(nnz))) {
		return nil, bad("%s: indptr (%d entries), indices (%d) and data (%d) do not describe a %dx%d CSR matrix",
			prefix, len(m.indptr), nnz, len(m.data), m.rows, m.cols)
	}
	for i := 0; i < m.rows; i++ {
		if m.indptr[i+1] < m.indptr[i] {
			return nil, bad("%s_indptr decreases at row %d", prefix, i)
		}
	}
	for p, j := range m.indices {
		if j < 0 || j >= int64(m.cols) {
			return nil, bad("%s_indices[%d] = %d is outside [0, %d)", prefix, p, j, m.cols)
		}
	}
	return m, nil
}
