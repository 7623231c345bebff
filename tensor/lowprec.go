package tensor

import (
	"math"
	"sync"

	"github.com/x448/float16"
)

// Low-precision storage. Float16 and BFloat16 tensors keep their elements
// as bits in a []uint16 and Int8 tensors in a []int8. Ops never compute in
// 16 bits: they widen blocks of elements to float32, compute and accumulate
// in float32, and round the results once when they store them (round to
// nearest, ties to even; NaN stays NaN). The saving is memory: a float16 or
// bfloat16 activation takes half the bytes of a float32 one, and the
// tensors an op keeps for its backward pass are kept in the low dtype.
//
// Scratch space: an op on low-precision tensors widens at most a block
// (lowBlock elements, or one row) per worker at a time; those fixed-size
// buffers are not counted by the memory accounting. Whole-tensor float32
// copies, where an op needs one, are tensors and are counted.

// lowBlock is the number of elements an elementwise op widens at a time.
const lowBlock = 2048

// IsFloatingPoint reports whether d is a floating-point dtype (Float32,
// Float16, BFloat16), as torch.is_floating_point.
func (d DType) IsFloatingPoint() bool { return d == Float32 || d == Float16 || d == BFloat16 }

// isLow reports whether d is a 16-bit float dtype.
func isLow(d DType) bool { return d == Float16 || d == BFloat16 }

// PromoteTypes returns the dtype an elementwise op on a and b computes its
// result in (torch.promote_types for the dtypes here): the dtype itself when
// a == b, Float32 when either is Float32 or when they are Float16 and
// BFloat16, and for a float with an integer or bool dtype the float. Two
// non-float dtypes promote to Int64 (Bool with Bool to Bool).
func PromoteTypes(a, b DType) DType {
	switch {
	case a == b:
		return a
	case a.IsFloatingPoint() && b.IsFloatingPoint():
		return Float32
	case a.IsFloatingPoint():
		return a
	case b.IsFloatingPoint():
		return b
	}
	return Int64
}

// f16Table maps every float16 bit pattern to its float32 value; it is
// built on first use (256 KiB).
var (
	f16Once  sync.Once
	f16Table *[1 << 16]float32
)

func f16tab() *[1 << 16]float32 {
	f16Once.Do(func() {
		t := new([1 << 16]float32)
		for i := range t {
			t[i] = float16.Frombits(uint16(i)).Float32()
		}
		f16Table = t
	})
	return f16Table
}

// bf16ToF32 widens bfloat16 bits exactly.
func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// f32ToBF16 rounds f to the nearest bfloat16, ties to even; NaN stays a
// (quiet) NaN with its sign, and values beyond bfloat16's range round to
// infinity.
func f32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// f32ToF16 rounds f to the nearest float16, ties to even (x448/float16);
// NaN stays NaN, values beyond ±65504 (after rounding) become ±Inf.
func f32ToF16(f float32) uint16 { return uint16(float16.Fromfloat32(f)) }

// lowElem widens one element of dtype dt (Float16 or BFloat16).
func lowElem(dt DType, h uint16) float32 {
	if dt == BFloat16 {
		return bf16ToF32(h)
	}
	return f16tab()[h]
}

// lowRound rounds f to dtype dt (Float16 or BFloat16) and returns its bits.
func lowRound(dt DType, f float32) uint16 {
	if dt == BFloat16 {
		return f32ToBF16(f)
	}
	return f32ToF16(f)
}

// lowToF32 widens src (dtype dt) into dst[:len(src)].
func lowToF32(dt DType, src []uint16, dst []float32) {
	dst = dst[:len(src)]
	if dt == BFloat16 {
		for i, h := range src {
			dst[i] = math.Float32frombits(uint32(h) << 16)
		}
		return
	}
	t := f16tab()
	for i, h := range src {
		dst[i] = t[h]
	}
}

// f32ToLow rounds src into dst[:len(src)] as dtype dt.
func f32ToLow(dt DType, src []float32, dst []uint16) {
	dst = dst[:len(src)]
	if dt == BFloat16 {
		for i, f := range src {
			dst[i] = f32ToBF16(f)
		}
		return
	}
	for i, f := range src {
		dst[i] = uint16(float16.Fromfloat32(f))
	}
}

// f32ToInt8 converts f to int8 by truncation toward zero, saturating at
// -128 and 127; NaN gives 0.
func f32ToInt8(f float64) int8 {
	switch {
	case f != f:
		return 0
	case f >= 127:
		return 127
	case f <= -128:
		return -128
	}
	return int8(f)
}

// floats reads the elements of a float tensor (any float dtype) as float32
// in blocks.
type floats struct {
	f32 []float32
	u16 []uint16
	dt  DType
}

func floatsOf(t *Tensor) floats {
	switch t.dtype {
	case Float32:
		return floats{f32: t.Float32s(), dt: Float32}
	case Float16, BFloat16:
		return floats{u16: t.Uint16s(), dt: t.dtype}
	}
	panicf(ErrDType, "float", "needs a floating-point tensor, got %s of shape %v", t.dtype, t.shape)
	return floats{}
}

// load returns elements [lo, hi) as float32: the tensor's own slice for
// float32, else the elements widened into buf.
func (s floats) load(lo, hi int, buf []float32) []float32 {
	if s.dt == Float32 {
		return s.f32[lo:hi:hi]
	}
	b := buf[: hi-lo : hi-lo]
	lowToF32(s.dt, s.u16[lo:hi], b)
	return b
}

