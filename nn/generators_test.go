package nn

import (
	"fmt"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

func TestGenerators(t *testing.T) {
	gcn := NewGCN(GCNOptions{InFeats: 4, OutFeats: 2, Seed: 1})
	if g := Generators(gcn); len(g) != 1 || g[0].Name != "layers.0" || g[0].Gen != gcn.Layers[0].gen {
		t.Errorf("GCN generators: %v", g)
	}
	sage := NewGraphSAGE(SAGEOptions{InFeats: 4, OutFeats: 2, Seed: 1})
	if g := Generators(Checkpoint(sage)); len(g) != 1 || g[0].Name != "" || g[0].Gen != sage.gen {
		t.Errorf("GraphSAGE generators: %v", g)
	}
	conv := NewSAGEConv(SAGEConvOptions{InFeats: 4, OutFeats: 2, Aggregator: "mean"})
	if g := Generators(conv); len(g) != 1 || g[0].Gen != tensor.DefaultGenerator() {
		t.Errorf("SAGEConv without Gen: %v", g)
	}
	if g := Generators(NewLinear(2, 2, true, nil)); len(g) != 0 {
		t.Errorf("Linear: %v", g)
	}
}

func TestTorchTransposed(t *testing.T) {
	sage := NewGraphSAGE(SAGEOptions{InFeats: 4, OutFeats: 2, NumLayers: 2, Aggregator: "pool", Seed: 1})
	got := fmt.Sprint(TorchTransposed(Checkpoint(sage)))
	want := "[layers.0.fc_pool.weight layers.0.fc_self.weight layers.0.fc_neigh.weight layers.1.fc_pool.weight layers.1.fc_self.weight layers.1.fc_neigh.weight]"
	if got != want {
		t.Errorf("GraphSAGE: %s, want %s", got, want)
	}
	if got := TorchTransposed(NewGCN(GCNOptions{InFeats: 4, OutFeats: 2})); len(got) != 0 {
		t.Errorf("GCN: %v, want none", got)
	}
}
