package sampling

import (
	"runtime"

	"github.com/gnnrepl/gnnrepl/internal/workers"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// gatherRows returns t's rows ids, (N, ...) -> (len(ids), ...), in t's dtype,
// without autograd history (the DataLoader's feature fetch). ids must be in
// [0, N). Large float32 gathers are split over GOMAXPROCS goroutines.
func gatherRows(t *tensor.Tensor, ids []int64) *tensor.Tensor {
	shape := t.Shape()
	f := 1
	for _, d := range shape[1:] {
		f *= d
	}
	shape[0] = len(ids)
	out := tensor.Empty(t.DType(), shape...) // every row is copied
	switch t.DType() {
	case tensor.Float32:
		src, dst := t.Float32s(), out.Float32s()
		parallelRows(len(ids), f, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				r := int(ids[i]) * f
				copy(dst[i*f:(i+1)*f], src[r:r+f])
			}
		})
	case tensor.Int64:
		src, dst := t.Int64s(), out.Int64s()
		for i, v := range ids {
			copy(dst[i*f:(i+1)*f], src[int(v)*f:int(v+1)*f])
		}
	case tensor.Bool:
		src, dst := t.Bools(), out.Bools()
		for i, v := range ids {
			copy(dst[i*f:(i+1)*f], src[int(v)*f:int(v+1)*f])
		}
	}
	return out
}

// parallelRows runs body over [0, n) in contiguous chunks, concurrently when
// there are more than about 64K elements (n rows of f) to move.
func parallelRows(n, f int, body func(lo, hi int)) {
	nw := min(runtime.GOMAXPROCS(0), n*f/(1<<16))
	if nw <= 1 {
		body(0, n)
		return
	}
	var wg workers.Group
	chunk := (n + nw - 1) / nw
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Go(func() {
			body(lo, hi)
		})
	}
	wg.Wait()
}
