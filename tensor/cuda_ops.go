package tensor

import (
	"fmt"
	"math"

	"github.com/gnnrepl/gnnrepl/kernels"
)

// GPU implementations of the dense ops. Each public op starts with a
// dispatch branch (deviceOf) that calls the cuda* function here when its
// inputs are on a GPU; the forward and the backward closure queue kernels
// on the device's stream and never read device memory, except where a
// comment says so (Accuracy, index checks of tensors whose bounds are not
// known). Shapes and dtypes are checked exactly as on the CPU, with the same
// messages.

// Op codes of gt_binary_f32 / gt_bcast_binary_f32 and gt_unary_f32 (cuda_ops.cu).
const (
	opAdd int32 = iota
	opSub
	opMul
	opDiv
	opCopyA
)

const (
	uExp int32 = iota
	uLog
	uSqrt
	uSigmoid
	uTanh
	uPow
	uAddScalar
)

// ptr is devPtr for op-internal use.
func ptr(t *Tensor) kernels.DevicePtr { return devPtr("op", t) }

// freeNow returns a temporary storage's block to the cache at once (later
// kernels on the stream reuse it only after the queued ones that read it).
func freeNow(st *storage) {
	if st == nil || cudaBufOf(st) == nil {
		return
	}
	releaseStorage(st)
}

// padTo4 left-pads shape (and strides) to four dimensions.
func padTo4(shape []int, fill int) [4]int64 {
	var r [4]int64
	off := 4 - len(shape)
	for i := 0; i < 4; i++ {
		if i < off {
			r[i] = int64(fill)
		} else {
			r[i] = int64(shape[i-off])
		}
	}
	return r
}

// cudaBinaryRaw computes a op b with NumPy broadcasting on the device,
// without autograd.
func cudaBinaryRaw(op string, code int32, a, b *Tensor) *Tensor {
	checkFloat(op, a, b)
	shape := broadcastShapes(op, a.shape, b.shape)
	d := cudaOf(op, a)
	out := d.empty(op, Float32, shape)
	n := out.n
	if n == 0 {
		return out
	}
	pa, pb, py := devPtr(op, a), devPtr(op, b), ptr(out)
	switch {
	case sameShape(a.shape, b.shape) && code != opCopyA:
		switch code {
		case opAdd:
			d.must(op, kernels.AddF32(d.s, pa, pb, py, n))
		case opSub:
			d.must(op, kernels.SubF32(d.s, pa, pb, py, n))
		case opMul:
			d.must(op, kernels.MulF32(d.s, pa, pb, py, n))
		default:
			d.launch1D(op, "gt_binary_f32", int64(n), pa, pb, py, int64(n), code)
		}
	case code == opAdd && sameShape(a.shape, shape) && len(b.shape) == 1 && len(shape) >= 1 && b.shape[0] == shape[len(shape)-1]:
		f := b.shape[0]
		d.must(op, kernels.AddBiasF32(d.s, pa, pb, py, n/f, f))
	default:
		if len(shape) > 4 {
			notOnDevice(op+" (broadcast over more than 4 dimensions)", d.name)
		}
		od := padTo4(shape, 1)
		sa, sb := padTo4(bstrides(a.shape, shape), 0), padTo4(bstrides(b.shape, shape), 0)
		d.launch1D(op, "gt_bcast_binary_f32", int64(n), pa, pb, py, int64(n), code,
			od[1], od[2], od[3], sa[0], sa[1], sa[2], sa[3], sb[0], sb[1], sb[2], sb[3])
	}
	return out
}

// expandDev broadcasts x to shape (a copy).
func expandDev(op string, x *Tensor, shape []int) *Tensor {
	broadcastShapes(op, x.shape, shape)
	d := cudaOf(op, x)
	out := d.empty(op, Float32, shape)
	if out.n == 0 {
		return out
	}
	if len(shape) > 4 {
		notOnDevice(op+" (broadcast over more than 4 dimensions)", d.name)
	}
	od := padTo4(shape, 1)
	sa := padTo4(bstrides(x.shape, shape), 0)
	px := ptr(x)
	d.launch1D(op, "gt_bcast_binary_f32", int64(out.n), px, px, ptr(out), int64(out.n), opCopyA,
		od[1], od[2], od[3], sa[0], sa[1], sa[2], sa[3], int64(0), int64(0), int64(0), int64(0))
	return out
}

