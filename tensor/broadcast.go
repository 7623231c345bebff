package tensor

// broadcastShapes returns the NumPy broadcast of shapes a and b, or panics
// with ErrShape naming op and both shapes.
func broadcastShapes(op string, a, b []int) []int {
	n := len(a)
	if len(b) > n {
		n = len(b)
	}
	out := make([]int, n)
	for i := 0; i < n; i++ {
		da, db := 1, 1
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db:
			out[i] = da
		case da == 1:
			out[i] = db
		case db == 1:
			out[i] = da
		default:
			panicf(ErrShape, op, "shapes %v and %v cannot be broadcast together", a, b)
		}
	}
	return out
}

// bstrides returns element strides of shape in, aligned to out's rank, with
// 0 on broadcast dimensions.
func bstrides(in, out []int) []int {
	s := make([]int, len(out))
	stride := 1
	for i := len(out) - 1; i >= 0; i-- {
		j := len(in) - len(out) + i
		if j >= 0 && in[j] != 1 {
			s[i] = stride
		}
		if j >= 0 {
			stride *= in[j]
		}
	}
	return s
}

// bcastLoop walks every element of shape out; for each run along the last
// dimension it calls f with the output offset, the offsets of a and b, the
// run length and a's and b's steps along it.
func bcastLoop(out, sa, sb []int, f func(o, a, b, n, as, bs int)) {
	if len(out) == 0 {
		f(0, 0, 0, 1, 0, 0)
		return
	}
	last := len(out) - 1
	n := out[last]
	var rec func(d, o, a, b int)
	ostr := make([]int, len(out))
	st := 1
	for i := last; i >= 0; i-- {
		ostr[i] = st
		st *= out[i]
	}
	rec = func(d, o, a, b int) {
		if d == last {
			f(o, a, b, n, sa[last], sb[last])
			return
		}
		for i := 0; i < out[d]; i++ {
			rec(d+1, o+i*ostr[d], a+i*sa[d], b+i*sb[d])
		}
	}
	rec(0, 0, 0, 0)
}

// sumTo reduces gradient g (shape of a broadcast result) to shape, summing
// over broadcast dimensions, on g's device and in g's dtype (the backend's
// SumTo): g itself when the shapes agree. A 16-bit g other than a bias
// gradient (N, F) -> (F) is reduced through whole float32 copies (counted).
func sumTo(g *Tensor, shape []int) *Tensor {
	if sameShape(g.shape, shape) {
		return g
	}
	if isLow(g.dtype) && !isBiasGrad(g.shape, shape) {
		return castRaw(sumTo(castRaw(g, Float32), shape), g.dtype)
	}
	out := emptyOn("sumTo", g.st.be, g.dtype, true, shape...) // SumTo accumulates
	g.st.be.SumTo(out, g)
	return out
}
