package featstore

import (
	"math"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// HalfGatherer is implemented by the stores that can gather rows straight
// into float16 or bfloat16 bits, with no float32 copy of the rows in
// between: every store of this package (Float32, Float16, BFloat16, Int8,
// HotCache, Concat). GatherHalf uses it when a store has it.
type HalfGatherer interface {
	// GatherHalfInto writes row ids[i], rounded to dt (tensor.Float16 or
	// tensor.BFloat16, nearest, ties to even), as bits to
	// dst[i*stride : i*stride+F], leaving the rest of dst alone. It panics
	// as Store.GatherInto does, and with ErrArgument for another dt.
	GatherHalfInto(dst []uint16, stride int, ids []int64, dt tensor.DType)
}

var (
	_ HalfGatherer = (*Float32)(nil)
	_ HalfGatherer = (*Float16)(nil)
	_ HalfGatherer = (*BFloat16)(nil)
	_ HalfGatherer = (*Int8)(nil)
	_ HalfGatherer = (*HotCache)(nil)
	_ HalfGatherer = (*Concat)(nil)
)

// GatherHalf returns rows ids of s in dtype dt: (N, F) -> (len(ids), F), a
// new CPU tensor without autograd history, where ids is a 1-D int64 CPU
// tensor (DataLoader.InputNodes(), or tensor.FromInt64(ids) around a slice).
// For dt tensor.Float32 it is GatherTensor(s, ids). For tensor.Float16 or tensor.BFloat16 each value is the
// store's float32 value (the one Gather returns) rounded to dt, nearest,
// ties to even, so a float16 or bfloat16 store gathered in its own dtype
// returns its stored bits unchanged (a copy, no widening), and a float32
// store gathered as bfloat16 equals s.Gather(ids).BFloat16(). Values beyond
// float16's range become infinities, as torch's .half() makes them. The
// (len(ids), F) result is built directly in dt: a store with
// GatherHalfInto writes into it; another Store is gathered as float32 in
// chunks of at most 64K values (a counted scratch buffer) and rounded.
//
// It panics with ErrArgument when s is nil or dt is not one of the three
// float dtypes, with ErrShape when ids is not a 1-D int64 CPU tensor, and as
// s.Gather does (ErrIndex naming an id outside [0, N), ErrClosed).
//
// The DataLoader calls it for every store when
// sampling.LoaderOptions.StoreGatherDType is set, so that bfloat16
// training (package amp) reads (N_in, F) bfloat16 input features from a
// bfloat16 store without a float32 copy: half the bytes of the batch's
// largest tensor.
func GatherHalf(s Store, ids *tensor.Tensor, dt tensor.DType) *tensor.Tensor {
	const op = "GatherHalf"
	if s == nil {
		panicf(ErrArgument, op, "the store is nil")
	}
	return gatherHalf(op, s, idSlice(op, ids), dt)
}

// gatherHalf is GatherHalf on ids as a slice, for the DataLoader's ids
// and tests; op names the caller in panics.
func gatherHalf(op string, s Store, ids []int64, dt tensor.DType) *tensor.Tensor {
	switch dt {
	case tensor.Float32:
		return s.Gather(ids)
	case tensor.Float16, tensor.BFloat16:
	default:
		panicf(ErrArgument, op, "dtype %v; want float32, float16 or bfloat16", dt)
	}
	if m, ok := s.(*Meta); ok {
		checkIDs(op, m.n, ids)
		return tensor.EmptyOn(m.device, dt, len(ids), m.f)
	}
	f := s.Dim()
	out := tensor.New(dt, len(ids), f)
	gatherHalfInto(s, out.Uint16s(), f, ids, dt)
	return out
}

// halfChunk is the number of values the fallback of gatherHalfInto gathers
// as float32 at once.
const halfChunk = 1 << 16

// gatherHalfInto gathers rows ids of s as dt bits into dst with the given
// stride: through s's GatherHalfInto, or as float32 in chunks that are
// rounded into place.
func gatherHalfInto(s Store, dst []uint16, stride int, ids []int64, dt tensor.DType) {
	if h, ok := s.(HalfGatherer); ok {
		h.GatherHalfInto(dst, stride, ids, dt)
		return
	}
	f := s.Dim()
	checkHalf("GatherHalf", s.NumNodes(), f, dst, stride, ids, dt)
	if len(ids) == 0 || f == 0 {
		return
	}
	rows := max(1, halfChunk/f)
	buf := make([]float32, min(rows, len(ids))*f)
	tensor.CountBytes("cpu", int64(len(buf))*4)
	defer tensor.CountBytes("cpu", -int64(len(buf))*4)
	enc := halfEncoder(dt)
	for lo := 0; lo < len(ids); lo += rows {
		hi := min(lo+rows, len(ids))
		s.GatherInto(buf, f, ids[lo:hi])
		for i := lo; i < hi; i++ {
			src, out := buf[(i-lo)*f:(i-lo+1)*f], dst[i*stride:i*stride+f]
			for j, v := range src {
				out[j] = enc(v)
			}
		}
	}
}

// checkHalf validates GatherHalfInto's arguments for a store of n rows of
// f features, panicking as HalfGatherer documents.
func checkHalf(op string, n, f int, dst []uint16, stride int, ids []int64, dt tensor.DType) {
	if dt != tensor.Float16 && dt != tensor.BFloat16 {
		panicf(ErrArgument, op, "dtype %v; want float16 or bfloat16", dt)
	}
	if stride < f {
		panicf(ErrShape, op, "stride %d is smaller than the row width %d", stride, f)
	}
	if len(ids) > 0 && len(dst) < (len(ids)-1)*stride+f {
		panicf(ErrShape, op, "dst has %d values; %d rows of stride %d need %d", len(dst), len(ids), stride, (len(ids)-1)*stride+f)
	}
	checkIDs(op, n, ids)
}

// halfEncoder returns the float32 -> dt rounding (nearest, ties to even).
func halfEncoder(dt tensor.DType) func(float32) uint16 {
	if dt == tensor.BFloat16 {
		return bf16Bits
	}
	return f16Bits
}

// roundRows writes rows ids of src (row-major, f per row) rounded to dt
// into dst with the given stride, in parallel.
func roundRows(dst []uint16, stride int, src []float32, f int, ids []int64, dt tensor.DType) {
	if dt == tensor.BFloat16 {
		parallelRows(len(ids), f, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				r := int(ids[i]) * f
				in, out := src[r:r+f], dst[i*stride:i*stride+f]
				out = out[:len(in)]
				for j, v := range in {
					out[j] = bf16Bits(v)
				}
			}
		})
		return
	}
	parallelRows(len(ids), f, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := int(ids[i]) * f
			in, out := src[r:r+f], dst[i*stride:i*stride+f]
			out = out[:len(in)]
			for j, v := range in {
				out[j] = f16Bits(v)
			}
		}
	})
}

