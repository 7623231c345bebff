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
// float32, bfloat16 autocast, with checkpointing and with int8 features,
// it predicts the peak and measures it over three steps (Measure), and it
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
	}
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
			fmt.Fprintf(os.Stderr, "%s: measured %s, predicted %s (%+.2f%%)\n%s\n", cfg.name,
				tensor.FormatBytes(m.TensorPeak), tensor.FormatBytes(p.TensorPeak),
				100*float64(p.TensorPeak-m.TensorPeak)/float64(m.TensorPeak), p)
			b.ReportMetric(float64(m.TensorPeak)/(1<<30), "GiB-measured")
			b.ReportMetric(float64(p.TensorPeak)/(1<<30), "GiB-predicted")
			b.ReportMetric(float64(p.Peak)/(1<<30), "GiB-predicted-all")
		})
	}
}

// with returns a copy of c changed by f.
func with(c Config, f func(*Config)) Config {
	f(&c)
	return c
}
