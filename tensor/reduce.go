package tensor

// ReduceKernels are the primitive kernels of the reductions (reduce.go)
// and of log-softmax and the losses (softmax.go). Every Backend implements
// them: cpu_reduce.go (the CPU's loops), cuda_reduce.go (the kernels
// package, dense.cu's included) and meta.go (nothing to compute).
//
// The ops call them with tensors on the backend's device, contiguous, of
// the shapes and dtypes they checked, and allocate every output: an output
// is overwritten (every element is written) unless a method says it is
// zero on entry. Float tensors are float32 except where a method says
// otherwise: the ops reduce float16 and bfloat16 inputs in float32
// (autocast's float32 list), so no low-precision kernel is needed here
// except ArgMax's.
type ReduceKernels interface {
	// Sum writes the sum of x's elements (any shape) into out (shape ()).
	// The CPU accumulates in float64 in index order.
	Sum(out, x *Tensor)
	// SumDim sums the middle dimension of x viewed as (outer, d, inner)
	// into out (outer, inner): out[o, i] = sum_j x[o, j, i].
	SumDim(out, x *Tensor, outer, d, inner int)
	// ExpandDim repeats g (outer, inner) d times along the middle
	// dimension of out (outer, d, inner): out[o, j, i] = g[o, i]; the
	// gradient of SumDim, and of Sum with outer = inner = 1 (g a scalar).
	ExpandDim(out, g *Tensor, outer, d, inner int)
	// ArgMax writes into out (N) int64 the index of the largest value of
	// each row of x (N, C), the first one on ties. x is float32, and on
	// the CPU also float16 or bfloat16.
	ArgMax(out, x *Tensor)
	// LogSoftmax writes log(softmax) over the last dimension of x
	// (..., C) into out (..., C).
	LogSoftmax(out, x *Tensor)
	// LogSoftmaxBackward writes gx = g - exp(out) * sum(g) per row of the
	// last dimension: out the forward output, g its gradient, gx, g and
	// out of one shape (..., C).
	LogSoftmaxBackward(gx, out, g *Tensor)
	// NLLLoss writes -mean_i logp[i, targets[i]] into out (shape ()):
	// logp (N, C), N > 0, targets (N) int64 in [0, C).
	NLLLoss(out, logp, targets *Tensor)
	// NLLLossBackward writes -g/N at gl[i, targets[i]] for every i: gl
	// (N, C) is zero on entry, g the loss's gradient (one element),
	// targets (N) int64 in [0, C).
	NLLLossBackward(gl, g, targets *Tensor)
	// CountEqual returns how many elements of the int64 tensors a and b
	// (one shape) are equal. It reads values back to the host (on a GPU, a
	// synchronization); a backend without values (meta) panics with
	// ErrDevice. Accuracy calls it.
	CountEqual(a, b *Tensor) int
}

// Sum returns the sum of all elements of x (any shape) as a one-element
// tensor of shape (). On the CPU the sum is accumulated in float64 in
// index order; on CUDA in fixed per-block float32 partials, the same on
// every run. Its gradient gives every element the output's gradient.
//
// Sum, Mean, SumDim and MeanDim are on autocast's float32 list: a float16
// or bfloat16 x is reduced in float32, and the result is float32 inside an
// autocast region and x's dtype outside it (as torch.sum). Any other
// dtype panics with ErrDType. Kernels: cpu_reduce.go, cuda_reduce.go
// (kernels.SumF32).
func Sum(x *Tensor) *Tensor {
	defer hookOp("Sum")()
	if isLow(x.dtype) {
		return fp32Op("Sum", x, Sum)
	}
	be := backendOf("Sum", x)
	checkFloat("Sum", x)
	out := emptyOn("Sum", be, Float32, false)
	be.Sum(out, x)
	return record(out, "Sum", []*Tensor{x}, func(g *Tensor) []*Tensor { return gradSum(g, x) })
}

// Mean returns the mean of all elements as a tensor of shape (): Sum
// scaled by 1/N. It panics with ErrShape for an empty x; see Sum for the
// dtypes.
func Mean(x *Tensor) *Tensor {
	defer hookOp("Mean")()
	if isLow(x.dtype) {
		return fp32Op("Mean", x, Mean)
	}
	if x.n == 0 {
		panicf(ErrShape, "Mean", "mean of an empty tensor of shape %v", x.shape)
	}
	return MulScalar(Sum(x), 1/float32(x.n))
}

