package datasets

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// ogblInfo is the part of ogb/linkproppred/master.csv that assembly and
// evaluation need.
type ogblInfo struct {
	opts   OGBOptions
	metric string
}

var (
	ogblPPA       = ogblInfo{OGBOptions{Name: "ogbl-ppa", Split: "throughput", AddInverseEdge: true}, "hits@100"}
	ogblCollab    = ogblInfo{OGBOptions{Name: "ogbl-collab", Split: "time", AddInverseEdge: true}, "hits@50"}
	ogblCitation2 = ogblInfo{OGBOptions{Name: "ogbl-citation2", Split: "time", AddInverseEdge: false}, "mrr"}
	ogblDDI       = ogblInfo{OGBOptions{Name: "ogbl-ddi", Split: "target", AddInverseEdge: true}, "hits@20"}
)

// ogblKnown maps the folder names of the ogbl-* datasets (as ogb names
// them, "ogbl_collab", and as their zips do, "collab") to their rows.
var ogblKnown = map[string]ogblInfo{
	"ogbl-ppa": ogblPPA, "ogbl_ppa": ogblPPA, "ppassoc": ogblPPA,
	"ogbl-collab": ogblCollab, "ogbl_collab": ogblCollab, "collab": ogblCollab,
	"ogbl-citation2": ogblCitation2, "ogbl_citation2": ogblCitation2, "citation-v2": ogblCitation2,
	"ogbl-ddi": ogblDDI, "ogbl_ddi": ogblDDI, "ddi": ogblDDI,
}

// DefaultOGBLinkOptions returns the options of the OGB link-prediction
// dataset that dir holds, recognised by the folder name ("ogbl_collab",
// or the zip's "collab", "ppassoc", "citation-v2", "ddi"; the table of
// ogb/linkproppred/master.csv): its standard split ("time", "throughput",
// "target") and whether inverse edges are added (all but ogbl-citation2).
// Unknown folders get the folder name, the only split folder and inverse
// edges.
func DefaultOGBLinkOptions(dir string) OGBOptions {
	base := strings.ToLower(filepath.Base(filepath.Clean(dir)))
	if o, ok := ogblKnown[base]; ok {
		return o.opts
	}
	return OGBOptions{Name: filepath.Base(filepath.Clean(dir)), AddInverseEdge: true}
}

// LoadOGBLinkProp loads an OGB link-property-prediction dataset (Hu et
// al., "Open Graph Benchmark", NeurIPS 2020: ogbl-collab, ogbl-ppa,
// ogbl-ddi, ogbl-citation2) from dir, with DefaultOGBLinkOptions(dir); see
// LoadOGBLinkPropWith.
func LoadOGBLinkProp(dir string) (*LinkDataset, error) {
	return LoadOGBLinkPropWith(dir, DefaultOGBLinkOptions(dir))
}

