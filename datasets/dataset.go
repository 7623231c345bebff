package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Dataset is a node-classification dataset: one graph whose node data holds
// "feat" (N, F) float32, "label" (N) int64 and the boolean split masks
// "train_mask", "val_mask", "test_mask" (as DGL's CoraGraphDataset), with
// the split also given as index tensors.
type Dataset struct {
	Name        string
	Graph       *graph.Graph
	NumClasses  int
	NumFeatures int
	// TrainIdx, ValIdx and TestIdx are (n) int64 node ids of the splits.
	TrainIdx, ValIdx, TestIdx *tensor.Tensor
}

func (d *Dataset) String() string {
	return fmt.Sprintf("Dataset(%s: %v, num_classes=%d, train=%d, val=%d, test=%d)", d.Name, d.Graph,
		d.NumClasses, d.TrainIdx.Numel(), d.ValIdx.Numel(), d.TestIdx.Numel())
}

// LoadPlanetoid loads Cora, CiteSeer or PubMed (see LoadPlanetoidRaw) as a
// Dataset: the symmetric graph with the files' self loops kept (DGL's
// num_edges: Cora 10,556, CiteSeer 9,228, PubMed 88,651), features
// row-normalised as Kipf and Welling's preprocess_features, and the standard
// split. dir "" means DataDir("").
func LoadPlanetoid(name, dir string) (*Dataset, error) {
	if dir == "" {
		dir = DataDir("")
	}
	raw, err := LoadPlanetoidRaw(dir, name)
	if err != nil {
		return nil, err
	}
	RowNormalize(raw.Features, raw.NumNodes, raw.NumFeatures)
	return fromRaw(raw.Name, raw.NumNodes, raw.NumFeatures, raw.NumClasses, raw.Src, raw.Dst,
		raw.Features, raw.Labels, raw.TrainIdx, raw.ValIdx, raw.TestIdx)
}

// Planetoid is LoadPlanetoid returning only the graph, for
// g, err := datasets.Planetoid("cora", "").
func Planetoid(name, dir string) (*graph.Graph, error) {
	d, err := LoadPlanetoid(name, dir)
	if err != nil {
		return nil, err
	}
	return d.Graph, nil
}

func fromRaw(name string, n, f, c int, src, dst []int64, feat []float32, labels, train, val, test []int64) (*Dataset, error) {
	g, err := graph.New(n, src, dst)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", name, err)
	}
	set := func(k string, t *tensor.Tensor) {
		if err == nil {
			err = g.SetNData(k, t)
		}
	}
	set("feat", tensor.FromFloat32(feat, n, f))
	set("label", tensor.FromInt64(labels))
	set("train_mask", mask(n, train))
	set("val_mask", mask(n, val))
	set("test_mask", mask(n, test))
	if err != nil {
		return nil, err
	}
	return &Dataset{Name: name, Graph: g, NumClasses: c, NumFeatures: f,
		TrainIdx: tensor.FromInt64(train), ValIdx: tensor.FromInt64(val), TestIdx: tensor.FromInt64(test)}, nil
}

func mask(n int, idx []int64) *tensor.Tensor {
	m := make([]bool, n)
	for _, i := range idx {
		m[i] = true
	}
	return tensor.FromBool(m)
}

// LoadOrSynthetic loads a Planetoid dataset from files already in dir (""
// means DataDir("")) without downloading anything; when any file is absent
// or the load fails it returns the synthetic graph of the same shape
// (SyntheticLike, seed 0) and a one-line notice saying why. Sessions use it
// to preload g without waiting on the network.
func LoadOrSynthetic(name, dir string) (d *Dataset, notice string) {
	if dir == "" {
		dir = DataDir("")
	}
	specs, err := PlanetoidFiles(name)
	if err == nil {
		for _, s := range specs {
			if _, statErr := os.Stat(filepath.Join(dir, filepath.FromSlash(s.Rel))); statErr != nil {
				err = fmt.Errorf("%s is missing", filepath.Join(dir, filepath.FromSlash(s.Rel)))
				break
			}
		}
	}
	if err == nil {
		if d, err = LoadPlanetoid(name, dir); err == nil {
			return d, ""
		}
	}
	o, serr := SyntheticLike(name, 0)
	if serr != nil {
		return nil, serr.Error()
	}
	d, serr = Synthetic(o)
	if serr != nil {
		return nil, serr.Error()
	}
	d.Name = "synthetic-" + name
	return d, fmt.Sprintf("%s not loaded (%v); using a synthetic graph of the same shape (set GNNREPL_DATA or --data)", name, err)
}

// Preload is LoadOrSynthetic for a session's prelude: it writes the notice,
// if any, as one "gnnrepl: ..." line to w (nil: nowhere) and returns the
// dataset. The prelude passes the session's stderr, where the session
// keeps what it wrote for its front end (a Jupyter kernel's prelude runs
// before any cell can show it).
func Preload(name string, w io.Writer) *Dataset {
	d, notice := LoadOrSynthetic(name, "")
	if notice != "" && w != nil {
		fmt.Fprintln(w, "gnnrepl:", notice)
	}
	return d
}
