package nn

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestToMeta: a model moved to "meta" keeps its parameter tensors (an
// optimizer made before sees them moved), runs forward and backward on meta
// inputs with the output shapes of the CPU, and its optimizer keeps its
// state on the meta device.
func TestToMeta(t *testing.T) {
	g, err := graph.New(4, []int64{0, 1, 2, 3, 0}, []int64{1, 2, 3, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []interface {
		GraphModel
		To(string) error
		Device() string
	}{
		NewGraphSAGE(SAGEOptions{InFeats: 3, HiddenFeats: 5, OutFeats: 2, Aggregator: "gcn", Dropout: 0.5}),
		NewGCN(GCNOptions{InFeats: 3, HiddenFeats: 5, OutFeats: 2, Dropout: 0.5}),
		NewGAT(GATOptions{InFeats: 3, HiddenFeats: 2, OutFeats: 2, NumHeads: 2}),
	} {
		params := m.Parameters()
		opt := optim.NewAdam(params, optim.AdamOptions{LR: 0.01})
		if err := m.To("meta"); err != nil {
			t.Fatal(err)
		}
		if m.Device() != "meta" || params[0] != m.Parameters()[0] || !params[0].IsMeta() {
			t.Fatalf("%T: device %s after To(meta)", m, m.Device())
		}
		x := tensor.EmptyOn("meta", tensor.Float32, 4, 3)
		y := m.Forward(g, x)
		if !y.IsMeta() || y.Size(0) != 4 || y.Size(1) != 2 {
			t.Fatalf("%T: output %v on %s", m, y.Shape(), y.Device())
		}
		loss := MaskedCrossEntropy(y, tensor.EmptyOn("meta", tensor.Int64, 4), tensor.FromInt64([]int64{0, 2}))
		loss.Backward()
		if gr := params[0].Grad(); gr == nil || !gr.IsMeta() {
			t.Fatalf("%T: no meta gradient", m)
		}
		opt.Step()
		for k, v := range opt.StateDict() {
			if v.Numel() > 1 && !v.IsMeta() {
				t.Errorf("%T: optimizer state %s on %s", m, k, v.Device())
			}
		}
		if err := m.To("tpu"); err == nil {
			t.Errorf("%T: To(tpu) gave no error", m)
		}
	}
}

// TestToCUDAWithoutGPU: on a machine without a GPU, To("cuda") is an error
// naming the missing driver or device, and the model stays on the CPU,
// intact.
func TestToCUDAWithoutGPU(t *testing.T) {
	ok, why := tensor.CUDAStatus()
	if ok {
		t.Skip("a GPU is present; TestCUDATraining covers To(\"cuda\")")
	}
	m := NewGraphSAGE(SAGEOptions{InFeats: 3, HiddenFeats: 5, OutFeats: 2, Seed: 1})
	before := m.Parameters()[0].Clone().Float32s()
	err := m.To("cuda")
	if err == nil || !strings.Contains(err.Error(), why) || strings.Contains(err.Error(), "cpu only") {
		t.Fatalf("To(cuda) without a GPU: %v; want the reason %q", err, why)
	}
	if m.Device() != "cpu" {
		t.Fatalf("model on %s after a failed To(cuda)", m.Device())
	}
	for _, p := range m.Parameters() {
		if p.Device() != "cpu" {
			t.Fatalf("parameter on %s after a failed To(cuda)", p.Device())
		}
	}
	if after := m.Parameters()[0].Float32s(); !slices.Equal(before, after) {
		t.Fatal("a failed To(cuda) changed the parameters")
	}
}

// TestCUDATraining trains the same GraphSAGE full-graph on Cora on the CPU
// and, moved with To("cuda"), on the GPU: the losses agree step by step
// and the test accuracy is the CPU's (scripts/gpu-check.sh runs it; it
// skips without CUDA).
func TestCUDATraining(t *testing.T) {
	if ok, why := tensor.CUDAStatus(); !ok {
		t.Skip("no CUDA: " + why)
	}
	d, err := datasets.LoadPlanetoid("cora", sharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	var losses [2][]float64
	var accs [2]float64
	for k, dev := range []string{"cpu", "cuda"} {
		m := NewGraphSAGE(SAGEOptions{InFeats: d.NumFeatures, HiddenFeats: 64, OutFeats: d.NumClasses, Seed: 1})
		if err := m.To(dev); err != nil {
			t.Fatal(err)
		}
		opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01, WeightDecay: 5e-4})
		x, err := d.Graph.NData("feat").To(dev)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := d.Graph.NData("label").To(dev)
		for step := 0; step < 50; step++ {
			opt.ZeroGrad()
			loss := MaskedCrossEntropy(m.Forward(d.Graph, x), y, d.TrainIdx)
			loss.Backward()
			opt.Step()
			losses[k] = append(losses[k], loss.Item())
		}
		m.Eval()
		accs[k] = MaskedAccuracy(m.Forward(d.Graph, x), y, d.TestIdx)
	}
	for i := range losses[0] {
		if math.Abs(losses[0][i]-losses[1][i]) > 1e-3*math.Max(1, losses[0][i]) {
			t.Fatalf("step %d: cpu loss %.6f, cuda %.6f", i, losses[0][i], losses[1][i])
		}
	}
	if math.Abs(accs[0]-accs[1]) > 0.01 {
		t.Errorf("test accuracy cpu %.4f, cuda %.4f", accs[0], accs[1])
	}
	t.Logf("GraphSAGE on Cora, 50 steps: test accuracy cpu %.4f, cuda %.4f", accs[0], accs[1])
}
