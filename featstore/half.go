package featstore

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/gnnrepl/gnnrepl/tensor"
	"github.com/x448/float16"
)

// Float16 is a Store of IEEE 754 binary16 features (1 sign, 5 exponent, 10
// mantissa bits; torch.float16), 2 bytes per value, widened to float32 on
// gather.
//
// Each value is rounded to the nearest float16, ties to even
// (github.com/x448/float16), so for |x| <= 65504
//
//	|x - float16(x)| <= max(2^-11 |x|, 2^-25)
//
// (half a unit in the last place: relative 2^-11 in the normal range above
// 2^-14, absolute 2^-25 among the subnormals). Infinities and NaN are kept.
type Float16 struct{ half }

// BFloat16 is a Store of bfloat16 features (the upper half of a float32: 1
// sign, 8 exponent, 7 mantissa bits; torch.bfloat16), 2 bytes per value,
// widened to float32 on gather.
//
// Each value is rounded to the nearest bfloat16, ties to even, so for every
// finite x that does not round beyond float32's range
//
//	|x - bfloat16(x)| <= max(2^-8 |x|, 2^-134)
//
// (relative 2^-8 in the normal range, absolute 2^-134 among float32's
// subnormals). Infinities and NaN are kept (NaN stays a quiet NaN).
type BFloat16 struct{ half }

var (
	_ Store = (*Float16)(nil)
	_ Store = (*BFloat16)(nil)
)

// half holds the 16-bit values of Float16 and BFloat16.
type half struct {
	bits []uint16 // (N*F), row-major; nil after Close
	n, f int
	bf16 bool
	acct *account
}

// NewFloat16 converts x, a (N, F) float32 CPU tensor, into a Float16 store
// (a copy; x is not referenced afterwards). Its bytes (2*N*F) are counted on
// the "cpu" device until Close or until the store is garbage. It returns an
// error wrapping ErrShape when x is not such a tensor, and one wrapping
// ErrData naming the row, the column and the value when a finite value is
// beyond float16's range (|x| rounds above 65504), where PyTorch's .half()
// would give an infinity.
func NewFloat16(x *tensor.Tensor) (*Float16, error) {
	data, n, f, err := checkFeatures("NewFloat16", x)
	if err != nil {
		return nil, err
	}
	s := &Float16{}
	if err := s.init("NewFloat16", data, n, f, false); err != nil {
		return nil, err
	}
	runtime.AddCleanup(s, (*account).release, s.acct)
	return s, nil
}

// NewBFloat16 converts x, a (N, F) float32 CPU tensor, into a BFloat16 store
// (a copy). Its bytes (2*N*F) are counted on the "cpu" device until Close or
// until the store is garbage. It returns an error wrapping ErrShape when x
// is not such a tensor, and one wrapping ErrData naming the row, the column
// and the value when a finite value rounds beyond float32's range.
func NewBFloat16(x *tensor.Tensor) (*BFloat16, error) {
	data, n, f, err := checkFeatures("NewBFloat16", x)
	if err != nil {
		return nil, err
	}
	s := &BFloat16{}
	if err := s.init("NewBFloat16", data, n, f, true); err != nil {
		return nil, err
	}
	runtime.AddCleanup(s, (*account).release, s.acct)
	return s, nil
}

func (h *half) init(op string, data []float32, n, f int, bf16 bool) error {
	bits := make([]uint16, n*f)
	enc := f16Bits
	if bf16 {
		enc = bf16Bits
	}
	bad := parallelFirst(n, f, func(lo, hi int) int {
		for i := lo * f; i < hi*f; i++ {
			b := enc(data[i])
			bits[i] = b
			if b&0x7fff == infBits(bf16) && !math.IsInf(float64(data[i]), 0) {
				return i
			}
		}
		return -1
	})
	if bad >= 0 {
		name, limit := "float16", "65504"
		if bf16 {
			name, limit = "bfloat16", "3.3895e38"
		}
		return newError(ErrData, op, "value %g at row %d, column %d is beyond %s's range (|x| <= %s)",
			data[bad], bad/f, bad%f, name, limit)
	}
	h.bits, h.n, h.f, h.bf16 = bits, n, f, bf16
	h.acct = newAccount(int64(len(bits)) * 2)
	return nil
}

func infBits(bf16 bool) uint16 {
	if bf16 {
		return 0x7f80
	}
	return 0x7c00
}

// f16Bits rounds x to the nearest float16, ties to even.
func f16Bits(x float32) uint16 { return float16.Fromfloat32(x).Bits() }

