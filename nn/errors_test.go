package nn

import (
	"errors"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// nn's errors are the engine's: tensor.Catch converts them, and the shared
// sentinels classify them under tensor's names as under nn's.
func TestErrorsAreTheEngines(t *testing.T) {
	g := randomGraph(t, 10, 2, true, 1)
	c := NewSAGEConv(SAGEConvOptions{InFeats: 4, OutFeats: 2})
	for _, tc := range []struct {
		name string
		f    func()
		kind error // tensor's sentinel
		nn   error // nn's name for it
		pkg  string
	}{
		{"features with 5 columns", func() { c.Forward(g, tensor.Zeros(10, 5)) }, tensor.ErrShape, ErrShape, "nn"},
		{"nil features", func() { c.Forward(g, nil) }, tensor.ErrArgument, ErrOption, "nn"},
		{"unknown aggregator", func() { NewSAGEConv(SAGEConvOptions{InFeats: 4, OutFeats: 2, Aggregator: "median"}) }, tensor.ErrArgument, ErrOption, "nn"},
		{"dropout 1", func() { NewGCN(GCNOptions{InFeats: 4, HiddenFeats: 3, OutFeats: 2, Dropout: 1}) }, tensor.ErrArgument, ErrOption, "nn"},
		{"vector too short", func() { VectorToParameters(make([]float32, 3), c.Parameters()) }, tensor.ErrShape, ErrShape, "nn"},
		// Raised by tensor inside a layer: the same classification.
		{"labels out of range", func() {
			MaskedCrossEntropy(tensor.Zeros(3, 2), tensor.FromInt64([]int64{0, 5, 1}), tensor.FromInt64([]int64{0, 1}))
		}, tensor.ErrIndex, nil, "tensor"},
	} {
		err := tensor.Catch(tc.f)
		var e *tensor.Error
		if !errors.Is(err, tc.kind) || !errors.As(err, &e) || e.Pkg != tc.pkg {
			t.Errorf("%s: %v, want a %s error of kind %v", tc.name, err, tc.pkg, tc.kind)
			continue
		}
		if tc.nn != nil && !errors.Is(err, tc.nn) {
			t.Errorf("%s: %v is not errors.Is nn's sentinel %v", tc.name, err, tc.nn)
		}
		var ne *Error // the same type as tensor.Error
		if !errors.As(err, &ne) || ne != e {
			t.Errorf("%s: *nn.Error and *tensor.Error differ", tc.name)
		}
	}
	// A returned error too: a state dict that does not fit.
	err := c.LoadStateDict(map[string]*tensor.Tensor{})
	var e *tensor.Error
	if !errors.Is(err, ErrState) || !errors.As(err, &e) || e.Pkg != "nn" || e.Op != "LoadStateDict" {
		t.Errorf("LoadStateDict of an empty dict: %v", err)
	}
}
