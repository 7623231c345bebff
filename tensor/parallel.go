package tensor

import (
	"runtime"
	"sync"
)

// parallelFor splits [0, n) into contiguous chunks of at least grain items
// and runs body on them concurrently, one chunk per worker.
func parallelFor(n, grain int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := runtime.GOMAXPROCS(0)
	if grain < 1 {
		grain = 1
	}
	if max := (n + grain - 1) / grain; workers > max {
		workers = max
	}
	if workers <= 1 {
		body(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := lo + chunk
		if hi > n {
			hi = n
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			body(lo, hi)
		}(lo, hi)
	}
	wg.Wait()
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
