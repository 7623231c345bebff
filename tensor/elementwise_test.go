package tensor

import (
	"fmt"
	"math"
	"testing"
)

// The elementwise kernels of the fake device of device_test.go: it has no
// memory, so no op reaches them.
func (fakeBackend) Binary(BinaryOp, *Tensor, *Tensor, *Tensor) { panic("fake device") }
func (fakeBackend) Unary(UnaryOp, *Tensor, *Tensor, float32)   { panic("fake device") }
func (fakeBackend) UnaryBackward(UnaryOp, *Tensor, *Tensor, *Tensor, *Tensor, float32) {
	panic("fake device")
}
func (fakeBackend) SumTo(*Tensor, *Tensor)      { panic("fake device") }
func (fakeBackend) Accumulate(*Tensor, *Tensor) { panic("fake device") }
func (fakeBackend) Cast(*Tensor, *Tensor)       { panic("fake device") }
func (fakeBackend) Fill(*Tensor, float64)       { panic("fake device") }

// toMeta returns a leaf copy of x on the meta device.
func toMeta(t *testing.T, x *Tensor) *Tensor {
	t.Helper()
	m, err := x.Detach().To("meta")
	if err != nil {
		t.Fatalf("To(meta): %v", err)
	}
	return m
}

// metaRun is one op's forward and backward on one device: the result, the
// inputs' gradients and the bytes the device allocated in each pass.
type metaRun struct {
	out       *Tensor
	grads     []*Tensor
	fwd, bwd  int64
	cpuDuring int64 // CPU bytes allocated while a meta run ran
}

func runOn(t *testing.T, device string, f func(in []*Tensor) *Tensor, ins []*Tensor) metaRun {
	t.Helper()
	var r metaRun
	var cpuBytes int64
	cpu0, before := TotalAllocatedBytes("cpu"), TotalAllocatedBytes(device)
	if err := Catch(func() { r.out = f(ins) }); err != nil {
		t.Fatalf("forward on %s: %v", device, err)
	}
	r.fwd = TotalAllocatedBytes(device) - before
	cpuBytes += TotalAllocatedBytes("cpu") - cpu0
	if r.out.RequiresGrad() {
		var seed *Tensor
		if r.out.Numel() != 1 {
			seed = Ones(r.out.Shape()...).Cast(r.out.DType())
			if device == "meta" {
				seed = toMeta(t, seed)
			}
		}
		cpu0, before = TotalAllocatedBytes("cpu"), TotalAllocatedBytes(device)
		if err := Catch(func() {
			if seed == nil {
				r.out.Backward() // the seed of ones made on the device
			} else {
				r.out.BackwardWith(seed)
			}
		}); err != nil {
			t.Fatalf("backward on %s: %v", device, err)
		}
		r.bwd = TotalAllocatedBytes(device) - before
		cpuBytes += TotalAllocatedBytes("cpu") - cpu0
		for _, x := range ins {
			r.grads = append(r.grads, x.Grad())
		}
	}
	if device == "meta" {
		r.cpuDuring = cpuBytes
	}
	return r
}

