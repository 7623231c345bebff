package datasets

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// LinkDataset is a link-prediction dataset with a fixed split, laid out as
// OGB's link-property datasets (get_edge_split: "edge" and "edge_neg"
// (M, 2) int64 node-id pairs per split) with the training graph built for
// DGL's edge DataLoader. LoadCaGrQc and LoadOGBLinkProp return one.
type LinkDataset struct {
	Name     string
	NumNodes int
	// Graph is the training graph: every training pair u v as edge u -> v
	// (edge ids 0..M-1, in file order) and its reverse v -> u (edge ids
	// M..2M-1), so 2M edges. Test pairs are not in it. ca-GrQc's has no
	// node data; an OGB dataset's has its node and edge data (see
	// LoadOGBLinkPropWith), and ogbl-citation2's, directed, has only the
	// M forward edges.
	Graph *graph.Graph
	// TrainEIDs are the ids of the forward training edges, (M) int64:
	// 0..M-1, the edges an edge DataLoader iterates over.
	TrainEIDs *tensor.Tensor
	// ReverseEIDs maps every edge id of Graph to the id of its reverse
	// edge, (2M) int64: e -> e+M and e+M -> e (DGL's reverse_eids for
	// exclude="reverse_id"); nil when Graph is directed (ogbl-citation2).
	ReverseEIDs *tensor.Tensor
	// TrainPos, TestPos and TestNeg are the split's node pairs, (M, 2),
	// (T, 2) and (T', 2) int64, one row per file line in file order.
	// TrainNeg and ValPos / ValNeg are nil when the split has none, and
	// so is TestNeg when the negatives are per positive (TestNegDst).
	TrainPos, TrainNeg, ValPos, ValNeg, TestPos, TestNeg *tensor.Tensor
	// ValNegDst and TestNegDst, (V, K) and (T, K) int64, hold for every
	// positive pair of ValPos / TestPos K negative destination nodes to
	// rank its true destination against, each paired with the positive's
	// source (ogbl-citation2's target_node_neg, K = 1000; scored with
	// MRR); nil for datasets with shared negative pairs.
	ValNegDst, TestNegDst *tensor.Tensor
	// PosData holds the splits' other arrays, one row per positive pair,
	// by split ("train", "valid", "test") and the array's key in the
	// split file: ogbl-collab's "weight" and "year", (M) int64. Nil or
	// empty when there are none.
	PosData map[string]map[string]*tensor.Tensor
	// EvalMetric is the dataset's official metric ("hits@50" for
	// ogbl-collab, "mrr" for ogbl-citation2: OGB's master.csv; the name
	// metrics.NewOGBLinkEvaluator takes is Name), "" when it has none.
	EvalMetric string
}

func (d *LinkDataset) String() string {
	rows := func(t *tensor.Tensor) int {
		if t == nil {
			return 0
		}
		return t.Size(0)
	}
	// Per-positive negatives (ogbl-citation2) show as rows x K.
	neg := func(pairs, dst *tensor.Tensor) string {
		if pairs == nil && dst != nil && dst.Dim() == 2 {
			return fmt.Sprintf("%dx%d", dst.Size(0), dst.Size(1))
		}
		return fmt.Sprint(rows(pairs))
	}
	return fmt.Sprintf("LinkDataset(%s: %d nodes, train=%d, val=%d/%s, test=%d/%s pos/neg pairs)", d.Name, d.NumNodes,
		rows(d.TrainPos), rows(d.ValPos), neg(d.ValNeg, d.ValNegDst), rows(d.TestPos), neg(d.TestNeg, d.TestNegDst))
}

// CaGrQcFolder is the folder of the ca-GrQc split under a data directory.
const CaGrQcFolder = "snap-ca-grqc"

// caGrQcFiles are the split files and their published pair counts (README
// of hwwang55/GraphGAN's data/link_prediction: 13,046 training edges,
// 1,449 test edges and as many negative pairs).
var caGrQcFiles = []struct {
	name  string
	pairs int
}{
	{"CA-GrQc_train.txt", 13046},
	{"CA-GrQc_test.txt", 1449},
	{"CA-GrQc_test_neg.txt", 1449},
}

// caGrQcNodes is the node count of the split (ids 0..5241), SNAP's 5,242.
const caGrQcNodes = 5242

