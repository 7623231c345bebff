package featstore

import (
	"fmt"
	"github.com/gnnrepl/gnnrepl/internal/workers"
	"runtime"
	"sync/atomic"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Store holds the input features of every node of a graph, (NumNodes, Dim),
// in some storage format, and gathers rows of them as float32 for a
// minibatch. It is the interface the DataLoader fetches input features
// through (sampling.LoaderOptions.NodeFeatStores), as DGL's feature storage
// behind dgl.dataloading.DataLoader.
//
// Gather and GatherInto are safe for concurrent use (loader workers call
// them at once); Close is not.
type Store interface {
	// NumNodes returns the number of rows, N.
	NumNodes() int
	// Dim returns the number of features per row, F.
	Dim() int
	// DType returns the storage dtype (tensor.Float32, Float16, BFloat16,
	// Int8); gathered rows are always float32.
	DType() tensor.DType
	// Bytes returns the bytes the stored features take (values plus any
	// per-row scales), the figure to compare with N*F*4 for float32.
	Bytes() int64
	// Gather returns rows ids, dequantised to float32:
	// (N, F) -> (len(ids), F), a new CPU tensor without autograd history.
	// It panics with ErrIndex naming the first id outside [0, N).
	Gather(ids []int64) *tensor.Tensor
	// GatherInto writes row ids[i], dequantised to float32, to
	// dst[i*stride : i*stride+F], leaving the rest of dst alone, so that
	// stores can fill column ranges of a wider row (Concat). It panics with
	// ErrIndex naming the first id outside [0, N), and with ErrShape when
	// stride < F or dst is shorter than (len(ids)-1)*stride+F.
	GatherInto(dst []float32, stride int, ids []int64)
	// String describes the store in one line.
	String() string
}

// New converts x, a (N, F) float32 CPU tensor, into a Store of the given
// dtype: tensor.Float32 (NewFloat32, no copy), tensor.Float16 (NewFloat16),
// tensor.BFloat16 (NewBFloat16) or tensor.Int8 (NewInt8). It returns an
// error wrapping ErrArgument for another dtype, and the constructor's
// errors. A meta x gives the Meta store that stands for it (NewMeta).
func New(x *tensor.Tensor, dtype tensor.DType) (Store, error) {
	if x != nil && x.IsMeta() {
		return NewMeta(x, dtype)
	}
	switch dtype {
	case tensor.Float32:
		return NewFloat32(x)
	case tensor.Float16:
		return NewFloat16(x)
	case tensor.BFloat16:
		return NewBFloat16(x)
	case tensor.Int8:
		return NewInt8(x)
	}
	return nil, newError(ErrArgument, "New", "dtype %v; want float32, float16, bfloat16 or int8", dtype)
}

// GatherTensor is s.Gather with the ids given as a 1-D int64 tensor, such
// as DataLoader.InputNodes(): (N, F) -> (len(ids), F) float32. It panics
// with ErrShape when ids is not a 1-D int64 CPU tensor, and as s.Gather.
func GatherTensor(s Store, ids *tensor.Tensor) *tensor.Tensor {
	if s == nil {
		panicf(ErrArgument, "GatherTensor", "the store is nil")
	}
	return s.Gather(idSlice("GatherTensor", ids))
}

// idSlice returns the ids of a 1-D int64 CPU tensor (shared), panicking
// with ErrShape naming op for anything else.
func idSlice(op string, ids *tensor.Tensor) []int64 {
	if ids == nil || ids.DType() != tensor.Int64 || ids.Dim() != 1 || ids.Device() != "cpu" {
		desc := "nil"
		if ids != nil {
			desc = fmt.Sprintf("%v %v on %s", ids.DType(), ids.Shape(), ids.Device())
		}
		panicf(ErrShape, op, "ids must be a 1-D int64 tensor on cpu, got %v", desc)
	}
	return ids.Int64s()
}

// gather implements Store.Gather on top of GatherInto.
func gather(s Store, ids []int64) *tensor.Tensor {
	f := s.Dim()
	out := tensor.New(tensor.Float32, len(ids), f)
	s.GatherInto(out.Float32s(), f, ids)
	return out
}

// checkGather validates GatherInto's arguments for a store of n rows of f
// features, panicking as Store.GatherInto documents.
func checkGather(op string, n, f int, dst []float32, stride int, ids []int64) {
	if stride < f {
		panicf(ErrShape, op, "stride %d is smaller than the row width %d", stride, f)
	}
	if len(ids) > 0 && len(dst) < (len(ids)-1)*stride+f {
		panicf(ErrShape, op, "dst has %d values; %d rows of stride %d need %d", len(dst), len(ids), stride, (len(ids)-1)*stride+f)
	}
	checkIDs(op, n, ids)
}

// checkIDs panics with ErrIndex naming the first id outside [0, n).
func checkIDs(op string, n int, ids []int64) {
	un := uint64(n)
	for i, v := range ids {
		if uint64(v) >= un {
			panicf(ErrIndex, op, "node id %d at position %d is outside [0, %d)", v, i, n)
		}
	}
}

// minParallel is the number of values a gather moves before it is split
// over goroutines.
const minParallel = 1 << 15

// parallelRows runs body over [0, n) in contiguous chunks, concurrently over
// GOMAXPROCS goroutines when there are more than minParallel values (n rows
// of f) to produce.
func parallelRows(n, f int, body func(lo, hi int)) {
	nw := min(runtime.GOMAXPROCS(0), n*max(f, 1)/minParallel)
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

// account counts a store's bytes on the "cpu" device (tensor.CountBytes)
// until release, which Close and the store's cleanup both call; only the
// first call releases.
type account struct {
	n      int64
	device string
	done   atomic.Bool
}

func newAccount(n int64) *account { return newAccountOn("cpu", n) }

// newAccountOn counts n bytes on device (a Meta store's).
func newAccountOn(device string, n int64) *account {
	tensor.CountBytes(device, n)
	return &account{n: n, device: device}
}

func (a *account) release() {
	if a != nil && a.done.CompareAndSwap(false, true) {
		tensor.CountBytes(a.device, -a.n)
	}
}

// checkFeatures checks that x is a (N, F) float32 CPU tensor and returns
// its values.
func checkFeatures(op string, x *tensor.Tensor) (data []float32, n, f int, err error) {
	if x == nil {
		return nil, 0, 0, newError(ErrArgument, op, "the feature tensor is nil")
	}
	if x.DType() != tensor.Float32 || x.Dim() != 2 || x.Device() != "cpu" {
		return nil, 0, 0, newError(ErrShape, op, "features must be a (N, F) float32 tensor on cpu, got %v %v on %s",
			x.DType(), x.Shape(), x.Device())
	}
	return x.Float32s(), x.Size(0), x.Size(1), nil
}
