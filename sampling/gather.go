package sampling

import (
	"runtime"
	"strings"

	"github.com/gnnrepl/gnnrepl/featstore"
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
		gatherF32Into(out.Float32s(), t.Float32s(), f, ids)
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

// gatherF32Into copies rows ids of src (rows of f values) into dst
// (len(ids)*f values), over GOMAXPROCS goroutines when it is large. Rows
// go in chunks of gatherChunk: one float of every cache line of a chunk's
// source rows is read first (touchRows), so that the chunk's cache and TLB
// misses overlap instead of stalling each row's copy in turn. On the
// 1.94M x 128 paper features of ogbn-mag a 404K-row gather took 90-140 ms
// so against 185-200 ms row by row (2-core VM under load).
func gatherF32Into(dst, src []float32, f int, ids []int64) {
	parallelRows(len(ids), f, func(lo, hi int) {
		for c := lo; c < hi; c += gatherChunk {
			e := min(c+gatherChunk, hi)
			if f >= 32 {
				touchRows(src, ids[c:e], f)
			}
			for i := c; i < e; i++ {
				r := int(ids[i]) * f
				copy(dst[i*f:(i+1)*f], src[r:r+f])
			}
		}
	})
}

// gatherChunk is the number of rows gatherF32Into prefetches at a time.
const gatherChunk = 64

// touchSink keeps touchRows's loads from being optimised away.
var touchSink float32

// touchRows reads one float of every 64-byte cache line of the rows ids of
// src (width f): a software prefetch whose misses overlap.
func touchRows(src []float32, ids []int64, f int) {
	var t float32
	for _, v := range ids {
		r := src[int(v)*f : int(v+1)*f]
		for k := 0; k < len(r); k += 16 {
			t += r[k]
		}
		t += r[len(r)-1]
	}
	if t == 1.5e38 {
		touchSink = t
	}
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

// isMetaDevice reports whether the canonical device name is a meta device.
func isMetaDevice(device string) bool { return strings.HasPrefix(device, "meta") }

// gatherOn is gatherRows onto device (canonical): on the CPU gatherRows
// itself; on a meta device only the result's shape and dtype, carrying
// for a float32 matrix the density of the gathered rows (read from t when
// it holds values, t's own density when it is meta); elsewhere gathered on
// the host and copied. A meta t off a meta device panics with
// tensor.ErrDevice (the loader's worker turns it into the batch's error).
func gatherOn(device string, t *tensor.Tensor, ids []int64) *tensor.Tensor {
	if !isMetaDevice(device) {
		return toDevice(gatherRows(t, ids), device)
	}
	shape := t.Shape()
	shape[0] = len(ids)
	out := tensor.EmptyOn(device, t.DType(), shape...)
	if t.DType() == tensor.Float32 && t.Dim() == 2 && len(ids) > 0 && shape[1] > 0 {
		d := t.MetaDensity()
		if !t.IsMeta() {
			d = rowDensity(t, ids)
		}
		if d > 0 {
			out.SetMetaDensity(d)
		}
	}
	return out
}

// rowDensity returns the fraction of nonzero values in the rows ids of
// the float32 matrix t on the CPU (0 when they are all zero).
func rowDensity(t *tensor.Tensor, ids []int64) float64 {
	f := t.Size(1)
	src := t.Float32s()
	nnz := 0
	for _, v := range ids {
		for _, x := range src[int(v)*f : int(v+1)*f] {
			if x != 0 {
				nnz++
			}
		}
	}
	return float64(nnz) / float64(len(ids)*f)
}

// gatherStore is featstore.GatherHalf onto device, as gatherOn: on a meta
// device the (len(ids), F) result in the gather dtype, nothing read.
func gatherStore(device string, st featstore.Store, ids *tensor.Tensor, dt tensor.DType) *tensor.Tensor {
	if !isMetaDevice(device) {
		return toDevice(featstore.GatherHalf(st, ids, dt), device)
	}
	return tensor.EmptyOn(device, dt, ids.Size(0), st.Dim())
}

// toDevice returns the batch tensor t (on the CPU) on device, panicking
// with the copy's error.
func toDevice(t *tensor.Tensor, device string) *tensor.Tensor {
	if device == "cpu" {
		return t
	}
	moved, err := t.To(device)
	if err != nil {
		panic(err)
	}
	return moved
}