// sumToDev reduces a broadcast gradient g to shape (sumTo on the device).
func sumToDev(op string, g *Tensor, shape []int) *Tensor {
	if sameShape(g.shape, shape) {
		return g
	}
	d := cudaOf(op, g)
	out := d.empty(op, Float32, shape)
	switch {
	case out.n == 0:
	case g.n == 0:
		d.must(op, d.dev.Memset8(ptr(out), 0, out.n*4))
	case out.n == 1:
		d.must(op, kernels.SumF32(d.s, ptr(g), g.n, ptr(out), 1))
	case len(shape) == 1 && len(g.shape) == 2 && shape[0] == g.shape[1]:
		d.must(op, kernels.SumDim0F32(d.s, ptr(g), ptr(out), g.shape[0], g.shape[1], 1))
	default:
		if len(g.shape) > 4 {
			notOnDevice(op+" (broadcast gradient over more than 4 dimensions)", d.name)
		}
		// Align shape to g's rank, then pad both to four dimensions.
		al := make([]int, len(g.shape))
		for i := range al {
			al[i] = 1
			if j := len(shape) - len(g.shape) + i; j >= 0 {
				al[i] = shape[j]
			}
		}
		gp, op4 := padTo4(g.shape, 1), padTo4(al, 1)
		d.launch1D(op, "gt_sum_to_f32", int64(out.n), ptr(g), ptr(out), int64(out.n),
			gp[0], gp[1], gp[2], gp[3], op4[1], op4[2], op4[3])
	}
	return out
}

// scaleDev returns s * x on the device.
func scaleDev(op string, x *Tensor, s float32) *Tensor {
	d := cudaOf(op, x)
	out := d.empty(op, Float32, x.shape)
	d.must(op, kernels.ScaleF32(d.s, ptr(x), s, ptr(out), x.n))
	return out
}

