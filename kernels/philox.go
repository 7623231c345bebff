package kernels

// Philox4x32 returns the Philox4x32-10 block of counter c under key k
// (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2,
// 3", SC'11; Random123's philox4x32_10). It is the CPU twin of the RNG in
// dropout.cu.
func Philox4x32(c [4]uint32, k [2]uint32) [4]uint32 {
	const m0, m1, w0, w1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
	for r := 0; r < 10; r++ {
		if r > 0 {
			k[0] += w0
			k[1] += w1
		}
		p0 := uint64(m0) * uint64(c[0])
		p1 := uint64(m1) * uint64(c[2])
		c = [4]uint32{uint32(p1>>32) ^ c[1] ^ k[0], uint32(p1), uint32(p0>>32) ^ c[3] ^ k[1], uint32(p0)}
	}
	return c
}

// DropoutKeep reports whether element i survives dropout with drop
// probability p under (seed, offset), exactly as DropoutForward decides on
// the GPU: u = (w >> 8) / 2^24 from word i%4 of
// Philox4x32((i/4, offset), seed), kept when u >= p. A CPU dropout that uses
// it draws the same mask as the GPU.
func DropoutKeep(seed, offset uint64, p float32, i int64) bool {
	g := uint64(i) / 4
	r := Philox4x32([4]uint32{uint32(g), uint32(g >> 32), uint32(offset), uint32(offset >> 32)},
		[2]uint32{uint32(seed), uint32(seed >> 32)})
	u := float32(r[i%4]>>8) * (1.0 / 16777216.0)
	return u >= p
}

// DropoutMask fills keep[i] = DropoutKeep(seed, offset, p, i) for
// i < len(keep), one Philox call per four elements.
func DropoutMask(seed, offset uint64, p float32, keep []bool) {
	key := [2]uint32{uint32(seed), uint32(seed >> 32)}
	for g := 0; 4*g < len(keep); g++ {
		r := Philox4x32([4]uint32{uint32(uint64(g)), uint32(uint64(g) >> 32), uint32(offset), uint32(offset >> 32)}, key)
		for j := 0; j < 4 && 4*g+j < len(keep); j++ {
			keep[4*g+j] = float32(r[j]>>8)*(1.0/16777216.0) >= p
		}
	}
}