// slot returns where results for elements [lo, hi) are written: the
// tensor's own slice for float32, else buf; store then rounds buf into the
// tensor.
func (s floats) slot(lo, hi int, buf []float32) []float32 {
	if s.dt == Float32 {
		return s.f32[lo:hi:hi]
	}
	return buf[: hi-lo : hi-lo]
}

func (s floats) store(lo, hi int, b []float32) {
	if s.dt != Float32 {
		f32ToLow(s.dt, b, s.u16[lo:hi])
	}
}

// scratch is one worker's widening buffers.
type scratch struct{ a, b, c [lowBlock]float32 }

// lowBlocks runs body over [0, n) in blocks of at most lowBlock elements,
// chunks of blocks running in parallel, each worker with its own scratch.
func lowBlocks(n int, body func(lo, hi int, s *scratch)) {
	parallelFor(n, 1<<15, func(lo, hi int) {
		s := new(scratch)
		for b := lo; b < hi; b += lowBlock {
			body(b, min(b+lowBlock, hi), s)
		}
	})
}

// castRaw converts t to dtype dt without autograd, on t's device (the
// backend's Cast): a new tensor (t itself when the dtype is already dt).
// Floats round to nearest even; floats to Int8 and Int64 truncate toward
// zero (Int8 saturating, NaN giving 0); anything to Bool is value != 0.
func castRaw(t *Tensor, dt DType) *Tensor {
	if t.dtype == dt {
		return t
	}
	out := emptyOn("Cast", t.st.be, dt, false, t.shape...) // every element is written
	t.st.be.Cast(out, t)
	return out
}

// castElems converts the CPU tensor t into out (t's shape, another dtype)
// as castRaw describes: the CPU's Cast kernel.
func castElems(out, t *Tensor) {
	dt := out.dtype
	n := t.n
	switch {
	case t.dtype == Float32 && isLow(dt):
		src, dst := t.Float32s(), out.Uint16s()
		parallelFor(n, 1<<15, func(lo, hi int) { f32ToLow(dt, src[lo:hi], dst[lo:hi]) })
	case isLow(t.dtype) && dt == Float32:
		src, dst := t.Uint16s(), out.Float32s()
		parallelFor(n, 1<<15, func(lo, hi int) { lowToF32(t.dtype, src[lo:hi], dst[lo:hi]) })
	case isLow(t.dtype) && isLow(dt):
		src, dst := floatsOf(t), floatsOf(out)
		lowBlocks(n, func(lo, hi int, s *scratch) {
			x := src.load(lo, hi, s.a[:])
			f32ToLow(dt, x, dst.u16[lo:hi])
		})
	case t.dtype == Int8 && dt == Float32:
		src, dst := t.Int8s(), out.Float32s()
		for i, v := range src {
			dst[i] = float32(v)
		}
	default:
		for i := 0; i < n; i++ {
			setElem(out, i, elem(t, i))
		}
	}
}

// elem returns element i (flat, from t's offset) of a CPU tensor as float64.
func elem(t *Tensor, i int) float64 {
	switch t.dtype {
	case Float32:
		return float64(hostAll[float32](t.st)[t.off+i])
	case Int64:
		return float64(hostAll[int64](t.st)[t.off+i])
	case Bool:
		if hostAll[bool](t.st)[t.off+i] {
			return 1
		}
		return 0
	case Float16, BFloat16:
		return float64(lowElem(t.dtype, hostAll[uint16](t.st)[t.off+i]))
	case Int8:
		return float64(hostAll[int8](t.st)[t.off+i])
	}
	return 0
}

// setElem stores v into element i of a CPU tensor, converted as castRaw
// does.
func setElem(t *Tensor, i int, v float64) {
	switch t.dtype {
	case Float32:
		hostAll[float32](t.st)[t.off+i] = float32(v)
	case Int64:
		switch {
		case v != v:
			hostAll[int64](t.st)[t.off+i] = 0
		case v >= math.MaxInt64:
			hostAll[int64](t.st)[t.off+i] = math.MaxInt64
		case v <= math.MinInt64:
			hostAll[int64](t.st)[t.off+i] = math.MinInt64
		default:
			hostAll[int64](t.st)[t.off+i] = int64(v)
		}
	case Bool:
		hostAll[bool](t.st)[t.off+i] = v != 0
	case Float16, BFloat16:
		hostAll[uint16](t.st)[t.off+i] = lowRound(t.dtype, float32(v))
	case Int8:
		hostAll[int8](t.st)[t.off+i] = f32ToInt8(v)
	}
}

// copyElems copies n elements from src (from element so) to dst (from
// element do); both have the same dtype and live on the CPU.
func copyElems(dst *Tensor, do int, src *Tensor, so, n int) {
	a, b := dst.off+do, src.off+so
	switch dst.dtype {
	case Float32:
		copy(hostAll[float32](dst.st)[a:a+n], hostAll[float32](src.st)[b:b+n])
	case Int64:
		copy(hostAll[int64](dst.st)[a:a+n], hostAll[int64](src.st)[b:b+n])
	case Bool:
		copy(hostAll[bool](dst.st)[a:a+n], hostAll[bool](src.st)[b:b+n])
	case Float16, BFloat16:
		copy(hostAll[uint16](dst.st)[a:a+n], hostAll[uint16](src.st)[b:b+n])
	case Int8:
		copy(hostAll[int8](dst.st)[a:a+n], hostAll[int8](src.st)[b:b+n])
	}
}
