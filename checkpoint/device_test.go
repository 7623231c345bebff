package checkpoint

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestDeviceState saves a model and Adam state that live on a GPU: the
// file holds CPU copies, and Load puts the parameters and the optimizer's
// moments back on the GPU with the same values.
func TestDeviceState(t *testing.T) {
	if !tensor.CUDAAvailable() {
		t.Skip("no CUDA GPU")
	}
	g, err := graph.New(6, []int64{0, 1, 2, 3, 4, 5, 0, 2}, []int64{1, 2, 3, 4, 5, 0, 3, 5})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Randn(tensor.NewGenerator(3), 6, 4)
	build := func(seed int64) (*nn.GraphSAGE, optim.Optimizer) {
		m := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: 4, HiddenFeats: 8, OutFeats: 2, Aggregator: "mean", Seed: seed})
		if err := m.To("cuda"); err != nil {
			t.Fatal(err)
		}
		return m, optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01})
	}
	m, opt := build(1)
	gx, err := x.To("cuda")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		opt.ZeroGrad()
		tensor.Sum(m.Forward(g, gx)).Backward()
		opt.Step()
	}
	path := filepath.Join(t.TempDir(), "gpu.safetensors")
	if err := Save(path, State{Model: m, Optimizer: opt}); err != nil {
		t.Fatal(err)
	}
	ts, _, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range ts {
		if v.Device() != "cpu" {
			t.Errorf("%s loaded on %s", k, v.Device())
		}
	}
	m2, opt2 := build(2)
	if err := Load(path, &State{Model: m2, Optimizer: opt2}); err != nil {
		t.Fatal(err)
	}
	if m2.Device() == "cpu" {
		t.Errorf("the parameters moved to the CPU")
	}
	if fmt.Sprint(paramBits(m2)) != fmt.Sprint(paramBits(m)) {
		t.Error("parameters differ after Load")
	}
	sd, sd2 := opt.StateDict(), opt2.StateDict()
	for k, v := range sd {
		w := sd2[k]
		if w == nil || w.Device() != v.Device() || dump(w) != dump(v) {
			t.Errorf("optimizer %s: %v after Load, %v saved", k, w, v)
		}
	}
}