// GatherHalfInto writes rows ids rounded to dt into dst; see HalfGatherer.
func (s *Float32) GatherHalfInto(dst []uint16, stride int, ids []int64, dt tensor.DType) {
	const op = "Float32.GatherHalfInto"
	if s.x == nil {
		panicf(ErrClosed, op, "the store is closed")
	}
	checkHalf(op, s.n, s.f, dst, stride, ids, dt)
	roundRows(dst, stride, s.data, s.f, ids, dt)
}

// GatherHalfInto writes rows ids as dt bits into dst: a copy of the stored
// bits when dt is the store's dtype, else the widened value rounded to dt;
// see HalfGatherer.
func (h *half) GatherHalfInto(dst []uint16, stride int, ids []int64, dt tensor.DType) {
	op := "Float16.GatherHalfInto"
	if h.bf16 {
		op = "BFloat16.GatherHalfInto"
	}
	if h.bits == nil {
		panicf(ErrClosed, op, "the store is closed")
	}
	f, bits := h.f, h.bits
	checkHalf(op, h.n, f, dst, stride, ids, dt)
	if dt == h.DType() {
		parallelRows(len(ids), f, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				r := int(ids[i]) * f
				copy(dst[i*stride:i*stride+f], bits[r:r+f])
			}
		})
		return
	}
	widen := f16Float32
	if h.bf16 {
		widen = func(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }
	}
	enc := halfEncoder(dt)
	parallelRows(len(ids), f, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := int(ids[i]) * f
			in, out := bits[r:r+f], dst[i*stride:i*stride+f]
			out = out[:len(in)]
			for j, b := range in {
				out[j] = enc(widen(b))
			}
		}
	})
}

