package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Elementwise kernels against plain-Go loops. Tolerance: exact (atol 0) for
// +, -, *, scale, relu, leaky_relu, fill, bias; 1 ulp-scale (atol 1e-7,
// rtol 1e-6) for axpy (device fma); atol 1e-6, rtol 1e-5 for elu (expm1f,
// expf vs float64 math).
func TestElementwiseParity(t *testing.T) {
	d, s := gpu(t)
	r := rand.New(rand.NewPCG(1, 2))
	const n = 100_003 // not a multiple of the block
	a := randF32(r, n, -2, 2)
	b := randF32(r, n, -2, 2)
	dy := randF32(r, n, -1, 1)
	pa, pb, pdy := upF32(t, d, a), upF32(t, d, b), upF32(t, d, dy)
	ref := func(f func(i int) float32) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	const slope, alpha = float32(0.2), float32(1.0)
	cases := []struct {
		name       string
		run        func(y DevicePtr) error
		want       []float32
		atol, rtol float64
	}{
		{"add", func(y DevicePtr) error { return AddF32(s, pa, pb, y, n) }, ref(func(i int) float32 { return a[i] + b[i] }), 0, 0},
		{"sub", func(y DevicePtr) error { return SubF32(s, pa, pb, y, n) }, ref(func(i int) float32 { return a[i] - b[i] }), 0, 0},
		{"mul", func(y DevicePtr) error { return MulF32(s, pa, pb, y, n) }, ref(func(i int) float32 { return a[i] * b[i] }), 0, 0},
		{"scale", func(y DevicePtr) error { return ScaleF32(s, pa, 1.5, y, n) }, ref(func(i int) float32 { return 1.5 * a[i] }), 0, 0},
		{"fill", func(y DevicePtr) error { return FillF32(s, y, 3.25, n) }, ref(func(i int) float32 { return 3.25 }), 0, 0},
		{"axpy", func(y DevicePtr) error {
			if err := d.CopyDtoD(y, pb, 4*n); err != nil {
				return err
			}
			return AxpyF32(s, pa, -0.75, y, n)
		}, ref(func(i int) float32 { return float32(-0.75*float64(a[i]) + float64(b[i])) }), 1e-7, 1e-6},
		{"relu_fwd", func(y DevicePtr) error { return ReLUForward(s, pa, y, n) }, ref(func(i int) float32 { return max(a[i], 0) }), 0, 0},
		{"relu_bwd", func(y DevicePtr) error { return ReLUBackward(s, pa, pdy, y, n) }, ref(func(i int) float32 {
			if a[i] > 0 {
				return dy[i]
			}
			return 0
		}), 0, 0},
		{"leaky_relu_fwd", func(y DevicePtr) error { return LeakyReLUForward(s, pa, y, slope, n) }, ref(func(i int) float32 {
			if a[i] > 0 {
				return a[i]
			}
			return slope * a[i]
		}), 0, 0},
		{"leaky_relu_bwd", func(y DevicePtr) error { return LeakyReLUBackward(s, pa, pdy, y, slope, n) }, ref(func(i int) float32 {
			if a[i] > 0 {
				return dy[i]
			}
			return slope * dy[i]
		}), 0, 0},
		{"elu_fwd", func(y DevicePtr) error { return ELUForward(s, pa, y, alpha, n) }, ref(func(i int) float32 {
			if a[i] > 0 {
				return a[i]
			}
			return float32(float64(alpha) * math.Expm1(float64(a[i])))
		}), 1e-6, 1e-5},
		{"elu_bwd", func(y DevicePtr) error { return ELUBackward(s, pa, pdy, y, alpha, n) }, ref(func(i int) float32 {
			if a[i] > 0 {
				return dy[i]
			}
			return float32(float64(dy[i]) * float64(alpha) * math.Exp(float64(a[i])))
		}), 1e-6, 1e-5},
	}
	for _, c := range cases {
		y := alloc(t, d, 4*n)
		must(t, c.run(y))
		closeTo(t, c.name, downF32(t, s, y, n), c.want, c.atol, c.rtol)
	}

	// Bias add over (rows, cols).
	const rows, cols = 1001, 37
	x := randF32(r, rows*cols, -1, 1)
	bias := randF32(r, cols, -1, 1)
	want := make([]float32, rows*cols)
	for i := range want {
		want[i] = x[i] + bias[i%cols]
	}
	y := alloc(t, d, 4*rows*cols)
	must(t, AddBiasF32(s, upF32(t, d, x), upF32(t, d, bias), y, rows, cols))
	closeTo(t, "add_bias", downF32(t, s, y, rows*cols), want, 0, 0)
}

// Casts against x448/float16 (float16, nearest even) and a bit-exact
// bfloat16 rounding; exact match required.
func TestCastParity(t *testing.T) {
	d, s := gpu(t)
	r := rand.New(rand.NewPCG(3, 4))
	const n = 65_537
	x := randF32(r, n, -70000, 70000) // beyond float16's range too
	for i := 0; i < n; i += 3 {
		x[i] *= 1e-4 // small and subnormal float16 values
	}
	px := upF32(t, d, x)
	for _, dt := range []DType{DTypeFloat16, DTypeBFloat16} {
		bits, vals := toStorage(dt, x)
		h := alloc(t, d, 2*n)
		must(t, Cast(s, px, DTypeFloat32, h, dt, n))
		got := downU16(t, s, h, n)
		bad := 0
		for i := range got {
			if got[i] != bits[i] {
				if bad < 5 {
					t.Errorf("cast f32->%v of %v: bits %#04x, want %#04x", dt, x[i], got[i], bits[i])
				}
				bad++
			}
		}
		if bad == 0 {
			t.Logf("cast f32->%v: %d values bit-exact", dt, n)
		}
		back := alloc(t, d, 4*n)
		must(t, Cast(s, h, dt, back, DTypeFloat32, n))
		closeTo(t, "cast "+dt.String()+"->f32", downF32(t, s, back, n), vals, 0, 0)
	}
}
