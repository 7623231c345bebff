package memplan

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// BenchmarkProductsPlan checks the planner at ogbn-products' scale on the
// synthetic graph datasets.ProductsLike(1, 1) (2.45M nodes, 61.9M edges,
// 100 features, 47 classes; about 2.5 GB and a minute to build): for
// GraphSAGE 3x256 with neighbor sampling ([15, 10, 5], batches of 1024) in
// float32, bfloat16 autocast, with checkpointing, with int8 features and
// in the bfloat16 setup end to end (bfloat16 store, bfloat16 gather,
// bfloat16 autocast: "bf16-e2e"), it predicts the peak and measures it
// over three steps (Measure), prints each setup's total and step peak
// (above the resident data) against float32's, and it
// prints the full-graph prediction, which does not fit this machine. It
// runs only when -bench selects it, never under -short:
//
//	go test ./memplan -run XXX -bench ProductsPlan -benchtime 1x -timeout 60m
//
// GNNREPL_PRODUCTS_CONFIGS=fp32,bf16 limits the configurations measured.
func BenchmarkProductsPlan(b *testing.B) {
	if testing.Short() {
		b.Skip("products-scale benchmark skipped under -short")
	}
	t0 := time.Now()
	d, err := datasets.PowerLaw(datasets.ProductsLike(1, 1))
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "ProductsLike(1, 1) built in %v: %v\n", time.Since(t0).Round(time.Millisecond), d.Graph)
	base := Config{Dataset: d, NumLayers: 3, HiddenFeats: 256, Dropout: 0.5, Seed: 1}
	full, err := Predict(base)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "full graph (predicted only):\n%s\n", full)
	samp := base
	samp.Sampling, samp.Fanouts, samp.BatchSize, samp.DryRunBatches = true, []int{15, 10, 5}, 1024, 3
	configs := []struct {
		name string
		c    Config
	}{
		{"fp32", samp},
		{"bf16", with(samp, func(c *Config) { c.DType = tensor.BFloat16 })},
		{"ckpt", with(samp, func(c *Config) { c.Checkpoint = true })},
		{"int8", with(samp, func(c *Config) { c.FeatureStore = "int8" })},
		// The bfloat16 setup end to end: a bfloat16 feature store, gathered
		// as bfloat16 by the DataLoader, trained under bfloat16 autocast.
		{"bf16-e2e", with(samp, func(c *Config) {
			c.DType, c.FeatureStore, c.StoreGatherDType = tensor.BFloat16, "bfloat16", tensor.BFloat16
		})},
	}
	measured := map[string]Measurement{}
	defer func() {
		// fp32 against each other setup: the whole tensor peak, and the
		// step's own peak above the resident data (dataset tensors or
		// feature store, parameters).
		ref, ok := measured["fp32"]
		if !ok {
			return
		}
		for _, cfg := range configs[1:] {
			m, ok := measured[cfg.name]
			if !ok {
				continue
			}
			fmt.Fprintf(os.Stderr, "%-8s vs fp32: total peak %s vs %s (%+.1f%%), resident %s vs %s, step peak %s vs %s (%+.1f%%)\n",
				cfg.name, tensor.FormatBytes(m.TensorPeak), tensor.FormatBytes(ref.TensorPeak),
				100*(float64(m.TensorPeak)/float64(ref.TensorPeak)-1),
				tensor.FormatBytes(m.Resident), tensor.FormatBytes(ref.Resident),
				tensor.FormatBytes(m.TensorPeak-m.Resident), tensor.FormatBytes(ref.TensorPeak-ref.Resident),
				100*(float64(m.TensorPeak-m.Resident)/float64(ref.TensorPeak-ref.Resident)-1))
		}
	}()
	only := os.Getenv("GNNREPL_PRODUCTS_CONFIGS")
	for _, cfg := range configs {
		if only != "" && !strings.Contains(","+only+",", ","+cfg.name+",") {
			continue
		}
		b.Run(cfg.name, func(b *testing.B) {
			p, err := Predict(cfg.c)
			if err != nil {
				b.Fatal(err)
			}
			var m Measurement
			for i := 0; i < b.N; i++ {
				if m, err = Measure(cfg.c, 3); err != nil {
					b.Fatal(err)
				}
			}
			measured[cfg.name] = m
			fmt.Fprintf(os.Stderr, "%s: measured %s (resident %s, step %s), predicted %s (%+.2f%%; resident %s)\n%s\n", cfg.name,
				tensor.FormatBytes(m.TensorPeak), tensor.FormatBytes(m.Resident), tensor.FormatBytes(m.TensorPeak-m.Resident),
				tensor.FormatBytes(p.TensorPeak), 100*float64(p.TensorPeak-m.TensorPeak)/float64(m.TensorPeak),
				tensor.FormatBytes(p.Resident), p)
			b.ReportMetric(float64(m.TensorPeak)/(1<<30), "GiB-measured")
			b.ReportMetric(float64(p.TensorPeak)/(1<<30), "GiB-predicted")
			b.ReportMetric(float64(p.Peak)/(1<<30), "GiB-predicted-all")
			b.ReportMetric(float64(m.TensorPeak-m.Resident)/(1<<30), "GiB-step-measured")
		})
	}
}

// with returns a copy of c changed by f.
func with(c Config, f func(*Config)) Config {
	f(&c)
	return c
}
