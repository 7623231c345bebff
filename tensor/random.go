package tensor

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// RandomKernels are the primitive kernels of this file's ops: dropout masks drawn from the counter-based Philox stream.
// Every Backend implements them (cpu_*.go, cuda_*.go, meta.go).
type RandomKernels interface{}

// Generator is a seed with a running Philox offset, plus a sequential
// stream for initialisation and shuffles. Dropout masks are a pure function
// of the seed and the offset an op reserved (counter-based Philox4x32, as
// PyTorch's CUDA generator), so a mask can be regenerated exactly (gradient
// checkpointing), any worker can draw its slice independently, and the CPU
// and a GPU draw the same mask. It is safe for concurrent use.
type Generator struct {
	seed    uint64
	counter atomic.Uint64
	mu      sync.Mutex
	pcg     *rand.Rand // for parameter initialisation and shuffles
}

// NewGenerator returns a generator seeded with seed.
func NewGenerator(seed int64) *Generator {
	g := &Generator{}
	g.Seed(seed)
	return g
}

// Seed resets g to the start of the stream of seed.
func (g *Generator) Seed(seed int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seed = uint64(seed)
	g.counter.Store(0)
	g.pcg = rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
}

// reserve claims n consecutive counter values and returns the first.
func (g *Generator) reserve(n int) uint64 { return g.counter.Add(uint64(n)) - uint64(n) }

// Float64 returns a uniform value in [0, 1) from g's sequential stream.
func (g *Generator) Float64() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pcg.Float64()
}

// NormFloat64 returns a standard normal value from g's sequential stream.
func (g *Generator) NormFloat64() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pcg.NormFloat64()
}

// Perm returns a random permutation of [0, n) as int64 (torch.randperm).
func (g *Generator) Perm(n int) []int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := make([]int64, n)
	for i := range p {
		p[i] = int64(i)
	}
	g.pcg.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

var defaultGen = NewGenerator(0)

// ManualSeed reseeds the default generator (torch.manual_seed).
func ManualSeed(seed int64) { defaultGen.Seed(seed) }

// DefaultGenerator returns the generator ops use when none is given.
func DefaultGenerator() *Generator { return defaultGen }

// Rand returns a float32 tensor of uniform values in [lo, hi) drawn from
// gen (the default generator when nil).
func Rand(gen *Generator, lo, hi float32, shape ...int) *Tensor {
	defer hookOp("Rand")()
	if gen == nil {
		gen = defaultGen
	}
	t := Zeros(shape...)
	gen.mu.Lock()
	for i, d := 0, t.Float32s(); i < len(d); i++ {
		d[i] = lo + (hi-lo)*float32(gen.pcg.Float64())
	}
	gen.mu.Unlock()
	return t
}

// Randn returns a float32 tensor of standard normal values from gen.
func Randn(gen *Generator, shape ...int) *Tensor {
	defer hookOp("Randn")()
	if gen == nil {
		gen = defaultGen
	}
	t := Zeros(shape...)
	gen.mu.Lock()
	for i, d := 0, t.Float32s(); i < len(d); i++ {
		d[i] = float32(gen.pcg.NormFloat64())
	}
	gen.mu.Unlock()
	return t
}

// Dropout zeroes each element with probability p and scales the rest by
// 1/(1-p) when training is set (inverted dropout, Srivastava et al. 2014);
// otherwise it returns x. The mask comes from gen's counter stream (the
// default generator when gen is nil). On the CPU the mask is kept as bits
// (one bit per element, counted in the memory accounting) for the backward
// pass; on a GPU it is regenerated.
// Inside a Checkpoint the draw is recorded and replayed when the function
// is recomputed, reusing the forward pass's mask bits. Float32, float16 or bfloat16 (the
// result has x's dtype; kept low-precision values are scaled in float32
// and rounded once), any shape. Panics with ErrShape unless 0 <= p <= 1,
// and with ErrDType for a non-floating-point x.
func Dropout(x *Tensor, p float32, training bool, gen *Generator) *Tensor {
	defer hookOp("Dropout")()
	if p < 0 || p > 1 || p != p {
		panicf(ErrShape, "Dropout", "p must be in [0, 1], got %g", p)
	}
	if !training || p == 0 {
		return x
	}
	checkFloats("Dropout", x)
	if gen == nil {
		gen = defaultGen
	}
	if p == 1 {
		return MulScalar(x, 0)
	}
	// One Philox offset per element quadruple, as PyTorch advances its
	// Philox offset: masks of successive calls never share counters.
	// Inside a checkpointed function the draw is recorded, or replayed
	// during recomputation (checkpoint.go).
	if !tapeOn.Load() {
		return DropoutAt(x, p, gen.seed, gen.reserve((x.n+3)/4))
	}
	seed, base, mask, rec := checkpointCounters(gen, (x.n+3)/4, p)
	defer hookOp("DropoutAt")()
	out, m := dropoutAt(x, p, seed, base, mask)
	if rec != nil && rec.mask == nil {
		rec.mask = m
	}
	return out
}

