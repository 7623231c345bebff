package tensor

// Inner loops over the feature dimension for the sparse and gather paths.
// Each is the plain loop of its doc comment unrolled by eight with the
// bounds checks hoisted; the additions happen in the same order as the plain
// loop, so results are bit-identical to it. (gonum's assembly kernels live
// in an internal package and cannot be imported; going through
// blas32.Axpy costs more in argument checks than it saves on the 16–256
// wide rows seen here — see BenchmarkAxpyKernels.)

// addTo does y[i] += x[i] for i < len(x).
func addTo(x, y []float32) {
	n := len(x)
	y = y[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		xs, ys := x[i:i+8:i+8], y[i:i+8:i+8]
		ys[0] += xs[0]
		ys[1] += xs[1]
		ys[2] += xs[2]
		ys[3] += xs[3]
		ys[4] += xs[4]
		ys[5] += xs[5]
		ys[6] += xs[6]
		ys[7] += xs[7]
	}
	for ; i < n; i++ {
		y[i] += x[i]
	}
}

// axpyTo does y[i] += a*x[i] for i < len(x); a == 1 is addTo.
func axpyTo(a float32, x, y []float32) {
	if a == 1 {
		addTo(x, y)
		return
	}
	n := len(x)
	y = y[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		xs, ys := x[i:i+8:i+8], y[i:i+8:i+8]
		ys[0] += a * xs[0]
		ys[1] += a * xs[1]
		ys[2] += a * xs[2]
		ys[3] += a * xs[3]
		ys[4] += a * xs[4]
		ys[5] += a * xs[5]
		ys[6] += a * xs[6]
		ys[7] += a * xs[7]
	}
	for ; i < n; i++ {
		y[i] += a * x[i]
	}
}

// mulAddTo does y[i] += x[i]*z[i] for i < len(x).
func mulAddTo(x, z, y []float32) {
	n := len(x)
	y, z = y[:n], z[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		xs, zs, ys := x[i:i+8:i+8], z[i:i+8:i+8], y[i:i+8:i+8]
		ys[0] += xs[0] * zs[0]
		ys[1] += xs[1] * zs[1]
		ys[2] += xs[2] * zs[2]
		ys[3] += xs[3] * zs[3]
		ys[4] += xs[4] * zs[4]
		ys[5] += xs[5] * zs[5]
		ys[6] += xs[6] * zs[6]
		ys[7] += xs[7] * zs[7]
	}
	for ; i < n; i++ {
		y[i] += x[i] * z[i]
	}
}

// dotSeq returns sum_i x[i]*y[i] accumulated left to right in one float32
// (the same rounding as the plain loop).
func dotSeq(x, y []float32) float32 {
	n := len(x)
	y = y[:n]
	var s float32
	i := 0
	for ; i+8 <= n; i += 8 {
		xs, ys := x[i:i+8:i+8], y[i:i+8:i+8]
		s += xs[0] * ys[0]
		s += xs[1] * ys[1]
		s += xs[2] * ys[2]
		s += xs[3] * ys[3]
		s += xs[4] * ys[4]
		s += xs[5] * ys[5]
		s += xs[6] * ys[6]
		s += xs[7] * ys[7]
	}
	for ; i < n; i++ {
		s += x[i] * y[i]
	}
	return s
}

// scaleTo does y[i] *= a.
func scaleTo(a float32, y []float32) {
	n := len(y)
	i := 0
	for ; i+8 <= n; i += 8 {
		ys := y[i : i+8 : i+8]
		ys[0] *= a
		ys[1] *= a
		ys[2] *= a
		ys[3] *= a
		ys[4] *= a
		ys[5] *= a
		ys[6] *= a
		ys[7] *= a
	}
	for ; i < n; i++ {
		y[i] *= a
	}
}

// touchSink keeps touchRows's loads from being optimised away.
var touchSink float32

// touchRows reads one float of every cache line of the rows idx of u
// (width f) so that their misses overlap: a software prefetch. The passes
// of sumRowsSet then find the rows in cache instead of taking each row's
// misses one pass (eight columns) at a time.
func touchRows(u []float32, idx []int64, f int) {
	var t float32
	for _, s := range idx {
		r := u[int(s)*f : int(s+1)*f]
		for k := 0; k < len(r); k += 16 {
			t += r[k]
		}
		t += r[len(r)-1]
	}
	if t == 1.5e38 {
		touchSink = t
	}
}

// sumRowsSet sets row[j] = scale * (sum over s in idx of u[s*f+j]) for
// j < f (len(row) >= f): adding the rows into a cleared row, then
// scaleTo(scale, row), with the clearing and the scaling folded into the
// register accumulation, so that row is written once (SpMM's "sum" and
// "mean" over float32 messages without edge values). Results are
// bit-identical to the three passes: the sums start from +0 and add in idx
// order, and each is multiplied by scale once (scale 1 leaves it exact).
func sumRowsSet(u []float32, idx []int64, f int, row []float32, scale float32) {
	row = row[:f]
	if f > 16 && len(idx) > 1 {
		touchRows(u, idx, f)
	}
	j := 0
	for ; j+8 <= f; j += 8 {
		var a0, a1, a2, a3, a4, a5, a6, a7 float32
		for _, s := range idx {
			o := int(s)*f + j
			x := u[o : o+8 : o+8]
			a0 += x[0]
			a1 += x[1]
			a2 += x[2]
			a3 += x[3]
			a4 += x[4]
			a5 += x[5]
			a6 += x[6]
			a7 += x[7]
		}
		r := row[j : j+8 : j+8]
		r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] = a0*scale, a1*scale, a2*scale, a3*scale, a4*scale, a5*scale, a6*scale, a7*scale
	}
	for ; j < f; j++ {
		var a float32
		for _, s := range idx {
			a += u[int(s)*f+j]
		}
		row[j] = a * scale
	}
}