func cudaAdd(a, b *Tensor) *Tensor {
	out := cudaBinaryRaw("Add", opAdd, a, b)
	return record(out, "Add", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			ga = sumToDev("Add", g, a.shape)
		}
		if b.requiresGrad {
			gb = sumToDev("Add", g, b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

func cudaSub(a, b *Tensor) *Tensor {
	out := cudaBinaryRaw("Sub", opSub, a, b)
	return record(out, "Sub", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			ga = sumToDev("Sub", g, a.shape)
		}
		if b.requiresGrad {
			gb = sumToDev("Sub", scaleDev("Sub", g, -1), b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

func cudaMul(a, b *Tensor) *Tensor {
	out := cudaBinaryRaw("Mul", opMul, a, b)
	return record(out, "Mul", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			ga = sumToDev("Mul", cudaBinaryRaw("Mul", opMul, g, b), a.shape)
		}
		if b.requiresGrad {
			gb = sumToDev("Mul", cudaBinaryRaw("Mul", opMul, g, a), b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

func cudaDiv(a, b *Tensor) *Tensor {
	out := cudaBinaryRaw("Div", opDiv, a, b)
	return record(out, "Div", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			ga = sumToDev("Div", cudaBinaryRaw("Div", opDiv, g, b), a.shape)
		}
		if b.requiresGrad { // d(a/b)/db = -out/b
			t := cudaBinaryRaw("Div", opDiv, out, b)
			gb = sumToDev("Div", scaleDev("Div", cudaBinaryRaw("Div", opMul, g, t), -1), b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

func cudaMulScalar(x *Tensor, s float32) *Tensor {
	checkFloat("MulScalar", x)
	out := scaleDev("MulScalar", x, s)
	return record(out, "MulScalar", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{scaleDev("MulScalar", g, s)}
	})
}

// unaryDev runs gt_unary_f32 with op code u.
func unaryDev(op string, u int32, x *Tensor, p float32) *Tensor {
	checkFloat(op, x)
	d := cudaOf(op, x)
	out := d.empty(op, Float32, x.shape)
	d.launch1D(op, "gt_unary_f32", int64(x.n), ptr(x), ptr(out), int64(x.n), u, p)
	return out
}

func cudaAddScalar(x *Tensor, s float32) *Tensor {
	out := unaryDev("AddScalar", uAddScalar, x, s)
	return record(out, "AddScalar", []*Tensor{x}, func(g *Tensor) []*Tensor { return []*Tensor{g} })
}

// cudaUnary is a differentiable gt_unary_f32 op (Exp, Log, Sqrt, Sigmoid,
// Tanh, Pow).
func cudaUnary(op string, u int32, x *Tensor, p float32) *Tensor {
	out := unaryDev(op, u, x, p)
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		d := cudaOf(op, g)
		gx := d.empty(op, Float32, x.shape)
		d.launch1D(op, "gt_unary_bwd_f32", int64(x.n), ptr(x), ptr(out), ptr(g), ptr(gx), int64(x.n), u, p)
		return []*Tensor{gx}
	})
}

// cudaActivation is ReLU, LeakyReLU or ELU with the kernels package's
// forward and backward (a is the slope or alpha).
func cudaActivation(op string, x *Tensor, a float32) *Tensor {
	checkFloat(op, x)
	d := cudaOf(op, x)
	out := d.empty(op, Float32, x.shape)
	n := x.n
	switch op {
	case "ReLU":
		d.must(op, kernels.ReLUForward(d.s, ptr(x), ptr(out), n))
	case "LeakyReLU":
		d.must(op, kernels.LeakyReLUForward(d.s, ptr(x), ptr(out), a, n))
	default:
		d.must(op, kernels.ELUForward(d.s, ptr(x), ptr(out), a, n))
	}
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		gx := d.empty(op, Float32, x.shape)
		switch op {
		case "ReLU":
			d.must(op, kernels.ReLUBackward(d.s, ptr(x), ptr(g), ptr(gx), n))
		case "LeakyReLU":
			d.must(op, kernels.LeakyReLUBackward(d.s, ptr(x), ptr(g), ptr(gx), a, n))
		default:
			d.must(op, kernels.ELUBackward(d.s, ptr(x), ptr(g), ptr(gx), a, n))
		}
		return []*Tensor{gx}
	})
}

// gemm computes the row-major C (m, n) = op(A) @ op(B) with cuBLAS in the
// precision of SetFloat32MatmulPrecision.
func (d *cudaDevice) gemm(op string, tA, tB bool, m, n, k int, a, b, c kernels.DevicePtr) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		d.must(op, d.dev.Memset8(c, 0, m*n*4))
		return
	}
	bl := d.blasHandle(op)
	f32 := kernels.DTypeFloat32
	switch matmulPrecision.Load() {
	case 1:
		d.must(op, bl.MatMul(d.s, tA, tB, m, n, k, 1, a, b, f32, 0, c, f32, kernels.Compute32FFastTF32))
	case 2:
		bf := kernels.DTypeBFloat16
		sa, sb := d.newRaw(op, int64(m*k*2)), d.newRaw(op, int64(k*n*2))
		d.must(op, kernels.Cast(d.s, a, f32, cudaBufOf(sa).ptr, bf, m*k))
		d.must(op, kernels.Cast(d.s, b, f32, cudaBufOf(sb).ptr, bf, k*n))
		d.must(op, bl.MatMul(d.s, tA, tB, m, n, k, 1, cudaBufOf(sa).ptr, cudaBufOf(sb).ptr, bf, 0, c, f32, kernels.Compute32F))
		freeNow(sa)
		freeNow(sb)
	default:
		d.must(op, bl.MatMul(d.s, tA, tB, m, n, k, 1, a, b, f32, 0, c, f32, kernels.Compute32F))
	}
}

func cudaMatMul(a, b *Tensor) *Tensor {
	checkFloat("MatMul", a, b)
	checkMatMulShapes(a, b)
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	d := cudaOf("MatMul", a)
	out := d.empty("MatMul", Float32, []int{m, n})
	d.gemm("MatMul", false, false, m, n, k, ptr(a), ptr(b), ptr(out))
	return record(out, "MatMul", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad { // g @ b^T : (M, K)
			ga = d.empty("MatMul", Float32, []int{m, k})
			d.gemm("MatMul", false, true, m, k, n, ptr(g), ptr(b), ptr(ga))
		}
		if b.requiresGrad { // a^T @ g : (K, N)
			gb = d.empty("MatMul", Float32, []int{k, n})
			d.gemm("MatMul", true, false, k, n, m, ptr(a), ptr(g), ptr(gb))
		}
		return []*Tensor{ga, gb}
	})
}

// fillFrom returns a tensor of shape filled with scale * s[0], s a device
// scalar.
func fillFrom(op string, s *Tensor, scale float32, shape []int) *Tensor {
	d := cudaOf(op, s)
	out := d.empty(op, Float32, shape)
	d.launch1D(op, "gt_fill_from_f32", int64(out.n), ptr(s), scale, ptr(out), int64(out.n))
	return out
}

func cudaSum(x *Tensor) *Tensor {
	checkFloat("Sum", x)
	d := cudaOf("Sum", x)
	out := d.zeros("Sum", Float32, []int{})
	if x.n > 0 {
		d.must("Sum", kernels.SumF32(d.s, ptr(x), x.n, ptr(out), 1))
	}
	return record(out, "Sum", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{fillFrom("Sum", g, 1, x.shape)}
	})
}

func cudaSumDim(x *Tensor, dim int, keepDim bool) *Tensor {
	const op = "SumDim"
	checkFloat(op, x)
	if dim < 0 {
		dim += x.Dim()
	}
	if dim < 0 || dim >= x.Dim() {
		panicf(ErrShape, op, "dimension %d out of range for shape %v", dim, x.shape)
	}
	outer, dd, inner := splitAt(x.shape, dim)
	keep := append([]int(nil), x.shape...)
	keep[dim] = 1
	shape := keep
	if !keepDim {
		shape = append(append([]int(nil), x.shape[:dim]...), x.shape[dim+1:]...)
	}
	d := cudaOf(op, x)
	out := d.empty(op, Float32, shape)
	switch {
	case out.n == 0:
	case dd == 0:
		d.must(op, d.dev.Memset8(ptr(out), 0, out.n*4))
	case outer == 1:
		d.must(op, kernels.SumDim0F32(d.s, ptr(x), ptr(out), dd, inner, 1))
	case inner == 1:
		d.must(op, kernels.SumDim1F32(d.s, ptr(x), ptr(out), outer, dd, 1))
	default:
		r := sumToDev(op, x, keep)
		out = &Tensor{shape: shape, dtype: Float32, st: r.st, n: r.n}
	}
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		gk := &Tensor{shape: keep, dtype: Float32, st: g.st, off: g.off, n: g.n}
		return []*Tensor{expandDev(op, gk, x.shape)}
	})
}

func cudaArgMax(x *Tensor) *Tensor {
	checkFloat("ArgMax", x)
	if x.Dim() != 2 {
		panicf(ErrShape, "ArgMax", "needs a 2-D tensor, got shape %v", x.shape)
	}
	n, c := x.shape[0], x.shape[1]
	d := cudaOf("ArgMax", x)
	out := d.empty("ArgMax", Int64, []int{n})
	d.launch1D("ArgMax", "gt_argmax_rows_f32", int64(n), ptr(x), ptr(out), int64(n), int64(c))
	return out
}

func cudaLogSoftmax(x *Tensor) *Tensor {
	const op = "LogSoftmax"
	checkFloat(op, x)
	if x.Dim() == 0 {
		panicf(ErrShape, op, "needs at least 1 dimension")
	}
	c := x.shape[x.Dim()-1]
	rows := 0
	if c > 0 {
		rows = x.n / c
	}
	d := cudaOf(op, x)
	out := d.empty(op, Float32, x.shape)
	if rows > 0 {
		d.must(op, kernels.LogSoftmaxForward(d.s, ptr(x), ptr(out), rows, c))
	}
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		gx := d.empty(op, Float32, x.shape)
		if rows > 0 {
			d.must(op, kernels.LogSoftmaxBackward(d.s, ptr(out), ptr(g), ptr(gx), rows, c))
		}
		return []*Tensor{gx}
	})
}