// TestElementwiseOnMeta runs every op of elementwise.go and cast.go,
// forward and backward, on CPU tensors and on meta copies of them: the
// meta results have the CPU's shapes and dtypes, the gradients too, and
// "meta" counts exactly the bytes the CPU allocates in each pass, while
// nothing is allocated (or read) on the CPU.
func TestElementwiseOnMeta(t *testing.T) {
	type tcase struct {
		name   string
		f      func(in []*Tensor) *Tensor
		shapes [][]int
	}
	bin := map[string]func(a, b *Tensor) *Tensor{"Add": Add, "Sub": Sub, "Mul": Mul, "Div": Div}
	var cases []tcase
	for _, name := range []string{"Add", "Sub", "Mul", "Div"} {
		op := bin[name]
		f := func(in []*Tensor) *Tensor { return op(in[0], in[1]) }
		for _, sh := range []struct {
			what string
			a, b []int
		}{
			{"same", []int{37, 19}, []int{37, 19}},
			{"bias", []int{37, 19}, []int{19}},
			{"column", []int{37, 19}, []int{37, 1}},
			{"scalar", []int{37, 19}, []int{1}},
			{"scalar first", []int{1}, []int{4, 3}},
			{"3-D", []int{5, 1, 7}, []int{1, 6, 7}},
			{"wide bias", []int{3, 2100}, []int{2100}},
		} {
			cases = append(cases, tcase{name + " " + sh.what, f, [][]int{sh.a, sh.b}})
		}
		cases = append(cases, tcase{name + " same input", func(in []*Tensor) *Tensor { return op(in[0], in[0]) }, [][]int{{8, 3}}})
	}
	x := [][]int{{30, 7}}
	one := func(name string, f func(x *Tensor) *Tensor) tcase {
		return tcase{name, func(in []*Tensor) *Tensor { return f(in[0]) }, x}
	}
	cases = append(cases,
		one("MulScalar", func(x *Tensor) *Tensor { return MulScalar(x, -2.5) }),
		one("AddScalar", func(x *Tensor) *Tensor { return AddScalar(x, 0.75) }),
		one("Neg", Neg),
		one("ReLU", ReLU),
		one("LeakyReLU", func(x *Tensor) *Tensor { return LeakyReLU(x, 0.2) }),
		one("ELU", func(x *Tensor) *Tensor { return ELU(x, 1) }),
		one("Sigmoid", Sigmoid),
		one("Tanh", Tanh),
		one("Exp", Exp),
		one("Log", Log),
		one("Sqrt", Sqrt),
		one("Pow", func(x *Tensor) *Tensor { return Pow(x, 1.7) }),
		one("Half", func(x *Tensor) *Tensor { return MulScalar(x.Half(), 2) }),
		one("BFloat16", func(x *Tensor) *Tensor { return MulScalar(x.BFloat16(), 2) }),
		one("Float", func(x *Tensor) *Tensor { return MulScalar(x.Float(), 2) }),
		one("Cast Int64", func(x *Tensor) *Tensor { return x.Cast(Int64) }),
		one("chain", func(x *Tensor) *Tensor { return Mul(ReLU(x), Add(Sigmoid(x), x)) }),
		tcase{"Backward seed", func(in []*Tensor) *Tensor { return MulScalar(in[0], 3) }, [][]int{{1}}},
	)
	gen := NewGenerator(7)
	for _, dts := range [][2]DType{{Float32, Float32}, {Float16, Float16}, {BFloat16, BFloat16}, {BFloat16, Float32}, {Float16, BFloat16}} {
		for _, autocast := range []bool{false, true} {
			if autocast && dts[0] == Float32 {
				continue
			}
			for _, c := range cases {
				name := fmt.Sprintf("%s %s+%s autocast=%v", c.name, dts[0], dts[1], autocast)
				var cpuIn, metaIn []*Tensor
				for i, sh := range c.shapes {
					v := Rand(gen, 0.5, 2, sh...).Cast(dts[min(i, 1)]).Detach()
					cpuIn = append(cpuIn, v.SetRequiresGrad(true))
					metaIn = append(metaIn, toMeta(t, v).SetRequiresGrad(true))
				}
				if autocast {
					SetAutocast(true, dts[0])
				}
				want := runOn(t, "cpu", c.f, cpuIn)
				got := runOn(t, "meta", c.f, metaIn)
				if autocast {
					SetAutocast(false, Float16)
				}
				if got.out.Device() != "meta" || !sameShape(got.out.Shape(), want.out.Shape()) || got.out.DType() != want.out.DType() {
					t.Errorf("%s: meta result %s %v on %s, CPU %s %v", name, got.out.DType(), got.out.Shape(), got.out.Device(), want.out.DType(), want.out.Shape())
				}
				if got.fwd != want.fwd || got.bwd != want.bwd {
					t.Errorf("%s: meta allocated %d + %d bytes (forward + backward), CPU %d + %d", name, got.fwd, got.bwd, want.fwd, want.bwd)
				}
				if want.fwd == 0 && c.name != "Cast Int64" {
					t.Errorf("%s: the CPU allocated nothing", name)
				}
				if got.cpuDuring != 0 {
					t.Errorf("%s: the meta run allocated %d CPU bytes", name, got.cpuDuring)
				}
				for i := range want.grads {
					w, g := want.grads[i], got.grads[i]
					if (w == nil) != (g == nil) {
						t.Errorf("%s: gradient %d: meta %v, CPU %v", name, i, g != nil, w != nil)
						continue
					}
					if w != nil && (!sameShape(w.Shape(), g.Shape()) || w.DType() != g.DType() || g.Device() != "meta") {
						t.Errorf("%s: gradient %d: meta %s %v on %s, CPU %s %v", name, i, g.DType(), g.Shape(), g.Device(), w.DType(), w.Shape())
					}
				}
			}
		}
	}
}

