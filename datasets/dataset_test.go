package datasets

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestLoadPlanetoidGraph(t *testing.T) {
	dir := sharedData(t)
	d, err := LoadPlanetoid("cora", dir)
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	if g.NumNodes() != 2708 || g.NumEdges() != 10556 || d.NumClasses != 7 || d.NumFeatures != 1433 {
		t.Fatalf("cora: %v", d)
	}
	if d.TrainIdx.Numel() != 140 || d.ValIdx.Numel() != 500 || d.TestIdx.Numel() != 1000 {
		t.Fatalf("split %v", d)
	}
	n := 0
	for _, m := range g.NData("train_mask").Bools() {
		if m {
			n++
		}
	}
	if n != 140 {
		t.Fatalf("train_mask has %d", n)
	}
	// Row-normalised: a row of Cora sums to 1.
	var s float32
	for _, v := range g.NData("feat").Float32s()[:1433] {
		s += v
	}
	if s < 0.999 || s > 1.001 {
		t.Fatalf("row 0 sums to %v", s)
	}
	if !strings.HasPrefix(g.String(), "Graph(num_nodes=2708, num_edges=10556, ndata_schemes={'feat': (1433,) float32") {
		t.Fatal(g.String())
	}
}

func TestSyntheticDeterministic(t *testing.T) {
	o, err := SyntheticLike("cora", 1)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Synthetic(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Synthetic(o)
	if a.Graph.NumNodes() != 2708 || a.Graph.NumEdges() != 10556 || a.TrainIdx.Numel() != 140 {
		t.Fatal(a)
	}
	sa, _ := a.Graph.Edges()
	sb, _ := b.Graph.Edges()
	for i, v := range sa.Int64s() {
		if sb.Int64s()[i] != v {
			t.Fatal("same seed, different graph")
		}
	}
	if _, err := SyntheticLike("arxiv", 1); err == nil {
		t.Fatal("want unknown-name error")
	}
}

func TestLoadOrSynthetic(t *testing.T) {
	d, notice := LoadOrSynthetic("cora", t.TempDir())
	if d == nil || d.Graph.NumNodes() != 2708 || !strings.Contains(notice, "synthetic") || !strings.Contains(notice, "missing") {
		t.Fatalf("%v %q", d, notice)
	}
	d, notice = LoadOrSynthetic("cora", sharedData(t))
	if notice != "" || d.Name != "cora" {
		t.Fatalf("%v %q", d, notice)
	}
}

// TestPreloadNotice: a prelude's fallback notice is written as one line.
func TestPreloadNotice(t *testing.T) {
	t.Setenv(DataDirEnv, t.TempDir())
	var b strings.Builder
	d := Preload("cora", &b)
	if d == nil || !strings.HasPrefix(b.String(), "gnnrepl: cora not loaded") || strings.Count(b.String(), "\n") != 1 {
		t.Fatalf("Preload wrote %q", b.String())
	}
	if d := Preload("cora", nil); d == nil {
		t.Fatal("Preload with no writer returned nil")
	}
}

// TestProductsLikeScale: a scale that is not positive is refused by name.
func TestProductsLikeScale(t *testing.T) {
	for _, s := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		func() {
			defer func() {
				r := recover()
				err, _ := r.(error)
				if err == nil || !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "scale") {
					t.Errorf("ProductsLike(%g): %v", s, r)
				}
			}()
			ProductsLike(s, 1)
		}()
	}
	if _, err := PowerLaw(PowerLawOptions{NumNodes: 10, NumEdges: -5, NumFeatures: 4, NumClasses: 2}); err == nil || !strings.Contains(err.Error(), "NumEdges must be non-negative, got -5") {
		t.Errorf("PowerLaw with negative edges: %v", err)
	}
}