// checkLoss checks logits/log-probabilities (N, C) against int64 targets
// (N) in [0, C) as NLLLoss does on the CPU.
func checkLoss(op string, x, targets *Tensor) (n, c int) {
	checkFloat(op, x)
	if x.Dim() != 2 || targets.Dim() != 1 || targets.shape[0] != x.shape[0] {
		panicf(ErrShape, op, "needs log-probabilities (N, C) and targets (N), got %v and %v", x.shape, targets.shape)
	}
	if targets.dtype != Int64 {
		panicf(ErrDType, op, "targets must be int64, got %s", targets.dtype)
	}
	n, c = x.shape[0], x.shape[1]
	if n == 0 {
		panicf(ErrShape, op, "empty batch")
	}
	if lo, hi := int64Bounds(op, targets); lo < 0 || hi >= int64(c) {
		h := download(targets).Int64s()
		for i, t := range h {
			if t < 0 || int(t) >= c {
				panicf(ErrIndex, op, "target %d at position %d is outside [0, %d)", t, i, c)
			}
		}
	}
	return n, c
}

// cudaCrossEntropy is the fused log-softmax + NLL of the kernels package:
// one kernel for the per-row losses, a deterministic sum, one kernel for
// the gradient.
func cudaCrossEntropy(logits, targets *Tensor) *Tensor {
	const op = "CrossEntropy"
	n, c := checkLoss(op, logits, targets)
	d := cudaOf(op, logits)
	loss, lse := d.newRaw(op, int64(n)*4), d.newRaw(op, int64(n)*4)
	d.must(op, kernels.CrossEntropyForward(d.s, ptr(logits), ptr(targets), cudaBufOf(loss).ptr, cudaBufOf(lse).ptr, n, c))
	out := d.empty(op, Float32, []int{})
	d.must(op, kernels.SumF32(d.s, cudaBufOf(loss).ptr, n, ptr(out), 1/float32(n)))
	freeNow(loss)
	if !needsGrad(logits) {
		freeNow(lse)
		return out
	}
	return record(out, op, []*Tensor{logits}, func(g *Tensor) []*Tensor {
		dloss := fillFrom(op, g, 1/float32(n), []int{n})
		gx := d.empty(op, Float32, logits.shape)
		d.must(op, kernels.CrossEntropyBackward(d.s, ptr(logits), ptr(targets), cudaBufOf(lse).ptr, ptr(dloss), ptr(gx), n, c))
		dloss.Free()
		return []*Tensor{gx}
	})
}

