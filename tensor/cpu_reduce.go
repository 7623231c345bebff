package tensor

import "math"

// The CPU's ReduceKernels (reduce.go, softmax.go). Float tensors are
// float32 except ArgMax's input, read through the block accessors
// (floatsOf), one path for every float dtype. Sums keep today's orders:
// Sum and NLLLoss accumulate in float64 in index order, SumDim adds the
// rows of each outer block in order, LogSoftmax sums each row in float64.
// The fast path of LogSoftmax (rows in parallel) computes exactly what its
// reference loop, logSoftmaxRef, computes.

func (*cpuBackend) Sum(out, x *Tensor) {
	var s float64
	for _, v := range x.Float32s() {
		s += float64(v)
	}
	out.Float32s()[0] = float32(s)
}

func (*cpuBackend) SumDim(out, x *Tensor, outer, d, inner int) {
	od, xd := out.Float32s(), x.Float32s()
	clear(od)
	for o := 0; o < outer; o++ {
		dst := od[o*inner : (o+1)*inner]
		for j := 0; j < d; j++ {
			axpy(1, xd[(o*d+j)*inner:(o*d+j+1)*inner], dst)
		}
	}
}

func (*cpuBackend) ExpandDim(out, g *Tensor, outer, d, inner int) {
	od, gd := out.Float32s(), g.Float32s()
	if outer == 1 && inner == 1 { // a scalar filled into out (Sum's gradient)
		v := gd[0]
		for i := range od {
			od[i] = v
		}
		return
	}
	for o := 0; o < outer; o++ {
		src := gd[o*inner : (o+1)*inner]
		for j := 0; j < d; j++ {
			copy(od[(o*d+j)*inner:(o*d+j+1)*inner], src)
		}
	}
}

// ArgMax reads the rows of x through the block accessors: a float32 row
// is its own slice, a float16 or bfloat16 row is widened into one row of
// scratch (not counted by the memory accounting).
func (*cpuBackend) ArgMax(out, x *Tensor) {
	n, c := x.shape[0], x.shape[1]
	od, src := out.Int64s(), floatsOf(x)
	var buf []float32
	if src.dt != Float32 {
		buf = make([]float32, c)
	}
	for i := 0; i < n; i++ {
		od[i] = int64(argMaxRow(src.load(i*c, (i+1)*c, buf)))
	}
}

// argMaxRow returns the index of the first largest value of row (0 for an
// empty row).
func argMaxRow(row []float32) int {
	best := 0
	for j := 1; j < len(row); j++ {
		if row[j] > row[best] {
			best = j
		}
	}
	return best
}

// lastDim returns the size of t's last dimension and the number of rows
// along it.
func lastDim(t *Tensor) (c, rows int) {
	c = t.shape[t.Dim()-1]
	if c > 0 {
		rows = t.n / c
	}
	return c, rows
}

func (*cpuBackend) LogSoftmax(out, x *Tensor) {
	c, rows := lastDim(x)
	od, xd := out.Float32s(), x.Float32s()
	parallelFor(rows, 256, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			logSoftmaxRow(xd[r*c:(r+1)*c], od[r*c:(r+1)*c])
		}
	})
}

// logSoftmaxRef is the reference of the CPU's LogSoftmax: the rows one
// after the other.
func logSoftmaxRef(out, x []float32, rows, c int) {
	for r := 0; r < rows; r++ {
		logSoftmaxRow(x[r*c:(r+1)*c], out[r*c:(r+1)*c])
	}
}

// logSoftmaxRow writes x - max - log(sum(exp(x - max))) into out, the sum
// in float64.
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

func (*cpuBackend) LogSoftmaxBackward(gx, out, g *Tensor) {
	c, rows := lastDim(out)
	gd, gg, od := gx.Float32s(), g.Float32s(), out.Float32s()
	for r := 0; r < rows; r++ {
		var s float32
		for _, v := range gg[r*c : (r+1)*c] {
			s += v
		}
		for j := r * c; j < (r+1)*c; j++ {
			gd[j] = gg[j] - float32(math.Exp(float64(od[j])))*s
		}
	}
}

func (*cpuBackend) NLLLoss(out, logp, targets *Tensor) {
	n, c := logp.shape[0], logp.shape[1]
	ld := logp.Float32s()
	var s float64
	for i, t := range targets.Int64s() {
		s -= float64(ld[i*c+int(t)])
	}
	out.Float32s()[0] = float32(s / float64(n))
}

func (*cpuBackend) NLLLossBackward(gl, g, targets *Tensor) {
	n, c := gl.shape[0], gl.shape[1]
	gd := gl.Float32s()
	v := -g.Float32s()[0] / float32(n)
	for i, t := range targets.Int64s() {
		gd[i*c+int(t)] = v
	}
}

func (*cpuBackend) CountEqual(a, b *Tensor) int { return countEqual(a.Int64s(), b.Int64s()) }

// countEqual returns how many a[i] == b[i].
func countEqual(a, b []int64) int {
	hit := 0
	for i, v := range b[:len(a)] {
		if a[i] == v {
			hit++
		}
	}
	return hit
}
