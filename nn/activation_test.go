package nn

import (
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestActivationModules checks that the module forms compute their
// functional forms, with PyTorch's defaults for zero fields.
func TestActivationModules(t *testing.T) {
	x := tensor.FromFloat32([]float32{-2, -0.5, 0, 0.5, 2, -1}, 2, 3)
	for _, c := range []struct {
		name      string
		got, want *tensor.Tensor
	}{
		{"ReLU{}", ReLU{}.Forward(x), tensor.ReLU(x)},
		{"LeakyReLU{}", LeakyReLU{}.Forward(x), tensor.LeakyReLU(x, 0.01)},
		{"LeakyReLU{0.2}", LeakyReLU{NegativeSlope: 0.2}.Forward(x), tensor.LeakyReLU(x, 0.2)},
		{"ELU{}", ELU{}.Forward(x), tensor.ELU(x, 1)},
		{"ELU{0.5}", ELU{Alpha: 0.5}.Forward(x), tensor.ELU(x, 0.5)},
	} {
		if !slices.Equal(c.got.Shape(), x.Shape()) || !slices.Equal(c.got.Float32s(), c.want.Float32s()) {
			t.Errorf("%s: %v %v, want %v", c.name, c.got.Shape(), c.got.Float32s(), c.want.Float32s())
		}
	}
}
