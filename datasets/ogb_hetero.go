package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// LoadOGBNodePropHetero loads a heterogeneous OGB node-property-prediction
// dataset (ogbn-mag; Hu et al., "Open Graph Benchmark", NeurIPS 2020) from
// the raw CSV layout OGB downloads into dir, as ogb's
// read_csv_heterograph_raw and NodePropPredDataset read it (every file
// headerless CSV unless stated, gzipped or plain whatever its name):
//
//	raw/num-node-dict.csv.gz      a header of node types, then one line of their counts
//	raw/triplet-type-list.csv.gz  one "src type,relation,dst type" line per edge type
//	raw/relations/<src>___<rel>___<dst>/edge.csv.gz          E lines "u,v"
//	raw/relations/<src>___<rel>___<dst>/num-edge-list.csv.gz one line: E
//	raw/node-feat/<type>/node-feat.csv.gz    N_type lines of F floats (optional per type)
//	raw/node-label/<type>/node-label.csv.gz  N_type lines of one label (one type)
//	raw/node_<name>/<type>/node_<name>.csv.gz  N_type lines (optional; ogbn-mag's node_year)
//	split/<split>/<type>/{train,valid,test}.csv.gz  one node id per line
//
// split is the folder under split/ ("time" for ogbn-mag; "" means the only
// one). The heterograph has the listed node types and canonical edge types
// (no reverse edges are added: OGB adds none for ogbn-mag); node data "feat"
// (N, F) float32 where a type has features, "label" (N) int64 and the masks
// on the labelled type (PredictCategory), and node_<name> files as node data
// <name> ((N) int64 for one integer column, else (N, K) float32).
//
// Errors name the file: a malformed line, an id out of range, a count that
// disagrees with num-node-dict or num-edge-list (a truncated file), a cut
// gzip stream, a node type not in num-node-dict wrap ErrFormat; a missing
// required file wraps ErrMissing.
func LoadOGBNodePropHetero(dir, split string) (*HeteroDataset, error) {
	raw := filepath.Join(dir, "raw")
	counts, err := readOGBNodeDict(ogbFile(raw, "num-node-dict"))
	if err != nil {
		return nil, err
	}
	trip := ogbFile(raw, "triplet-type-list")
	triplets, err := readOGBTriplets(trip, counts)
	if err != nil {
		return nil, err
	}
	edges := map[graph.CanonicalEType]graph.EdgeList{}
	for _, ce := range triplets {
		sub := filepath.Join(raw, "relations", ce.Src+"___"+ce.EType+"___"+ce.Dst)
		e, err := readOGBCount(ogbFile(sub, "num-edge-list"))
		if err != nil {
			return nil, err
		}
		m, err := readOGBMatrix(ogbFile(sub, "edge"), e, 2, true)
		if err != nil {
			return nil, err
		}
		el := graph.EdgeList{Src: make([]int64, e), Dst: make([]int64, e)}
		for i := 0; i < e; i++ {
			u, v := m.ints[2*i], m.ints[2*i+1]
			if u < 0 || v < 0 || u >= int64(counts[ce.Src]) || v >= int64(counts[ce.Dst]) {
				return nil, lineError(m.path, i+1, "edge %d,%d is outside %d %s x %d %s nodes", u, v, counts[ce.Src], ce.Src, counts[ce.Dst], ce.Dst)
			}
			el.Src[i], el.Dst[i] = u, v
		}
		edges[ce] = el
	}
	g, err := graph.NewHetero(counts, edges)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", dir, err)
	}
	d := &HeteroDataset{Name: filepath.Base(filepath.Clean(dir)), Graph: g}
	// Features and extra node files, per type folder.
	ents, err := os.ReadDir(raw)
	if err != nil {
		return nil, fmt.Errorf("datasets: reading %s: %w", raw, err)
	}
	for _, ent := range ents {
		name := ent.Name()
		if !ent.IsDir() || (name != "node-feat" && !strings.HasPrefix(name, "node_")) {
			continue
		}
		types, err := ogbTypeDirs(filepath.Join(raw, name), counts)
		if err != nil {
			return nil, err
		}
		for _, nt := range types {
			p := ogbFile(filepath.Join(raw, name, nt), name)
			m, err := readOGBMatrix(p, counts[nt], -1, false)
			if err != nil {
				return nil, err
			}
			key := "feat"
			var t *tensor.Tensor
			if name == "node-feat" {
				t = tensor.FromFloat32(m.floats, m.rows, m.cols)
			} else {
				key = strings.TrimPrefix(name, "node_")
				t = ogbColumn(m)
			}
			if err := g.SetNDataOf(nt, key, t); err != nil {
				return nil, fmt.Errorf("datasets: %s: %w", p, err)
			}
		}
	}
	labelDir := filepath.Join(raw, "node-label")
	types, err := ogbTypeDirs(labelDir, counts)
	if err != nil {
		return nil, err
	}
	if len(types) != 1 {
		return nil, fmt.Errorf("%w: %s: labels for %d node types %v, want exactly one", ErrFormat, labelDir, len(types), types)
	}
	nt := types[0]
	d.PredictCategory = nt
	lp := ogbFile(filepath.Join(labelDir, nt), "node-label")
	lm, err := readOGBMatrix(lp, counts[nt], 1, false)
	if err != nil {
		return nil, err
	}
	labels := make([]int64, counts[nt])
	for i, v := range lm.floats {
		labels[i] = -1
		if v == v {
			if float32(int64(v)) != v || v < 0 {
				return nil, lineError(lp, i+1, "label %v is not a class id", v)
			}
			labels[i] = int64(v)
			d.NumClasses = max(d.NumClasses, int(v)+1)
		}
	}
	d.Labels = tensor.FromInt64(labels)
	sd, err := ogbSplitDir(dir, split)
	if err != nil {
		return nil, err
	}
	var idx [3][]int64
	for i, part := range []string{"train", "valid", "test"} {
		p := ogbFile(filepath.Join(sd, nt), part)
		m, err := readOGBMatrix(p, -1, 1, true)
		if err != nil {
			return nil, err
		}
		for r, id := range m.ints {
			if id < 0 || id >= int64(counts[nt]) {
				return nil, lineError(p, r+1, "node id %d is outside 0..%d", id, counts[nt]-1)
			}
		}
		idx[i] = m.ints
	}
	d.TrainIdx, d.ValIdx, d.TestIdx = tensor.FromInt64(idx[0]), tensor.FromInt64(idx[1]), tensor.FromInt64(idx[2])
	for name, t := range map[string]*tensor.Tensor{"label": d.Labels, "train_mask": mask(counts[nt], idx[0]),
		"val_mask": mask(counts[nt], idx[1]), "test_mask": mask(counts[nt], idx[2])} {
		if err := g.SetNDataOf(nt, name, t); err != nil {
			return nil, fmt.Errorf("datasets: %s: %w", dir, err)
		}
	}
	return d, nil
}

