package nn

import (
	"testing"

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