// bf16Bits rounds x to the nearest bfloat16, ties to even: the upper 16
// bits of x after adding 0x7fff plus the lowest kept bit. NaN stays NaN
// (quiet bit set).
func bf16Bits(x float32) uint16 {
	u := math.Float32bits(x)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// f16Float32 widens a float16 to float32 exactly: the exponent and
// mantissa bits moved into place and rebased by a multiplication by 2^112
// (which also normalises float16 subnormals), infinities and NaN patched,
// the sign copied.
func f16Float32(h uint16) float32 {
	em := uint32(h & 0x7fff)
	o := math.Float32frombits(em<<13) * 0x1p112
	if em >= 0x7c00 {
		o = math.Float32frombits(math.Float32bits(o) | 0x7f800000)
	}
	return math.Float32frombits(math.Float32bits(o) | uint32(h&0x8000)<<16)
}

// NumNodes returns N.
func (h *half) NumNodes() int { return h.n }

// Dim returns F.
func (h *half) Dim() int { return h.f }

// DType returns tensor.Float16 or tensor.BFloat16.
func (h *half) DType() tensor.DType {
	if h.bf16 {
		return tensor.BFloat16
	}
	return tensor.Float16
}

// Bytes returns N*F*2.
func (h *half) Bytes() int64 { return halfBytes(h.n, h.f) }

// halfBytes is the size of a 16-bit store of n rows of f values.
func halfBytes(n, f int) int64 { return int64(n) * int64(f) * 2 }

// Gather returns rows ids widened to float32, a new (len(ids), F) tensor;
// see Store.Gather. It panics with ErrIndex on an id outside [0, N) and
// with ErrClosed after Close.
func (h *half) Gather(ids []int64) *tensor.Tensor {
	out := tensor.New(tensor.Float32, len(ids), h.f)
	h.GatherInto(out.Float32s(), h.f, ids)
	return out
}

// GatherInto writes rows ids widened to float32 into dst with the given
// stride; see Store.GatherInto.
func (h *half) GatherInto(dst []float32, stride int, ids []int64) {
	op := "Float16.GatherInto"
	if h.bf16 {
		op = "BFloat16.GatherInto"
	}
	if h.bits == nil {
		panicf(ErrClosed, op, "the store is closed")
	}
	f, bits := h.f, h.bits
	checkGather(op, h.n, f, dst, stride, ids)
	if h.bf16 {
		parallelRows(len(ids), f, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				src := bits[int(ids[i])*f : int(ids[i])*f+f]
				out := dst[i*stride : i*stride+f]
				out = out[:len(src)]
				for j, b := range src {
					out[j] = math.Float32frombits(uint32(b) << 16)
				}
			}
		})
		return
	}
	parallelRows(len(ids), f, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			src := bits[int(ids[i])*f : int(ids[i])*f+f]
			out := dst[i*stride : i*stride+f]
			out = out[:len(src)]
			for j, b := range src {
				out[j] = f16Float32(b)
			}
		}
	})
}

// Close releases the stored values and their accounting; gathers after
// Close panic with ErrClosed. Close returns nil; closing twice is harmless.
func (h *half) Close() error {
	h.bits = nil
	h.acct.release()
	return nil
}

// String describes the store, as
// "Float16(num_nodes=2708, dim=1433, 7.4 MiB, 0.50x float32)".
func (h *half) String() string {
	name := "Float16"
	if h.bf16 {
		name = "BFloat16"
	}
	return fmt.Sprintf("%s(num_nodes=%d, dim=%d, %s, %.2fx float32)", name, h.n, h.f,
		tensor.FormatBytes(h.Bytes()), ratio(h.Bytes(), h.n, h.f))
}

// ratio returns bytes / (n*f*4).
func ratio(bytes int64, n, f int) float64 {
	if n == 0 || f == 0 {
		return 0
	}
	return float64(bytes) / (float64(n) * float64(f) * 4)
}

// parallelFirst runs body over [0, n) in contiguous chunks like parallelRows
// and returns the smallest non-negative value a chunk returned, or -1.
func parallelFirst(n, f int, body func(lo, hi int) int) int {
	var mu sync.Mutex
	first := -1
	parallelRows(n, f, func(lo, hi int) {
		if i := body(lo, hi); i >= 0 {
			mu.Lock()
			if first < 0 || i < first {
				first = i
			}
			mu.Unlock()
		}
	})
	return first
}
