package featstore

import (
	"fmt"
	"math"
	"runtime"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Int8 is a Store of 8-bit quantised features with a per-row scale and zero
// point (asymmetric affine quantisation), dequantised to float32 on gather:
// F bytes plus 8 bytes (a float32 scale and a float32 minimum) per row, about
// a quarter of float32 when F is large (Cora's F = 1433: 0.2514x).
//
// Each row x (F values) is quantised with its own range [lo, hi] = [min x,
// max x]:
//
//	scale = (hi - lo) / 255
//	q_j   = round((x_j - lo) / scale)   in [0, 255], stored as q_j - 128 (int8)
//	x̂_j   = lo + scale * q_j            (dequantised, on gather)
//
// (evaluated in float32 as (lo + 128*scale) + scale*(q_j - 128), which
// cannot overflow even when hi - lo exceeds float32's range).
// The zero point is kept as the float32 minimum lo, as FBGEMM's fused 8-bit
// row-wise quantisation (Fused8BitRowwise, used for embedding tables in
// DLRM) keeps a float scale and bias per row, rather than an integer zero
// point as torch.quantize_per_channel does: with an integer zero point, lo
// itself is rounded and the error bound loosens to a whole scale. Rounding
// to the nearest code gives, for every value,
//
//	|x_j - x̂_j| <= scale/2 + 2^-22 * max(|lo|, |hi|)
//
// where the second term bounds float32 rounding in lo + scale*q (it is
// 2^-22/(2/255) ≈ 3e-5 of scale/2 when lo = 0). A row of equal values
// (scale 0) is restored exactly, and so is any row holding only two
// distinct values, such as a row of a bag-of-words matrix normalised to sum
// to 1 (Cora's features), up to float32 rounding.
type Int8 struct {
	codes []int8    // (N*F) q - 128, row-major; nil after Close
	scale []float32 // (N)
	lo    []float32 // (N) row minimum (the zero point)
	n, f  int
	acct  *account
}

var _ Store = (*Int8)(nil)

// NewInt8 quantises x, a (N, F) float32 CPU tensor, into an Int8 store (a
// copy; x is not referenced afterwards), row by row in parallel. Its bytes
// (N*F + 8*N) are counted on the "cpu" device until Close or until the store
// is garbage. It returns an error wrapping ErrShape when x is not such a
// tensor, and one wrapping ErrData naming the row, the column and the value
// when x holds a NaN or an infinity (a row's range would be undefined).
func NewInt8(x *tensor.Tensor) (*Int8, error) {
	data, n, f, err := checkFeatures("NewInt8", x)
	if err != nil {
		return nil, err
	}
	return newInt8("NewInt8", data, n, f)
}

// newInt8 quantises data (N*F values, row-major).
func newInt8(op string, data []float32, n, f int) (*Int8, error) {
	s := &Int8{codes: make([]int8, n*f), scale: make([]float32, n), lo: make([]float32, n), n: n, f: f}
	bad := parallelFirst(n, f, func(a, b int) int {
		for r := a; r < b; r++ {
			if j := quantizeRow(data[r*f:r*f+f], s.codes[r*f:r*f+f], &s.scale[r], &s.lo[r]); j >= 0 {
				return r*f + j
			}
		}
		return -1
	})
	if bad >= 0 {
		return nil, newError(ErrData, op, "value %g at row %d, column %d is not finite; int8 quantisation needs finite features",
			data[bad], bad/f, bad%f)
	}
	s.acct = newAccount(s.Bytes())
	runtime.AddCleanup(s, (*account).release, s.acct)
	return s, nil
}

// quantizeRow quantises x into codes and sets *scale and *lo; it returns
// the index of the first non-finite value, or -1.
func quantizeRow(x []float32, codes []int8, scale, lo *float32) int {
	if len(x) == 0 {
		return -1
	}
	mn, mx := x[0], x[0]
	for j, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return j
		}
		mn, mx = min(mn, v), max(mx, v)
	}
	// The range is formed in float64: hi - lo may exceed float32's range,
	// its 255th part never does.
	sc := float32((float64(mx) - float64(mn)) / 255)
	*scale, *lo = sc, mn
	if sc == 0 {
		// Equal values, or a range too small for a float32 scale: every
		// value is stored as lo.
		for j := range codes {
			codes[j] = -128
		}
		return -1
	}
	inv, m := 1/float64(sc), float64(mn)
	for j, v := range x {
		q := math.RoundToEven((float64(v) - m) * inv)
		q = min(max(q, 0), 255)
		codes[j] = int8(int(q) - 128)
	}
	return -1
}

// NumNodes returns N.
func (s *Int8) NumNodes() int { return s.n }

// Dim returns F.
func (s *Int8) Dim() int { return s.f }

// DType returns tensor.Int8.
func (s *Int8) DType() tensor.DType { return tensor.Int8 }

// Bytes returns N*F + 8*N: one byte per value plus a float32 scale and a
// float32 zero point per row.
func (s *Int8) Bytes() int64 { return int8Bytes(s.n, s.f) }

// int8Bytes is the size of an int8 store of n rows of f values: the codes
// and a float32 scale and zero point per row.
func int8Bytes(n, f int) int64 { return int64(n)*int64(f) + 8*int64(n) }

// RowScale returns row r's scale and zero point (its minimum), so that a
// stored code c in [-128, 127] stands for lo + scale*(c+128). It panics with
// ErrIndex when r is outside [0, N).
func (s *Int8) RowScale(r int64) (scale, lo float32) {
	if s.codes == nil {
		panicf(ErrClosed, "Int8.RowScale", "the store is closed")
	}
	checkIDs("Int8.RowScale", s.n, []int64{r})
	return s.scale[r], s.lo[r]
}

// Gather returns rows ids dequantised to float32, a new (len(ids), F)
// tensor; see Store.Gather. It panics with ErrIndex on an id outside
// [0, N) and with ErrClosed after Close.
func (s *Int8) Gather(ids []int64) *tensor.Tensor { return gather(s, ids) }

// GatherInto writes rows ids dequantised to float32 into dst with the given
// stride; see Store.GatherInto.
func (s *Int8) GatherInto(dst []float32, stride int, ids []int64) {
	const op = "Int8.GatherInto"
	if s.codes == nil {
		panicf(ErrClosed, op, "the store is closed")
	}
	f, codes, scale, lo := s.f, s.codes, s.scale, s.lo
	checkGather(op, s.n, f, dst, stride, ids)
	parallelRows(len(ids), f, func(a, b int) {
		for i := a; i < b; i++ {
			r := int(ids[i])
			// lo + scale*q = (lo + 128*scale) + scale*(q-128): the
			// centred form never overflows, even for a range wider
			// than float32's.
			sc := scale[r]
			m := lo[r] + 128*sc
			src := codes[r*f : r*f+f]
			out := dst[i*stride : i*stride+f]
			out = out[:len(src)]
			for j, c := range src {
				out[j] = m + sc*float32(c)
			}
		}
	})
}

// Close releases the stored codes and scales and their accounting; gathers
// after Close panic with ErrClosed. Close returns nil; closing twice is
// harmless.
func (s *Int8) Close() error {
	s.codes, s.scale, s.lo = nil, nil, nil
	s.acct.release()
	return nil
}

// String describes the store, as
// "Int8(num_nodes=2708, dim=1433, 3.7 MiB, 0.25x float32)".
func (s *Int8) String() string {
	return fmt.Sprintf("Int8(num_nodes=%d, dim=%d, %s, %.2fx float32)", s.n, s.f,
		tensor.FormatBytes(s.Bytes()), ratio(s.Bytes(), s.n, s.f))
}
