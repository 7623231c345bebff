package metrics

import (
	"errors"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

func i64(v ...int64) *tensor.Tensor { return tensor.FromInt64(v) }

// TestF1Hand checks against sklearn.metrics.f1_score on
// y_true = [0, 0, 1, 1, 2, 2, 2], y_pred = [0, 1, 1, 1, 2, 0, 3]:
// per class F1 0.5, 0.8, 0.5, 0 (class 3 is predicted, never true), so
// macro = 1.8 / 4 = 0.45; micro = accuracy = 4/7.
func TestF1Hand(t *testing.T) {
	y := i64(0, 0, 1, 1, 2, 2, 2)
	p := i64(0, 1, 1, 1, 2, 0, 3)
	ma, err := MacroF1(p, y)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "macro", ma, 0.45)
	mi, err := MicroF1(p, y)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "micro", mi, 4.0/7)
	// The same predictions as logits: argmax per row.
	logits := make([]float32, 7*4)
	for i, c := range []int{0, 1, 1, 1, 2, 0, 3} {
		logits[i*4+c] = 1
	}
	ma2, err := MacroF1(tensor.FromFloat32(logits, 7, 4), y)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "macro from logits", ma2, 0.45)
	// A class absent from both is not averaged: labels {0, 2} only.
	ma3, _ := MacroF1(i64(0, 2, 2), i64(0, 2, 0))
	near(t, "macro skips absent classes", ma3, (2.0/3+2.0/3)/2)
}

func TestF1Errors(t *testing.T) {
	y := i64(0, 1)
	for name, c := range map[string]struct {
		p, y *tensor.Tensor
		kind error
	}{
		"nil pred":       {nil, y, ErrArgument},
		"nil labels":     {y, nil, ErrArgument},
		"float labels":   {y, f32(0, 1), ErrArgument},
		"length":         {i64(0, 1, 1), y, ErrShape},
		"negative":       {i64(0, -1), y, ErrArgument},
		"empty":          {i64(), i64(), ErrShape},
		"1-d float pred": {f32(0.5, 1), y, ErrArgument},
	} {
		if _, err := MacroF1(c.p, c.y); !errors.Is(err, c.kind) {
			t.Errorf("%s: got %v, want %v", name, err, c.kind)
		}
	}
}
