package nn

import "github.com/gnnrepl/gnnrepl/tensor"

// ReLU is tensor.ReLU as a value for an Activation option
// (torch.nn.functional.relu).
func ReLU(x *tensor.Tensor) *tensor.Tensor { return tensor.ReLU(x) }

// ELU is tensor.ELU with alpha 1 as a value for an Activation option
// (torch.nn.functional.elu; GAT's hidden activation).
func ELU(x *tensor.Tensor) *tensor.Tensor { return tensor.ELU(x, 1) }

// LeakyReLU returns an Activation computing tensor.LeakyReLU with the given
// negative slope (torch.nn.functional.leaky_relu; PyTorch's default slope is
// 0.01).
func LeakyReLU(slope float32) func(*tensor.Tensor) *tensor.Tensor {
	return func(x *tensor.Tensor) *tensor.Tensor { return tensor.LeakyReLU(x, slope) }
}
