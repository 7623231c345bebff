package tensor

// ReduceKernels are the primitive kernels of this file's ops: reductions (sum, sum over a dimension, arg-max), log-softmax and the losses.
// Every Backend implements them (cpu_*.go, cuda_*.go, meta.go).
type ReduceKernels interface{}

// Sum returns the sum of all elements as a one-element tensor of shape ().
// The sum is accumulated in float64.
//
// Sum, Mean, SumDim and MeanDim are on autocast's float32 list: a float16
// or bfloat16 x is reduced in float32, and the result is float32 inside an
// autocast region and x's dtype outside it (as torch.sum).
func Sum(x *Tensor) *Tensor {
	defer hookOp("Sum")()
	if isLow(x.dtype) {
		return fp32Op("Sum", x, Sum)
	}
	if d := deviceOf("Sum", x); d != "cpu" {
		return cudaSum(x)
	}
	checkFloat("Sum", x)
	var s float64
	for _, v := range x.Float32s() {
		s += float64(v)
	}
	out := FromFloat32([]float32{float32(s)}, []int{}...)
	out.shape = []int{}
	return record(out, "Sum", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{Full(g.Float32s()[0], x.shape...)}
	})
}

// Mean returns the mean of all elements as a tensor of shape ().
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

// SumDim sums over dimension dim: for x of shape (..., D, ...) the result
// drops that dimension (or keeps it with size 1 when keepDim is set).
func SumDim(x *Tensor, dim int, keepDim bool) *Tensor {
	defer hookOp("SumDim")()
	if isLow(x.dtype) {
		return fp32Op("SumDim", x, func(x *Tensor) *Tensor { return SumDim(x, dim, keepDim) })
	}
	if d := deviceOf("SumDim", x); d != "cpu" {
		return cudaSumDim(x, dim, keepDim)
	}
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
	out := Zeros(shape...)
	od, xd := out.Float32s(), x.Float32s()
	for o := 0; o < outer; o++ {
		dst := od[o*inner : (o+1)*inner]
		for j := 0; j < d; j++ {
			axpy(1, xd[(o*d+j)*inner:(o*d+j+1)*inner], dst)
		}
	}
	return record(out, "SumDim", []*Tensor{x}, func(g *Tensor) []*Tensor {
		gx := Zeros(x.shape...)
		gd, gg := gx.Float32s(), g.Float32s()
		for o := 0; o < outer; o++ {
			src := gg[o*inner : (o+1)*inner]
			for j := 0; j < d; j++ {
				copy(gd[(o*d+j)*inner:(o*d+j+1)*inner], src)
			}
		}
		return []*Tensor{gx}
	})
}

// MeanDim averages over dimension dim; see SumDim.
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
// value in each row: (N, C) -> (N). Ties resolve to the first index.
func ArgMax(x *Tensor) *Tensor {
	defer hookOp("ArgMax")()
	if d := deviceOf("ArgMax", x); d != "cpu" {
		return cudaArgMax(x)
	}
	if isLow(x.dtype) {
		x = castRaw(x, Float32)
	}
	checkFloat("ArgMax", x)
	if x.Dim() != 2 {
		panicf(ErrShape, "ArgMax", "needs a 2-D tensor, got shape %v", x.shape)
	}
	n, c := x.shape[0], x.shape[1]
	out := New(Int64, n)
	od, xd := out.Int64s(), x.Float32s()
	for i := 0; i < n; i++ {
		row := xd[i*c : (i+1)*c]
		best := 0
		for j := 1; j < c; j++ {
			if row[j] > row[best] {
				best = j
			}
		}
		od[i] = int64(best)
	}
	return out
}
