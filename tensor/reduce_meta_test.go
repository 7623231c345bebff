package tensor

import (
	"errors"
	"math"
	"testing"
)

// Tests of the reduce family (reduce.go, softmax.go) on the backend: every
// op runs on meta tensors, gives the CPU's shapes and dtypes and allocates
// exactly what the CPU allocates, forward and backward; target checks
// keep their messages on every device; the CPU's fast paths agree with
// their reference loops.

// The fake device of device_test.go has no reduce kernels.
func (fakeBackend) Sum(_, _ *Tensor)                    { panic("fake device") }
func (fakeBackend) SumDim(_, _ *Tensor, _, _, _ int)    { panic("fake device") }
func (fakeBackend) ExpandDim(_, _ *Tensor, _, _, _ int) { panic("fake device") }
func (fakeBackend) ArgMax(_, _ *Tensor)                 { panic("fake device") }
func (fakeBackend) LogSoftmax(_, _ *Tensor)             { panic("fake device") }
func (fakeBackend) LogSoftmaxBackward(_, _, _ *Tensor)  { panic("fake device") }
func (fakeBackend) NLLLoss(_, _, _ *Tensor)             { panic("fake device") }
func (fakeBackend) NLLLossBackward(_, _, _ *Tensor)     { panic("fake device") }
func (fakeBackend) CountEqual(_, _ *Tensor) int         { panic("fake device") }

// toMeta returns a copy of t on the meta device, a leaf that requires grad
// when t is float32.
func reduceToMeta(t *testing.T, x *Tensor) *Tensor {
	t.Helper()
	m, err := x.Detach().To("meta")
	if err != nil {
		t.Fatal(err)
	}
	if x.dtype == Float32 {
		m.SetRequiresGrad(true)
	}
	return m
}

// allocated runs f on device dev and returns its result and the bytes
// allocated on dev by its forward and (when the result requires grad) its
// backward, seeded with zeros.
func reduceAllocated(dev string, f func() *Tensor) (out *Tensor, fwd, bwd int64) {
	t0 := TotalAllocatedBytes(dev)
	out = f()
	fwd = TotalAllocatedBytes(dev) - t0
	if out.requiresGrad {
		seed := ZerosOn(dev, out.dtype, out.shape...)
		t1 := TotalAllocatedBytes(dev)
		out.BackwardWith(seed)
		bwd = TotalAllocatedBytes(dev) - t1
	}
	return out, fwd, bwd
}

