package tensor

import (
	"errors"
	"math"
	"testing"
)

// GPU tests of the CUDA backend's casts and fills (the elementwise parity
// tests are in cuda_test.go). They skip without a GPU.

// TestCUDACast checks float32 <-> float16 / bfloat16 on the GPU against the
// CPU bit for bit (both round to nearest even), the gradient of a cast on
// the GPU, and the refusal of the pairs with no kernel.
func TestCUDACast(t *testing.T) {
	needGPU(t)
	x := Randn(NewGenerator(5), 300, 7)
	xd := x.Float32s()
	xd[0], xd[1], xd[2] = float32(math.NaN()), 70000, -1e-9
	for _, dt := range []DType{Float16, BFloat16} {
		want := x.Cast(dt)
		got := gpu(t, x).Cast(dt)
		if got.DType() != dt || got.Device() != cudaDev {
			t.Fatalf("Cast to %s on the GPU gave %s on %s", dt, got.DType(), got.Device())
		}
		g, w := got.ToCPU().Uint16s(), want.Uint16s()
		for i := range w {
			if g[i] != w[i] && !(i == 0 && lowElem(dt, g[i]) != lowElem(dt, g[i])) {
				t.Fatalf("Cast to %s: element %d is %#x on the GPU, %#x on the CPU", dt, i, g[i], w[i])
			}
		}
		back := gpu(t, want).Float().ToCPU().Float32s()
		for i, v := range want.Float().Float32s() {
			if math.Float32bits(back[i]) != math.Float32bits(v) && !(v != v && back[i] != back[i]) {
				t.Fatalf("Cast %s to float32: element %d is %v on the GPU, %v on the CPU", dt, i, back[i], v)
			}
		}
		// The gradient of a cast is cast back on the device.
		xg := gpu(t, Rand(NewGenerator(6), -1, 1, 4, 3)).SetRequiresGrad(true)
		wg := Rand(NewGenerator(7), -1, 1, 4, 3)
		Sum(Mul(xg.Cast(dt).Float(), gpu(t, wg))).Backward()
		if gr := xg.Grad(); gr == nil || gr.Device() != cudaDev || gr.DType() != Float32 {
			t.Fatalf("gradient through a %s cast: %v", dt, gr)
		}
		if g, w := xg.Grad().ToCPU().Float32s(), wg.Float32s(); !equalBits(g, w) {
			t.Errorf("gradient through a %s cast: %v, want %v", dt, g, w)
		}
	}
	if err := Catch(func() { gpu(t, Ones(3)).Cast(Int64) }); !errors.Is(err, ErrNotImplemented) {
		t.Errorf("Cast float32 to int64 on the GPU: %v, want ErrNotImplemented", err)
	}
}

// TestCUDAFill checks the fills of every dtype on the GPU against the CPU.
func TestCUDAFill(t *testing.T) {
	needGPU(t)
	be := mustBackend("Fill", cudaDev)
	for _, c := range []struct {
		dt DType
		v  float64
	}{{Float32, 1.5}, {Float16, -2.25}, {BFloat16, 3}, {Int64, -7.9}, {Int8, 300}, {Bool, 2}} {
		got := fullOn("Fill", be, c.dt, c.v, 5, 3).ToCPU()
		want := fullOn("Fill", cpu, c.dt, c.v, 5, 3)
		for i := 0; i < want.Numel(); i++ {
			if elem(got, i) != elem(want, i) {
				t.Errorf("Fill %s with %v: element %d is %v on the GPU, %v on the CPU", c.dt, c.v, i, elem(got, i), elem(want, i))
				break
			}
		}
	}
}
