package memplan

import (
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestMeasureDeterministic: the peak Measure reads from
// tensor.MaxMemoryAllocated is the same on every run (a collection at
// every op makes it independent of when the garbage collector would have
// run), for full-graph and sampled training, also with garbage left
// behind by earlier work.
func TestMeasureDeterministic(t *testing.T) {
	for _, cfg := range []Config{
		{Model: "sage", HiddenFeats: 16, Seed: 1},
		{Model: "sage", HiddenFeats: 16, Seed: 1, Sampling: true, Fanouts: []int{5, 5}, BatchSize: 64, DryRunBatches: 2},
	} {
		cfg.Dataset = dataset(t, "powerlaw")
		var peaks []int64
		for run := 0; run < 2; run++ {
			// Garbage from unrelated work between the runs.
			for i := 0; i < 50; i++ {
				_ = tensor.Zeros(1000, 10)
			}
			m, err := Measure(cfg, 2)
			if err != nil {
				t.Fatal(err)
			}
			peaks = append(peaks, m.TensorPeak)
		}
		if peaks[0] != peaks[1] {
			t.Errorf("%s: peaks %v differ between runs", cfg.Summary(), peaks)
		}
	}
}
