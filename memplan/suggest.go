package memplan

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// ErrNoFit is wrapped by Suggest's error when no setting it tries fits the
// budget.
var ErrNoFit = engerr.NewKind("memplan: no setting fits the memory budget", nil)

// Suggest returns the cheapest change of c whose predicted Peak (Predict)
// is at most budget bytes, with its plan. The changes are tried in order of
// their cost to accuracy and speed, each on top of the previous ones, and
// the first setting that fits is returned (c itself when it fits):
//
//  1. neighbor sampling instead of the full graph (Fanouts and BatchSize
//     default as in Config; memory O(batch * fanout^layers) instead of
//     O(N), Hamilton et al. 2017);
//  2. bfloat16 autocast (activations in half the bytes);
//  3. gradient checkpointing (every layer but the last is recomputed in
//     backward, Chen et al. 2016);
//  4. int8 features (featstore; a quarter of the feature bytes);
//  5. halving BatchSize, down to 1.
//
// Steps that do not apply (already on, or checkpointing a one-layer model)
// are skipped. The returned Config has every default filled in. It returns
// an error wrapping ErrConfig when budget is not positive, Predict's errors, and an error wrapping ErrNoFit, naming the smallest
// peak reached, when even batches of one node do not fit. When the running
// evaluation is cancelled (runctx) it stops before the next setting and
// returns c, no Plan and the context's error.
func Suggest(c Config, budget int64) (Config, Plan, error) {
	cur, err := c.normalized()
	if err != nil {
		return c, Plan{}, err
	}
	if budget <= 0 {
		return c, Plan{}, fmt.Errorf("%w: budget must be a positive number of bytes, got %d", ErrConfig, budget)
	}
	best := Plan{}
	try := func(x Config) (Plan, bool, error) {
		if err := runctx.Err(); err != nil {
			return Plan{Config: c}, false, err
		}
		p, err := Predict(x)
		if err != nil {
			return p, false, err
		}
		if best.Peak == 0 || p.Peak < best.Peak {
			best = p
		}
		return p, p.Peak <= budget, nil
	}
	if p, ok, err := try(cur); err != nil || ok {
		return p.Config, p, err
	}
	steps := []func(*Config) bool{
		func(x *Config) bool {
			if x.Sampling {
				return false
			}
			x.Sampling, x.BatchSize = true, 0
			if len(x.Fanouts) != x.NumLayers {
				x.Fanouts = nil
			}
			return true
		},
		func(x *Config) bool {
			if x.DType != tensor.Float32 {
				return false
			}
			x.DType = tensor.BFloat16
			return true
		},
		func(x *Config) bool {
			if x.Checkpoint || x.NumLayers < 2 {
				return false
			}
			x.Checkpoint = true
			return true
		},
		func(x *Config) bool {
			if !x.Sampling || x.FeatureStore == "int8" {
				return false
			}
			x.FeatureStore = "int8"
			return true
		},
	}
	for _, step := range steps {
		if !step(&cur) {
			continue
		}
		p, ok, err := try(cur)
		if err != nil || ok {
			return p.Config, p, err
		}
		cur = p.Config // defaults filled in
	}
	for cur.BatchSize > 1 {
		cur.BatchSize /= 2
		if p, ok, err := try(cur); err != nil || ok {
			return p.Config, p, err
		}
	}
	return best.Config, best, fmt.Errorf("%w: %s; the smallest predicted peak is %s (%s)", ErrNoFit,
		tensor.FormatBytes(budget), tensor.FormatBytes(best.Peak), best.Config.Summary())
}