// SumDim sums over dimension dim (negative counts from the end): for x of
// shape (..., D, ...) the result drops that dimension, or keeps it with
// size 1 when keepDim is set (torch.sum(x, dim, keepdim)). It panics with
// ErrShape for a dimension out of range; see Sum for the dtypes. Kernels:
// cpu_reduce.go, cuda_reduce.go (kernels.SumDim0F32, SumDim1F32,
// kernels.SumTo).
func SumDim(x *Tensor, dim int, keepDim bool) *Tensor {
	defer hookOp("SumDim")()
	if isLow(x.dtype) {
		return fp32Op("SumDim", x, func(x *Tensor) *Tensor { return SumDim(x, dim, keepDim) })
	}
	be := backendOf("SumDim", x)
	checkFloat("SumDim", x)
	if dim < 0 {
		dim += x.Dim()
	}
	if dim < 0 || dim >= x.Dim() {
		panicf(ErrShape, "SumDim", "dimension %d out of range for shape %v", dim, x.shape)
	}
	outer, d, inner := splitAt(x.shape, dim)
	shape := append([]int(nil), x.shape...)
	if keepDim {
		shape[dim] = 1
	} else {
		shape = append(shape[:dim], shape[dim+1:]...)
	}
	out := emptyOn("SumDim", be, Float32, false, shape...)
	be.SumDim(out, x, outer, d, inner)
	return record(out, "SumDim", []*Tensor{x}, func(g *Tensor) []*Tensor { return gradSumDim(g, x, outer, d, inner) })
}

// MeanDim averages over dimension dim: SumDim scaled by 1/D; see SumDim.
func MeanDim(x *Tensor, dim int, keepDim bool) *Tensor {
	defer hookOp("MeanDim")()
	if isLow(x.dtype) {
		return fp32Op("MeanDim", x, func(x *Tensor) *Tensor { return MeanDim(x, dim, keepDim) })
	}
	if dim < 0 {
		dim += x.Dim()
	}
	return MulScalar(SumDim(x, dim, keepDim), 1/float32(x.Size(dim)))
}

// expandDim returns g (outer, inner) repeated d times along the middle
// dimension, as a float32 tensor of shape (outer*d*inner elements) on g's
// device: the gradient of SumDim, and of Sum (outer = inner = 1). It
// records no history; the backward rules call it.
func expandDim(op string, g *Tensor, shape []int, outer, d, inner int) *Tensor {
	be := backendOf(op, g)
	checkFloat(op, g)
	out := emptyOn(op, be, Float32, false, shape...)
	be.ExpandDim(out, g, outer, d, inner)
	return out
}

// splitAt returns the product of dimensions before dim, the size of dim and
// the product after it.
func splitAt(shape []int, dim int) (outer, d, inner int) {
	outer, inner = 1, 1
	for _, s := range shape[:dim] {
		outer *= s
	}
	for _, s := range shape[dim+1:] {
		inner *= s
	}
	return outer, shape[dim], inner
}

// ArgMax returns, for x of shape (N, C), the int64 index of the largest
// value in each row: (N, C) -> (N). Ties resolve to the first index. x is
// float32, float16 or bfloat16 (compared as float32; the GPU has a
// float32 kernel only and panics with ErrNotImplemented for the others);
// another dtype panics with ErrDType and another rank with ErrShape. It
// records no gradient. Kernels: cpu_reduce.go, cuda_reduce.go
// (kernels.ArgMaxRowsF32).
func ArgMax(x *Tensor) *Tensor {
	defer hookOp("ArgMax")()
	be := backendOf("ArgMax", x)
	if !isLow(x.dtype) {
		checkFloat("ArgMax", x)
	}
	if x.Dim() != 2 {
		panicf(ErrShape, "ArgMax", "needs a 2-D tensor, got shape %v", x.shape)
	}
	out := emptyOn("ArgMax", be, Int64, false, x.shape[0])
	be.ArgMax(out, x)
	return out
}
