package memplan

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// sharedData returns ../shared/data relative to the module root (or
// $GNNREPL_SHARED_DATA) and skips the test only when it is absent.
func sharedData(t testing.TB) string {
	return shareddata.Dir(t)
}

var (
	dsMu    sync.Mutex
	dsCache = map[string]*datasets.Dataset{}
)

// dataset loads a Planetoid dataset from the shared folder, or "powerlaw":
// datasets.ProductsLike(0.002, 1) (4,898 nodes, 123,718 edges).
func dataset(t testing.TB, name string) *datasets.Dataset {
	t.Helper()
	dsMu.Lock()
	defer dsMu.Unlock()
	if d := dsCache[name]; d != nil {
		return d
	}
	var d *datasets.Dataset
	var err error
	if name == "powerlaw" {
		d, err = datasets.PowerLaw(datasets.ProductsLike(0.002, 1))
	} else {
		d, err = datasets.LoadPlanetoid(name, sharedData(t))
	}
	if err != nil {
		t.Fatal(err)
	}
	dsCache[name] = d
	return d
}

// TestPredictMatchesMeasured is the planner's acceptance test: on every
// configuration the predicted TensorPeak is within 2% of the peak Measure
// measures (in practice within a few tenths of a percent).
func TestPredictMatchesMeasured(t *testing.T) {
	type tc struct {
		data string
		cfg  Config
	}
	sage := func(c Config) Config {
		c.HiddenFeats, c.Dropout = 64, 0.5
		return c
	}
	cases := []tc{
		{"cora", sage(Config{})},
		{"cora", Config{Model: "gcn", Dropout: 0.5, InputDropout: 0.5}},
		{"cora", Config{Model: "gat", FeatDrop: 0.6, AttnDrop: 0.6}},
		{"pubmed", sage(Config{Sampling: true, Fanouts: []int{10, 25}, BatchSize: 32})},
		{"powerlaw", sage(Config{})},
		{"powerlaw", sage(Config{Sampling: true, Fanouts: []int{5, 10}, BatchSize: 256})},
		// bfloat16 autocast (amp.Autocast), gradient checkpointing
		// (nn's Checkpoint option), int8 features (featstore.Int8).
		{"cora", sage(Config{DType: tensor.BFloat16})},
		{"pubmed", sage(Config{Sampling: true, Fanouts: []int{10, 25}, BatchSize: 32, DType: tensor.BFloat16})},
		{"powerlaw", sage(Config{NumLayers: 3, Checkpoint: true})},
		{"cora", Config{Model: "gat", FeatDrop: 0.6, AttnDrop: 0.6, Checkpoint: true}},
		{"powerlaw", sage(Config{Sampling: true, Fanouts: []int{5, 10}, BatchSize: 256, FeatureStore: "int8"})},
		{"powerlaw", sage(Config{Sampling: true, Fanouts: []int{5, 10, 10}, BatchSize: 256, DType: tensor.BFloat16,
			Checkpoint: true, FeatureStore: "int8"})},
		// The bfloat16 setup end to end: bfloat16 store, gathered as
		// bfloat16 (LoaderOptions.StoreGatherDType), bfloat16 autocast;
		// and a float32 store gathered as bfloat16.
		{"powerlaw", sage(Config{Sampling: true, Fanouts: []int{5, 10}, BatchSize: 256, DType: tensor.BFloat16,
			FeatureStore: "bfloat16", StoreGatherDType: tensor.BFloat16})},
		{"pubmed", sage(Config{Sampling: true, Fanouts: []int{10, 25}, BatchSize: 32, DType: tensor.BFloat16,
			StoreGatherDType: tensor.BFloat16})},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-9s %12s %12s %8s  %s\n", "data", "measured", "predicted", "error", "configuration")
	for _, c := range cases {
		cfg := c.cfg
		cfg.Dataset = dataset(t, c.data)
		cfg.Seed = 1
		steps := 2
		if cfg.Sampling {
			steps = 3
			cfg.DryRunBatches = steps
		}
		p, err := Predict(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Measure(cfg, steps)
		if err != nil {
			t.Fatal(err)
		}
		rel := float64(p.TensorPeak-m.TensorPeak) / float64(m.TensorPeak)
		fmt.Fprintf(&table, "%-9s %12s %12s %+7.2f%%  %s\n", c.data, tensor.FormatBytes(m.TensorPeak),
			tensor.FormatBytes(p.TensorPeak), 100*rel, strings.SplitN(cfg.Summary(), " on ", 2)[0]+","+strings.SplitN(strings.SplitN(cfg.Summary(), " on ", 2)[1], "features,", 2)[1])
		if p.Resident != m.Resident {
			t.Errorf("%s on %s: predicted %d resident bytes, measured %d", cfg.Summary(), c.data, p.Resident, m.Resident)
		}
		if math.Abs(rel) > 0.02 {
			t.Errorf("%s on %s: predicted %d bytes, measured %d (%+.1f%%)\n%s", cfg.Summary(), c.data, p.TensorPeak, m.TensorPeak, 100*rel, p)
		}
	}
	t.Logf("predicted vs measured peak of the tensor accounting:\n%s", table.String())
}

// productsCounts is ogbn-products' shape without a graph (closed-form
// block sizes): 2,449,029 nodes, 61,859,140 edges, 100 features, 47
// classes, 196,615 training nodes.
func productsCounts() Config {
	return Config{NumNodes: 2_449_029, NumEdges: 61_859_140, NumFeatures: 100, NumClasses: 47, NumTrain: 196_615,
		NumLayers: 3, Dropout: 0.5}
}

// breakdownSum is the sum of a plan's breakdown fields.
func breakdownSum(p Plan) int64 {
	return p.GraphStructure + p.Features + p.Parameters + p.Gradients + p.OptimizerState + p.Activations + p.Workspace
}

// TestPredictCountsOnly plans products-scale GraphSAGE from the counts
// alone: the breakdown adds up to the peak, the tensor accounting's share is
// part of it, and neighbor sampling needs at least 4x less than the full
// graph (the goal for the measured peaks).
func TestPredictCountsOnly(t *testing.T) {
	full, err := Predict(productsCounts())
	if err != nil {
		t.Fatal(err)
	}
	c := productsCounts()
	c.Sampling, c.Fanouts = true, []int{15, 10, 5}
	samp, err := Predict(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Plan{full, samp} {
		if breakdownSum(p) != p.Peak || p.TensorPeak <= 0 || p.TensorPeak > p.Peak || p.PeakAt == "" {
			t.Errorf("inconsistent plan (breakdown sums to %d):\n%s", breakdownSum(p), p)
		}
		if p.Parameters != full.Parameters {
			t.Errorf("parameters %d, want %d in both modes", p.Parameters, full.Parameters)
		}
	}
	if len(samp.Blocks) != 3 || samp.Blocks[2].NumDstNodes != 1024 || full.Blocks != nil {
		t.Errorf("blocks: sampling %v, full graph %v", samp.Blocks, full.Blocks)
	}
	if ratio := float64(full.Peak) / float64(samp.Peak); ratio < 4 {
		t.Errorf("full graph %s vs sampling %s: ratio %.1f < 4", tensor.FormatBytes(full.Peak), tensor.FormatBytes(samp.Peak), ratio)
	}
	t.Logf("products scale, GraphSAGE 3x256:\n%s\n%s", full, samp)
}

// TestSuggest checks the order of Suggest's changes on products-scale
// GraphSAGE: a config that fits is returned as is; one byte less than the
// full graph's peak gives neighbor sampling (still float32); each step down
// adds the next saving; 1 GiB cannot hold the graph and its features.
func TestSuggest(t *testing.T) {
	c := productsCounts()
	full, err := Predict(c)
	if err != nil {
		t.Fatal(err)
	}
	got, gp, err := Suggest(c, full.Peak)
	if err != nil || got.Sampling || gp.Peak != full.Peak {
		t.Errorf("a config that fits came back changed: %s, %v", got.Summary(), err)
	}
	got, gp, err = Suggest(c, full.Peak-1)
	if err != nil || !got.Sampling || got.DType != tensor.Float32 || got.BatchSize != 1024 || gp.Peak >= full.Peak {
		t.Errorf("one byte short of the full graph: got %s (%d bytes), %v; want neighbor sampling in float32", got.Summary(), gp.Peak, err)
	}
	// Each further step must lower the peak, and Suggest must stop at the
	// first that fits.
	prev := gp
	for i := 0; i < 4; i++ {
		got, gp, err = Suggest(c, prev.Peak-1)
		if err != nil {
			break
		}
		if gp.Peak >= prev.Peak {
			t.Errorf("budget %d: got %s with a peak of %d bytes", prev.Peak-1, got.Summary(), gp.Peak)
			break
		}
		t.Logf("below %s: %s, %s", tensor.FormatBytes(prev.Peak), got.Summary(), tensor.FormatBytes(gp.Peak))
		prev = gp
	}
	_, gp, err = Suggest(c, 1<<30)
	if !errors.Is(err, ErrNoFit) || gp.Peak <= 1<<30 || !gp.Config.Sampling || gp.Config.BatchSize != 1 {
		t.Errorf("1 GiB: got %v and a plan of %d bytes with batch %d; want ErrNoFit and the smallest setting", err, gp.Peak, gp.Config.BatchSize)
	}
}

// TestConfigErrors checks that an invalid field is named.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{}, "NumNodes"},
		{Config{NumNodes: 10, NumEdges: 20, NumFeatures: 4, NumClasses: 2, Model: "mlp"}, "Model"},
		{Config{NumNodes: 10, NumEdges: 20, NumFeatures: 4, NumClasses: 2, Sampling: true, Fanouts: []int{5}, NumLayers: 2}, "Fanouts"},
		{Config{NumNodes: 10, NumEdges: 20, NumFeatures: 4, NumClasses: 2, Sampling: true, Fanouts: []int{0, 5}}, "Fanouts"},
		{Config{NumNodes: 10, NumEdges: 20, NumFeatures: 4, NumClasses: 2, Dropout: 1}, "Dropout"},
		{Config{NumNodes: 10, NumEdges: 20, NumFeatures: 4, NumClasses: 2, DType: tensor.Int8}, "DType"},
		{Config{NumNodes: 10, NumEdges: 20, NumFeatures: 4, NumClasses: 2, FeatureStore: "int4"}, "FeatureStore"},
		{Config{NumNodes: 10, NumEdges: 20, NumFeatures: 4, NumClasses: 2, Optimizer: "lbfgs"}, "Optimizer"},
	} {
		_, err := Predict(tc.c)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want ErrConfig naming %s", tc.c, err, tc.want)
		}
	}
	if _, err := Measure(productsCounts(), 1); !errors.Is(err, ErrConfig) {
		t.Errorf("Measure without a Dataset: %v", err)
	}
}

