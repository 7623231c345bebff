package tensor_test

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// A tensor from Go values, a product, a gradient, and a device move.
func Example() {
	x := tensor.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3) // (2, 3), shares the slice
	w := tensor.Ones(3, 2).SetRequiresGrad(true)               // (3, 2) leaf
	y := x.MatMul(w).ReLU()                                    // (2, 2), as tensor.ReLU(tensor.MatMul(x, w))
	fmt.Println(y)

	y.Sum().Backward() // d sum(relu(x @ w)) / dw = x^T @ ones
	fmt.Println(w.Grad())

	c, err := y.To("cpu") // "cuda" or "cuda:N" copies to a GPU
	fmt.Println(c.Device(), err)
	// Output:
	// tensor([[ 6.,  6.],
	//         [15., 15.]], shape=[2 2], dtype=float32, grad_fn=<ReLUBackward>)
	// tensor([[5., 5.],
	//         [7., 7.],
	//         [9., 9.]], shape=[3 2], dtype=float32)
	// cpu <nil>
}

func ExampleMatMul() {
	a := tensor.FromFloat32([]float32{1, 2, 3, 4}, 2, 2)
	b := tensor.FromFloat32([]float32{0, 1, 1, 0}, 2, 2) // swaps the columns
	fmt.Println(tensor.MatMul(a, b))
	// Output:
	// tensor([[2., 1.],
	//         [4., 3.]], shape=[2 2], dtype=float32)
}

// Reverse-mode autograd: the gradient of sum(x^2) is 2x.
func ExampleTensor_Backward() {
	x := tensor.FromFloat32([]float32{1, -2, 3}, 3).SetRequiresGrad(true)
	loss := x.Mul(x).Sum() // shape ()
	loss.Backward()
	fmt.Println(loss.Item(), x.Grad().Float32s())
	// Output:
	// 14 [2 -4 6]
}

// To copies a tensor to a device and back; ops run where their inputs are.
func ExampleTensor_To() {
	x := tensor.Ones(2, 2)
	device := "cpu"
	if tensor.CUDAAvailable() {
		device = "cuda"
	}
	y, err := x.To(device)
	if err != nil {
		fmt.Println(err)
		return
	}
	z := y.MulScalar(3).ToCPU() // computed on device, copied back
	fmt.Println(z.Device(), z.Float32s())
	// Output:
	// cpu [3 3 3 3]
}

// An op with a hand-written gradient (torch.autograd.Function): softplus
// log(1 + exp(x)), whose derivative is sigmoid(x).
func ExampleCustomOp() {
	softplus := tensor.CustomOp{
		Name: "softplus",
		Forward: func(in []*tensor.Tensor) *tensor.Tensor {
			return tensor.Log(tensor.AddScalar(tensor.Exp(in[0]), 1))
		},
		Backward: func(grad *tensor.Tensor, in []*tensor.Tensor, out *tensor.Tensor) []*tensor.Tensor {
			return []*tensor.Tensor{tensor.Mul(grad, tensor.Sigmoid(in[0]))}
		},
	}
	x := tensor.FromFloat32([]float32{-2, 0, 3}, 3).SetRequiresGrad(true)
	y := softplus.Apply(x)
	y.Sum().Backward()
	fmt.Printf("%.4f\n%.4f\n", y.Float32s(), x.Grad().Float32s())
	// Output:
	// [0.1269 0.6931 3.0486]
	// [0.1192 0.5000 0.9526]
}
