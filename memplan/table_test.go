package memplan

import (
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// seedCases are the rows of notebooks/02-memory.ipynb: full graph, neighbor
// sampling, sampling with checkpointing, with bfloat16 autocast and with
// int8 features, GraphSAGE with the given layers.
func seedCases(d *datasets.Dataset, layers int, fanouts []int) []Case {
	full := Config{Dataset: d, NumLayers: layers, HiddenFeats: 256, Dropout: 0.5, Seed: 1}
	samp := full
	samp.Sampling, samp.Fanouts, samp.BatchSize = true, fanouts, 1024
	ckpt, bf16, int8 := samp, samp, samp
	ckpt.Checkpoint = true
	bf16.DType = tensor.BFloat16
	int8.FeatureStore = "int8"
	return []Case{
		{Name: "full graph", Claim: "O(N)", Config: full, Baseline: -1},
		{Name: "neighbor sampling", Claim: "O(batch·k^L)", Config: samp, Baseline: 0},
		{Name: "sampling + checkpointing", Claim: "O(N/L)", Config: ckpt, Baseline: 1},
		{Name: "sampling + bf16 autocast", Claim: "−50% memory", Config: bf16, Baseline: 1},
		{Name: "sampling + int8 features", Claim: "features 4× smaller", Config: int8, Baseline: 1},
	}
}

// TestCompare checks the comparison table on ProductsLike(0.002): every
// prediction within 15% of the measured peak (the planner's acceptance
// bound), the parts of each row consistent (resident data and kept
// activations inside the peak), sampling below the full graph and bf16
// below float32, and the renderings.
func TestCompare(t *testing.T) {
	d := dataset(t, "powerlaw")
	cases := seedCases(d, 2, []int{10, 5})
	c, err := Compare(cases, CompareOptions{MeasureSteps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != len(cases) {
		t.Fatalf("%d rows for %d cases", len(c.Rows), len(cases))
	}
	for i, r := range c.Rows {
		if !r.Measured || r.Peak <= 0 || r.Resident <= 0 || r.Saved <= 0 || r.Batches <= 0 || r.TimedBatches != r.Batches || r.EpochSeconds <= 0 {
			t.Errorf("row %d (%s) incomplete: %+v", i, r.Case.Name, r)
		}
		if r.Resident >= r.Peak || r.Saved >= r.Peak {
			t.Errorf("row %d (%s): resident %d and saved %d must be below the peak %d", i, r.Case.Name, r.Resident, r.Saved, r.Peak)
		}
		if e := math.Abs(float64(r.Plan.TensorPeak-r.Peak)) / float64(r.Peak); e > 0.15 {
			t.Errorf("row %d (%s): predicted %d, measured %d (%.1f%%)", i, r.Case.Name, r.Plan.TensorPeak, r.Peak, 100*e)
		}
		if math.IsNaN(r.Loss) || r.Loss <= 0 {
			t.Errorf("row %d (%s): loss %g", i, r.Case.Name, r.Loss)
		}
	}
	if ratio, pred := c.Ratio(1); pred || ratio >= 1 {
		t.Errorf("sampling / full graph = %g (predicted %v), want < 1 measured", ratio, pred)
	}
	if ratio, _ := c.Ratio(3); ratio >= 1 {
		t.Errorf("bf16 / float32 = %g, want < 1", ratio)
	}
	if c.Rows[2].Saved >= c.Rows[1].Saved {
		t.Errorf("checkpointing keeps %d bytes for backward, plain %d", c.Rows[2].Saved, c.Rows[1].Saved)
	}
	if ratio, _ := c.Ratio(0); ratio != 0 {
		t.Errorf("a row without a baseline has ratio %g", ratio)
	}
	md, h := c.Markdown(), c.HTML()
	for _, cs := range cases {
		if !strings.Contains(md, cs.Name) || !strings.Contains(h, cs.Name) {
			t.Errorf("%q missing from the renderings:\n%s\n%s", cs.Name, md, h)
		}
	}
	if strings.Count(md, "\n") != len(cases)+2 || strings.Count(h, "<tr>") != len(cases)+1 {
		t.Errorf("wrong number of lines:\n%s\n%s", md, h)
	}
	if e := c.Effects(); strings.Count(e, "\n") != 2+len(cases)-1 || !strings.Contains(e, "| sampling + bf16 autocast | neighbor sampling | −") {
		t.Errorf("effects:\n%s", e)
	}
	if n, p, m := c.Names(), c.PredictedMiB(), c.MeasuredMiB(); len(n) != 5 || len(p) != 5 || len(m) != 5 || m[0] != mib(c.Rows[0].Peak) {
		t.Errorf("series: %v %v %v", n, p, m)
	}
}

// TestComparePredictOnly checks a row that is only predicted and a timed
// epoch cut short by MaxBatches.
func TestComparePredictOnly(t *testing.T) {
	d := dataset(t, "powerlaw")
	cases := seedCases(d, 2, []int{5, 5})[:2]
	cases[0].PredictOnly = true
	cases[1].Config.BatchSize = 64
	c, err := Compare(cases, CompareOptions{MeasureSteps: 1, MaxBatches: 2})
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := c.Rows[0], c.Rows[1]
	if r0.Measured || r0.Peak != 0 || r0.Plan.TensorPeak <= 0 || !math.IsNaN(c.MeasuredMiB()[0]) {
		t.Errorf("predict-only row: %+v", r0)
	}
	if r1.TimedBatches != 2 || r1.Batches <= 2 {
		t.Errorf("timed %d of %d batches, want 2 of more", r1.TimedBatches, r1.Batches)
	}
	if ratio, pred := c.Ratio(1); !pred || ratio <= 0 {
		t.Errorf("ratio against a predicted row: %g, predicted %v", ratio, pred)
	}
	if md := c.Markdown(); !strings.Contains(md, "predicted only") || !strings.Contains(md, "2 of") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestCompareErrors checks that a bad Baseline and a missing Dataset are
// reported with the case's name.
func TestCompareErrors(t *testing.T) {
	d := dataset(t, "powerlaw")
	cs := seedCases(d, 2, []int{5, 5})
	_, err := Compare([]Case{cs[1]}, CompareOptions{})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "neighbor sampling") {
		t.Errorf("baseline after the row: %v", err)
	}
	bad := Case{Name: "counts only", Config: Config{NumNodes: 10, NumEdges: 20, NumFeatures: 4, NumClasses: 2}, Baseline: -1}
	if _, err := Compare([]Case{bad}, CompareOptions{}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "counts only") {
		t.Errorf("no dataset: %v", err)
	}
	bad.PredictOnly = true
	if c, err := Compare([]Case{bad}, CompareOptions{}); err != nil || len(c.Rows) != 1 {
		t.Errorf("predict-only without a dataset: %v", err)
	}
}

// TestCompareProbe prints the notebook's table for GraphSAGE 3x256 at
// ProductsLike(GNNREPL_COMPARE_SCALE) with MaxBatches
// GNNREPL_COMPARE_MAX_BATCHES (0: whole epochs), the full graph predicted
// only above scale 0.05. It is a manual probe for sizing the notebook and
// is skipped when GNNREPL_COMPARE_SCALE is unset:
//
//	GNNREPL_COMPARE_SCALE=0.01 go test ./memplan -run CompareProbe -v
func TestCompareProbe(t *testing.T) {
	s, err := strconv.ParseFloat(os.Getenv("GNNREPL_COMPARE_SCALE"), 64)
	if err != nil {
		t.Skip("GNNREPL_COMPARE_SCALE unset")
	}
	maxBatches, _ := strconv.Atoi(os.Getenv("GNNREPL_COMPARE_MAX_BATCHES"))
	t0 := time.Now()
	d, err := datasets.PowerLaw(datasets.ProductsLike(s, 1))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built in %v: %v", time.Since(t0), d.Graph)
	cases := seedCases(d, 3, []int{15, 10, 5})
	cases[0].PredictOnly = s > 0.05
	t1 := time.Now()
	c, err := Compare(cases, CompareOptions{MaxBatches: maxBatches})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compared in %v\n%s", time.Since(t1), c.Markdown())
}

func TestChange(t *testing.T) {
	for _, c := range []struct {
		r    float64
		want string
	}{{0.25, "4.0× lower"}, {0.6, "−40%"}, {1.3, "+30%"}, {1, "+0%"}, {0, "—"}, {math.NaN(), "—"}} {
		if got := change(c.r); got != c.want {
			t.Errorf("change(%g) = %q, want %q", c.r, got, c.want)
		}
	}
}
