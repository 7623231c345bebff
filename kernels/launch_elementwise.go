package kernels

// Elementwise float32 kernels (elementwise.cu). x, y, a, b, dx, dy are
// device buffers of n float32 values; the output may alias an input. Each
// launcher queues one kernel on s and returns launch errors; kernel faults
// surface at the next synchronizing call. Panics if s is nil or n < 0.

func binary(op, name string, s *Stream, a, b, y DevicePtr, n int) error {
	mustStream(op, s)
	mustCount(op, "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "elementwise", name, gridFor(int64(n), blockThreads), flat, 0, a, b, y, int64(n))
}

// AddF32 computes y = a + b elementwise.
func AddF32(s *Stream, a, b, y DevicePtr, n int) error {
	return binary("AddF32", "gk_add_f32", s, a, b, y, n)
}

// SubF32 computes y = a - b elementwise.
func SubF32(s *Stream, a, b, y DevicePtr, n int) error {
	return binary("SubF32", "gk_sub_f32", s, a, b, y, n)
}

// MulF32 computes y = a * b elementwise.
func MulF32(s *Stream, a, b, y DevicePtr, n int) error {
	return binary("MulF32", "gk_mul_f32", s, a, b, y, n)
}

// ScaleF32 computes y = alpha * x.
func ScaleF32(s *Stream, x DevicePtr, alpha float32, y DevicePtr, n int) error {
	mustStream("ScaleF32", s)
	mustCount("ScaleF32", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "elementwise", "gk_scale_f32", gridFor(int64(n), blockThreads), flat, 0, x, alpha, y, int64(n))
}

// AxpyF32 computes y += alpha * x (gradient accumulation).
func AxpyF32(s *Stream, x DevicePtr, alpha float32, y DevicePtr, n int) error {
	mustStream("AxpyF32", s)
	mustCount("AxpyF32", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "elementwise", "gk_axpy_f32", gridFor(int64(n), blockThreads), flat, 0, x, alpha, y, int64(n))
}

// FillF32 sets the n values at y to v.
func FillF32(s *Stream, y DevicePtr, v float32, n int) error {
	mustStream("FillF32", s)
	mustCount("FillF32", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "elementwise", "gk_fill_f32", gridFor(int64(n), blockThreads), flat, 0, y, v, int64(n))
}

// AddBiasF32 computes y[r, c] = x[r, c] + bias[c]: x, y (rows, cols), bias
// (cols), the bias add of a linear layer.
func AddBiasF32(s *Stream, x, bias, y DevicePtr, rows, cols int) error {
	mustStream("AddBiasF32", s)
	mustCount("AddBiasF32", "rows", rows)
	mustInt32("AddBiasF32", "cols", cols)
	if rows == 0 || cols == 0 {
		return nil
	}
	return launch(s, "elementwise", "gk_add_bias_f32", gridFor(int64(rows)*int64(cols), blockThreads), flat, 0,
		x, bias, y, int64(rows), int32(cols))
}

// ReLUForward computes y = max(x, 0).
func ReLUForward(s *Stream, x, y DevicePtr, n int) error {
	mustStream("ReLUForward", s)
	mustCount("ReLUForward", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "elementwise", "gk_relu_fwd_f32", gridFor(int64(n), blockThreads), flat, 0, x, y, int64(n))
}

// ReLUBackward computes dx = dy where x > 0, else 0 (x the forward input).
func ReLUBackward(s *Stream, x, dy, dx DevicePtr, n int) error {
	mustStream("ReLUBackward", s)
	mustCount("ReLUBackward", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "elementwise", "gk_relu_bwd_f32", gridFor(int64(n), blockThreads), flat, 0, x, dy, dx, int64(n))
}

// LeakyReLUForward computes y = x if x > 0 else slope*x
// (torch.nn.functional.leaky_relu, negative_slope; GAT uses 0.2).
func LeakyReLUForward(s *Stream, x, y DevicePtr, slope float32, n int) error {
	mustStream("LeakyReLUForward", s)
	mustCount("LeakyReLUForward", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "elementwise", "gk_leaky_relu_fwd_f32", gridFor(int64(n), blockThreads), flat, 0, x, y, slope, int64(n))
}

// LeakyReLUBackward computes dx = dy if x > 0 else slope*dy.
func LeakyReLUBackward(s *Stream, x, dy, dx DevicePtr, slope float32, n int) error {
	mustStream("LeakyReLUBackward", s)
	mustCount("LeakyReLUBackward", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "elementwise", "gk_leaky_relu_bwd_f32", gridFor(int64(n), blockThreads), flat, 0, x, dy, dx, slope, int64(n))
}

// ELUForward computes y = x if x > 0 else alpha*(exp(x)-1)
// (torch.nn.functional.elu).
func ELUForward(s *Stream, x, y DevicePtr, alpha float32, n int) error {
	mustStream("ELUForward", s)
	mustCount("ELUForward", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "elementwise", "gk_elu_fwd_f32", gridFor(int64(n), blockThreads), flat, 0, x, y, alpha, int64(n))
}

// ELUBackward computes dx = dy if x > 0 else dy*alpha*exp(x).
func ELUBackward(s *Stream, x, dy, dx DevicePtr, alpha float32, n int) error {
	mustStream("ELUBackward", s)
	mustCount("ELUBackward", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "elementwise", "gk_elu_bwd_f32", gridFor(int64(n), blockThreads), flat, 0, x, dy, dx, alpha, int64(n))
}
