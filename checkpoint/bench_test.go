package checkpoint

import (
	"path/filepath"
	"testing"

	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// BenchmarkSaveLoad saves and loads a GraphSAGE of 4.2 M parameters with
// its Adam state (about 50 MB) per iteration.
func BenchmarkSaveLoad(b *testing.B) {
	m := nn.NewGraphSAGE(nn.SAGEOptions{InFeats: 1024, HiddenFeats: 1024, OutFeats: 64, NumLayers: 3, Aggregator: "mean", Seed: 1})
	opt := optim.NewAdam(m.Parameters(), optim.AdamOptions{LR: 0.01})
	for _, p := range m.Parameters() {
		p.SetGrad(tensor.Ones(p.Shape()...))
	}
	opt.Step()
	path := filepath.Join(b.TempDir(), "bench.safetensors")
	st := State{Model: m, Optimizer: opt}
	b.SetBytes(int64(3 * 4 * m.NumParameters()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Save(path, st); err != nil {
			b.Fatal(err)
		}
		if err := Load(path, &st); err != nil {
			b.Fatal(err)
		}
	}
}