func cudaNLLLoss(logp, targets *Tensor) *Tensor {
	const op = "NLLLoss"
	n, c := checkLoss(op, logp, targets)
	d := cudaOf(op, logp)
	loss := d.newRaw(op, int64(n)*4)
	d.launch1D(op, "gt_nll_fwd_f32", int64(n), ptr(logp), ptr(targets), cudaBufOf(loss).ptr, int64(n), int64(c))
	out := d.empty(op, Float32, []int{})
	d.must(op, kernels.SumF32(d.s, cudaBufOf(loss).ptr, n, ptr(out), 1/float32(n)))
	freeNow(loss)
	return record(out, op, []*Tensor{logp}, func(g *Tensor) []*Tensor {
		gl := d.zeros(op, Float32, []int{n, c})
		d.launch1D(op, "gt_nll_bwd_f32", int64(n), ptr(targets), ptr(g), ptr(gl), int64(n), int64(c), 1/float32(n))
		return []*Tensor{gl}
	})
}

// cudaAccuracy takes the arg-max on the device and compares on the host
// (it reads N predictions and targets, a synchronization).
func cudaAccuracy(logits, targets *Tensor) float64 {
	if logits.shape[0] == 0 {
		return 0
	}
	pred := download(cudaArgMax(logits)).Int64s()
	hit := 0
	for i, t := range download(targets).Int64s() {
		if pred[i] == t {
			hit++
		}
	}
	return float64(hit) / float64(len(pred))
}

