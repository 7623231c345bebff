package datasets

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// OGBOptions say how to assemble an OGB node-property-prediction dataset
// from its raw files; DefaultOGBOptions fills them for the known datasets.
type OGBOptions struct {
	// Name is the dataset's name ("ogbn-products"); "" means the folder
	// name.
	Name string
	// Split is the folder under split/ to read ("sales_ranking"); ""
	// means the only folder there.
	Split string
	// AddInverseEdge adds the reverse v -> u right after every stored edge
	// u -> v (edge ids 2i and 2i+1), as OGB's read_csv_graph_raw does for
	// the datasets whose master.csv says add_inverse_edge (products,
	// proteins); edge data rows are repeated accordingly.
	AddInverseEdge bool
}

// ogbKnown is the part of ogb/nodeproppred/master.csv that assembly needs.
var ogbKnown = map[string]OGBOptions{
	"ogbn-products":   {Name: "ogbn-products", Split: "sales_ranking", AddInverseEdge: true},
	"ogbn-proteins":   {Name: "ogbn-proteins", Split: "species", AddInverseEdge: true},
	"ogbn-arxiv":      {Name: "ogbn-arxiv", Split: "time", AddInverseEdge: false},
	"ogbn-papers100m": {Name: "ogbn-papers100M", Split: "time", AddInverseEdge: false},
	"products":        {Name: "ogbn-products", Split: "sales_ranking", AddInverseEdge: true},
	"proteinfunc_v4":  {Name: "ogbn-proteins", Split: "species", AddInverseEdge: true},
	"arxiv":           {Name: "ogbn-arxiv", Split: "time", AddInverseEdge: false},
	"papers100m-bin":  {Name: "ogbn-papers100M", Split: "time", AddInverseEdge: false},
	"ogbn_products":   {Name: "ogbn-products", Split: "sales_ranking", AddInverseEdge: true},
	"ogbn_proteins":   {Name: "ogbn-proteins", Split: "species", AddInverseEdge: true},
	"ogbn_arxiv":      {Name: "ogbn-arxiv", Split: "time", AddInverseEdge: false},
	"ogbn_papers100m": {Name: "ogbn-papers100M", Split: "time", AddInverseEdge: false},
}

// DefaultOGBOptions returns the options of the OGB dataset that dir holds,
// recognised by the folder name as OGB names it after download
// ("ogbn_products", or the zip's "products", "arxiv", ...; the table of
// ogb/nodeproppred/master.csv): its standard split and whether inverse
// edges are added. Unknown folders get the folder name, the only split
// folder and no inverse edges.
func DefaultOGBOptions(dir string) OGBOptions {
	base := strings.ToLower(filepath.Base(filepath.Clean(dir)))
	if o, ok := ogbKnown[base]; ok && o.Name != "" {
		return o
	}
	return OGBOptions{Name: filepath.Base(filepath.Clean(dir))}
}

// OGBNodeProp loads an OGB node-property-prediction dataset (Hu et al.,
// "Open Graph Benchmark", NeurIPS 2020) from the raw CSV layout that OGB
// downloads into dir, with DefaultOGBOptions(dir); see LoadOGBNodeProp.
func OGBNodeProp(dir string) (*Dataset, error) {
	return LoadOGBNodeProp(dir, DefaultOGBOptions(dir))
}

