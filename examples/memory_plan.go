//go:build ignore

// Plan before you train: memplan predicts the peak memory of minibatch
// GraphSAGE on Cora from a dry run of the sampler, Measure runs three real
// steps, and the last line is how far the prediction is from the
// measurement.
//
//	gnnrepl --data ../shared/data run examples/memory_plan.go
package main

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/memplan"
)

func main() {
	ds, err := datasets.LoadPlanetoid("cora", "")
	if err != nil {
		panic(err)
	}
	cfg := memplan.Config{Dataset: ds, Model: "sage", HiddenFeats: 64, Sampling: true, Fanouts: []int{15, 10}, BatchSize: 256}
	plan, err := memplan.Predict(cfg)
	if err != nil {
		panic(err)
	}
	fmt.Println(plan)
	m, err := memplan.Measure(cfg, 3)
	if err != nil {
		panic(err)
	}
	fmt.Println(m)
	fmt.Printf("prediction error: %.4f\n", float64(plan.TensorPeak-m.TensorPeak)/float64(m.TensorPeak))
}