// ogbColumn is an extra node or edge file as a tensor: (N) int64 for one
// integer column, else (N, K) float32 (OGB's node_year is int64).
func ogbColumn(m *ogbMatrix) *tensor.Tensor {
	if m.cols == 1 && m.integral {
		v := make([]int64, len(m.floats))
		for i, f := range m.floats {
			v[i] = int64(f)
		}
		return tensor.FromInt64(v)
	}
	return float32Tensor(m)
}

// readOGBNodeDict reads num-node-dict: a header line of node types and
// one line of counts.
func readOGBNodeDict(path string) (map[string]int, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines [][]string
	for {
		line, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			continue
		}
		var fs []string
		for _, b := range splitComma(nil, line) {
			fs = append(fs, string(b))
		}
		lines = append(lines, fs)
	}
	if len(lines) != 2 || len(lines[0]) != len(lines[1]) || len(lines[0]) == 0 {
		return nil, lineError(path, 0, "want a header of node types and one line of as many counts, got %d lines", len(lines))
	}
	counts := map[string]int{}
	for i, nt := range lines[0] {
		n, ok := parseID([]byte(lines[1][i]))
		if !ok || nt == "" {
			return nil, lineError(path, 2, "count %q of node type %q is not a non-negative integer", lines[1][i], nt)
		}
		if _, dup := counts[nt]; dup {
			return nil, lineError(path, 1, "node type %q listed twice", nt)
		}
		counts[nt] = int(n)
	}
	return counts, nil
}

// readOGBTriplets reads triplet-type-list: "src,relation,dst" lines over
// the node types of counts.
func readOGBTriplets(path string, counts map[string]int) ([]graph.CanonicalEType, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []graph.CanonicalEType
	for {
		line, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			continue
		}
		fs := splitComma(nil, line)
		if len(fs) != 3 {
			return nil, f.errorf("want \"src type,relation,dst type\", got %q", clip(line))
		}
		ce := graph.CanonicalEType{Src: string(fs[0]), EType: string(fs[1]), Dst: string(fs[2])}
		for _, nt := range []string{ce.Src, ce.Dst} {
			if _, ok := counts[nt]; !ok {
				return nil, f.errorf("node type %q is not in num-node-dict", nt)
			}
		}
		out = append(out, ce)
	}
	if len(out) == 0 {
		return nil, lineError(path, 0, "no edge types")
	}
	return out, nil
}

// ogbTypeDirs lists the node-type folders under dir (none when dir is
// absent), each a type of counts.
func ogbTypeDirs(dir string, counts map[string]int) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("datasets: reading %s: %w", dir, err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, ok := counts[e.Name()]; !ok {
			return nil, fmt.Errorf("%w: %s: folder %q is not a node type of num-node-dict", ErrFormat, dir, e.Name())
		}
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out, nil
}
