package featstore

import (
	"fmt"
	"runtime"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Meta is a Store on a meta device ("meta", "meta:cuda"): the node count,
// width, storage dtype and bytes of a store whose values it does not hold,
// as a meta tensor stands for a tensor (PyTorch's meta device). New makes
// one when its features are a meta tensor; memplan.Predict plans a
// compressed store this way. Its Bytes are those of the store it stands
// for and are counted on its device until Close or until it is garbage.
// Gather returns a meta (len(ids), F) float32 tensor; GatherInto panics
// with tensor.ErrDevice (there are no values to copy).
type Meta struct {
	n, f   int
	dt     tensor.DType
	device string
	acct   *account
}

// NewMeta returns the Meta store of x, a (N, F) float32 meta tensor, stored
// as dtype (float32, float16, bfloat16 or int8). A float32 store shares
// x's bytes, as Float32 shares its tensor; the others count what their
// copy takes (2*N*F, or N*F + 8*N for int8). It returns an *Error of kind
// ErrShape when x is not a (N, F) float32 meta tensor and ErrArgument for
// another dtype.
func NewMeta(x *tensor.Tensor, dtype tensor.DType) (*Meta, error) {
	if x == nil || !x.IsMeta() || x.DType() != tensor.Float32 || x.Dim() != 2 {
		desc := "nil"
		if x != nil {
			desc = fmt.Sprintf("%v %v on %s", x.DType(), x.Shape(), x.Device())
		}
		return nil, newError(ErrShape, "NewMeta", "features must be a (N, F) float32 meta tensor, got %s", desc)
	}
	n, f := x.Size(0), x.Size(1)
	var bytes int64
	switch dtype {
	case tensor.Float32:
	case tensor.Float16, tensor.BFloat16:
		bytes = halfBytes(n, f)
	case tensor.Int8:
		bytes = int8Bytes(n, f)
	default:
		return nil, newError(ErrArgument, "NewMeta", "dtype %v; want float32, float16, bfloat16 or int8", dtype)
	}
	s := &Meta{n: n, f: f, dt: dtype, device: x.Device(), acct: newAccountOn(x.Device(), bytes)}
	runtime.AddCleanup(s, (*account).release, s.acct)
	return s, nil
}

// NumNodes returns N.
func (s *Meta) NumNodes() int { return s.n }

// Dim returns F.
func (s *Meta) Dim() int { return s.f }

// DType returns the storage dtype it stands for.
func (s *Meta) DType() tensor.DType { return s.dt }

// Bytes returns the bytes of the store it stands for beyond its features'
// tensor (0 for float32).
func (s *Meta) Bytes() int64 { return s.acct.n }

// Gather returns a (len(ids), F) float32 tensor on the store's device,
// without values.
func (s *Meta) Gather(ids []int64) *tensor.Tensor {
	checkIDs("Meta.Gather", s.n, ids)
	return tensor.EmptyOn(s.device, tensor.Float32, len(ids), s.f)
}

// GatherInto panics with tensor.ErrDevice: a Meta store has no values.
func (s *Meta) GatherInto(dst []float32, stride int, ids []int64) {
	panicf(tensor.ErrDevice, "Meta.GatherInto", "a store on %s has no values to copy", s.device)
}

// Close releases the accounting. It returns nil; closing twice is
// harmless.
func (s *Meta) Close() error {
	s.acct.release()
	return nil
}

func (s *Meta) String() string {
	return fmt.Sprintf("featstore.Meta(%d x %d, %s on %s, %s)", s.n, s.f, s.dt, s.device, tensor.FormatBytes(s.Bytes()))
}
