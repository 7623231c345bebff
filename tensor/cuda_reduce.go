package tensor

import (
	"github.com/gnnrepl/gnnrepl/kernels"
)

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