// LoadOGBLinkPropWith loads an OGB link-property-prediction dataset from
// dir, laid out as ogb's LinkPropPredDataset (ogb/linkproppred/dataset.py)
// and read_csv_graph_raw read it after download:
//
//	raw/num-node-list.csv.gz   one line: N
//	raw/num-edge-list.csv.gz   one line: E
//	raw/edge.csv.gz            E lines "u,v": the training graph
//	raw/node-feat.csv.gz       N lines of F floats (optional)
//	raw/node_<name>.csv.gz     N lines (optional; ogbl-citation2's node_year)
//	raw/edge_<name>.csv.gz     E lines (optional; ogbl-collab's edge_weight, edge_year)
//	split/<split>/{train,valid,test}.pt   torch.save'd dicts
//
// The CSVs are headerless, gzipped or plain whatever their name (as
// LoadOGBNodeProp reads them). The .pt files are read in torch's zip or
// legacy container, their arrays torch tensors or numpy arrays (see
// readTorchDict); their keys are ogbl-collab/ppa/ddi's "edge" (M, 2) and
// "edge_neg" (M', 2) node pairs, ogbl-citation2's "source_node" and
// "target_node" (M) and "target_node_neg" (M, K), and any other array of
// one row per positive pair (ogbl-collab's "weight", "year").
//
// The result (see LinkDataset): Graph has the N nodes and the E edges of
// raw/edge.csv.gz as edges 0..E-1 in file order; with opts.AddInverseEdge
// (all but ogbl-citation2) the reverse of edge e follows as edge E+e, and
// ReverseEIDs maps each to the other (ogb's read_csv_graph_raw interleaves
// them instead, 2e and 2e+1; the block layout is LinkDataset's). Node data
// "feat" (N, F) float32 and one node_<name> file each as node data <name>,
// edge_<name> files as edge data <name> (repeated for the reverse edges):
// (N) or (E) int64 for one integer column, else float32. TrainEIDs are
// 0..E-1. TrainPos, ValPos, TestPos are the splits' positive pairs ("edge",
// or "source_node" beside "target_node"), TrainNeg, ValNeg, TestNeg their
// "edge_neg" (nil without one), ValNegDst and TestNegDst ogbl-citation2's
// "target_node_neg", PosData the other arrays, all int64 (float arrays
// float32). EvalMetric is the dataset's metric in master.csv ("hits@50",
// "mrr"; metrics.NewOGBLinkEvaluator computes it), "" for an unknown name.
//
// Errors name the file and wrap ErrFormat: a malformed CSV line or a count
// that disagrees with num-node-list / num-edge-list (as LoadOGBNodeProp),
// a truncated or corrupt .pt file (a zip entry's CRC, a byte count), a
// split without positive pairs, an array of the wrong shape or dtype, a
// node id outside [0, N). A missing file or split folder wraps ErrMissing.
// Heterogeneous (ogbl-biokg, raw/triplet-type-list) and binary
// (ogbl-vessel, raw/data.npz) datasets are reported as not supported
// (ErrArgument), as are knowledge-graph splits (ogbl-wikikg2's "head",
// "relation", "tail"), which are errors naming the file.
func LoadOGBLinkPropWith(dir string, opts OGBOptions) (*LinkDataset, error) {
	raw := filepath.Join(dir, "raw")
	for _, f := range []string{"triplet-type-list.csv.gz", "num-node-dict.csv.gz", "data.npz", "edge_index_dict.npz"} {
		if fileExists(filepath.Join(raw, f)) {
			return nil, fmt.Errorf("%w: %s holds raw/%s: a heterogeneous or binary OGB dataset, which LoadOGBLinkProp does not read", ErrArgument, dir, f)
		}
	}
	if opts.Name == "" {
		opts.Name = filepath.Base(filepath.Clean(dir))
	}
	metric := ""
	if info, ok := ogblKnown[strings.ToLower(opts.Name)]; ok {
		opts.Name, metric = info.opts.Name, info.metric
	} else if info, ok := ogblKnown[strings.ToLower(filepath.Base(filepath.Clean(dir)))]; ok && opts.Name == info.opts.Name {
		metric = info.metric
	}
	n, err := readOGBCount(ogbFile(raw, "num-node-list"))
	if err != nil {
		return nil, err
	}
	e, err := readOGBCount(ogbFile(raw, "num-edge-list"))
	if err != nil {
		return nil, err
	}
	edges, err := readOGBMatrix(ogbFile(raw, "edge"), e, 2, true)
	if err != nil {
		return nil, err
	}
	m := e
	if opts.AddInverseEdge {
		m = 2 * e
	}
	src, dst := make([]int64, m), make([]int64, m)
	var rev []int64
	if opts.AddInverseEdge {
		rev = make([]int64, m)
	}
	for i := 0; i < e; i++ {
		u, v := edges.ints[2*i], edges.ints[2*i+1]
		if u < 0 || v < 0 || u >= int64(n) || v >= int64(n) {
			return nil, lineError(edges.path, i+1, "edge %d,%d names a node outside 0..%d", u, v, n-1)
		}
		src[i], dst[i] = u, v
		if opts.AddInverseEdge {
			src[e+i], dst[e+i] = v, u
			rev[i], rev[e+i] = int64(e+i), int64(i)
		}
	}
	edges = nil
	g, err := graph.New(n, src, dst)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", dir, err)
	}
	if path, ok := ogbOptional(raw, "node-feat"); ok {
		f, err := readOGBMatrix(path, n, -1, false)
		if err != nil {
			return nil, err
		}
		if err := g.SetNData("feat", tensor.FromFloat32(nonNilFloats(f.floats), f.rows, f.cols)); err != nil {
			return nil, fmt.Errorf("datasets: %s: %w", path, err)
		}
	}
	extra, err := ogbExtraFiles(raw)
	if err != nil {
		return nil, err
	}
	for _, x := range extra {
		rows := n
		if x.edge {
			rows = e
		}
		t, err := readOGBExtra(x.path, rows)
		if err != nil {
			return nil, err
		}
		if x.edge {
			if opts.AddInverseEdge {
				t = repeatBlock(t)
			}
			err = g.SetEData(x.name, t)
		} else {
			err = g.SetNData(x.name, t)
		}
		if err != nil {
			return nil, fmt.Errorf("datasets: %s: %w", x.path, err)
		}
	}

	splitDir, err := ogbSplitDir(dir, opts.Split)
	if err != nil {
		return nil, err
	}
	eids := make([]int64, e)
	for i := range eids {
		eids[i] = int64(i)
	}
	d := &LinkDataset{Name: opts.Name, NumNodes: n, Graph: g, TrainEIDs: tensor.FromInt64(eids), EvalMetric: metric,
		PosData: map[string]map[string]*tensor.Tensor{}}
	if rev != nil {
		d.ReverseEIDs = tensor.FromInt64(rev)
	}
	for _, part := range []string{"train", "valid", "test"} {
		s, err := readOGBLSplit(filepath.Join(splitDir, part+".pt"), n)
		if err != nil {
			return nil, err
		}
		switch part {
		case "train":
			d.TrainPos, d.TrainNeg = s.pos, s.neg
			if s.negDst != nil {
				s.data["target_node_neg"] = s.negDst
			}
		case "valid":
			d.ValPos, d.ValNeg, d.ValNegDst = s.pos, s.neg, s.negDst
		case "test":
			d.TestPos, d.TestNeg, d.TestNegDst = s.pos, s.neg, s.negDst
		}
		if len(s.data) > 0 {
			d.PosData[part] = s.data
		}
	}
	return d, nil
}