// DropoutAt applies the dropout mask of (seed, base): element i is kept
// when word i%4 of Philox4x32-10 at counter (i/4, base) under key seed,
// shifted right by 8 and scaled by 2^-24, is >= p (Salmon et al., SC'11;
// the RNG of PyTorch's CUDA dropout). The CPU and a GPU (kernels.DropoutForward)
// draw the identical mask for the same (seed, base, p). Dropout draws base
// from a generator, and checkpoint recomputation replays the same (seed,
// base).
func DropoutAt(x *Tensor, p float32, seed, base uint64) *Tensor {
	defer hookOp("DropoutAt")()
	out, _ := dropoutAt(x, p, seed, base, nil)
	return out
}

// dropoutAt is DropoutAt. A float32 x on the CPU also returns the mask bits
// (int64 words, bit i%64 of word i/64 set when element i is kept), and
// given the bits of an earlier call with the same (seed, base, p) and
// size, it uses them instead of drawing (checkpoint recomputation).
func dropoutAt(x *Tensor, p float32, seed, base uint64, given *Tensor) (*Tensor, *Tensor) {
	if d := deviceOf("DropoutAt", x); d != "cpu" {
		return cudaDropoutAt(x, p, seed, base), nil
	}
	scale := 1 / (1 - p)
	n := x.n
	out := Empty(x.dtype, x.shape...) // every element is written under the mask
	apply := maskedScaler(x, out, scale)
	words := (n + 63) / 64
	maskT := given
	if given == nil || given.dtype != Int64 || given.n != words {
		maskT = New(Int64, words)
		drawMask(maskT.Int64s(), n, p, seed, base, apply)
	} else {
		applyMask(given.Int64s(), apply)
	}
	return dropoutRecord(x, out, maskT, scale), maskT
}

// maskedScaler returns the function that writes word wi's 64 elements of
// dst from src (same dtype and size) under mask word m: kept ones scaled
// by scale, dropped ones zero.
func maskedScaler(src, dst *Tensor, scale float32) func(wi int, m uint64) {
	if isLow(src.dtype) {
		s, d, dt := src.Uint16s(), dst.Uint16s(), src.dtype
		return func(wi int, m uint64) { lowMaskedScale(dt, s, d, wi, m, scale) }
	}
	s, d := src.Float32s(), dst.Float32s()
	return func(wi int, m uint64) { maskedScale(s, d, wi, m, scale) }
}

// applyMask hands every word of mask to apply, words split over goroutines.
func applyMask(mask []int64, apply func(wi int, m uint64)) {
	parallelFor(len(mask), 1<<6, func(lo, hi int) {
		for wi := lo; wi < hi; wi++ {
			apply(wi, uint64(mask[wi]))
		}
	})
}

// drawMask fills mask with the keep bits of n elements (bit i%64 of word
// i/64 set when element i is kept): Philox4x32-10 of counter (i/4, base)
// under key seed, word i%4, kept when its top 24 bits as a fraction are
// >= p, the mask kernels.DropoutForward draws on a GPU
// (kernels.DropoutKeep). Words of 64 elements (16 Philox groups) are split
// over goroutines, each word with one writer, and each is handed to apply
// as soon as it is drawn (while its elements are in cache).
func drawMask(mask []int64, n int, p float32, seed, base uint64, apply func(wi int, m uint64)) {
	k0, k1 := uint32(seed), uint32(seed>>32)
	o0, o1 := uint32(base), uint32(base>>32)
	thr := keepThreshold(p)
	parallelFor(len(mask), 1<<6, func(lo, hi int) {
		for wi := lo; wi < hi; wi++ {
			var m uint64
			for gi := 0; gi < 16 && 4*(16*wi+gi) < n; gi += 2 {
				g := uint64(16*wi + gi)
				a0, a1, a2, a3, b0, b1, b2, b3 := philox4x32x2(uint32(g), uint32(g+1), uint32(g>>32), o0, o1, k0, k1)
				k := uint64(b2u32(a0>>8 >= thr)) | uint64(b2u32(a1>>8 >= thr))<<1 |
					uint64(b2u32(a2>>8 >= thr))<<2 | uint64(b2u32(a3>>8 >= thr))<<3 |
					uint64(b2u32(b0>>8 >= thr))<<4 | uint64(b2u32(b1>>8 >= thr))<<5 |
					uint64(b2u32(b2>>8 >= thr))<<6 | uint64(b2u32(b3>>8 >= thr))<<7
				m |= k << (4 * gi)
			}
			mask[wi] = int64(m)
			apply(wi, m)
		}
	})
}