// TestUsabilityErrors covers what a notebook user sees on bad input: the
// zero Plan and Measurement print as "none", a non-positive budget and
// sizes that would overflow the byte counts are named, and a Config prints
// as its summary.
func TestUsabilityErrors(t *testing.T) {
	if s := (Plan{}).String(); !strings.Contains(s, "none") {
		t.Errorf("zero Plan prints %q", s)
	}
	if s := (Measurement{}).String(); !strings.Contains(s, "none") {
		t.Errorf("zero Measurement prints %q", s)
	}
	c := Config{NumNodes: 1000, NumEdges: 5000, NumFeatures: 16, NumClasses: 3}
	if _, _, err := Suggest(c, 0); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "budget") {
		t.Errorf("Suggest with budget 0: %v", err)
	}
	big := c
	big.NumNodes, big.NumFeatures = 1<<40, 1<<24
	if _, err := Predict(big); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "too large") {
		t.Errorf("Predict of an overflowing size: %v", err)
	}
	gcn := c
	gcn.Model, gcn.Aggregator = "gcn", "pool"
	if _, err := Predict(gcn); err == nil || !strings.Contains(err.Error(), "GraphSAGE only") {
		t.Errorf("Predict of a GCN with Aggregator pool: %v", err)
	}
	gcn.Aggregator = ""
	if p, err := Predict(gcn); err != nil || strings.Contains(p.String(), "invalid") {
		t.Errorf("Predict of a GCN: %v\n%s", err, p)
	}
	layers := c
	layers.NumLayers = 100000
	if _, err := Predict(layers); err == nil || !strings.Contains(err.Error(), "NumLayers 100000 is larger than 1024") {
		t.Errorf("Predict with 100000 layers: %v", err)
	}
	if s := fmt.Sprint(c); !strings.HasPrefix(s, "GraphSAGE 2x256") {
		t.Errorf("Config prints %q", s)
	}
	if s := (Measurement{TensorPeak: 3 << 20, Resident: 1 << 20, Steps: 3, Loss: 1.5}).String(); !strings.Contains(s, "3.0 MiB") {
		t.Errorf("Measurement prints %q", s)
	}
}

