package tensor

import (
	"math"
	"math/bits"
)

// The CPU's random kernels: the host fills of Rand and Randn from a
// generator's sequential stream, and dropout with its mask kept as bits
// (one bit per element, an int64 word per 64 elements) for the backward
// pass. The mask is drawn from counter-based Philox4x32-10, the RNG of
// kernels.DropoutForward, so the CPU and a GPU drop the same elements.

// uniform fills the float32 t with values lo + (hi-lo)*u, u uniform in
// [0, 1) from gen's sequential stream, in element order.
func (*cpuBackend) uniform(t *Tensor, gen *Generator, lo, hi float32) {
	gen.mu.Lock()
	defer gen.mu.Unlock()
	for i, d := 0, hostView[float32](t); i < len(d); i++ {
		d[i] = lo + (hi-lo)*float32(gen.pcg.Float64())
	}
}

// normal fills the float32 t with standard normal values from gen's
// sequential stream, in element order.
func (*cpuBackend) normal(t *Tensor, gen *Generator) {
	gen.mu.Lock()
	defer gen.mu.Unlock()
	for i, d := 0, hostView[float32](t); i < len(d); i++ {
		d[i] = float32(gen.pcg.NormFloat64())
	}
}

// DropoutMaskWords is (n+63)/64: the CPU keeps one bit per element.
func (*cpuBackend) DropoutMaskWords(n int) int { return (n + 63) / 64 }

// DropoutForward draws the mask bits into mask word by word (drawMask),
// writing each word's 64 elements of out as soon as it is drawn, or
// applies the bits mask holds when reuse is set.
func (*cpuBackend) DropoutForward(out, x, mask *Tensor, reuse bool, p float32, seed, base uint64) {
	if x.n == 0 {
		return
	}
	apply := maskedScaler(x, out, 1/(1-p))
	if reuse {
		applyMask(hostView[int64](mask), apply)
		return
	}
	drawMask(hostView[int64](mask), x.n, p, seed, base, apply)
}

// DropoutBackward is the masked scale of g by the bits the forward pass
// kept.
func (*cpuBackend) DropoutBackward(gx, g, mask *Tensor, p float32, seed, base uint64) {
	if g.n == 0 {
		return
	}
	applyMask(hostView[int64](mask), maskedScaler(g, gx, 1/(1-p)))
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
