package tensor

import "runtime"

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
// over broadcast dimensions.
func sumTo(g *Tensor, shape []int) *Tensor {
	if sameShape(g.shape, shape) {
		return g
	}
	if g.dtype != Float32 {
		return sumToLow(g, shape)
	}
	out := Zeros(shape...)
	od, gd := out.Float32s(), g.Float32s()
	// Common case: bias of shape (F) against (N, F).
	if len(shape) == 1 && len(g.shape) == 2 && shape[0] == g.shape[1] {
		// Column bands on separate goroutines, rows in order within each:
		// the same additions in the same order as one sequential loop.
		f, rows := shape[0], g.shape[0]
		band := f
		if p := runtime.GOMAXPROCS(0); p > 1 && rows*f >= 1<<16 && f >= 16 {
			band = (f/p + 7) &^ 7
		}
		parallelFor(f, band, func(lo, hi int) {
			o := od[lo:hi]
			for r := 0; r < rows; r++ {
				addTo(gd[r*f+lo:r*f+hi], o)
			}
		})
		return out
	}
	so := bstrides(shape, g.shape)
	sg := bstrides(g.shape, g.shape)
	bcastLoop(g.shape, so, sg, func(o, a, b, n, as, bs int) {
		for i := 0; i < n; i++ {
			od[a+i*as] += gd[b+i*bs]
		}
	})
	return out
}
