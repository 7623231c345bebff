package kernels

// Row-wise softmax kernels (softmax.cu) over float32 (rows, cols) matrices,
// one warp per row. Panics if s is nil or a size is negative.

func rowKernel(op, name string, s *Stream, rows, cols int, args ...any) error {
	mustStream(op, s)
	mustCount(op, "rows", rows)
	mustInt32(op, "cols", cols)
	if rows == 0 || cols == 0 {
		return nil
	}
	grid, block := rowGrid(int64(rows), 32)
	return launch(s, "softmax", name, grid, block, 0, append(args, int64(rows), int32(cols))...)
}

// LogSoftmaxForward computes y = x - logsumexp(x) per row
// (torch.log_softmax(x, dim=1)); (rows, cols) -> (rows, cols).
func LogSoftmaxForward(s *Stream, x, y DevicePtr, rows, cols int) error {
	return rowKernel("LogSoftmaxForward", "gk_log_softmax_fwd_f32", s, rows, cols, x, y)
}

// LogSoftmaxBackward computes dx = dy - exp(y) * sum(dy) per row, y the
// forward output.
func LogSoftmaxBackward(s *Stream, y, dy, dx DevicePtr, rows, cols int) error {
	return rowKernel("LogSoftmaxBackward", "gk_log_softmax_bwd_f32", s, rows, cols, y, dy, dx)
}

// SoftmaxForward computes y = exp(x - logsumexp(x)) per row
// (torch.softmax(x, dim=1)).
func SoftmaxForward(s *Stream, x, y DevicePtr, rows, cols int) error {
	return rowKernel("SoftmaxForward", "gk_softmax_fwd_f32", s, rows, cols, x, y)
}

// SoftmaxBackward computes dx = y * (dy - sum(dy*y)) per row, y the forward
// output.
func SoftmaxBackward(s *Stream, y, dy, dx DevicePtr, rows, cols int) error {
	return rowKernel("SoftmaxBackward", "gk_softmax_bwd_f32", s, rows, cols, y, dy, dx)
}

// CrossEntropyForward computes the per-row cross-entropy of logits x
// (rows, cols) against int64 class labels (rows):
// loss[r] = logsumexp(x[r]) - x[r, labels[r]] (torch.nn.functional.
// cross_entropy with reduction='none'), and lse[r] = logsumexp(x[r]) for
// the backward. loss and lse are (rows) float32. A label outside [0, cols)
// (PyTorch's ignore_index -100) gives loss 0; the mean over kept rows is
// SumF32(loss) / kept.
func CrossEntropyForward(s *Stream, x, labels, loss, lse DevicePtr, rows, cols int) error {
	return rowKernel("CrossEntropyForward", "gk_cross_entropy_fwd_f32", s, rows, cols, x, labels, loss, lse)
}

// CrossEntropyBackward computes dx[r, c] = dloss[r] * (softmax(x[r])[c] -
// [c == labels[r]]), 0 for ignored rows; dloss (rows) float32 is the
// upstream gradient per row (1/kept for the mean reduction).
func CrossEntropyBackward(s *Stream, x, labels, lse, dloss, dx DevicePtr, rows, cols int) error {
	return rowKernel("CrossEntropyBackward", "gk_cross_entropy_bwd_f32", s, rows, cols, x, labels, lse, dloss, dx)
}