// dropoutRecord records out = dropout(x) with the mask bits maskT (kept by
// the node for backward, which is a masked copy of the gradient in x's
// dtype).
func dropoutRecord(x, out, maskT *Tensor, scale float32) *Tensor {
	mask := maskT.Int64s()
	return record(out, "Dropout", []*Tensor{x, maskT}, func(g *Tensor) []*Tensor {
		gx := Empty(g.dtype, g.shape...) // every element is written under the mask
		applyMask(mask, maskedScaler(g, gx, scale))
		return []*Tensor{gx, nil}
	})
}

// maskedScale sets dst[i] = src[i]*scale where bit i%64 of m is set and 0
// elsewhere, for the 64 elements of word wi (fewer at the end), without a
// branch.
func maskedScale(src, dst []float32, wi int, m uint64, scale float32) {
	lo := 64 * wi
	hi := min(lo+64, len(src))
	s, d := src[lo:hi], dst[lo:hi]
	d = d[:len(s)]
	for j, v := range s {
		d[j] = math.Float32frombits(math.Float32bits(v*scale) & -uint32(m>>uint(j)&1))
	}
}

// lowMaskedScale is maskedScale for float16 / bfloat16 bits (dtype dt): a
// kept value is scaled in float32 and rounded once, a dropped one is +0.
func lowMaskedScale(dt DType, src, dst []uint16, wi int, m uint64, scale float32) {
	lo := 64 * wi
	hi := min(lo+64, len(src))
	s, d := src[lo:hi], dst[lo:hi]
	d = d[:len(s)]
	for j, v := range s {
		d[j] = lowRound(dt, lowElem(dt, v)*scale) & -uint16(m>>uint(j)&1)
	}
}

// keepThreshold returns the smallest 24-bit t with float32(t)/2^24 >= p:
// an element is kept when its draw's top 24 bits are >= t, the same
// outcome as comparing the float32 fraction with p.
func keepThreshold(p float32) uint32 {
	t := uint32(float64(p) * 16777216)
	for t > 0 && float32(t-1)*(1.0/16777216.0) >= p {
		t--
	}
	for t < 1<<24 && float32(t)*(1.0/16777216.0) < p {
		t++
	}
	return t
}

// philox4x32x2 is philox4x32 of the counters (ga, hi, c2, c3) and (gb, hi,
// c2, c3) at once (ga even, gb = ga+1, so hi is shared): two independent
// chains of multiplies in one loop, which the CPU overlaps.
func philox4x32x2(ga, gb, hi, c2, c3, k0, k1 uint32) (a0, a1, a2, a3, b0, b1, b2, b3 uint32) {
	a0, a1, a2, a3 = ga, hi, c2, c3
	b0, b1, b2, b3 = gb, hi, c2, c3
	for r := 0; r < 10; r++ {
		ah0, al0 := bits.Mul32(0xD2511F53, a0)
		ah1, al1 := bits.Mul32(0xCD9E8D57, a2)
		bh0, bl0 := bits.Mul32(0xD2511F53, b0)
		bh1, bl1 := bits.Mul32(0xCD9E8D57, b2)
		a0, a1, a2, a3 = ah1^a1^k0, al1, ah0^a3^k1, al0
		b0, b1, b2, b3 = bh1^b1^k0, bl1, bh0^b3^k1, bl0
		k0 += 0x9E3779B9
		k1 += 0xBB67AE85
	}
	return
}

// philox4x32 is Philox4x32-10 of counter (c0, c1, c2, c3) under key (k0,
// k1): kernels.Philox4x32 (the CPU twin of the GPU dropout RNG) written
// with scalar words, several times faster in the dropout loop.
func philox4x32(c0, c1, c2, c3, k0, k1 uint32) (uint32, uint32, uint32, uint32) {
	for r := 0; r < 10; r++ {
		hi0, lo0 := bits.Mul32(0xD2511F53, c0)
		hi1, lo1 := bits.Mul32(0xCD9E8D57, c2)
		c0, c1, c2, c3 = hi1^c1^k0, lo1, hi0^c3^k1, lo0
		k0 += 0x9E3779B9
		k1 += 0xBB67AE85
	}
	return c0, c1, c2, c3
}
