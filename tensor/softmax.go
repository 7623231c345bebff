package tensor

// LogSoftmax returns log(softmax(x)) over the last dimension, computed
// stably as x - max - log(sum(exp(x - max))): (..., C) -> (..., C),
// float32, on x's device. It panics with ErrShape for a 0-dimensional x
// and ErrDType for a non-float one. Kernels: cpu_reduce.go, cuda_reduce.go
// (kernels.LogSoftmaxForward, LogSoftmaxBackward).
//
// LogSoftmax, Softmax, CrossEntropy and NLLLoss are on autocast's float32
// list: a float16 or bfloat16 input is computed on in float32, and the
// result is float32 inside an autocast region and the input's dtype
// outside it.
func LogSoftmax(x *Tensor) *Tensor {
	defer hookOp("LogSoftmax")()
	if isLow(x.dtype) {
		return fp32Op("LogSoftmax", x, LogSoftmax)
	}
	be := backendOf("LogSoftmax", x)
	checkFloat("LogSoftmax", x)
	if x.Dim() == 0 {
		panicf(ErrShape, "LogSoftmax", "needs at least 1 dimension")
	}
	out := emptyOn("LogSoftmax", be, Float32, false, x.shape...)
	be.LogSoftmax(out, x)
	return record(out, "LogSoftmax", []*Tensor{x}, func(g *Tensor) []*Tensor { return gradLogSoftmax(g, out) })
}

// logSoftmaxBackward returns g - exp(out) * sum(g) per row, out the output
// of LogSoftmax and g its gradient. It records no history.
func logSoftmaxBackward(g, out *Tensor) *Tensor {
	be := backendOf("LogSoftmax", g, out)
	checkFloat("LogSoftmax", g, out)
	gx := emptyOn("LogSoftmax", be, Float32, false, out.shape...)
	be.LogSoftmaxBackward(gx, out, g)
	return gx
}

// Softmax returns softmax over the last dimension: (..., C) -> (..., C),
// exp(LogSoftmax(x)); see LogSoftmax.
func Softmax(x *Tensor) *Tensor {
	defer hookOp("Softmax")()
	if isLow(x.dtype) {
		return fp32Op("Softmax", x, Softmax)
	}
	return Exp(LogSoftmax(x))
}

// CrossEntropy returns the mean negative log-likelihood of the int64 class
// targets under softmax(logits), as torch.nn.functional.cross_entropy:
// logits (N, C) float32, N > 0, targets (N) int64 in [0, C) -> scalar, on
// their device. It is NLLLoss(LogSoftmax(logits), targets) on every device
// (so it allocates and saves the (N, C) log-probabilities). It panics with
// ErrDevice for tensors on two devices, ErrShape or ErrDType naming the
// bad shape or dtype, and ErrIndex naming the first target outside [0, C)
// (on a GPU from the bounds recorded when the targets were uploaded, else
// by reading them back; meta targets are not read). Kernels: those of
// LogSoftmax and NLLLoss.
func CrossEntropy(logits, targets *Tensor) *Tensor {
	defer hookOp("CrossEntropy")()
	be := backendOf("CrossEntropy", logits, targets)
	checkClassTargets("CrossEntropy", "logits", logits, targets)
	if isLow(logits.dtype) {
		return fp32Op("CrossEntropy", logits, func(l *Tensor) *Tensor { return crossEntropy(be, l, targets) })
	}
	checkFloat("CrossEntropy", logits)
	return crossEntropy(be, logits, targets)
}

// crossEntropy is NLLLoss(LogSoftmax(logits), targets) on checked
// arguments: the targets are not checked again, and the NLLLoss is
// bracketed by its op hook as the public op is.
func crossEntropy(be Backend, logits, targets *Tensor) *Tensor {
	logp := LogSoftmax(logits)
	defer hookOp("NLLLoss")()
	return nllLoss(be, logp, targets)
}