// LoadCaGrQc loads SNAP's ca-GrQc collaboration network (Leskovec,
// Kleinberg and Faloutsos, "Graph Evolution: Densification and Shrinking
// Diameters", TKDD 2007) with the fixed link-prediction split of GraphGAN
// (Wang et al., AAAI 2018; hwwang55/GraphGAN data/link_prediction): the
// files CA-GrQc_train.txt (13,046 undirected training edges),
// CA-GrQc_test.txt (1,449 positive test edges) and CA-GrQc_test_neg.txt
// (1,449 negative test pairs), 0-based "<u>\t<v>" lines, read from
// <dir>/snap-ca-grqc/ or, when dir itself holds them, from dir ("" means
// DataDir("")).
//
// It returns 5,242 nodes, a training graph of 26,092 directed edges (each
// training pair in both directions; the 10 training self loops appear twice)
// with ReverseEIDs, and the split pairs (see LinkDataset). Nothing is
// downloaded.
//
// Errors name the file and, for bad content, the line, and wrap ErrFormat:
// a line without exactly two non-negative integer ids, a last line without
// its line ending (a cut file), a file with fewer or more pairs than
// published (a truncated file is an error, not a smaller split), a node
// id outside [0, 5242). In a folder named snap-ca-grqc the files must also
// have the published size and sha256, else the error wraps ErrChecksum. A
// missing file wraps ErrMissing.
func LoadCaGrQc(dir string) (*LinkDataset, error) {
	if dir == "" {
		dir = DataDir("")
	}
	base := filepath.Join(dir, CaGrQcFolder)
	if _, err := os.Stat(filepath.Join(dir, caGrQcFiles[0].name)); err == nil {
		base = dir
	}
	var pairs [3][]int64
	for i, f := range caGrQcFiles {
		p, err := readPairs(filepath.Join(base, f.name), f.pairs, caGrQcNodes)
		if err != nil {
			return nil, err
		}
		pairs[i] = p
	}
	train := pairs[0]
	m := len(train) / 2
	src := make([]int64, 2*m)
	dst := make([]int64, 2*m)
	rev := make([]int64, 2*m)
	for i := 0; i < m; i++ {
		u, v := train[2*i], train[2*i+1]
		src[i], dst[i], src[m+i], dst[m+i] = u, v, v, u
		rev[i], rev[m+i] = int64(m+i), int64(i)
	}
	g, err := graph.New(caGrQcNodes, src, dst)
	if err != nil {
		return nil, fmt.Errorf("datasets: ca-GrQc: %w", err)
	}
	eids := make([]int64, m)
	for i := range eids {
		eids[i] = int64(i)
	}
	return &LinkDataset{
		Name: "ca-GrQc", NumNodes: caGrQcNodes, Graph: g,
		TrainEIDs: tensor.FromInt64(eids), ReverseEIDs: tensor.FromInt64(rev),
		TrainPos: tensor.FromInt64(train, m, 2),
		TestPos:  tensor.FromInt64(pairs[1], len(pairs[1])/2, 2),
		TestNeg:  tensor.FromInt64(pairs[2], len(pairs[2])/2, 2),
	}, nil
}

// readPairs reads a file of "<u><TAB or spaces><v>" lines (blank lines and
// '#' comments skipped) holding exactly want pairs of ids in [0, n), and
// returns them flattened (u0, v0, u1, v1, ...).
func readPairs(path string, want, n int) ([]int64, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([]int64, 0, 2*want)
	var fields [][]byte
	for {
		line, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		// next strips the line ending; a last line that had none means the
		// file was cut.
		if f.atEOFWithoutNewline() {
			return nil, f.errorf("the last line %q has no line ending: the file is truncated", clip(line))
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		u, v, fs, err := f.edgePair(fields, t)
		if err != nil {
			return nil, err
		}
		fields = fs
		if u >= int64(n) || v >= int64(n) {
			return nil, f.errorf("node id %d is outside [0, %d)", max(u, v), n)
		}
		out = append(out, u, v)
	}
	if got := len(out) / 2; got != want {
		return nil, lineError(path, f.line, "%d node pairs, the split has %d: the file is truncated or not the published one", got, want)
	}
	if err := checkRelease(path); err != nil {
		return nil, err
	}
	return out, nil
}

// PairGraph returns the graph over the dataset's NumNodes nodes with one
// edge u -> v per row of pairs, an (M, 2) int64 tensor of node ids such
// as TestPos or TestNeg, in row order: the pair graph to score with a
// link predictor (nn.DotPredictor) on node representations of the whole
// graph. Errors name the argument: pairs that are nil, not (M, 2) int64,
// or hold a node id outside [0, NumNodes).
func (d *LinkDataset) PairGraph(pairs *tensor.Tensor) (*graph.Graph, error) {
	const op = "datasets.LinkDataset.PairGraph"
	if d == nil {
		return nil, fmt.Errorf("%s: the dataset is nil: %w", op, ErrArgument)
	}
	if pairs == nil {
		return nil, fmt.Errorf("%s: pairs is nil: %w", op, ErrArgument)
	}
	if pairs.DType() != tensor.Int64 || pairs.Dim() != 2 || pairs.Size(1) != 2 {
		return nil, fmt.Errorf("%s: pairs must be (M, 2) int64 node ids, got %s %v: %w", op, pairs.DType(), pairs.Shape(), ErrArgument)
	}
	if pairs.Device() != "cpu" {
		var err error
		if pairs, err = pairs.To("cpu"); err != nil {
			return nil, fmt.Errorf("%s: copying pairs to the cpu: %w", op, err)
		}
	}
	p := pairs.Int64s()
	m := len(p) / 2
	src, dst := make([]int64, m), make([]int64, m)
	for i := 0; i < m; i++ {
		src[i], dst[i] = p[2*i], p[2*i+1]
		if u := max(src[i], dst[i]); min(src[i], dst[i]) < 0 || u >= int64(d.NumNodes) {
			return nil, fmt.Errorf("%s: pairs row %d (%d, %d) holds a node id outside [0, %d): %w", op, i, src[i], dst[i], d.NumNodes, ErrArgument)
		}
	}
	g, err := graph.New(d.NumNodes, src, dst)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return g, nil
}