func cudaDropoutAt(x *Tensor, p float32, seed, base uint64) *Tensor {
	const op = "Dropout"
	checkFloat(op, x)
	d := cudaOf(op, x)
	out := d.empty(op, Float32, x.shape)
	d.must(op, kernels.DropoutForward(d.s, ptr(x), ptr(out), 0, x.n, p, seed, base))
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		gx := d.empty(op, Float32, x.shape)
		d.must(op, kernels.DropoutBackward(d.s, ptr(g), ptr(gx), x.n, p, seed, base))
		return []*Tensor{gx}
	})
}

func cudaIndexSelect(x, idx *Tensor) *Tensor {
	const op = "IndexSelect"
	n := x.Size(0)
	checkDevIndex(op, idx, n)
	f := rowSize(x)
	m := idx.shape[0]
	d := cudaOf(op, x)
	shape := append([]int{m}, x.shape[1:]...)
	out := d.empty(op, x.dtype, shape)
	rowBytes := f * x.dtype.Size()
	if rowBytes%2 != 0 {
		notOnDevice(op+" of bool rows of odd length", d.name)
	}
	if m > 0 && rowBytes > 0 {
		d.must(op, kernels.GatherRows(d.s, ptr(x), ptr(idx), kernels.DTypeInt64, ptr(out), m, rowBytes))
	}
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{scatterAddDev(op, n, idx, g)}
	})
}

// scatterAddDev returns zeros (n, ...) with out[idx[i]] += src[i].
func scatterAddDev(op string, n int, idx, src *Tensor) *Tensor {
	d := cudaOf(op, src)
	f := rowSize(src)
	out := d.zeros(op, Float32, append([]int{n}, src.shape[1:]...))
	if m := src.Size(0); m > 0 && f > 0 {
		d.must(op, kernels.ScatterAddRowsF32(d.s, ptr(src), ptr(idx), kernels.DTypeInt64, ptr(out), m, f))
	}
	return out
}

func cudaIndexAdd(n int, idx, src *Tensor) *Tensor {
	const op = "IndexAdd"
	checkFloat(op, src)
	checkDevIndex(op, idx, n)
	if idx.shape[0] != src.Size(0) {
		panicf(ErrShape, op, "index has %d entries but src has %d rows (shape %v)", idx.shape[0], src.Size(0), src.shape)
	}
	out := scatterAddDev(op, n, idx, src)
	return record(out, op, []*Tensor{src}, func(g *Tensor) []*Tensor {
		return []*Tensor{IndexSelect(g, idx)}
	})
}

func cudaNarrow(x *Tensor, start, length int) *Tensor {
	n := x.Size(0)
	if start < 0 || length < 0 || start+length > n {
		panicf(ErrIndex, "Narrow", "rows [%d, %d) outside a tensor of shape %v", start, start+length, x.shape)
	}
	f := rowSize(x)
	shape := append([]int{length}, x.shape[1:]...)
	out := &Tensor{shape: shape, dtype: x.dtype, st: x.st, off: x.off + start*f, n: length * f}
	return record(out, "Narrow", []*Tensor{x}, func(g *Tensor) []*Tensor {
		d := cudaOf("Narrow", g)
		gx := d.zeros("Narrow", Float32, x.shape)
		if g.n > 0 {
			d.must("Narrow", d.dev.CopyDtoD(ptr(gx).Add(start*f*4), ptr(g), g.n*4))
		}
		return []*Tensor{gx}
	})
}

// transposeDev returns the (n, m) transpose of a float32 (m, n) tensor.
func transposeDev(op string, x *Tensor) *Tensor {
	m, n := x.shape[0], x.shape[1]
	d := cudaOf(op, x)
	out := d.empty(op, Float32, []int{n, m})
	if m == 0 || n == 0 {
		return out
	}
	if m > math.MaxInt32 || (n+31)/32 > 65535 {
		notOnDevice(op+" of more than 2^31 rows or 2M columns", d.name)
	}
	d.must(op, kernels.Launch(d.s, d.fn(op, "gt_transpose_f32"), kernels.Dim3{X: (m + 31) / 32, Y: (n + 31) / 32, Z: 1},
		kernels.Dim3{X: 32, Y: 8, Z: 1}, 0, ptr(x), ptr(out), int32(m), int32(n)))
	return out
}