func TestReduceOpsOnMeta(t *testing.T) {
	g := NewGenerator(12)
	x := Rand(g, -1, 1, 6, 5)
	x3 := Rand(g, -1, 1, 3, 4, 5)
	tg := FromInt64([]int64{0, 4, 2, 1, 3, 0})
	// Mean, MeanDim and Softmax call elementwise ops, and low-precision
	// inputs a Cast: they run on meta once those families do.
	elementwiseOnMeta := Catch(func() { MulScalar(ZerosOn("meta", Float32, 2), 2) }) == nil
	castOnMeta := Catch(func() { ZerosOn("meta", BFloat16, 2).Cast(Float32) }) == nil
	cases := []struct {
		name  string
		in    []*Tensor
		f     func(in []*Tensor) *Tensor
		needs string // "elementwise" or "cast": a family that must run on meta first
	}{
		{"Sum", []*Tensor{x3}, func(in []*Tensor) *Tensor { return Sum(in[0]) }, ""},
		{"SumDim middle", []*Tensor{x3}, func(in []*Tensor) *Tensor { return SumDim(in[0], 1, false) }, ""},
		{"SumDim last keep", []*Tensor{x3}, func(in []*Tensor) *Tensor { return SumDim(in[0], -1, true) }, ""},
		{"SumDim first", []*Tensor{x}, func(in []*Tensor) *Tensor { return SumDim(in[0], 0, false) }, ""},
		{"LogSoftmax", []*Tensor{x3}, func(in []*Tensor) *Tensor { return LogSoftmax(in[0]) }, ""},
		{"NLLLoss", []*Tensor{x, tg}, func(in []*Tensor) *Tensor { return NLLLoss(in[0], in[1]) }, ""},
		{"CrossEntropy", []*Tensor{x, tg}, func(in []*Tensor) *Tensor { return CrossEntropy(in[0], in[1]) }, ""},
		{"ArgMax", []*Tensor{x}, func(in []*Tensor) *Tensor { return ArgMax(in[0]) }, ""},
		{"ArgMax bfloat16", []*Tensor{x.BFloat16()}, func(in []*Tensor) *Tensor { return ArgMax(in[0]) }, ""},
		{"Mean", []*Tensor{x3}, func(in []*Tensor) *Tensor { return Mean(in[0]) }, "elementwise"},
		{"MeanDim", []*Tensor{x3}, func(in []*Tensor) *Tensor { return MeanDim(in[0], 1, false) }, "elementwise"},
		{"Softmax", []*Tensor{x}, func(in []*Tensor) *Tensor { return Softmax(in[0]) }, "elementwise"},
		{"Sum bfloat16", []*Tensor{x3.BFloat16()}, func(in []*Tensor) *Tensor { return Sum(in[0]) }, "cast"},
		{"CrossEntropy float16", []*Tensor{x.Half(), tg}, func(in []*Tensor) *Tensor { return CrossEntropy(in[0], in[1]) }, "cast"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if (c.needs == "elementwise" && !elementwiseOnMeta) || (c.needs == "cast" && !castOnMeta) {
				t.Skipf("the %s ops do not run on meta tensors yet", c.needs)
			}
			cpuIn := make([]*Tensor, len(c.in))
			metaIn := make([]*Tensor, len(c.in))
			for i, v := range c.in {
				cpuIn[i] = v.Clone()
				if v.dtype == Float32 {
					cpuIn[i].SetRequiresGrad(true)
				}
				metaIn[i] = reduceToMeta(t, v)
			}
			want, wf, wb := reduceAllocated("cpu", func() *Tensor { return c.f(cpuIn) })
			var got *Tensor
			var gf, gb int64
			if err := Catch(func() { got, gf, gb = reduceAllocated("meta", func() *Tensor { return c.f(metaIn) }) }); err != nil {
				t.Fatalf("on meta: %v", err)
			}
			if got.Device() != "meta" || !sameShape(got.shape, want.shape) || got.dtype != want.dtype {
				t.Fatalf("meta result %s %s%v, cpu %s%v", got.Device(), got.dtype, got.shape, want.dtype, want.shape)
			}
			t.Logf("forward %d, backward %d bytes", wf, wb)
			if gf != wf || gb != wb || wf == 0 {
				t.Errorf("allocated forward %d, backward %d bytes on meta; %d and %d on the CPU", gf, gb, wf, wb)
			}
			for i := range cpuIn {
				wg, gg := cpuIn[i].Grad(), metaIn[i].Grad()
				if (wg == nil) != (gg == nil) || wg != nil && (!sameShape(wg.shape, gg.shape) || wg.dtype != gg.dtype) {
					t.Errorf("gradient of input %d: meta %v, cpu %v", i, gg, wg)
				}
			}
		})
	}
}

// TestReduceMetaErrors: checks of shapes and dtypes run on meta tensors
// with the CPU's messages; meta targets are not read; Accuracy, which
// needs values, refuses meta tensors.
func TestReduceMetaErrors(t *testing.T) {
	m := func(x *Tensor) *Tensor { return reduceToMeta(t, x) }
	for _, f := range []func(){
		func() { SumDim(m(Zeros(2, 3)), 2, false) },
		func() { ArgMax(m(Zeros(2, 3, 4))) },
		func() { LogSoftmax(m(Reshape(Scalar(1)))) },
		func() { CrossEntropy(m(Zeros(2, 3)), m(FromInt64([]int64{0}))) },
		func() { NLLLoss(m(Zeros(2, 3)), m(Zeros(2))) },
	} {
		err := Catch(f)
		var te *Error
		if !errors.As(err, &te) || !(errors.Is(err, ErrShape) || errors.Is(err, ErrDType)) {
			t.Errorf("bad arguments on meta: %v", err)
		}
	}
	// Out-of-range meta targets cannot be seen: no error.
	if err := Catch(func() { CrossEntropy(m(Zeros(2, 3)), m(FromInt64([]int64{0, 7}))) }); err != nil {
		t.Errorf("meta targets were read: %v", err)
	}
	err := Catch(func() { Accuracy(m(Zeros(2, 3)), m(FromInt64([]int64{0, 1}))) })
	if !errors.Is(err, ErrDevice) || err.Error() != "tensor.Accuracy: tensors on meta have no values to compare; compute the accuracy on a device with data" {
		t.Errorf("Accuracy on meta: %v", err)
	}
	if a := Accuracy(m(Zeros(0, 3)), m(New(Int64, 0))); a != 0 {
		t.Errorf("Accuracy of no rows on meta = %v", a)
	}
}

