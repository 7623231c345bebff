package kernels

// DropoutForward computes inverted dropout on n float32 values:
// y = x / (1 - p) where DropoutKeep(seed, offset, p, i), else 0
// (torch.nn.functional.dropout in training mode). mask, if not 0, receives
// n bytes, 1 for kept elements. The mask is a pure function of (seed,
// offset, i): DropoutBackward, a checkpoint recompute and the CPU
// (DropoutMask) draw the same one. Callers advance offset by
// ceil(n/4) per call to get fresh masks from one seed, as PyTorch's Philox
// offset. Panics if s is nil, n < 0 or p outside [0, 1].
func DropoutForward(s *Stream, x, y, mask DevicePtr, n int, p float32, seed, offset uint64) error {
	mustStream("DropoutForward", s)
	mustCount("DropoutForward", "n", n)
	if !(p >= 0 && p <= 1) {
		argPanic("DropoutForward", "p = %v, want 0 <= p <= 1", p)
	}
	if n == 0 {
		return nil
	}
	return launch(s, "dropout", "gk_dropout_fwd_f32", gridFor((int64(n)+3)/4, blockThreads), flat, 0,
		x, y, mask, int64(n), p, seed, offset)
}

// DropoutBackward computes dx = dy / (1 - p) where the element was kept by
// DropoutForward with the same (n, p, seed, offset), else 0, regenerating
// the mask instead of reading it.
func DropoutBackward(s *Stream, dy, dx DevicePtr, n int, p float32, seed, offset uint64) error {
	mustStream("DropoutBackward", s)
	mustCount("DropoutBackward", "n", n)
	if !(p >= 0 && p <= 1) {
		argPanic("DropoutBackward", "p = %v, want 0 <= p <= 1", p)
	}
	if n == 0 {
		return nil
	}
	return launch(s, "dropout", "gk_dropout_bwd_f32", gridFor((int64(n)+3)/4, blockThreads), flat, 0,
		dy, dx, int64(n), p, seed, offset)
}
