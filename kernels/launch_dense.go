package kernels

import "math"

// Dense kernels of package tensor's ops (dense.cu): broadcast binary ops,
// the reduction of a broadcast gradient, unary math and its backward, a
// device-scalar fill, NLL loss, row arg-max, strided row copies and
// transposes. Tensors are contiguous row-major device buffers; the
// elementwise kernels take float32, float16 or bfloat16 storage (dt),
// computing in float32 and rounding once. Each launcher queues one kernel
// on s and returns launch errors; it panics with a message naming the
// launcher on a nil stream, a negative size or an unsupported dtype.

// BinaryOp is the operation of BinaryElementwise and BroadcastBinary.
type BinaryOp int32

const (
	BinaryAdd   BinaryOp = iota // a + b
	BinarySub                   // a - b
	BinaryMul                   // a * b
	BinaryDiv                   // a / b
	BinaryCopyA                 // a (BroadcastBinary: expand a; b is not read)
)

// UnaryOp is the function of Unary and UnaryBackward.
type UnaryOp int32

const (
	UnaryExp       UnaryOp = iota // exp(x)
	UnaryLog                      // log(x)
	UnarySqrt                     // sqrt(x)
	UnarySigmoid                  // 1 / (1 + exp(-x))
	UnaryTanh                     // tanh(x)
	UnaryPow                      // x^p
	UnaryAddScalar                // x + p
	UnaryScale                    // p * x
)

// BinaryElementwise computes y[i] = a[i] op b[i] for n elements of dt.
func BinaryElementwise(s *Stream, op BinaryOp, dt DType, a, b, y DevicePtr, n int) error {
	mustStream("BinaryElementwise", s)
	mustCount("BinaryElementwise", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "dense", "gk_binary_"+dt.suffix("BinaryElementwise"), gridFor(int64(n), blockThreads), flat, 0,
		a, b, y, int64(n), int32(op))
}

// Shape4 is a shape or strides padded on the left to four dimensions.
type Shape4 [4]int64

// BroadcastBinary computes y = a op b over an output of shape out (four
// dimensions, padded with 1 on the left), reading a at the element
// offsets sum(i_k * sa_k) and b at sum(i_k * sb_k) (stride 0 on a
// broadcast dimension); n is the output's element count.
func BroadcastBinary(s *Stream, op BinaryOp, dt DType, a, b, y DevicePtr, n int, out, sa, sb Shape4) error {
	mustStream("BroadcastBinary", s)
	mustCount("BroadcastBinary", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "dense", "gk_bcast_binary_"+dt.suffix("BroadcastBinary"), gridFor(int64(n), blockThreads), flat, 0,
		a, b, y, int64(n), int32(op), out[1], out[2], out[3], sa[0], sa[1], sa[2], sa[3], sb[0], sb[1], sb[2], sb[3])
}

// SumTo reduces g, of shape gs, to out, of shape os (each dimension equal
// to g's or 1, a broadcast dimension summed over), with nout output
// elements; the sums run in float32 in index order.
func SumTo(s *Stream, dt DType, g, out DevicePtr, nout int, gs, os Shape4) error {
	mustStream("SumTo", s)
	mustCount("SumTo", "nout", nout)
	if nout == 0 {
		return nil
	}
	return launch(s, "dense", "gk_sum_to_"+dt.suffix("SumTo"), gridFor(int64(nout), blockThreads), flat, 0,
		g, out, int64(nout), gs[0], gs[1], gs[2], gs[3], os[1], os[2], os[3])
}

// Unary computes y = f(x) for n elements of dt; p is the exponent
// (UnaryPow) or the scalar (UnaryAddScalar, UnaryScale).
func Unary(s *Stream, op UnaryOp, dt DType, x, y DevicePtr, n int, p float32) error {
	mustStream("Unary", s)
	mustCount("Unary", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "dense", "gk_unary_"+dt.suffix("Unary"), gridFor(int64(n), blockThreads), flat, 0,
		x, y, int64(n), int32(op), p)
}

// UnaryBackward computes dx = g * f'(x) for y = f(x), n elements of dt.
func UnaryBackward(s *Stream, op UnaryOp, dt DType, x, y, g, dx DevicePtr, n int, p float32) error {
	mustStream("UnaryBackward", s)
	mustCount("UnaryBackward", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "dense", "gk_unary_bwd_"+dt.suffix("UnaryBackward"), gridFor(int64(n), blockThreads), flat, 0,
		x, y, g, dx, int64(n), int32(op), p)
}

