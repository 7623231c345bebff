package tensor

// dropoutLowAt is DropoutAt for a float16 or bfloat16 x: the same Philox
// mask (element i kept when word i%4 of Philox4x32-10 at counter (i/4,
// base) under key seed, shifted right by 8 and scaled by 2^-24, is >= p),
// kept values scaled by 1/(1-p) in float32 and rounded once; the result and
// its gradient have x's dtype, and nothing is stored for the backward pass
// (the mask is regenerated). DropoutAt calls it for low-precision inputs.
func dropoutLowAt(x *Tensor, p float32, seed, base uint64) *Tensor {
	dt := x.dtype
	scale := 1 / (1 - p)
	k0, k1 := uint32(seed), uint32(seed>>32)
	o0, o1 := uint32(base), uint32(base>>32)
	zero := lowRound(dt, 0)
	apply := func(src, dst []uint16) {
		n := len(src)
		groups := (n + 3) / 4
		parallelFor(groups, 1<<12, func(lo, hi int) {
			for g := lo; g < hi; g++ {
				w0, w1, w2, w3 := philox4x32(uint32(uint64(g)), uint32(uint64(g)>>32), o0, o1, k0, k1)
				for j, w := range [4]uint32{w0, w1, w2, w3} {
					i := 4*g + j
					if i >= n {
						break
					}
					if float32(w>>8)*(1.0/16777216.0) >= p {
						dst[i] = lowRound(dt, lowElem(dt, src[i])*scale)
					} else {
						dst[i] = zero
					}
				}
			}
		})
	}
	out := New(dt, x.shape...)
	apply(x.Uint16s(), out.Uint16s())
	return record(out, "Dropout", []*Tensor{x}, func(g *Tensor) []*Tensor {
		gx := New(dt, x.shape...)
		apply(g.Uint16s(), gx.Uint16s())
		return []*Tensor{gx}
	})
}
