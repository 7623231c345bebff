package tensor

// MatMul for float16 and bfloat16 operands of one dtype: blocks of rows
// are widened to float32, multiplied by the float32 BLAS (float32
// accumulation) and rounded once into the low-precision result. The
// weight-sized operand is widened whole; the row blocks keep the float32
// scratch at 64 KiB per operand (at least 32 rows) whatever the number of
// rows, so the transient float32 copies do not rival the activations that
// autocast halves.

// lowRowBlock returns the rows per block for rows of width w.
func lowRowBlock(w int) int { return max(32, (1<<14)/max(w, 1)) }

// widen writes src (dtype dt) as float32 into dst, in parallel.
func widen(dt DType, src []uint16, dst []float32) {
	parallelFor(len(src), 1<<15, func(lo, hi int) { lowToF32(dt, src[lo:hi], dst[lo:hi]) })
}

// narrowTo rounds src into dst as dtype dt, in parallel.
func narrowTo(dt DType, src []float32, dst []uint16) {
	parallelFor(len(src), 1<<15, func(lo, hi int) { f32ToLow(dt, src[lo:hi], dst[lo:hi]) })
}

// lowRowsTimes computes y = x @ op(w) block of rows by block of rows: x
// is (rows, xw) of the low dtype dt, w float32 ((xw, cw), or (cw, xw) when
// tw), y (rows, cw) of dtype dt, each block rounded once.
func lowRowsTimes(dt DType, x *Tensor, xw int, w []float32, tw bool, cw int, y *Tensor) {
	rows := x.shape[0]
	blk := min(lowRowBlock(max(xw, cw)), max(rows, 1))
	xb, cb := New(Float32, blk, xw), New(Float32, blk, cw)
	xd, cd := xb.Float32s(), cb.Float32s()
	xs, ys := x.Uint16s(), y.Uint16s()
	ldw := cw
	if tw {
		ldw = xw
	}
	for r0 := 0; r0 < rows; r0 += blk {
		r1 := min(r0+blk, rows)
		nr := r1 - r0
		widen(dt, xs[r0*xw:r1*xw], xd)
		sgemm(false, tw, nr, cw, xw, 1, xd, xw, w, ldw, 0, cd, cw)
		narrowTo(dt, cd[:nr*cw], ys[r0*cw:r1*cw])
	}
}

// lowATB returns a^T @ g, (K, N) float32, for a (M, K) and g (M, N) of the
// low dtype dt, accumulated in float32 over blocks of rows.
func lowATB(dt DType, a, g *Tensor, m, k, n int) *Tensor {
	acc := Zeros(k, n)
	blk := min(lowRowBlock(max(k, n)), max(m, 1))
	ab, gbuf := New(Float32, blk, k), New(Float32, blk, n)
	ad, gd := ab.Float32s(), gbuf.Float32s()
	as, gs := a.Uint16s(), g.Uint16s()
	for r0 := 0; r0 < m; r0 += blk {
		r1 := min(r0+blk, m)
		widen(dt, as[r0*k:r1*k], ad)
		widen(dt, gs[r0*n:r1*n], gd)
		sgemm(true, false, k, n, r1-r0, 1, ad, k, gd, n, 1, acc.Float32s(), n)
	}
	return acc
}

// matmulLow is MatMul for a (M, K) and b (K, N) of one low dtype dt ->
// (M, N) of dtype dt.
func matmulLow(a, b *Tensor) *Tensor {
	dt := a.dtype
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	out := New(dt, m, n)
	lowRowsTimes(dt, a, k, castRaw(b, Float32).Float32s(), false, n, out)
	return record(out, "MatMul", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad { // g @ b^T : (M, K)
			ga = New(dt, m, k)
			lowRowsTimes(dt, g, n, castRaw(b, Float32).Float32s(), true, k, ga)
		}
		if b.requiresGrad { // a^T @ g : (K, N), accumulated over row blocks
			gb = castRaw(lowATB(dt, a, g, m, k, n), dt)
		}
		return []*Tensor{ga, gb}
	})
}

// addMMLow is AddMM (ReLU'd when relu) for pairs of one low dtype dt and
// a float c, -> (M, N) of dtype dt: per block of rows, c's rows (or the
// bias row) are widened into a float32 block, every pair's product is
// accumulated into it by the float32 BLAS, the ReLU applied, and the block
// rounded once into the result.
func addMMLow(op string, relu bool, c *Tensor, pairs []*Tensor, m, n int, fill func(r int, dst []float32)) *Tensor {
	dt := pairs[0].dtype
	out := New(dt, m, n)
	ws := make([][]float32, len(pairs)/2)
	kmax := 0
	for i := range ws {
		ws[i] = castRaw(pairs[2*i+1], Float32).Float32s()
		kmax = max(kmax, pairs[2*i].shape[1])
	}
	blk := min(lowRowBlock(max(n, kmax)), max(m, 1))
	cb, xb := New(Float32, blk, n), New(Float32, blk, kmax)
	os := out.Uint16s()
	for r0 := 0; r0 < m; r0 += blk {
		r1 := min(r0+blk, m)
		nr := r1 - r0
		cd := cb.Float32s()[:nr*n]
		for r := 0; r < nr; r++ {
			fill(r0+r, cd[r*n:(r+1)*n])
		}
		for i, w := range ws {
			x := pairs[2*i]
			k := x.shape[1]
			xd := xb.Float32s()[:nr*k]
			widen(dt, x.Uint16s()[r0*k:r1*k], xd)
			sgemm(false, false, nr, n, k, 1, xd, k, w, n, 1, cd, n)
		}
		if relu {
			for i, v := range cd {
				cd[i] = max(v, 0)
			}
		}
		narrowTo(dt, cd, os[r0*n:r1*n])
	}
	var mask func(g *Tensor) *Tensor
	if relu {
		mask = func(g *Tensor) *Tensor { return lowReLUGrad(g, os) }
	}
	return recordAddMM(op, out, c, pairs, m, n, mask, func(g, x, w *Tensor, k int) (gx, gw *Tensor) {
		if x.requiresGrad {
			gx = New(dt, m, k)
			lowRowsTimes(dt, g, n, castRaw(w, Float32).Float32s(), true, k, gx)
		}
		if w.requiresGrad {
			gw = castRaw(lowATB(dt, x, g, m, k, n), dt)
		}
		return gx, gw
	})
}

// lowReLUGrad returns g where the low-precision ReLU output y is positive
// and 0 elsewhere (g and y of g's low dtype).
func lowReLUGrad(g *Tensor, y []uint16) *Tensor {
	exp := uint16(0x7f80) // bfloat16's exponent bits
	if g.dtype == Float16 {
		exp = 0x7c00
	}
	out := New(g.dtype, g.shape...)
	gs, os := g.Uint16s(), out.Uint16s()
	parallelFor(len(os), 1<<15, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			v := y[i]
			nan := v&exp == exp && v&^(exp|0x8000) != 0
			if v&0x8000 == 0 && v != 0 && !nan {
				os[i] = gs[i]
			}
		}
	})
	return out
}
