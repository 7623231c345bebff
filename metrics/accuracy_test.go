package metrics

import (
	"errors"
	"math"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestAccuracy: ids and scores give the fraction right; it matches
// tensor.Accuracy and MicroF1 on logits; bad input is an error.
func TestAccuracy(t *testing.T) {
	labels := tensor.FromInt64([]int64{0, 1, 2, 1, 0})
	pred := tensor.FromInt64([]int64{0, 2, 2, 1, 1})
	if got, err := Accuracy(pred, labels); err != nil || got != 0.6 {
		t.Errorf("ids: %v %v, want 0.6", got, err)
	}
	gen := tensor.NewGenerator(3)
	logits := tensor.Randn(gen, 5, 3)
	got, err := Accuracy(logits, labels)
	if err != nil {
		t.Fatal(err)
	}
	micro, _ := MicroF1(logits, labels)
	if want := tensor.Accuracy(logits, labels); math.Abs(got-want) > 1e-12 || math.Abs(got-micro) > 1e-12 {
		t.Errorf("logits: %v, tensor.Accuracy %v, MicroF1 %v", got, want, micro)
	}
	if got, err := Accuracy(logits.Cast(tensor.BFloat16), labels); err != nil || got < 0 || got > 1 {
		t.Errorf("bfloat16 logits: %v %v", got, err)
	}
	for _, c := range []struct {
		pred, labels *tensor.Tensor
		kind         error
	}{
		{nil, labels, ErrArgument},
		{pred, nil, ErrArgument},
		{pred, tensor.FromFloat32([]float32{0, 1, 2, 1, 0}), ErrArgument},
		{tensor.FromInt64([]int64{0, 1}), labels, ErrShape},
		{pred, tensor.FromInt64([]int64{}), ErrShape},
		{tensor.FromInt64([]int64{0, -1, 2, 1, 0}), labels, ErrArgument},
	} {
		if _, err := Accuracy(c.pred, c.labels); !errors.Is(err, c.kind) {
			t.Errorf("Accuracy(%v, %v): %v, want %v", c.pred, c.labels, err, c.kind)
		}
	}
}
