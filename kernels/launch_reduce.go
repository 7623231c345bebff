package kernels

const sumBlocks = 1024

// SumF32 computes out[0] = scale * sum(x[0:n]) over float32 values
// (scale = 1/n gives the mean), deterministically: fixed per-block partial
// sums in the stream's work space, then one block adds them in order.
// out is one float32 on the device. Panics if s is nil or n < 0.
func SumF32(s *Stream, x DevicePtr, n int, out DevicePtr, scale float32) error {
	mustStream("SumF32", s)
	mustCount("SumF32", "n", n)
	work, err := s.scratchBuf(4 * sumBlocks)
	if err != nil {
		return err
	}
	g := gridFor(int64(n), blockThreads)
	if g.X > sumBlocks {
		g.X = sumBlocks
	}
	if err := launch(s, "reduce", "gk_sum_partial_f32", g, flat, 0, x, int64(n), work); err != nil {
		return err
	}
	return launch(s, "reduce", "gk_sum_final_f32", Dim3{1, 1, 1}, flat, 0, work, int32(g.X), out, scale)
}

// SumDim0F32 computes y[c] = scale * sum_r x[r, c]: x (rows, cols) ->
// y (cols), the bias gradient of a linear layer. y is overwritten. Float32
// atomics combine row chunks, so the last bits may vary between runs.
func SumDim0F32(s *Stream, x, y DevicePtr, rows, cols int, scale float32) error {
	mustStream("SumDim0F32", s)
	mustCount("SumDim0F32", "rows", rows)
	mustInt32("SumDim0F32", "cols", cols)
	if cols == 0 {
		return nil
	}
	if err := s.Memset32Async(y, 0, cols); err != nil {
		return err
	}
	if rows == 0 {
		return nil
	}
	// About 64 rows per thread stripe chunk; enough chunks to fill the GPU.
	chunks := (rows + 511) / 512
	if chunks > 4096 {
		chunks = 4096
	}
	grid := Dim3{(cols + 31) / 32, chunks, 1}
	return launch(s, "reduce", "gk_sum_dim0_f32", grid, Dim3{32, 8, 1}, 0, x, y, int64(rows), int32(cols), scale)
}

// SumDim1F32 computes y[r] = scale * sum_c x[r, c]: x (rows, cols) ->
// y (rows), deterministically (one warp per row).
func SumDim1F32(s *Stream, x, y DevicePtr, rows, cols int, scale float32) error {
	mustStream("SumDim1F32", s)
	mustCount("SumDim1F32", "rows", rows)
	mustInt32("SumDim1F32", "cols", cols)
	if rows == 0 {
		return nil
	}
	grid, block := rowGrid(int64(rows), 32)
	return launch(s, "reduce", "gk_sum_dim1_f32", grid, block, 0, x, y, int64(rows), int32(cols), scale)
}
