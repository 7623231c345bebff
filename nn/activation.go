package nn

import "github.com/gnnrepl/gnnrepl/tensor"

// The module forms of the activations; the functional forms are package
// tensor's ops (see the package doc). They have no parameters and behave the
// same in training and evaluation.

// ReLU is torch.nn.ReLU: Forward(x) is tensor.ReLU(x), max(x, 0)
// elementwise, (*) -> (*), x's dtype and device.
type ReLU struct{}

// Forward returns tensor.ReLU(x).
func (ReLU) Forward(x *tensor.Tensor) *tensor.Tensor { return tensor.ReLU(x) }

// LeakyReLU is torch.nn.LeakyReLU(negative_slope): Forward(x) is
// tensor.LeakyReLU(x, NegativeSlope), x for x > 0 and NegativeSlope*x
// otherwise, (*) -> (*). NegativeSlope 0 means PyTorch's default 0.01 (a
// slope of 0 is ReLU).
type LeakyReLU struct {
	NegativeSlope float32 // negative_slope; 0.01 when 0
}

// Forward returns tensor.LeakyReLU(x, m.NegativeSlope), 0.01 when 0.
func (m LeakyReLU) Forward(x *tensor.Tensor) *tensor.Tensor {
	s := m.NegativeSlope
	if s == 0 {
		s = 0.01
	}
	return tensor.LeakyReLU(x, s)
}

// ELU is torch.nn.ELU(alpha): Forward(x) is tensor.ELU(x, Alpha), x for
// x > 0 and Alpha*(exp(x)-1) otherwise, (*) -> (*) (Clevert et al. 2016;
// GAT's hidden activation with alpha 1). Alpha 0 means PyTorch's default 1.
type ELU struct {
	Alpha float32 // alpha; 1 when 0
}

// Forward returns tensor.ELU(x, m.Alpha), 1 when 0.
func (m ELU) Forward(x *tensor.Tensor) *tensor.Tensor {
	a := m.Alpha
	if a == 0 {
		a = 1
	}
	return tensor.ELU(x, a)
}