// GatherHalfInto writes rows ids, dequantised and rounded to dt, into dst;
// see HalfGatherer.
func (s *Int8) GatherHalfInto(dst []uint16, stride int, ids []int64, dt tensor.DType) {
	const op = "Int8.GatherHalfInto"
	if s.codes == nil {
		panicf(ErrClosed, op, "the store is closed")
	}
	f, codes, scale, lo := s.f, s.codes, s.scale, s.lo
	checkHalf(op, s.n, f, dst, stride, ids, dt)
	enc := halfEncoder(dt)
	parallelRows(len(ids), f, func(a, b int) {
		for i := a; i < b; i++ {
			r := int(ids[i])
			sc := scale[r]
			m := lo[r] + 128*sc
			in, out := codes[r*f:r*f+f], dst[i*stride:i*stride+f]
			out = out[:len(in)]
			for j, c := range in {
				out[j] = enc(m + sc*float32(c))
			}
		}
	})
}

// GatherHalfInto writes rows ids rounded to dt into dst: cached rows from
// the float32 fast tier, the others gathered by the backing store (as
// GatherHalf does, in one call, into a counted scratch buffer); see
// HalfGatherer. Each row counts as a hit or a miss in Stats.
func (c *HotCache) GatherHalfInto(dst []uint16, stride int, ids []int64, dt tensor.DType) {
	const op = "HotCache.GatherHalfInto"
	if c.slot == nil {
		panicf(ErrClosed, op, "the store is closed")
	}
	f, slot, fast := c.f, c.slot, c.fast
	checkHalf(op, len(slot), f, dst, stride, ids, dt)
	var missPos []int32
	var missIDs []int64
	for i, v := range ids {
		if slot[v] < 0 {
			missPos = append(missPos, int32(i))
			missIDs = append(missIDs, v)
		}
	}
	c.hits.Add(int64(len(ids) - len(missIDs)))
	c.misses.Add(int64(len(missIDs)))
	if len(missIDs) < len(ids) {
		enc := halfEncoder(dt)
		parallelRows(len(ids), f, func(a, b int) {
			for i := a; i < b; i++ {
				if s := int(slot[ids[i]]); s >= 0 {
					in, out := fast[s*f:s*f+f], dst[i*stride:i*stride+f]
					out = out[:len(in)]
					for j, v := range in {
						out[j] = enc(v)
					}
				}
			}
		})
	}
	if len(missIDs) == 0 {
		return
	}
	if len(missIDs) == len(ids) {
		gatherHalfInto(c.backing, dst, stride, ids, dt)
		return
	}
	buf := make([]uint16, len(missIDs)*f)
	scratch := int64(len(buf))*2 + int64(len(missIDs))*12
	tensor.CountBytes("cpu", scratch)
	defer tensor.CountBytes("cpu", -scratch)
	gatherHalfInto(c.backing, buf, f, missIDs, dt)
	parallelRows(len(missPos), f, func(a, b int) {
		for k := a; k < b; k++ {
			i := int(missPos[k])
			copy(dst[i*stride:i*stride+f], buf[k*f:k*f+f])
		}
	})
}

// GatherHalfInto writes rows ids rounded to dt into dst, each part into its
// column range; see HalfGatherer.
func (c *Concat) GatherHalfInto(dst []uint16, stride int, ids []int64, dt tensor.DType) {
	checkHalf("Concat.GatherHalfInto", c.n, c.f, dst, stride, ids, dt)
	off := 0
	for _, p := range c.parts {
		if len(ids) > 0 {
			gatherHalfInto(p, dst[off:], stride, ids, dt)
		}
		off += p.Dim()
	}
}