// TestClassTargetMessages: a target outside [0, C) is named with its
// position by CrossEntropy and NLLLoss; Accuracy wants int64 targets.
func TestClassTargetMessages(t *testing.T) {
	tg := FromInt64([]int64{0, 1, 5, 2})
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { CrossEntropy(Zeros(4, 3), tg) }, "tensor.CrossEntropy: target 5 at position 2 is outside [0, 3)"},
		{func() { NLLLoss(Zeros(4, 3), tg) }, "tensor.NLLLoss: target 5 at position 2 is outside [0, 3)"},
		{func() { CrossEntropy(Zeros(4, 3).BFloat16(), tg) }, "tensor.CrossEntropy: target 5 at position 2 is outside [0, 3)"},
		{func() { NLLLoss(Zeros(4, 3).Half(), FromInt64([]int64{0, 1, -1, 2})) }, "tensor.NLLLoss: target -1 at position 2 is outside [0, 3)"},
	} {
		if err := Catch(c.f); !errors.Is(err, ErrIndex) || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	err := Catch(func() { Accuracy(Zeros(2, 3), Zeros(2)) })
	if !errors.Is(err, ErrDType) {
		t.Errorf("Accuracy with float targets: %v", err)
	}
	if a := Accuracy(FromFloat32([]float32{0, 1, 1, 0, 2, 3}, 3, 2), FromInt64([]int64{1, 0, 0})); a != 2.0/3 {
		t.Errorf("Accuracy = %v, want 2/3", a)
	}
}

// TestReduceCPUReferences: LogSoftmax's parallel rows give exactly what the
// reference loop gives; ArgMax of a bfloat16 tensor is ArgMax of its
// float32 widening; the gradients of Sum and SumDim repeat the output's
// gradient.
func TestReduceCPUReferences(t *testing.T) {
	g := NewGenerator(3)
	x := Rand(g, -4, 4, 1000, 37)
	want := make([]float32, x.n)
	logSoftmaxRef(want, x.Float32s(), 1000, 37)
	for i, v := range LogSoftmax(x).Float32s() {
		if math.Float32bits(v) != math.Float32bits(want[i]) {
			t.Fatalf("LogSoftmax[%d] = %v, reference %v", i, v, want[i])
		}
	}
	xb := Rand(g, -4, 4, 50, 3000).BFloat16()
	a, b := ArgMax(xb).Int64s(), ArgMax(xb.Float()).Int64s()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("ArgMax bfloat16 row %d: %d, float32 %d", i, a[i], b[i])
		}
	}
	y := Rand(g, -1, 1, 2, 3, 4).SetRequiresGrad(true)
	SumDim(y, 1, false).BackwardWith(Reshape(Arange(8).Float(), 2, 4))
	for i, v := range y.Grad().Float32s() {
		if o, in := i/12, i%4; v != float32(o*4+in) {
			t.Fatalf("SumDim gradient[%d] = %v, want %d", i, v, o*4+in)
		}
	}
	z := Rand(g, -1, 1, 3, 2).SetRequiresGrad(true)
	Sum(z).BackwardWith(Reshape(Scalar(2.5)))
	for i, v := range z.Grad().Float32s() {
		if v != 2.5 {
			t.Fatalf("Sum gradient[%d] = %v", i, v)
		}
	}
}
