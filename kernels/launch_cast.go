package kernels

// Cast converts n values from x (dtype from) to y (dtype to), rounding to
// nearest even: float32 <-> float16 and float32 <-> bfloat16
// (torch.Tensor.to). Panics on other pairs, a nil stream or n < 0.
func Cast(s *Stream, x DevicePtr, from DType, y DevicePtr, to DType, n int) error {
	mustStream("Cast", s)
	mustCount("Cast", "n", n)
	var name string
	switch {
	case from == DTypeFloat32 && to == DTypeFloat16:
		name = "gk_cast_f32_f16"
	case from == DTypeFloat16 && to == DTypeFloat32:
		name = "gk_cast_f16_f32"
	case from == DTypeFloat32 && to == DTypeBFloat16:
		name = "gk_cast_f32_bf16"
	case from == DTypeBFloat16 && to == DTypeFloat32:
		name = "gk_cast_bf16_f32"
	default:
		argPanic("Cast", "%v -> %v, want float32 <-> float16 or bfloat16", from, to)
	}
	if n == 0 {
		return nil
	}
	return launch(s, "cast", name, gridFor(int64(n), blockThreads), flat, 0, x, y, int64(n))
}
