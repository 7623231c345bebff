package datasets

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// ACMFolder is the HeCo ACM folder under a data directory.
const ACMFolder = "heco-acm"

// ACM's node types and edge types (both directions of each relation), as
// OpenHGNN's HeCo ACM heterograph names them.
const (
	ACMPaper        = "paper"
	ACMAuthor       = "author"
	ACMSubject      = "subject"
	ACMPaperAuthor  = "paper-author"
	ACMAuthorPaper  = "author-paper"
	ACMPaperSubject = "paper-subject"
	ACMSubjectPaper = "subject-paper"
)

// Published sizes of the HeCo ACM files (liun-online/HeCo data/acm).
const (
	acmPapers, acmAuthors, acmSubjects = 4019, 7167, 60
	acmFeats                           = 1902
	acmPA, acmPS                       = 13407, 4019
	acmClasses                         = 3
)

// HeteroDataset is a node-classification dataset on a heterograph with
// node features: labels, and a train/validation/test split of the nodes
// of one type, PredictCategory.
type HeteroDataset struct {
	Name string
	// Graph is the heterograph. Node types with features have node data
	// "feat" (N_type, F_type) float32; PredictCategory also has "label"
	// (int64), "train_mask", "val_mask" and "test_mask" (bool).
	Graph           *graph.Graph
	PredictCategory string
	NumClasses      int
	// Labels is (N_category) int64, the class of every node of
	// PredictCategory.
	Labels *tensor.Tensor
	// TrainIdx, ValIdx and TestIdx are (n) int64 node ids local to
	// PredictCategory, in file order.
	TrainIdx, ValIdx, TestIdx *tensor.Tensor
}

func (d *HeteroDataset) String() string {
	s := fmt.Sprintf("HeteroDataset(%s:", d.Name)
	for _, nt := range d.Graph.NTypes() {
		s += fmt.Sprintf(" %s=%d", nt, d.Graph.NumNodesOf(nt))
	}
	edges := 0
	for _, ce := range d.Graph.CanonicalETypes() {
		edges += d.Graph.NumEdgesOf(ce.String())
	}
	return s + fmt.Sprintf(", %d edges of %d relations, category %q, %d classes, train=%d, val=%d, test=%d)",
		edges, len(d.Graph.CanonicalETypes()), d.PredictCategory, d.NumClasses,
		d.TrainIdx.Size(0), d.ValIdx.Size(0), d.TestIdx.Size(0))
}

// LoadACM loads ACM in the HeCo layout (Wang, Liu, Yang, Shi, "Self-supervised
// Heterogeneous Graph Neural Network with Co-contrastive Learning", KDD 2021;
// liun-online/HeCo data/acm, the preprocessed ACM of NSHE) with the split of
// 20 labelled papers per class: LoadACMSplit(dir, 20).
func LoadACM(dir string) (*HeteroDataset, error) { return LoadACMSplit(dir, 20) }