// repeatBlock stacks t's rows twice (rows 0..R-1 then 0..R-1 again), the
// data of the reverse edges E..2E-1.
func repeatBlock(t *tensor.Tensor) *tensor.Tensor {
	r := t.Size(0)
	idx := make([]int64, 2*r)
	for i := range idx {
		idx[i] = int64(i % r)
	}
	return tensor.IndexSelect(t, tensor.FromInt64(idx))
}

func nonNilFloats(v []float32) []float32 {
	if v == nil {
		return []float32{}
	}
	return v
}

// ogblSplit is one split file's arrays as tensors.
type ogblSplit struct {
	pos, neg, negDst *tensor.Tensor
	data             map[string]*tensor.Tensor
}

// readOGBLSplit reads split/<split>/<part>.pt and checks its arrays
// against the n nodes.
func readOGBLSplit(path string, n int) (*ogblSplit, error) {
	arrs, err := readTorchDict(path)
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrFormat, path, fmt.Sprintf(format, args...))
	}
	keys := make([]string, 0, len(arrs))
	for k := range arrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ids := func(key string, cols int) ([]int64, error) {
		a := arrs[key]
		if !a.isInt() {
			return nil, bad("%q must hold integer node ids, got floats", key)
		}
		if (cols == 0 && len(a.shape) != 1) || (cols > 0 && (len(a.shape) != 2 || a.shape[1] != cols)) || (cols < 0 && len(a.shape) != 2) {
			want := "(M)"
			switch {
			case cols > 0:
				want = fmt.Sprintf("(M, %d)", cols)
			case cols < 0:
				want = "(M, K)"
			}
			return nil, bad("%q has shape %v, want %s", key, a.shape, want)
		}
		for i, v := range a.ints {
			if v < 0 || v >= int64(n) {
				return nil, bad("%q entry %d is node %d, outside [0, %d)", key, i, v, n)
			}
		}
		return a.ints, nil
	}
	s := &ogblSplit{data: map[string]*tensor.Tensor{}}
	used := map[string]bool{}
	switch {
	case arrs["edge"] != nil:
		p, err := ids("edge", 2)
		if err != nil {
			return nil, err
		}
		s.pos, used["edge"] = tensor.FromInt64(p, len(p)/2, 2), true
	case arrs["source_node"] != nil && arrs["target_node"] != nil:
		a, err := ids("source_node", 0)
		if err != nil {
			return nil, err
		}
		b, err := ids("target_node", 0)
		if err != nil {
			return nil, err
		}
		if len(a) != len(b) {
			return nil, bad("%d source_node but %d target_node entries", len(a), len(b))
		}
		p := make([]int64, 2*len(a))
		for i := range a {
			p[2*i], p[2*i+1] = a[i], b[i]
		}
		s.pos, used["source_node"], used["target_node"] = tensor.FromInt64(p, len(a), 2), true, true
	case arrs["head"] != nil || arrs["relation"] != nil:
		return nil, fmt.Errorf("%w: %s: a knowledge-graph split (keys %v), which LoadOGBLinkProp does not read", ErrArgument, path, keys)
	default:
		return nil, bad("no positive pairs: want the key \"edge\" or \"source_node\" and \"target_node\", got %v", keys)
	}
	pos := s.pos.Size(0)
	if arrs["edge_neg"] != nil {
		p, err := ids("edge_neg", 2)
		if err != nil {
			return nil, err
		}
		s.neg, used["edge_neg"] = tensor.FromInt64(p, len(p)/2, 2), true
	}
	if a := arrs["target_node_neg"]; a != nil {
		p, err := ids("target_node_neg", -1)
		if err != nil {
			return nil, err
		}
		if a.shape[0] != pos {
			return nil, bad("\"target_node_neg\" has %d rows for %d positive pairs", a.shape[0], pos)
		}
		s.negDst, used["target_node_neg"] = tensor.FromInt64(p, a.shape...), true
	}
	for _, k := range keys {
		if used[k] {
			continue
		}
		a := arrs[k]
		if len(a.shape) == 0 || a.shape[0] != pos {
			return nil, bad("%q has shape %v; want one row per positive pair (%d)", k, a.shape, pos)
		}
		if a.isInt() {
			s.data[k] = tensor.FromInt64(a.ints, slices.Clone(a.shape)...)
		} else {
			s.data[k] = tensor.FromFloat32(a.floats, slices.Clone(a.shape)...)
		}
	}
	return s, nil
}
