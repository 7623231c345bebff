package kernels

// GatherRows copies rows: dst[i, :] = src[idx[i], :] for i < n, each row
// rowBytes bytes (F * dtype size: any storage dtype), idx n indices of type
// idxType (DTypeInt32 or DTypeInt64). It is index_select along dim 0 / PyG's
// x[idx], the feature fetch of a sampled block. Rows whose size and
// addresses allow it move as 16-byte words. Indices must lie in src's rows
// (not checked: a bad index faults at the next synchronization). Panics if
// s is nil, n < 0, rowBytes < 0 or rowBytes is odd.
func GatherRows(s *Stream, src, idx DevicePtr, idxType DType, dst DevicePtr, n, rowBytes int) error {
	mustStream("GatherRows", s)
	mustCount("GatherRows", "n", n)
	mustCount("GatherRows", "rowBytes", rowBytes)
	is := idxType.indexSuffix("GatherRows")
	if rowBytes%2 != 0 {
		argPanic("GatherRows", "rowBytes = %d, want a multiple of 2", rowBytes)
	}
	if n == 0 || rowBytes == 0 {
		return nil
	}
	unit := 2
	switch {
	case rowBytes%16 == 0 && src%16 == 0 && dst%16 == 0:
		unit = 16
	case rowBytes%4 == 0 && src%4 == 0 && dst%4 == 0:
		unit = 4
	}
	name := map[int]string{16: "gk_gather_rows_v16_", 4: "gk_gather_rows_v4_", 2: "gk_gather_rows_v2_"}[unit] + is
	grid := gridFor(int64(n), 8)
	return launch(s, "gather", name, grid, Dim3{32, 8, 1}, 0, src, idx, dst, int64(n), int64(rowBytes/unit))
}

// ScatterAddRowsF32 accumulates rows: dst[idx[i], :] += src[i, :] for
// i < n, src (n, cols) and dst (m, cols) float32 (index_add_ along dim 0,
// the backward of GatherRows). dst is not cleared. Float32 atomics:
// repeated indices add in a run-dependent order.
func ScatterAddRowsF32(s *Stream, src, idx DevicePtr, idxType DType, dst DevicePtr, n, cols int) error {
	mustStream("ScatterAddRowsF32", s)
	mustCount("ScatterAddRowsF32", "n", n)
	mustInt32("ScatterAddRowsF32", "cols", cols)
	is := idxType.indexSuffix("ScatterAddRowsF32")
	if n == 0 || cols == 0 {
		return nil
	}
	return launch(s, "gather", "gk_scatter_add_rows_f32_"+is, gridFor(int64(n), 8), Dim3{32, 8, 1}, 0,
		src, idx, dst, int64(n), int32(cols))
}
