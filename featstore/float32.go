package featstore

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Float32 is a Store of plain float32 features: it wraps a (N, F) float32
// tensor without copying it (the tensor's memory is already counted), and
// Gather copies rows. It is the reference the other stores are compared
// with.
type Float32 struct {
	x    *tensor.Tensor // nil after Close
	data []float32
	n, f int
}

var _ Store = (*Float32)(nil)

// NewFloat32 returns a Store over x, a (N, F) float32 CPU tensor (such as
// g.NData("feat")), sharing its values: later writes to x show in gathers.
// It returns an error wrapping ErrShape when x is not such a tensor.
func NewFloat32(x *tensor.Tensor) (*Float32, error) {
	data, n, f, err := checkFeatures("NewFloat32", x)
	if err != nil {
		return nil, err
	}
	return &Float32{x: x.Detach(), data: data, n: n, f: f}, nil
}

// NumNodes returns N.
func (s *Float32) NumNodes() int { return s.n }

// Dim returns F.
func (s *Float32) Dim() int { return s.f }

// DType returns tensor.Float32.
func (s *Float32) DType() tensor.DType { return tensor.Float32 }

// Bytes returns N*F*4.
func (s *Float32) Bytes() int64 { return int64(s.n) * int64(s.f) * 4 }

// Tensor returns the wrapped (N, F) tensor (nil after Close).
func (s *Float32) Tensor() *tensor.Tensor { return s.x }

// Gather returns rows ids as a new (len(ids), F) float32 tensor; see
// Store.Gather. It panics with ErrIndex on an id outside [0, N) and with
// ErrClosed after Close.
func (s *Float32) Gather(ids []int64) *tensor.Tensor { return gather(s, ids) }

// GatherInto copies rows ids into dst with the given stride; see
// Store.GatherInto.
func (s *Float32) GatherInto(dst []float32, stride int, ids []int64) {
	const op = "Float32.GatherInto"
	if s.x == nil {
		panicf(ErrClosed, op, "the store is closed")
	}
	f := s.f
	checkGather(op, s.n, f, dst, stride, ids)
	src := s.data
	parallelRows(len(ids), f, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := int(ids[i]) * f
			copy(dst[i*stride:i*stride+f], src[r:r+f])
		}
	})
}

// Close drops the store's reference to the tensor; the tensor's memory is
// released when nothing else holds it. Gathers after Close panic with
// ErrClosed. Close returns nil.
func (s *Float32) Close() error {
	s.x, s.data = nil, nil
	return nil
}

// String describes the store, as "Float32(num_nodes=2708, dim=1433, 14.8 MiB)".
func (s *Float32) String() string {
	return fmt.Sprintf("Float32(num_nodes=%d, dim=%d, %s)", s.n, s.f, tensor.FormatBytes(s.Bytes()))
}