// LoadACMSplit loads HeCo's ACM from <dir>/heco-acm/ (or dir itself when it
// holds the files; dir "" means DataDir("")) with the split of
// labelsPerClass (20, 40 or 60) training papers per class; validation and
// test have 1,000 papers each.
//
// The heterograph has node types paper (4,019), author (7,167) and subject
// (60) and the canonical edge types (paper, paper-author, author),
// (author, author-paper, paper), (paper, paper-subject, subject) and
// (subject, subject-paper, paper), 13,407 and 4,019 edges each, from
// pa.txt and ps.txt (lines "paper author", 0-based ids). Papers and
// authors have node data "feat" (N, 1,902) float32, the dense form of the
// scipy sparse matrices p_feat.npz (CSR, 340,377 nonzeros, values as
// stored: rows of a bag of words scaled to sum 1) and a_feat.npz (COO); subjects have none (HeCo
// feeds them one-hot ids). Papers have "label" (labels.npy, 3 classes),
// and "train_mask", "val_mask" and "test_mask" from train_K.npy,
// val_K.npy and test_K.npy.
//
// Errors wrap ErrFormat and name the file: an edge line without two ids
// or an id out of range, a file with fewer or more edges than published
// (a truncated file), a last line without its newline, an npz member
// missing or not a CSR/COO matrix of the published shape, a label that is not an
// integer class, a split id out of range. A missing file wraps
// ErrMissing; labelsPerClass other than 20, 40 or 60 wraps ErrArgument.
// Nothing is downloaded.
func LoadACMSplit(dir string, labelsPerClass int) (*HeteroDataset, error) {
	if labelsPerClass != 20 && labelsPerClass != 40 && labelsPerClass != 60 {
		return nil, fmt.Errorf("%w: LoadACMSplit: labelsPerClass must be 20, 40 or 60 (HeCo's splits), got %d", ErrArgument, labelsPerClass)
	}
	if dir == "" {
		dir = DataDir("")
	}
	base := filepath.Join(dir, ACMFolder)
	if fileExists(filepath.Join(dir, "pa.txt")) {
		base = dir
	}
	pa, err := readACMPairs(filepath.Join(base, "pa.txt"), acmPA, acmPapers, acmAuthors)
	if err != nil {
		return nil, err
	}
	ps, err := readACMPairs(filepath.Join(base, "ps.txt"), acmPS, acmPapers, acmSubjects)
	if err != nil {
		return nil, err
	}
	pfeat, err := readCSRFeatures(filepath.Join(base, "p_feat.npz"), acmPapers, acmFeats)
	if err != nil {
		return nil, err
	}
	afeat, err := readCSRFeatures(filepath.Join(base, "a_feat.npz"), acmAuthors, acmFeats)
	if err != nil {
		return nil, err
	}
	labels, err := readNPYLabels(filepath.Join(base, "labels.npy"), acmPapers, acmClasses)
	if err != nil {
		return nil, err
	}
	var idx [3][]int64
	for i, split := range []string{"train", "val", "test"} {
		p := filepath.Join(base, fmt.Sprintf("%s_%d.npy", split, labelsPerClass))
		want := 1000
		if i == 0 {
			want = labelsPerClass * acmClasses
		}
		if idx[i], err = readNPYIndex(p, want, acmPapers); err != nil {
			return nil, err
		}
	}
	rel := func(src, et, dst string) graph.CanonicalEType {
		return graph.CanonicalEType{Src: src, EType: et, Dst: dst}
	}
	g, err := graph.NewHetero(map[string]int{ACMPaper: acmPapers, ACMAuthor: acmAuthors, ACMSubject: acmSubjects},
		map[graph.CanonicalEType]graph.EdgeList{
			rel(ACMPaper, ACMPaperAuthor, ACMAuthor):   pa,
			rel(ACMAuthor, ACMAuthorPaper, ACMPaper):   {Src: pa.Dst, Dst: pa.Src},
			rel(ACMPaper, ACMPaperSubject, ACMSubject): ps,
			rel(ACMSubject, ACMSubjectPaper, ACMPaper): {Src: ps.Dst, Dst: ps.Src},
		})
	if err != nil {
		return nil, fmt.Errorf("datasets: acm: %w", err)
	}
	d := &HeteroDataset{Name: "acm", Graph: g, PredictCategory: ACMPaper, NumClasses: acmClasses,
		Labels: tensor.FromInt64(labels), TrainIdx: tensor.FromInt64(idx[0]), ValIdx: tensor.FromInt64(idx[1]),
		TestIdx: tensor.FromInt64(idx[2])}
	set := []struct {
		nt, name string
		t        *tensor.Tensor
	}{
		{ACMPaper, "feat", pfeat}, {ACMAuthor, "feat", afeat}, {ACMPaper, "label", d.Labels},
		{ACMPaper, "train_mask", mask(acmPapers, idx[0])}, {ACMPaper, "val_mask", mask(acmPapers, idx[1])},
		{ACMPaper, "test_mask", mask(acmPapers, idx[2])},
	}
	for _, s := range set {
		if err := g.SetNDataOf(s.nt, s.name, s.t); err != nil {
			return nil, fmt.Errorf("datasets: acm: %w", err)
		}
	}
	return d, nil
}

// readACMPairs reads a HeCo edge file: one "src dst" pair of 0-based ids
// (TAB or spaces) a line, exactly want lines, src < nSrc and dst < nDst.
func readACMPairs(path string, want, nSrc, nDst int) (graph.EdgeList, error) {
	f, err := openData(path)
	if err != nil {
		return graph.EdgeList{}, err
	}
	defer f.Close()
	el := graph.EdgeList{Src: make([]int64, 0, want), Dst: make([]int64, 0, want)}
	var fields [][]byte
	for {
		line, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return graph.EdgeList{}, err
		}
		if len(line) == 0 {
			continue
		}
		var u, v int64
		if u, v, fields, err = f.edgePair(fields, line); err != nil {
			return graph.EdgeList{}, err
		}
		if u >= int64(nSrc) || v >= int64(nDst) {
			return graph.EdgeList{}, f.errorf("pair (%d, %d) is outside [0, %d) x [0, %d)", u, v, nSrc, nDst)
		}
		if f.atEOFWithoutNewline() {
			return graph.EdgeList{}, f.errorf("last line has no newline: the file is truncated")
		}
		el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
	}
	if len(el.Src) != want {
		return graph.EdgeList{}, lineError(path, 0, "%d pairs, the published file has %d: the file is truncated or not the published one", len(el.Src), want)
	}
	return el, nil
}

