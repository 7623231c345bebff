package tensor

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Tests of the MatMul, Random and Step kernels behind the Backend: the
// CPU's GEMM (every float dtype, every transpose, several row blocks)
// against its reference loop, the ops on the meta device (shapes, dtypes
// and exactly the CPU's allocations, forward and backward), and the
// low-precision gates of the CUDA kernels.

// TestCPUGemmMatchesReference checks cpu.Gemm against gemmRef on the
// widened operands for float32, float16 and bfloat16, all four transposes,
// beta 0 (c not read: it starts as NaN) and beta != 0, with shapes that
// take several float32 row blocks.
func TestCPUGemmMatchesReference(t *testing.T) {
	const m, n, k = 70, 520, 90 // lowRowBlock(520) = 32 rows: 3 blocks of rows, and of the k rows
	for _, dt := range []DType{Float32, Float16, BFloat16} {
		for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			for _, ab := range [][2]float32{{1, 0}, {0.5, 2}} {
				tA, tB := tr[0], tr[1]
				alpha, beta := ab[0], ab[1]
				sa, sb := []int{m, k}, []int{k, n}
				if tA {
					sa = []int{k, m}
				}
				if tB {
					sb = []int{n, k}
				}
				a, b := castRaw(randT(1, sa...), dt), castRaw(randT(2, sb...), dt)
				c := castRaw(randT(3, m, n), dt)
				if beta == 0 {
					c = castRaw(Full(float32(math.NaN()), m, n), dt)
				}
				want := castRaw(c, Float32).Clone().Float32s()
				gemmRef(tA, tB, m, n, k, alpha, castRaw(a, Float32).Float32s(), sa[1], castRaw(b, Float32).Float32s(), sb[1], beta, want, n)
				wdt, sizes := cpu.GemmWorkspace(tA, tB, a, b, c)
				ws := scratchOn("test", cpu, wdt, sizes)
				cpu.Gemm(tA, tB, alpha, a, b, beta, c, ws)
				tol := 1e-4
				if dt != Float32 {
					tol = 1e-2 // one rounding of the result (bfloat16: 2^-8 relative)
				}
				got := castRaw(c, Float32).Float32s()
				for i := range got {
					if d := math.Abs(float64(got[i] - want[i])); !(d <= tol*(1+math.Abs(float64(want[i])))) {
						t.Fatalf("%s tA=%v tB=%v alpha=%g beta=%g: c[%d] = %g, reference %g", dt, tA, tB, alpha, beta, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestGemmEmptyInner checks that k = 0 gives beta*c, and zero for beta = 0
// whatever c held.
func TestGemmEmptyInner(t *testing.T) {
	for _, dt := range []DType{Float32, BFloat16} {
		for _, tA := range []bool{false, true} {
			sa := []int{3, 0}
			if tA {
				sa = []int{0, 3}
			}
			a, b := New(dt, sa...), New(dt, 0, 2)
			c := castRaw(Full(float32(math.NaN()), 3, 2), dt)
			wdt, sizes := cpu.GemmWorkspace(tA, false, a, b, c)
			cpu.Gemm(tA, false, 1, a, b, 0, c, scratchOn("test", cpu, wdt, sizes))
			for _, v := range castRaw(c, Float32).Float32s() {
				if v != 0 {
					t.Fatalf("%s tA=%v: k = 0, beta = 0 gave %v, want zeros", dt, tA, castRaw(c, Float32).Float32s())
				}
			}
		}
	}
}

// metaCase is an op of the family run on the CPU and on the meta device.
type metaCase struct {
	name   string
	shapes [][]int
	dtypes []DType
	grad   []bool // which inputs require grad
	f      func(in []*Tensor) *Tensor
}

// allocated runs f and returns what it allocated on device.
func allocated(device string, f func()) int64 {
	before := TotalAllocatedBytes(device)
	f()
	return TotalAllocatedBytes(device) - before
}

// TestMatMulRandomOpsOnMeta runs every op of the MatMul and Random
// families on meta tensors: each returns the CPU's shape and dtype, and the
// meta device counts exactly the bytes the CPU allocates, in the forward
// pass and in the op's backward rule (scratch, mask bits and gradients).
func TestMatMulRandomOpsOnMeta(t *testing.T) {
	f32, bf, f16 := Float32, BFloat16, Float16
	mm := func(in []*Tensor) *Tensor { return MatMul(in[0], in[1]) }
	addmm := func(in []*Tensor) *Tensor { return AddMM(in[0], in[1], in[2], in[3:]...) }
	addmmReLU := func(in []*Tensor) *Tensor { return AddMMReLU(in[0], in[1], in[2], in[3:]...) }
	cases := []metaCase{
		{"MatMul f32", [][]int{{100, 700}, {700, 30}}, []DType{f32, f32}, []bool{true, true}, mm},
		{"MatMul bf16", [][]int{{100, 700}, {700, 30}}, []DType{bf, bf}, []bool{true, true}, mm},
		{"MatMul f16 a only", [][]int{{40, 9}, {9, 600}}, []DType{f16, f16}, []bool{true, false}, mm},
		{"AddMM f32 bias", [][]int{{30}, {50, 20}, {20, 30}}, []DType{f32, f32, f32}, []bool{false, true, true}, addmm},
		{"AddMM f32 (M,N) two pairs", [][]int{{50, 30}, {50, 20}, {20, 30}, {50, 7}, {7, 30}},
			[]DType{f32, f32, f32, f32, f32}, []bool{true, true, true, false, true}, addmm},
		{"AddMMReLU f32", [][]int{{30}, {50, 20}, {20, 30}}, []DType{f32, f32, f32}, []bool{false, true, true}, addmmReLU},
		{"AddMM bf16 bias", [][]int{{300}, {90, 200}, {200, 300}}, []DType{bf, bf, bf}, []bool{false, true, true}, addmm},
		{"AddMMReLU bf16 (M,N) two pairs", [][]int{{90, 300}, {90, 200}, {200, 300}, {90, 40}, {40, 300}},
			[]DType{bf, bf, bf, bf, bf}, []bool{true, true, true, true, true}, addmmReLU},
		{"AddMMReLU f16 under autocast, float32 bias", [][]int{{30}, {50, 20}, {20, 30}}, []DType{f32, f16, f16}, []bool{false, true, true},
			func(in []*Tensor) *Tensor {
				on, dt := SetAutocast(true, Float16)
				defer SetAutocast(on, dt)
				return AddMMReLU(in[0], in[1], in[2])
			}},
		{"Dropout f32", [][]int{{37, 11}}, []DType{f32}, []bool{true},
			func(in []*Tensor) *Tensor { return Dropout(in[0], 0.3, true, NewGenerator(5)) }},
		{"DropoutAt bf16", [][]int{{130}}, []DType{bf}, []bool{true},
			func(in []*Tensor) *Tensor { return DropoutAt(in[0], 0.5, 7, 3) }},
		{"Dropout empty", [][]int{{0, 4}}, []DType{f32}, []bool{true},
			func(in []*Tensor) *Tensor { return Dropout(in[0], 0.5, true, NewGenerator(1)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var outs [2]*Tensor
			var fwd, bwd [2]int64
			var grads [2][]*Tensor
			for i, dev := range []string{"cpu", "meta"} {
				in := make([]*Tensor, len(c.shapes))
				for j, s := range c.shapes {
					if dev == "cpu" {
						in[j] = castRaw(randT(int64(j+1), s...), c.dtypes[j])
					} else {
						in[j] = EmptyOn("meta", c.dtypes[j], s...)
					}
					in[j].SetRequiresGrad(c.grad[j])
				}
				fwd[i] = allocated(dev, func() { outs[i] = c.f(in) })
				out := outs[i]
				if out.node == nil {
					t.Fatalf("%s: no autograd node", dev)
				}
				g := castRaw(Ones(out.shape...), out.dtype)
				if dev == "meta" {
					g = EmptyOn("meta", out.dtype, out.shape...)
				}
				bwd[i] = allocated(dev, func() { grads[i] = runBackward(out.node, g) })
			}
			if !sameShape(outs[0].shape, outs[1].shape) || outs[0].dtype != outs[1].dtype || outs[1].Device() != "meta" {
				t.Errorf("meta result %s%v on %s, CPU %s%v", outs[1].dtype, outs[1].shape, outs[1].Device(), outs[0].dtype, outs[0].shape)
			}
			if fwd[0] != fwd[1] || bwd[0] != bwd[1] {
				t.Errorf("allocated forward %d, backward %d bytes on meta; the CPU %d, %d", fwd[1], bwd[1], fwd[0], bwd[0])
			}
			if len(grads[0]) != len(grads[1]) {
				t.Fatalf("%d gradients on meta, %d on the CPU", len(grads[1]), len(grads[0]))
			}
			for j := range grads[0] {
				g0, g1 := grads[0][j], grads[1][j]
				if (g0 == nil) != (g1 == nil) || g0 != nil && (!sameShape(g0.shape, g1.shape) || g0.dtype != g1.dtype || g1.Device() != "meta") {
					t.Errorf("gradient %d: meta %s, CPU %s", j, describe(g1), describe(g0))
				}
			}
		})
	}
}

// TestStepOpsOnMeta checks that the optimizer updates run on meta tensors
// and allocate nothing, as on the CPU.
func TestStepOpsOnMeta(t *testing.T) {
	for _, dev := range []string{"cpu", "meta"} {
		p, g, m, v := ZerosOn(dev, Float32, 5, 3), ZerosOn(dev, Float32, 5, 3), ZerosOn(dev, Float32, 5, 3), ZerosOn(dev, Float32, 15)
		if n := allocated(dev, func() {
			AdamStep(p, g, m, v, AdamConfig{LR: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 1})
			p.AddScaledInPlace(g, -0.1)
		}); n != 0 {
			t.Errorf("%s: the updates allocated %d bytes", dev, n)
		}
	}
}

// TestMetaCUDACountsDeviceAllocations checks that "meta:cuda" counts what a
// GPU allocates: cuda's block sizes, no dropout mask (a GPU regenerates
// it) and no GEMM scratch at "highest" precision, while "meta" counts the
// CPU's mask bits.
func TestMetaCUDACountsDeviceAllocations(t *testing.T) {
	x := EmptyOn("meta:cuda", Float32, 1000)
	if n := allocated("meta:cuda", func() { DropoutAt(x, 0.5, 1, 0) }); n != roundBlock(4000) {
		t.Errorf("Dropout on meta:cuda allocated %d bytes, want %d (the output block only)", n, roundBlock(4000))
	}
	x = EmptyOn("meta", Float32, 1000)
	if n := allocated("meta", func() { DropoutAt(x, 0.5, 1, 0) }); n != 4000+16*8 {
		t.Errorf("Dropout on meta allocated %d bytes, want %d (output and mask bits)", n, 4000+16*8)
	}
	a, b := EmptyOn("meta:cuda", BFloat16, 300, 700), EmptyOn("meta:cuda", BFloat16, 700, 20)
	if n := allocated("meta:cuda", func() { MatMul(a, b) }); n != roundBlock(300*20*2) {
		t.Errorf("bfloat16 MatMul on meta:cuda allocated %d bytes, want %d (the output block only)", n, roundBlock(300*20*2))
	}
	SetFloat32MatmulPrecision("medium")
	defer SetFloat32MatmulPrecision("highest")
	a, b = EmptyOn("meta:cuda", Float32, 300, 700), EmptyOn("meta:cuda", Float32, 700, 20)
	want := roundBlock(300*20*4) + roundBlock(300*700*2) + roundBlock(700*20*2)
	if n := allocated("meta:cuda", func() { MatMul(a, b) }); n != want {
		t.Errorf("medium-precision MatMul on meta:cuda allocated %d bytes, want %d (output and bfloat16 operands)", n, want)
	}
}

// TestCUDAMatMulRandomLowNotImplemented checks that the GPU kernels without
// a float16 / bfloat16 version panic with ErrNotImplemented naming the op,
// the dtype and the device before touching the device.
func TestCUDAMatMulRandomLowNotImplemented(t *testing.T) {
	d := &cudaDevice{name: "cuda:0"}
	x := Ones(2, 3).BFloat16()
	for name, f := range map[string]func(){
		"Dropout":   func() { d.DropoutForward(x, x, nil, false, 0.5, 1, 0) },
		"AddMM":     func() { d.AddMM(x, x, []*Tensor{x, x}, false, nil) },
		"AddMMReLU": func() { d.AddMMReLUBackward(x, x, x) },
		"MatMul":    func() { i := New(Int64, 2, 2); d.Gemm(false, false, 1, i, i, 0, i, nil) },
	} {
		err := Catch(f)
		var te *Error
		if !errors.Is(err, ErrNotImplemented) || !errors.As(err, &te) || te.Op != name || !strings.Contains(err.Error(), "cuda:0") ||
			!strings.Contains(err.Error(), "bfloat16") && !strings.Contains(err.Error(), "int64") {
			t.Errorf("%s: err %v, want ErrNotImplemented naming the op, the dtype and the device", name, err)
		}
	}
}

// TestAddMMMatchesAddOfMatMuls checks the fused AddMM and AddMMReLU
// (every c shape, float32 and bfloat16) against the ops they fuse.
func TestAddMMMatchesAddOfMatMuls(t *testing.T) {
	for _, dt := range []DType{Float32, BFloat16} {
		for _, cs := range [][]int{{40, 30}, {30}, {1, 30}, {40, 1}, {1}, {}} {
			for _, relu := range []bool{false, true} {
				c := castRaw(randT(4, cs...), dt)
				a, b := castRaw(randT(5, 40, 600), dt), castRaw(randT(6, 600, 30), dt)
				x, w := castRaw(randT(7, 40, 3), dt), castRaw(randT(8, 3, 30), dt)
				var got, want *Tensor
				if relu {
					got = AddMMReLU(c, a, b, x, w)
					want = ReLU(Add(Add(castRaw(c, Float32), castRaw(MatMul(a, b), Float32)), castRaw(MatMul(x, w), Float32)))
				} else {
					got = AddMM(c, a, b, x, w)
					want = Add(Add(castRaw(c, Float32), castRaw(MatMul(a, b), Float32)), castRaw(MatMul(x, w), Float32))
				}
				tol := 1e-4
				if dt != Float32 {
					tol = 3e-2 // the reference rounds each product, AddMM once
				}
				gv, wv := castRaw(got, Float32).Float32s(), want.Float32s()
				for i := range wv {
					if d := math.Abs(float64(gv[i] - wv[i])); !(d <= tol*(1+math.Abs(float64(wv[i])))) {
						t.Fatalf("%s", fmt.Sprintf("%s c%v relu=%v: [%d] = %g, want %g", dt, cs, relu, i, gv[i], wv[i]))
					}
				}
			}
		}
	}
}