// LoadOGBNodeProp loads an OGB node-property-prediction dataset from dir,
// laid out as ogb's NodePropPredDataset and read_csv_graph_raw expect
// (every file headerless CSV, gzipped or plain whatever its name):
//
//	raw/num-node-list.csv.gz   one line: N (a single graph)
//	raw/num-edge-list.csv.gz   one line: E
//	raw/edge.csv.gz            E lines "u,v"
//	raw/node-feat.csv.gz       N lines of F floats (optional)
//	raw/edge-feat.csv.gz       E lines of D floats (optional)
//	raw/node-label.csv.gz      N lines of K labels
//	raw/node_<name>.csv.gz     N lines (optional, any number; e.g. node_year)
//	raw/edge_<name>.csv.gz     E lines (optional, any number)
//	split/<split>/{train,valid,test}.csv.gz   one node id per line
//
// The result has the graph of the E edges (with inverse edges when
// opts.AddInverseEdge), node data "feat" (N, F) float32; "label": with K = 1
// (N) int64, where an empty or NaN label (ogbn-papers100M) becomes -1, and
// NumClasses is the largest label plus one; with K > 1 tasks (ogbn-proteins)
// (N, K) float32, NaN kept, and NumClasses = K; the split as TrainIdx,
// ValIdx, TestIdx and masks; every node_<name> file as node data <name> ((N)
// int64 for one integer column, else (N, K) float32), edge-feat as edge
// data "feat" and every edge_<name> file as edge data <name>.
//
// Any malformed line (wrong number of fields, a non-number, an id out of
// range, a last line without its line ending: a cut file) or a count that
// disagrees with num-node-list / num-edge-list is an error wrapping
// ErrFormat that names the file and line; a missing required
// file wraps ErrMissing. Heterogeneous datasets (ogbn-mag: raw/relations)
// are not supported and are reported as such.
func LoadOGBNodeProp(dir string, opts OGBOptions) (*Dataset, error) {
	raw := filepath.Join(dir, "raw")
	if _, err := os.Stat(filepath.Join(raw, "relations")); err == nil {
		return nil, fmt.Errorf("%w: %s is a heterogeneous OGB dataset (raw/relations), which LoadOGBNodeProp does not read; use LoadOGBNodePropHetero", ErrArgument, dir)
	}
	if opts.Name == "" {
		opts.Name = filepath.Base(filepath.Clean(dir))
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
	src, dst := make([]int64, 0, e), make([]int64, 0, e)
	for i := 0; i < e; i++ {
		u, v := edges.ints[2*i], edges.ints[2*i+1]
		if u < 0 || v < 0 || u >= int64(n) || v >= int64(n) {
			return nil, lineError(edges.path, i+1, "edge %d,%d names a node outside 0..%d", u, v, n-1)
		}
		if opts.AddInverseEdge {
			src, dst = append(src, u, v), append(dst, v, u)
		} else {
			src, dst = append(src, u), append(dst, v)
		}
	}
	edges = nil

	var feat []float32
	f := 0
	if path, ok := ogbOptional(raw, "node-feat"); ok {
		m, err := readOGBMatrix(path, n, -1, false)
		if err != nil {
			return nil, err
		}
		f, feat = m.cols, m.floats
	}
	lab, err := readOGBMatrix(ogbFile(raw, "node-label"), n, -1, false)
	if err != nil {
		return nil, err
	}
	labels := make([]int64, n)
	classes := 0
	if lab.cols == 1 {
		for i, v := range lab.floats {
			switch {
			case v != v: // NaN
				labels[i] = -1
			case v < 0 || float64(v) != math.Trunc(float64(v)):
				return nil, lineError(lab.path, i+1, "label %v is not a class id (a non-negative integer)", v)
			default:
				labels[i] = int64(v)
				classes = max(classes, int(v)+1)
			}
		}
	} else {
		classes = lab.cols
	}

	splitDir, err := ogbSplitDir(dir, opts.Split)
	if err != nil {
		return nil, err
	}
	var idx [3][]int64
	for k, part := range []string{"train", "valid", "test"} {
		m, err := readOGBMatrix(ogbFile(splitDir, part), -1, 1, true)
		if err != nil {
			return nil, err
		}
		for i, v := range m.ints {
			if v < 0 || v >= int64(n) {
				return nil, lineError(m.path, i+1, "node id %d is outside 0..%d", v, n-1)
			}
		}
		idx[k] = m.ints
	}

	d, err := fromRaw(opts.Name, n, f, classes, src, dst, feat, labels, idx[0], idx[1], idx[2])
	if err != nil {
		return nil, err
	}
	g := d.Graph
	if feat == nil {
		g.SetNData("feat", nil)
	}
	if lab.cols != 1 {
		if err := g.SetNData("label", float32Tensor(lab)); err != nil {
			return nil, err
		}
	}
	if path, ok := ogbOptional(raw, "edge-feat"); ok {
		m, err := readOGBMatrix(path, e, -1, false)
		if err != nil {
			return nil, err
		}
		if err := g.SetEData("feat", repeatRows(float32Tensor(m), opts.AddInverseEdge)); err != nil {
			return nil, err
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
			err = g.SetEData(x.name, repeatRows(t, opts.AddInverseEdge))
		} else {
			err = g.SetNData(x.name, t)
		}
		if err != nil {
			return nil, fmt.Errorf("datasets: %s: %w", x.path, err)
		}
	}
	return d, nil
}

// ogbFile returns base/name.csv.gz, or base/name.csv when only that exists.
func ogbFile(base, name string) string {
	gz := filepath.Join(base, name+".csv.gz")
	if _, err := os.Stat(gz); err != nil {
		if plain := filepath.Join(base, name+".csv"); fileExists(plain) {
			return plain
		}
	}
	return gz
}

func ogbOptional(base, name string) (string, bool) {
	p := ogbFile(base, name)
	return p, fileExists(p)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// ogbSplitDir resolves split/<name>, or the only folder under split/.
func ogbSplitDir(dir, name string) (string, error) {
	base := filepath.Join(dir, "split")
	if name != "" {
		p := filepath.Join(base, name)
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			return "", fmt.Errorf("%w: %s: split folder missing", ErrMissing, p)
		}
		return p, nil
	}
	ents, err := os.ReadDir(base)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%w: %s: %w", ErrMissing, base, err)
		}
		return "", fmt.Errorf("datasets: reading %s: %w", base, err)
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) != 1 {
		return "", fmt.Errorf("%w: %s holds %d split folders %v; name one in OGBOptions.Split", ErrArgument, base, len(dirs), dirs)
	}
	return filepath.Join(base, dirs[0]), nil
}