// readCSRFeatures reads a scipy.sparse.save_npz matrix of the given shape,
// CSR (members data, indices, indptr, shape) or COO (row, col, data,
// shape), into a dense (rows, cols) float32 tensor.
func readCSRFeatures(path string, rows, cols int) (*tensor.Tensor, error) {
	arrs, err := ReadNPZ(path)
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrFormat, path, fmt.Sprintf(format, args...))
	}
	get := func(name string, ints bool) (*NPYArray, error) {
		a, ok := arrs[name]
		if !ok {
			return nil, bad("no member %q (members: %v); want a scipy CSR matrix", name, npzKeys(arrs))
		}
		if ints && a.Int64 == nil && a.Len() > 0 {
			return nil, bad("member %q has dtype %s, want integers", name, a.Descr)
		}
		return a, nil
	}
	format := "csr"
	if f, ok := arrs["format"]; ok && len(f.Strings) == 1 {
		format = f.Strings[0]
	}
	dense := make([]float32, rows*cols)
	switch format {
	case "csr":
		// save_npz names the members without a prefix; readCSR joins prefix_name.
		renamed := map[string]*NPYArray{}
		for k, v := range arrs {
			renamed["m_"+k] = v
		}
		getR := func(name string, ints bool) (*NPYArray, error) { return get(name[2:], ints) }
		m, err := readCSR(renamed, "m", getR, bad)
		if err != nil {
			return nil, err
		}
		if m.rows != rows || m.cols != cols {
			return nil, bad("shape %dx%d, the published matrix is %dx%d", m.rows, m.cols, rows, cols)
		}
		for i := 0; i < rows; i++ {
			for p := m.indptr[i]; p < m.indptr[i+1]; p++ {
				dense[i*cols+int(m.indices[p])] += m.data[p]
			}
		}
	case "coo":
		var a [4]*NPYArray
		for i, name := range []string{"shape", "row", "col", "data"} {
			if a[i], err = get(name, i < 3); err != nil {
				return nil, err
			}
		}
		shape, row, col, data := a[0], a[1], a[2], a[3]
		if len(shape.Int64) != 2 || shape.Int64[0] != int64(rows) || shape.Int64[1] != int64(cols) {
			return nil, bad("shape %v, the published matrix is %dx%d", shape.Int64, rows, cols)
		}
		nnz := len(row.Int64)
		vals := data.Float32
		if vals == nil && data.Int64 != nil {
			vals = make([]float32, len(data.Int64))
			for i, v := range data.Int64 {
				vals[i] = float32(v)
			}
		}
		if len(col.Int64) != nnz || len(vals) != nnz {
			return nil, bad("row (%d), col (%d) and data (%d) differ in length", nnz, len(col.Int64), len(vals))
		}
		for p := 0; p < nnz; p++ {
			r, c := row.Int64[p], col.Int64[p]
			if r < 0 || r >= int64(rows) || c < 0 || c >= int64(cols) {
				return nil, bad("entry %d at (%d, %d) is outside the %dx%d matrix", p, r, c, rows, cols)
			}
			dense[r*int64(cols)+c] += vals[p]
		}
	default:
		return nil, bad("sparse format %q, want csr or coo", format)
	}
	return tensor.FromFloat32(dense, rows, cols), nil
}

// readNPY reads and parses one .npy file.
func readNPY(path string) (*NPYArray, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%w: %s: %w", ErrMissing, path, err)
		}
		return nil, fmt.Errorf("datasets: reading %s: %w", path, err)
	}
	return ParseNPY(path, data)
}

// readNPYLabels reads n class ids in [0, classes), stored as integers or
// as integral floats.
func readNPYLabels(path string, n, classes int) ([]int64, error) {
	a, err := readNPY(path)
	if err != nil {
		return nil, err
	}
	if len(a.Shape) != 1 || a.Shape[0] != n {
		return nil, fmt.Errorf("%w: %s: shape %v, want (%d)", ErrFormat, path, a.Shape, n)
	}
	out := make([]int64, n)
	for i := range out {
		var v float64
		switch {
		case a.Int64 != nil:
			v = float64(a.Int64[i])
		case a.Float32 != nil:
			v = float64(a.Float32[i])
		default:
			return nil, fmt.Errorf("%w: %s: dtype %s, want numbers", ErrFormat, path, a.Descr)
		}
		if v != math.Trunc(v) || v < 0 || v >= float64(classes) {
			return nil, fmt.Errorf("%w: %s: label %v of node %d is not a class in [0, %d)", ErrFormat, path, v, i, classes)
		}
		out[i] = int64(v)
	}
	return out, nil
}

// readNPYIndex reads want integer node ids in [0, n).
func readNPYIndex(path string, want, n int) ([]int64, error) {
	a, err := readNPY(path)
	if err != nil {
		return nil, err
	}
	if len(a.Shape) != 1 || a.Shape[0] != want || (a.Int64 == nil && want > 0) {
		return nil, fmt.Errorf("%w: %s: dtype %s shape %v, want (%d) integers", ErrFormat, path, a.Descr, a.Shape, want)
	}
	for i, v := range a.Int64 {
		if v < 0 || v >= int64(n) {
			return nil, fmt.Errorf("%w: %s: id %d at position %d is outside [0, %d)", ErrFormat, path, v, i, n)
		}
	}
	return append([]int64(nil), a.Int64...), nil
}
