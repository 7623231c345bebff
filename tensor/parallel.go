package tensor

import (
	"github.com/gnnrepl/gnnrepl/internal/workers"
)

// parallelFor splits [0, n) into contiguous chunks of at least grain items
// and runs body on them concurrently, one chunk per worker. A panic in a
// worker is re-raised on the caller (internal/workers), where the session
// recovers it.
func parallelFor(n, grain int, body func(lo, hi int)) {
	workers.For(n, grain, body)
}

// axpy does y += a*x.
func axpy(a float32, x, y []float32) {
	y = y[:len(x)]
	if a == 1 {
		for i, v := range x {
			y[i] += v
		}
		return
	}
	for i, v := range x {
		y[i] += a * v
	}
}

// dot returns the inner product of x and y.
func dot(x, y []float32) float32 {
	y = y[:len(x)]
	var s float32
	for i, v := range x {
		s += v * y[i]
	}
	return s
}