// TestElementwiseMetaAccumulation checks gradient accumulation into a leaf
// (a second Backward) on meta against the CPU.
func TestElementwiseMetaAccumulation(t *testing.T) {
	for _, dt := range []DType{Float32, BFloat16} {
		v := Rand(NewGenerator(3), -1, 1, 9, 4).Cast(dt).Detach()
		xs := []*Tensor{v.SetRequiresGrad(true), toMeta(t, v).SetRequiresGrad(true)}
		var bytes [2]int64
		for i, dev := range []string{"cpu", "meta"} {
			x := xs[i]
			seed := Ones(9, 4).Cast(dt)
			if dev == "meta" {
				seed = toMeta(t, seed)
			}
			Mul(x, x).BackwardWith(seed)
			before := TotalAllocatedBytes(dev)
			Mul(x, x).BackwardWith(seed)
			bytes[i] = TotalAllocatedBytes(dev) - before
			if g := x.Grad(); g == nil || g.DType() != dt || g.Device() != dev {
				t.Fatalf("%s %s: gradient %v", dt, dev, g)
			}
		}
		if bytes[0] != bytes[1] {
			t.Errorf("%s: second backward allocated %d bytes on meta, %d on the CPU", dt, bytes[1], bytes[0])
		}
		if dt == Float32 {
			if g := xs[0].Grad().Float32s(); g[5] != 4*v.Float32s()[5] {
				t.Errorf("accumulated gradient %v, want %v", g[5], 4*v.Float32s()[5])
			}
		}
	}
}

// TestCPUElementwiseKernelsGeneral checks the CPU primitives' general
// 16-bit paths, which the ops do not reach (they give such operands as
// float32 copies): the results are the float32 results rounded once.
func TestCPUElementwiseKernelsGeneral(t *testing.T) {
	gen := NewGenerator(11)
	for _, dt := range []DType{Float16, BFloat16} {
		a := Rand(gen, -2, 2, 5, 1, 7).Cast(dt)
		b := Rand(gen, 0.5, 2, 6, 1).Cast(dt)
		for op := BinaryAdd; op <= BinaryDiv; op++ {
			out := New(dt, 5, 6, 7)
			cpu.Binary(op, out, a, b)
			want := New(Float32, 5, 6, 7)
			cpu.Binary(op, want, a.Float(), b.Float())
			if g, w := out.Float().Float32s(), castRaw(want, dt).Float().Float32s(); !equalBits(g, w) {
				t.Errorf("%s %s general broadcast differs from float32 rounded once", dt, op)
			}
		}
		g := Rand(gen, -1, 1, 5, 6, 7).Cast(dt)
		out := New(dt, 6, 1)
		cpu.SumTo(out, g)
		want := New(Float32, 6, 1)
		cpu.SumTo(want, g.Float())
		if o, w := out.Float().Float32s(), castRaw(want, dt).Float().Float32s(); !equalBits(o, w) {
			t.Errorf("%s SumTo general: %v, want %v", dt, o, w)
		}
	}
	for _, c := range []struct {
		dt   DType
		v    float64
		want float64
	}{{Float32, 1.5, 1.5}, {BFloat16, 1.5, 1.5}, {Float16, 70000, math.Inf(1)}, {Int64, -3.7, -3}, {Int8, 300, 127}, {Bool, 2, 1}} {
		out := Empty(c.dt, 3)
		cpu.Fill(out, c.v)
		for i := 0; i < 3; i++ {
			if e := elem(out, i); e != c.want {
				t.Errorf("Fill %s with %v: element %d is %v, want %v", c.dt, c.v, i, e, c.want)
			}
		}
	}
}

func equalBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