// checkClassTargets panics, naming op, unless scores (called what) is
// (N, C) with N > 0 and targets is (N) int64 with every target in [0, C):
// on the CPU by reading them, on a GPU from the bounds recorded at upload
// (else by reading them back); meta targets are not read.
func checkClassTargets(op, what string, scores, targets *Tensor) {
	switch {
	case scores == nil || targets == nil:
		panicf(ErrArgument, op, "%s and targets must not be nil", what)
	case scores.Dim() != 2 || targets.Dim() != 1 || targets.shape[0] != scores.shape[0]:
		panicf(ErrShape, op, "needs %s (N, C) and targets (N), got %v and %v", what, scores.shape, targets.shape)
	case targets.dtype != Int64:
		panicf(ErrDType, op, "targets must be int64 class indices, got %s", targets.dtype)
	case scores.shape[0] == 0:
		panicf(ErrShape, op, "empty batch")
	}
	checkDevValues(op, "target", targets, scores.shape[1])
}

// NLLLoss returns the mean of -logp[i, targets[i]]: logp (N, C) float32,
// N > 0, targets (N) int64 in [0, C) -> scalar, on their device
// (torch.nn.functional.nll_loss). It panics as CrossEntropy does. Kernels:
// cpu_reduce.go (float64 accumulation), cuda_reduce.go (kernels.NLLForwardF32,
// kernels.SumF32, kernels.NLLBackwardF32).
func NLLLoss(logp, targets *Tensor) *Tensor {
	defer hookOp("NLLLoss")()
	be := backendOf("NLLLoss", logp, targets)
	if logp != nil && !isLow(logp.dtype) {
		checkFloat("NLLLoss", logp)
	}
	checkClassTargets("NLLLoss", "log-probabilities", logp, targets)
	if isLow(logp.dtype) {
		return fp32Op("NLLLoss", logp, func(l *Tensor) *Tensor { return nllLoss(be, l, targets) })
	}
	return nllLoss(be, logp, targets)
}

// nllLoss is NLLLoss on checked float32 arguments.
func nllLoss(be Backend, logp, targets *Tensor) *Tensor {
	out := emptyOn("NLLLoss", be, Float32, false)
	be.NLLLoss(out, logp, targets)
	return record(out, "NLLLoss", []*Tensor{logp}, func(g *Tensor) []*Tensor { return gradNLLLoss(g, logp, targets) })
}

// nllLossBackward returns the gradient of NLLLoss for logp of shape
// (n, c): -g/n at [i, targets[i]], zero elsewhere. It records no history.
func nllLossBackward(g, targets *Tensor, n, c int) *Tensor {
	be := backendOf("NLLLoss", g, targets)
	checkFloat("NLLLoss", g)
	gl := emptyOn("NLLLoss", be, Float32, true, n, c)
	be.NLLLossBackward(gl, g, targets)
	return gl
}

// Accuracy returns the fraction of rows of logits (N, C) whose arg-max
// equals the int64 target (N), 0 for N = 0. The arg-max runs on the
// tensors' device and the comparison reads N predictions and targets back
// (on a GPU, a synchronization). It records no gradient. It panics with
// ErrDevice for tensors on two devices or on the meta device (which has
// no values), ErrShape or ErrDType for bad shapes or dtypes. Kernels: those
// of ArgMax, and CountEqual in cpu_reduce.go and cuda_reduce.go.
func Accuracy(logits, targets *Tensor) float64 {
	be := backendOf("Accuracy", logits, targets)
	if targets.Dim() != 1 || logits.Dim() != 2 || targets.shape[0] != logits.shape[0] {
		panicf(ErrShape, "Accuracy", "needs logits (N, C) and targets (N), got %v and %v", logits.shape, targets.shape)
	}
	if targets.dtype != Int64 {
		panicf(ErrDType, "Accuracy", "targets must be int64 class indices, got %s", targets.dtype)
	}
	if logits.shape[0] == 0 {
		return 0
	}
	pred := ArgMax(logits)
	return float64(be.CountEqual(pred, targets)) / float64(pred.n)
}
