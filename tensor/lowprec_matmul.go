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

// matmulLow is MatMul for a (M, K) and b (K, N) of one low dtype dt ->
// (M, N) of dtype dt.
func matmulLow(a, b *Tensor) *Tensor {
	dt := a.dtype
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	out := New(dt, m, n)
	// rowsTimes computes c = x[r0:r1] @ op(w) for each block of rows of the
	// (rows, xw) low-precision x and stores c, rounded, into y's rows.
	rowsTimes := func(x *Tensor, xw int, w []float32, tw bool, cw int, y *Tensor) {
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
	bw := castRaw(b, Float32)
	rowsTimes(a, k, bw.Float32s(), false, n, out)
	return record(out, "MatMul", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad { // g @ b^T : (M, K)
			ga = New(dt, m, k)
			rowsTimes(g, n, castRaw(b, Float32).Float32s(), true, k, ga)
		}
		if b.requiresGrad { // a^T @ g : (K, N), accumulated over row blocks
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
			gb = castRaw(acc, dt)
		}
		return []*Tensor{ga, gb}
	})
}