type ogbExtra struct {
	path, name string
	edge       bool
}

// ogbExtraFiles lists raw/node_*.csv[.gz] and raw/edge_*.csv[.gz], sorted.
func ogbExtraFiles(raw string) ([]ogbExtra, error) {
	ents, err := os.ReadDir(raw)
	if err != nil {
		return nil, fmt.Errorf("datasets: reading %s: %w", raw, err)
	}
	var out []ogbExtra
	for _, e := range ents {
		name := e.Name()
		stem := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".csv")
		if e.IsDir() || stem == name {
			continue
		}
		if strings.HasSuffix(name, ".csv") && fileExists(filepath.Join(raw, name+".gz")) {
			continue // the .gz twin is read
		}
		var x ogbExtra
		switch {
		case strings.HasPrefix(stem, "node_"):
			x = ogbExtra{path: filepath.Join(raw, name), name: strings.TrimPrefix(stem, "node_")}
		case strings.HasPrefix(stem, "edge_"):
			x = ogbExtra{path: filepath.Join(raw, name), name: strings.TrimPrefix(stem, "edge_"), edge: true}
		default:
			continue
		}
		if x.name == "" || x.name == "feat" || x.name == "label" || strings.HasSuffix(x.name, "_mask") {
			return nil, fmt.Errorf("%w: %s: the name %q would replace the dataset's own data", ErrFormat, x.path, x.name)
		}
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// readOGBCount reads a num-*-list file: exactly one line holding one
// non-negative integer.
func readOGBCount(path string) (int, error) {
	m, err := readOGBMatrix(path, -1, 1, true)
	if err != nil {
		return 0, err
	}
	if len(m.ints) != 1 {
		return 0, lineError(path, 0, "holds %d graph sizes; a node-property dataset has exactly one graph", len(m.ints))
	}
	if m.ints[0] < 0 {
		return 0, lineError(path, 1, "negative count %d", m.ints[0])
	}
	return int(m.ints[0]), nil
}

// ogbMatrix is a headerless numeric CSV file, row-major: ints holds it
// when read as integers, floats otherwise.
type ogbMatrix struct {
	path       string
	rows, cols int
	ints       []int64
	floats     []float32
	integral   bool // every float value is an integer (no NaN)
}

// readOGBMatrix reads a headerless numeric CSV. rows < 0 accepts any row
// count; cols < 0 takes the width of the first line. With ints the values
// must be integers (node ids keep full int64 precision); otherwise they are
// float32, with empty fields and "nan" read as NaN.
func readOGBMatrix(path string, rows, cols int, ints bool) (*ogbMatrix, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &ogbMatrix{path: path, cols: cols, integral: true}
	reserve := func() {
		if rows > 0 && m.cols > 0 {
			if ints {
				m.ints = make([]int64, 0, rows*m.cols)
			} else {
				m.floats = make([]float32, 0, rows*m.cols)
			}
		}
	}
	reserve()
	var fields [][]byte
	for {
		line, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if f.atEOFWithoutNewline() {
			return nil, f.errorf("the last line %q has no line ending: the file is truncated", clip(line))
		}
		if len(line) == 0 {
			return nil, f.errorf("empty line")
		}
		fields = splitComma(fields, line)
		if m.cols < 0 {
			m.cols = len(fields)
			reserve()
		}
		if len(fields) != m.cols {
			return nil, f.errorf("%d fields, want %d", len(fields), m.cols)
		}
		if rows >= 0 && m.rows == rows {
			return nil, f.errorf("more than the %d rows the dataset has", rows)
		}
		for _, b := range fields {
			if ints {
				neg := len(b) > 0 && b[0] == '-'
				if neg {
					b = b[1:]
				}
				id, ok := parseID(b)
				if !ok {
					return nil, f.errorf("%q is not an integer", clip(b))
				}
				if neg {
					id = -id
				}
				m.ints = append(m.ints, id)
				continue
			}
			if id, ok := parseID(b); ok && id < 1<<24 {
				m.floats = append(m.floats, float32(id))
				continue
			}
			v, ok := parseOGBFloat(b)
			if !ok {
				return nil, f.errorf("%q is not a number", clip(b))
			}
			if v != v || float64(v) != math.Trunc(float64(v)) {
				m.integral = false
			}
			m.floats = append(m.floats, v)
		}
		m.rows++
	}
	if rows >= 0 && m.rows != rows {
		return nil, lineError(path, 0, "%d rows, want %d", m.rows, rows)
	}
	if m.cols < 0 {
		m.cols = 0
	}
	return m, nil
}

// parseOGBFloat parses a float as pandas writes it; empty and "nan" (any
// case) give NaN.
func parseOGBFloat(b []byte) (float32, bool) {
	if len(b) == 0 || strings.EqualFold(string(b), "nan") {
		return float32(math.NaN()), true
	}
	return parseFloat32(b)
}

func float32Tensor(m *ogbMatrix) *tensor.Tensor {
	v := m.floats
	if v == nil {
		v = []float32{}
	}
	if m.cols == 1 {
		return tensor.FromFloat32(v, m.rows)
	}
	return tensor.FromFloat32(v, m.rows, m.cols)
}

// repeatRows repeats every row twice when inverse edges were added.
func repeatRows(t *tensor.Tensor, twice bool) *tensor.Tensor {
	if !twice {
		return t
	}
	idx := make([]int64, 2*t.Size(0))
	for i := range idx {
		idx[i] = int64(i / 2)
	}
	return tensor.IndexSelect(t, tensor.FromInt64(idx))
}

// readOGBExtra reads an extra node or edge file of rows rows (node_year,
// edge_weight, ...): a column of integers as int64, anything else as
// float32.
func readOGBExtra(path string, rows int) (*tensor.Tensor, error) {
	m, err := readOGBMatrix(path, rows, -1, false)
	if err != nil {
		return nil, err
	}
	if m.cols == 1 && m.integral {
		vals := make([]int64, len(m.floats))
		for i, v := range m.floats {
			vals[i] = int64(v)
		}
		return tensor.FromInt64(vals), nil
	}
	return float32Tensor(m), nil
}