// TestPredictCUDA plans the same training for a GPU (Config.Device
// "cuda", the meta:cuda accounting): every allocation rounds up to the
// caching allocator's blocks, the full graph's features and labels are on
// the device (the host's dataset is not counted), and Suggest fits a GPU
// budget.
func TestPredictCUDA(t *testing.T) {
	d := dataset(t, "cora")
	for _, c := range []Config{
		{Dataset: d, HiddenFeats: 64, Seed: 1},
		{Dataset: d, HiddenFeats: 64, Seed: 1, Sampling: true, Fanouts: []int{5, 10}, BatchSize: 64, DryRunBatches: 2},
	} {
		cpu, err := Predict(c)
		if err != nil {
			t.Fatal(err)
		}
		c.Device = "cuda"
		gpu, err := Predict(c)
		if err != nil {
			t.Fatal(err)
		}
		if gpu.Config.Device != "cuda" || gpu.TensorPeak <= 0 || gpu.TensorPeak%512 != 0 || breakdownSum(gpu) != gpu.Peak {
			t.Errorf("GPU plan %s: tensor peak %d (want a positive multiple of 512), breakdown %d of %d",
				c.Summary(), gpu.TensorPeak, breakdownSum(gpu), gpu.Peak)
		}
		// On the GPU the step's tensors are counted rounded up; the CPU
		// plan also counts the host dataset and the loader's buffers.
		if step := cpu.TensorPeak - cpu.Resident; gpu.TensorPeak < step {
			t.Errorf("%s: GPU peak %d below the CPU step's %d", c.Summary(), gpu.TensorPeak, step)
		}
		t.Logf("%s\n  cpu %s, cuda %s", c.Summary(), tensor.FormatBytes(cpu.TensorPeak), tensor.FormatBytes(gpu.TensorPeak))
	}
	c := Config{Dataset: d, HiddenFeats: 256, Seed: 1, Device: "cuda"}
	full, err := Predict(c)
	if err != nil {
		t.Fatal(err)
	}
	got, p, err := Suggest(c, full.Peak-1)
	if err != nil || !got.Sampling || p.Peak >= full.Peak || got.Device != "cuda" {
		t.Errorf("Suggest for a GPU budget: %s, %d bytes, %v", got.Summary(), p.Peak, err)
	}
	if _, err := Predict(Config{Dataset: d, Device: "tpu"}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "tpu") {
		t.Errorf("Device tpu: %v", err)
	}
}
