package checkpoint

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestTorchFixture loads state dicts that PyTorch wrote
// (testdata/torch_fixture.py: DGL's SAGEConv and GraphConv in plain
// torch, saved as safetensors) into the matching gnnrepl models and
// compares their outputs with PyTorch's; then saves the models again and
// checks the file holds PyTorch's tensors, in PyTorch's layout.
func TestTorchFixture(t *testing.T) {
	io, _, err := LoadFile("testdata/io.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	x := io["x"]
	n := x.Size(0)
	g, err := graph.New(n, io["src"].Int64s(), io["dst"].Int64s())
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]nn.GraphModel{
		"sage": nn.NewGraphSAGE(nn.SAGEOptions{InFeats: 5, HiddenFeats: 7, OutFeats: 3, NumLayers: 2, Aggregator: "mean", Seed: 1}),
		"gcn":  nn.NewGCN(nn.GCNOptions{InFeats: 5, HiddenFeats: 7, OutFeats: 3, NumLayers: 2, Seed: 1}),
	}
	for name, m := range models {
		path := filepath.Join("testdata", name+".safetensors")
		st := State{Model: m}
		if err := Load(path, &st); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m.Eval()
		var out *tensor.Tensor
		tensor.NoGrad(func() { out = m.Forward(g, x) })
		want := io[name+"_out"]
		if !slices.Equal(out.Shape(), want.Shape()) {
			t.Fatalf("%s: output shape %v, PyTorch's %v", name, out.Shape(), want.Shape())
		}
		maxErr := 0.0
		for i, v := range want.Float32s() {
			maxErr = math.Max(maxErr, math.Abs(float64(out.Float32s()[i]-v)))
		}
		if maxErr > 1e-5 {
			t.Errorf("%s: outputs differ from PyTorch's by up to %g", name, maxErr)
		}
		t.Logf("%s: max |gnnrepl - torch| = %.2g", name, maxErr)

		// Saved again, the model's tensors are PyTorch's.
		again := filepath.Join(t.TempDir(), name+".safetensors")
		if err := Save(again, State{Model: m}); err != nil {
			t.Fatal(err)
		}
		orig, _, _ := LoadFile(path)
		saved, _, _ := LoadFile(again)
		for k, w := range orig {
			got := saved[k]
			if got == nil {
				t.Errorf("%s: the saved file lacks %s", name, k)
				continue
			}
			if !slices.Equal(got.Shape(), w.Shape()) || dump(got) != dump(w.Float()) {
				t.Errorf("%s: saved %s is %v, PyTorch's %v", name, k, got, w)
			}
		}
	}
}
