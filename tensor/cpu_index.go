package tensor

import (
	"runtime"

	"github.com/gnnrepl/gnnrepl/internal/workers"
)

// The CPU's index kernels (IndexKernels, index.go). Gathers, copies and
// transposes move elements, so one loop serves every dtype of a size
// (float16 and bfloat16 as their bits); the scatter-add is float32 (the op
// widens other floats). Each fast path sits beside the plain reference
// loop it must agree with exactly.

// checkIndex checks a 1-D int64 CPU index against [0, n) and returns its
// values; it panics with ErrIndex naming the first position outside.
// checkDevIndex checks an index on any device.
func checkIndex(op string, idx *Tensor, n int) []int64 {
	if idx.dtype != Int64 || idx.Dim() != 1 {
		panicf(ErrDType, op, "index must be a 1-D int64 tensor, got %s of shape %v", idx.dtype, idx.shape)
	}
	ids := idx.Int64s()
	for i, v := range ids {
		if v < 0 || v >= int64(n) {
			panicf(ErrIndex, op, "index %d at position %d is outside [0, %d)", v, i, n)
		}
	}
	return ids
}

// GatherRows copies out[i] = x[idx[i]]: float rows in parallel chunks
// (gatherRowsFast), other dtypes with the plain loop (gatherRowsRef).
func (*cpuBackend) GatherRows(out, x, idx *Tensor) {
	ids, f := idx.Int64s(), rowSize(x)
	fast := x.dtype.IsFloatingPoint()
	switch x.dtype.Size() {
	case 8:
		gatherRows(hostView[int64](out), hostView[int64](x), ids, f, fast)
	case 4:
		gatherRows(hostView[float32](out), hostView[float32](x), ids, f, fast)
	case 2:
		gatherRows(hostView[uint16](out), hostView[uint16](x), ids, f, fast)
	default:
		gatherRows(hostView[uint8](out), hostView[uint8](x), ids, f, fast)
	}
}

func gatherRows[T any](od, xd []T, ids []int64, f int, fast bool) {
	if fast {
		gatherRowsFast(od, xd, ids, f)
		return
	}
	gatherRowsRef(od, xd, ids, f)
}

// gatherRowsRef is the reference gather: od[i] = xd[ids[i]], rows of f.
func gatherRowsRef[T any](od, xd []T, ids []int64, f int) {
	for i, v := range ids {
		copy(od[i*f:(i+1)*f], xd[int(v)*f:int(v+1)*f])
	}
}

// gatherRowsFast is gatherRowsRef over chunks of about 16K elements on
// parallel workers.
func gatherRowsFast[T any](od, xd []T, ids []int64, f int) {
	parallelFor(len(ids), 1+(1<<14)/(f+1), func(lo, hi int) {
		gatherRowsRef(od[lo*f:hi*f], xd, ids[lo:hi], f)
	})
}

// ScatterAddRows adds src's rows into out's rows idx[i] (scatterAddFast).
func (*cpuBackend) ScatterAddRows(out, idx, src *Tensor) {
	scatterAddFast(out.Float32s(), src.Float32s(), idx.Int64s(), out.Size(0), rowSize(src))
}

// scatterAddRef is the reference scatter: od[ids[i]] += sd[i] for rows of
// f, in increasing i.
func scatterAddRef(od, sd []float32, ids []int64, f int) {
	for i, v := range ids {
		addTo(sd[i*f:(i+1)*f], od[int(v)*f:int(v+1)*f])
	}
}

// scatterAddFast is scatterAddRef into n rows, parallel over destination
// rows : workers own disjoint ranges
// of rows and each scans all of ids, so every row receives its additions
// in increasing i, as the reference does.
func scatterAddFast(od, sd []float32, ids []int64, n, f int) {
	nw := runtime.GOMAXPROCS(0)
	if nw <= 1 || len(ids)*f < 4*minEdgeWork || n < 2*nw {
		scatterAddRef(od, sd, ids, f)
		return
	}
	var wg workers.Group
	chunk := (n + nw - 1) / nw
	for lo := 0; lo < n; lo += chunk {
		lo64, hi64 := int64(lo), int64(min(lo+chunk, n))
		wg.Go(func() {
			for i, v := range ids {
				if v >= lo64 && v < hi64 {
					addTo(sd[i*f:(i+1)*f], od[v*int64(f):(v+1)*int64(f)])
				}
			}
		})
	}
	wg.Wait()
}

// CopyRows copies rows of w elements between strided layouts, any dtype.
func (*cpuBackend) CopyRows(dst *Tensor, do, ds int, src *Tensor, so, ss, rows, w int) {
	if w == 0 {
		return
	}
	for r := 0; r < rows; r++ {
		copyElems(dst, do+r*ds, src, so+r*ss, w)
	}
}

// Transpose writes x's transpose into out: float32 in 32x32 blocks
// (transposeBlocked), other dtypes with the plain loop (transposeRef).
func (*cpuBackend) Transpose(out, x *Tensor) {
	m, n := x.shape[0], x.shape[1]
	switch x.dtype.Size() {
	case 8:
		transposeRef(hostView[int64](out), hostView[int64](x), m, n)
	case 4:
		transposeBlocked(hostView[float32](out), hostView[float32](x), m, n)
	case 2:
		transposeRef(hostView[uint16](out), hostView[uint16](x), m, n)
	default:
		transposeRef(hostView[uint8](out), hostView[uint8](x), m, n)
	}
}

// transposeRef is the reference transpose: od (n, m) = xd (m, n)^T.
func transposeRef[T any](od, xd []T, m, n int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			od[j*m+i] = xd[i*n+j]
		}
	}
}

// transposeBlocked is transposeRef in 32x32 tiles (both sides stay in
// cache).
func transposeBlocked(od, xd []float32, m, n int) {
	const bs = 32
	for i0 := 0; i0 < m; i0 += bs {
		for j0 := 0; j0 < n; j0 += bs {
			for i := i0; i < i0+bs && i < m; i++ {
				for j := j0; j < j0+bs && j < n; j++ {
					od[j*m+i] = xd[i*n+j]
				}
			}
		}
	}
}