func cudaTranspose(x *Tensor) *Tensor {
	if x.Dim() != 2 {
		panicf(ErrShape, "Transpose", "needs a 2-D tensor, got shape %v", x.shape)
	}
	if x.dtype != Float32 {
		notOnDevice("Transpose of "+x.dtype.String(), x.st.device)
	}
	out := transposeDev("Transpose", x)
	return record(out, "Transpose", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{transposeDev("Transpose", g)}
	})
}

// copy2d copies rows of w float32 elements between strided layouts.
func (d *cudaDevice) copy2d(op string, src kernels.DevicePtr, sstride int, dst kernels.DevicePtr, dstride, rows, w int) {
	n := int64(rows) * int64(w)
	d.launch1D(op, "gt_copy2d_f32", n, src, int64(sstride), dst, int64(dstride), int64(rows), int64(w))
}

func cudaConcat(ts []*Tensor, dim int) *Tensor {
	const op = "Concat"
	checkFloat(op, ts...)
	rank := ts[0].Dim()
	if dim < 0 {
		dim += rank
	}
	if dim < 0 || dim >= rank {
		panicf(ErrShape, op, "dimension %d out of range for shape %v", dim, ts[0].shape)
	}
	shape := append([]int(nil), ts[0].shape...)
	shape[dim] = 0
	for _, t := range ts {
		if t.Dim() != rank {
			panicf(ErrShape, op, "shapes %v and %v differ in rank", ts[0].shape, t.shape)
		}
		for i := range shape {
			if i != dim && t.shape[i] != ts[0].shape[i] {
				panicf(ErrShape, op, "shapes %v and %v differ outside dimension %d", ts[0].shape, t.shape, dim)
			}
		}
		shape[dim] += t.shape[dim]
	}
	outer, total, inner := splitAt(shape, dim)
	d := cudaOf(op, ts[0])
	out := d.empty(op, Float32, shape)
	offs := make([]int, len(ts))
	at := 0
	for k, t := range ts {
		offs[k] = at
		if w := t.shape[dim] * inner; w > 0 && outer > 0 {
			d.copy2d(op, ptr(t), w, ptr(out).Add(at*inner*4), total*inner, outer, w)
		}
		at += t.shape[dim]
	}
	return record(out, op, ts, func(g *Tensor) []*Tensor {
		gs := make([]*Tensor, len(ts))
		for k, t := range ts {
			if !t.requiresGrad {
				continue
			}
			gt := d.empty(op, Float32, t.shape)
			if w := t.shape[dim] * inner; w > 0 && outer > 0 {
				d.copy2d(op, ptr(g).Add(offs[k]*inner*4), total*inner, ptr(gt), w, outer, w)
			}
			gs[k] = gt
		}
		return gs
	})
}

// onesOn returns ones of t's shape on t's device (the seed of Backward).
func onesOn(t *Tensor) *Tensor {
	d := cudaOf("Backward", t)
	o := d.empty("Backward", Float32, t.shape)
	d.must("Backward", kernels.FillF32(d.s, ptr(o), 1, o.n))
	return o
}

// cudaAddInPlace does dst += src on the device (gradient accumulation).
func cudaAddInPlace(dst, src *Tensor) {
	deviceOf("Backward", dst, src)
	d := cudaOf("Backward", dst)
	d.must("Backward", kernels.AxpyF32(d.s, ptr(src), 1, ptr(dst), dst.n))
}

// deviceElem reads element off of a device tensor as float64 (Item, At).
func deviceElem(t *Tensor, off int) float64 {
	one := &Tensor{shape: []int{1}, dtype: t.dtype, st: t.st, off: t.off + off, n: 1}
	return elem(download(one), 0)
}

// deviceString renders a device tensor (its values read back) as String
// does, with the device named.
func deviceString(t *Tensor) string {
	if ds := cudaBufOf(t.st); ds == nil || ds.freed || ds.cuda == nil {
		return fmt.Sprintf("tensor(<no data>, shape=%v, dtype=%s, device=%s)", t.shape, t.dtype, t.st.device)
	}
	h := download(t)
	h.requiresGrad, h.node = t.requiresGrad, t.node
	s := h.String()
	return s[:len(s)-1] + ", device=" + t.st.device + ")"
}
