package tensor

import "math"

// LogSoftmax returns log(softmax(x)) over the last dimension, computed
// stably as x - max - log(sum(exp(x - max))): (..., C) -> (..., C), float32.
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
	if d := deviceOf("LogSoftmax", x); d != "cpu" {
		return cudaLogSoftmax(x)
	}
	checkFloat("LogSoftmax", x)
	if x.Dim() == 0 {
		panicf(ErrShape, "LogSoftmax", "needs at least 1 dimension")
	}
	c := x.shape[x.Dim()-1]
	rows := 0
	if c > 0 {
		rows = x.n / c
	}
	out := Zeros(x.shape...)
	od, xd := out.Float32s(), x.Float32s()
	parallelFor(rows, 256, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			logSoftmaxRow(xd[r*c:(r+1)*c], od[r*c:(r+1)*c])
		}
	})
	return record(out, "LogSoftmax", []*Tensor{x}, func(g *Tensor) []*Tensor {
		// dx = g - softmax * sum(g)
		gx := Zeros(x.shape...)
		gd, gg := gx.Float32s(), g.Float32s()
		for r := 0; r < rows; r++ {
			var s float32
			for _, v := range gg[r*c : (r+1)*c] {
				s += v
			}
			for j := r * c; j < (r+1)*c; j++ {
				gd[j] = gg[j] - float32(math.Exp(float64(od[j])))*s
			}
		}
		return []*Tensor{gx}
	})
}

func logSoftmaxRow(x, out []float32) {
	m := float32(math.Inf(-1))
	for _, v := range x {
		if v > m {
			m = v
		}
	}
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v - m))
	}
	lse := m + float32(math.Log(s))
	for j, v := range x {
		out[j] = v - lse
	}
}

// Softmax returns softmax over the last dimension: (..., C) -> (..., C).
func Softmax(x *Tensor) *Tensor {
	defer hookOp("Softmax")()
	if isLow(x.dtype) {
		return fp32Op("Softmax", x, Softmax)
	}
	return Exp(LogSoftmax(x))
}

// CrossEntropy returns the mean negative log-likelihood of the int64 class
// targets under softmax(logits), as torch.nn.functional.cross_entropy:
// logits (N, C) float32, targets (N) int64 in [0, C) -> scalar. It panics
// with ErrShape or ErrIndex naming the bad shape or target.
func CrossEntropy(logits, targets *Tensor) *Tensor {
	defer hookOp("CrossEntropy")()
	checkClassTargets("CrossEntropy", "logits", logits, targets)
	if isLow(logits.dtype) {
		return fp32Op("CrossEntropy", logits, func(l *Tensor) *Tensor { return CrossEntropy(l, targets) })
	}
	if d := deviceOf("CrossEntropy", logits, targets); d != "cpu" {
		return cudaCrossEntropy(logits, targets)
	}
	return NLLLoss(LogSoftmax(logits), targets)
}

// checkClassTargets panics, naming op, unless scores (called what) is
// (N, C) with N > 0 and targets is (N) int64, every target in [0, C) when
// they are on the CPU.
func checkClassTargets(op, what string, scores, targets *Tensor) {
	switch {
	case scores == nil || targets == nil:
		panicf(ErrShape, op, "%s and targets must not be nil", what)
	case scores.Dim() != 2 || targets.Dim() != 1 || targets.shape[0] != scores.shape[0]:
		panicf(ErrShape, op, "needs %s (N, C) and targets (N), got %v and %v", what, scores.shape, targets.shape)
	case targets.dtype != Int64:
		panicf(ErrDType, op, "targets must be int64 class indices, got %s", targets.dtype)
	case scores.shape[0] == 0:
		panicf(ErrShape, op, "empty batch")
	}
	if targets.st.device != "cpu" {
		return
	}
	c := int64(scores.shape[1])
	for i, t := range targets.Int64s() {
		if t < 0 || t >= c {
			panicf(ErrIndex, op, "target %d at position %d is outside [0, %d)", t, i, c)
		}
	}
}

// NLLLoss returns the mean of -logp[i, targets[i]]: logp (N, C) float32,
// targets (N) int64 -> scalar (torch.nn.functional.nll_loss).
func NLLLoss(logp, targets *Tensor) *Tensor {
	defer hookOp("NLLLoss")()
	if isLow(logp.dtype) {
		return fp32Op("NLLLoss", logp, func(l *Tensor) *Tensor { return NLLLoss(l, targets) })
	}
	if d := deviceOf("NLLLoss", logp, targets); d != "cpu" {
		return cudaNLLLoss(logp, targets)
	}
	checkFloat("NLLLoss", logp)
	checkClassTargets("NLLLoss", "log-probabilities", logp, targets)
	n, c := logp.shape[0], logp.shape[1]
	ld, td := logp.Float32s(), targets.Int64s()
	var s float64
	for i, t := range td {
		if t < 0 || int(t) >= c {
			panicf(ErrIndex, "NLLLoss", "target %d at position %d is outside [0, %d)", t, i, c)
		}
		s -= float64(ld[i*c+int(t)])
	}
	out := Scalar(float32(s / float64(n)))
	out.shape = []int{}
	return record(out, "NLLLoss", []*Tensor{logp}, func(g *Tensor) []*Tensor {
		gl := Zeros(n, c)
		gd := gl.Float32s()
		v := -g.Float32s()[0] / float32(n)
		for i, t := range td {
			gd[i*c+int(t)] = v
		}
		return []*Tensor{gl}
	})
}

// Accuracy returns the fraction of rows of logits (N, C) whose arg-max
// equals the int64 target (N). It records no gradient.
func Accuracy(logits, targets *Tensor) float64 {
	dev := deviceOf("Accuracy", logits, targets)
	if targets.Dim() != 1 || logits.Dim() != 2 || targets.shape[0] != logits.shape[0] {
		panicf(ErrShape, "Accuracy", "needs logits (N, C) and targets (N), got %v and %v", logits.shape, targets.shape)
	}
	if dev != "cpu" {
		return cudaAccuracy(logits, targets)
	}
	if logits.shape[0] == 0 {
		return 0
	}
	pred := ArgMax(logits).Int64s()
	hit := 0
	for i, t := range targets.Int64s() {
		if pred[i] == t {
			hit++
		}
	}
	return float64(hit) / float64(len(pred))
}