// FillFrom sets the n elements at y to scale * src[0], src a device scalar
// of dt (the gradient of a sum).
func FillFrom(s *Stream, dt DType, src DevicePtr, scale float32, y DevicePtr, n int) error {
	mustStream("FillFrom", s)
	mustCount("FillFrom", "n", n)
	if n == 0 {
		return nil
	}
	return launch(s, "dense", "gk_fill_from_"+dt.suffix("FillFrom"), gridFor(int64(n), blockThreads), flat, 0,
		src, scale, y, int64(n))
}

// NLLForwardF32 computes loss[r] = -logp[r, t[r]]: logp (rows, cols)
// float32, t (rows) int64 targets in [0, cols).
func NLLForwardF32(s *Stream, logp, t, loss DevicePtr, rows, cols int) error {
	mustStream("NLLForwardF32", s)
	mustCount("NLLForwardF32", "rows", rows)
	if rows == 0 {
		return nil
	}
	return launch(s, "dense", "gk_nll_fwd_f32", gridFor(int64(rows), blockThreads), flat, 0, logp, t, loss, int64(rows), int64(cols))
}

// NLLBackwardF32 sets gl[r, t[r]] = -scale * g[0] (gl zeroed before).
func NLLBackwardF32(s *Stream, t, g, gl DevicePtr, rows, cols int, scale float32) error {
	mustStream("NLLBackwardF32", s)
	mustCount("NLLBackwardF32", "rows", rows)
	if rows == 0 {
		return nil
	}
	return launch(s, "dense", "gk_nll_bwd_f32", gridFor(int64(rows), blockThreads), flat, 0, t, g, gl, int64(rows), int64(cols), scale)
}

// ArgMaxRowsF32 writes the int64 index of the first largest value of each
// row of x (rows, cols) float32 to out (rows).
func ArgMaxRowsF32(s *Stream, x, out DevicePtr, rows, cols int) error {
	mustStream("ArgMaxRowsF32", s)
	mustCount("ArgMaxRowsF32", "rows", rows)
	if rows == 0 {
		return nil
	}
	return launch(s, "dense", "gk_argmax_rows_f32", gridFor(int64(rows), blockThreads), flat, 0, x, out, int64(rows), int64(cols))
}

func byteSuffix(op string, esize int) string {
	switch esize {
	case 1, 2, 4, 8:
		return "b" + string(rune('0'+esize))
	}
	argPanic(op, "element size %d, want 1, 2, 4 or 8 bytes", esize)
	return ""
}

// Copy2D copies rows rows of w elements of esize bytes: dst[r*dstride + c]
// = src[r*sstride + c] (strides in elements), any dtype.
func Copy2D(s *Stream, esize int, src DevicePtr, sstride int, dst DevicePtr, dstride, rows, w int) error {
	mustStream("Copy2D", s)
	mustCount("Copy2D", "rows", rows)
	mustCount("Copy2D", "w", w)
	if rows == 0 || w == 0 {
		return nil
	}
	return launch(s, "dense", "gk_copy2d_"+byteSuffix("Copy2D", esize), gridFor(int64(rows)*int64(w), blockThreads), flat, 0,
		src, int64(sstride), dst, int64(dstride), int64(rows), int64(w))
}

// Transpose writes y (n, m), the transpose of x (m, n), elements of esize
// bytes; m and n must be below 2^31 and n/32 below 65536 (the grid's y).
func Transpose(s *Stream, esize int, x, y DevicePtr, m, n int) error {
	mustStream("Transpose", s)
	mustInt32("Transpose", "m", m)
	mustInt32("Transpose", "n", n)
	if m == 0 || n == 0 {
		return nil
	}
	if (n+31)/32 > 65535 || (m+31)/32 > math.MaxInt32 {
		argPanic("Transpose", "a (%d, %d) matrix exceeds the grid", m, n)
	}
	return launch(s, "dense", "gk_transpose_"+byteSuffix("Transpose", esize), Dim3{X: (m + 31) / 32, Y: (n + 31) / 32, Z: 1},
		Dim3{X: 32, Y: 8, Z: 1}, 0, x, y, int32(m), int32(n))
}
