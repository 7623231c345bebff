package tensor

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/x448/float16"
)

// Tests of float16, bfloat16 and int8 storage and conversions.

func TestBFloat16Rounding(t *testing.T) {
	one := float32(1)
	cases := []struct {
		in   float32
		want uint16
	}{
		{1, 0x3f80},
		{-2, 0xc000},
		{one + 1.0/256, 0x3f80},        // tie between 1 and 1+2^-7: even (1)
		{one + 3.0/256, 0x3f82},        // tie between 1+2^-7 and 1+2^-6: even
		{one + 1.0/256 + 1e-6, 0x3f81}, // above the tie
		{float32(math.Inf(1)), 0x7f80},
		{float32(math.Inf(-1)), 0xff80},
		{math.MaxFloat32, 0x7f80}, // beyond bfloat16's largest finite value
		{0, 0},
	}
	for _, c := range cases {
		if got := f32ToBF16(c.in); got != c.want {
			t.Errorf("bfloat16(%g) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
	// NaN stays NaN, including a NaN whose payload is only in the low bits.
	for _, bits := range []uint32{0x7fc00000, 0x7f800001, 0xff800001} {
		h := f32ToBF16(math.Float32frombits(bits))
		if v := bf16ToF32(h); v == v {
			t.Errorf("bfloat16 of NaN %#08x = %#04x, not NaN", bits, h)
		}
	}
	// Every bfloat16 round-trips exactly.
	for i := 0; i < 1<<16; i++ {
		v := bf16ToF32(uint16(i))
		if v != v {
			continue
		}
		if back := f32ToBF16(v); back != uint16(i) {
			t.Fatalf("bfloat16 %#04x -> %g -> %#04x", i, v, back)
		}
	}
}

func TestFloat16Conversions(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		want := float16.Frombits(uint16(i)).Float32()
		got := lowElem(Float16, uint16(i))
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("float16 %#04x widened to %g, want %g", i, got, want)
		}
		if got == got && f32ToF16(got) != uint16(i) {
			t.Fatalf("float16 %#04x does not round-trip", i)
		}
	}
	for _, c := range []struct {
		in   float32
		want float32
	}{{65504, 65504}, {65519, 65504}, {65520, float32(math.Inf(1))}, {-1e6, float32(math.Inf(-1))}, {1.0009765625, 1.0009765625}} {
		if got := lowElem(Float16, f32ToF16(c.in)); got != c.want {
			t.Errorf("float16(%g) = %g, want %g", c.in, got, c.want)
		}
	}
	if v := lowElem(Float16, f32ToF16(float32(math.NaN()))); v == v {
		t.Error("float16 of NaN is not NaN")
	}
}

func TestLowPrecisionTensorBasics(t *testing.T) {
	x := FromFloat32([]float32{1, -2.5, 3.140625, 1000, 0.1, 7}, 2, 3)
	for _, dt := range []DType{Float16, BFloat16} {
		h := x.Cast(dt)
		if h.DType() != dt || !sameShape(h.Shape(), []int{2, 3}) || h.Nbytes() != 12 {
			t.Fatalf("%s: dtype %s shape %v bytes %d", dt, h.DType(), h.Shape(), h.Nbytes())
		}
		if h.At(0, 1) != -2.5 || h.At(1, 0) != 1000 {
			t.Errorf("%s: At gives %g, %g", dt, h.At(0, 1), h.At(1, 0))
		}
		if s := h.String(); !strings.Contains(s, "dtype="+dt.String()) || !strings.Contains(s, "-2.5") {
			t.Errorf("%s: String %q", dt, s)
		}
		back := h.Float().Float32s()
		for i, v := range x.Float32s() {
			if math.Abs(float64(back[i]-v)) > 4e-3*math.Abs(float64(v)) {
				t.Errorf("%s: round trip of %g gives %g", dt, v, back[i])
			}
		}
		// Views and copies.
		c := h.Clone()
		c.Uint16s()[0] = 0
		if h.At(0, 0) != 1 {
			t.Errorf("%s: Clone shares storage", dt)
		}
		nr := Narrow(h, 1, 1)
		if nr.At(0, 2) != h.At(1, 2) || nr.Uint16s()[0] != h.Uint16s()[3] {
			t.Errorf("%s: Narrow view %v", dt, nr)
		}
		if r := Reshape(h, 3, 2); r.At(2, 1) != h.At(1, 2) {
			t.Errorf("%s: Reshape", dt)
		}
		if d := h.Detach(); d.DType() != dt || d.At(1, 1) != h.At(1, 1) {
			t.Errorf("%s: Detach", dt)
		}
		sel := IndexSelect(h, FromInt64([]int64{1, 0, 1}))
		if sel.DType() != dt || sel.At(0, 0) != 1000 || sel.At(1, 1) != -2.5 {
			t.Errorf("%s: IndexSelect %v", dt, sel)
		}
		if tr := Transpose(h); tr.DType() != dt || tr.At(2, 0) != h.At(0, 2) {
			t.Errorf("%s: Transpose", dt)
		}
		one := Narrow(Reshape(h, 6), 3, 1)
		if one.Item() != 1000 {
			t.Errorf("%s: Item %g", dt, one.Item())
		}
		dst := New(dt, 2, 3)
		dst.CopyFrom(h)
		if dst.At(1, 2) != h.At(1, 2) {
			t.Errorf("%s: CopyFrom", dt)
		}
		if FromUint16(dt, h.Uint16s(), 3, 2).At(1, 1) != h.At(1, 0) {
			t.Errorf("%s: FromUint16", dt)
		}
	}
	// Int8: casts truncate toward zero and saturate.
	q := FromFloat32([]float32{1.9, -1.9, 300, -300, float32(math.NaN()), 0}).Cast(Int8)
	if got := q.Int8s(); got[0] != 1 || got[1] != -1 || got[2] != 127 || got[3] != -128 || got[4] != 0 {
		t.Errorf("int8 cast: %v", got)
	}
	i8 := FromInt8([]int8{-3, 4, 5, -128}, 2, 2)
	if i8.At(1, 1) != -128 || i8.Cast(Float32).Float32s()[1] != 4 || !strings.Contains(i8.String(), "int8") {
		t.Errorf("int8 tensor: %v", i8)
	}
	if s := IndexSelect(i8, FromInt64([]int64{1})); s.At(0, 0) != 5 {
		t.Errorf("int8 IndexSelect: %v", s)
	}
	if c := i8.Clone(); c.Int8s()[3] != -128 {
		t.Error("int8 Clone")
	}
	if b := FromFloat32([]float32{0, 2}).Cast(Bool).Bools(); b[0] || !b[1] {
		t.Error("cast to bool")
	}
	if v := FromInt64([]int64{3, -4}).Cast(BFloat16); v.At(1) != -4 {
		t.Error("int64 to bfloat16")
	}
}

func TestLowPrecisionMemoryAccounting(t *testing.T) {
	for _, c := range []struct {
		dt   DType
		want int64
	}{{Float16, 2000}, {BFloat16, 2000}, {Int8, 1000}, {Float32, 4000}} {
		before := TotalAllocatedBytes("cpu")
		x := New(c.dt, 10, 100)
		if got := TotalAllocatedBytes("cpu") - before; got != c.want || x.Nbytes() != c.want {
			t.Errorf("%s: New counted %d bytes (Nbytes %d), want %d", c.dt, got, x.Nbytes(), c.want)
		}
	}
	before := TotalAllocatedBytes("cpu")
	FromUint16(Float16, make([]uint16, 50))
	FromInt8(make([]int8, 30))
	if got := TotalAllocatedBytes("cpu") - before; got != 130 {
		t.Errorf("FromUint16 + FromInt8 counted %d bytes, want 130", got)
	}
	x := Ones(64, 32)
	before = TotalAllocatedBytes("cpu")
	x.BFloat16()
	if got := TotalAllocatedBytes("cpu") - before; got != 64*32*2 {
		t.Errorf("Cast to bfloat16 counted %d bytes, want %d", got, 64*32*2)
	}
}

func TestCastGradient(t *testing.T) {
	x := FromFloat32([]float32{1, 2, 3}).SetRequiresGrad(true)
	for _, dt := range []DType{Float16, BFloat16} {
		x.ZeroGrad()
		y := MulScalar(x.Cast(dt), 3)
		if y.DType() != dt {
			t.Fatalf("MulScalar on %s gave %s", dt, y.DType())
		}
		Sum(Mul(y, FromFloat32([]float32{1, 10, 100}))).Backward()
		g := x.Grad()
		if g.DType() != Float32 || g.Float32s()[0] != 3 || g.Float32s()[2] != 300 {
			t.Errorf("%s: gradient %v", dt, g)
		}
	}
	// A low-precision leaf gets a gradient of its own dtype.
	h := FromFloat32([]float32{1, 2}).Cast(BFloat16).SetRequiresGrad(true)
	Sum(Mul(h, h)).Backward()
	Sum(Mul(h, h)).Backward() // accumulates
	if g := h.Grad(); g.DType() != BFloat16 || g.At(1) != 8 {
		t.Errorf("bfloat16 leaf gradient %v", g)
	}
}

func TestPromotion(t *testing.T) {
	b := Ones(2, 3).BFloat16()
	h := Ones(2, 3).Half()
	f := Ones(2, 3)
	for _, c := range []struct {
		name string
		got  *Tensor
		want DType
	}{
		{"bf16+bf16", Add(b, b), BFloat16},
		{"bf16+f32", Add(b, f), Float32},
		{"f32*f16", Mul(f, h), Float32},
		{"f16+bf16", Sub(h, b), Float32},
		{"bf16+f32 bias", Add(b, Ones(3)), Float32},
		{"bf16+bf16 bias", Add(b, Ones(3).BFloat16()), BFloat16},
		{"f16/f16 column", Div(h, Full(2, 2, 1).Half()), Float16},
		{"scalar", Add(b, Scalar(1)), Float32},
		{"relu", ReLU(b), BFloat16},
		{"concat", Concat([]*Tensor{b, f}, 0), Float32},
		{"concat low", Concat([]*Tensor{h, h}, 1), Float16},
		{"sum outside autocast", Sum(b), BFloat16},
		{"softmax outside autocast", LogSoftmax(h), Float16},
		{"exp outside autocast", Exp(h), Float16},
		{"matmul mixed", MatMul(b, Ones(3, 2)), Float32},
		{"matmul low", MatMul(h, Ones(3, 2).Half()), Float16},
	} {
		if c.got.DType() != c.want {
			t.Errorf("%s: dtype %s, want %s", c.name, c.got.DType(), c.want)
		}
	}
	if v := Add(b, Full(2, 2, 1)).At(1, 2); v != 3 {
		t.Errorf("broadcast add gave %g", v)
	}
	if v := Div(h, Full(2, 2, 1).Half()).At(1, 2); v != 0.5 {
		t.Errorf("column divide gave %g", v)
	}
}

// TestAutocastOpLists checks each op's result dtype inside an autocast
// region: matmul, SpMM and SDDMM in the low dtype; reductions, softmax,
// edge softmax and losses in float32; elementwise ops promote.
func TestAutocastOpLists(t *testing.T) {
	adj := testAdj()
	x, w := randT(1, 4, 6), randT(2, 6, 3)
	for _, dt := range []DType{Float16, BFloat16} {
		prevOn, prevDT := SetAutocast(true, dt)
		lowx := x.Cast(dt)
		cases := []struct {
			name string
			got  *Tensor
			want DType
		}{
			{"MatMul", MatMul(x, w), dt},
			{"SpMM", SpMM(adj, x, nil, "mean"), dt},
			{"SpMM u_mul_e", SpMM(adj, x, randT(3, 5), "sum"), dt},
			{"SDDMM", SDDMM(adj, randT(4, 4, 2), randT(5, 3, 2), "add"), dt},
			{"Sum", Sum(lowx), Float32},
			{"Mean", Mean(lowx), Float32},
			{"SumDim", SumDim(lowx, 1, false), Float32},
			{"LogSoftmax", LogSoftmax(lowx), Float32},
			{"Softmax", Softmax(lowx), Float32},
			{"CrossEntropy", CrossEntropy(lowx, FromInt64([]int64{0, 1, 2, 5})), Float32},
			{"EdgeSoftmax", EdgeSoftmax(adj, randT(6, 5, 2).Cast(dt)), Float32},
			{"Exp", Exp(lowx), Float32},
			{"ReLU", ReLU(lowx), dt},
			{"Add", Add(lowx, x), Float32},
			{"Add low", Add(lowx, lowx), dt},
			{"Sum f32", Sum(x), Float32},
		}
		SetAutocast(prevOn, prevDT)
		for _, c := range cases {
			if c.got.DType() != c.want {
				t.Errorf("autocast %s: %s gave %s, want %s", dt, c.name, c.got.DType(), c.want)
			}
		}
	}
}

// relClose reports whether got is within tol*max(1, |want|) of want.
func relClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// tolFor is the relative tolerance of a value rounded a few times to dt.
func tolFor(dt DType) float64 {
	if dt == BFloat16 {
		return 2e-2
	}
	return 3e-3
}

// TestLowPrecisionValues compares low-precision forward results with the
// float32 op on the same (rounded) inputs.
func TestLowPrecisionValues(t *testing.T) {
	adj := powerLawAdj(300, 6, 3)
	for _, dt := range []DType{Float16, BFloat16} {
		round := func(x *Tensor) *Tensor { return x.Cast(dt).Float() }
		u, e, e3 := round(randT(1, 300, 12)), round(randT(2, adj.NumEdges())), round(randT(3, adj.NumEdges(), 3))
		a, b := round(randT(4, 37, 50)), round(randT(5, 50, 13))
		cases := []struct {
			name      string
			low, want *Tensor
		}{
			{"MatMul", MatMul(a.Cast(dt), b.Cast(dt)), MatMul(a, b)},
			{"SpMM sum", SpMM(adj, u.Cast(dt), nil, "sum"), SpMM(adj, u, nil, "sum")},
			{"SpMM mean", SpMM(adj, u.Cast(dt), nil, "mean"), SpMM(adj, u, nil, "mean")},
			{"SpMM max", SpMM(adj, u.Cast(dt), nil, "max"), SpMM(adj, u, nil, "max")},
			{"SpMM u_mul_e", SpMM(adj, u.Cast(dt), e.Cast(dt), "sum"), SpMM(adj, u, e, "sum")},
			{"SpMM heads max", SpMM(adj, u.Cast(dt), e3.Cast(dt), "max"), SpMM(adj, u, e3, "max")},
			{"SDDMM add", SDDMM(adj, u.Cast(dt), u.Cast(dt), "add"), SDDMM(adj, u, u, "add")},
			{"SDDMM mul", SDDMM(adj, u.Cast(dt), u.Cast(dt), "mul"), SDDMM(adj, u, u, "mul")},
			{"SDDMM dot", SDDMM(adj, u.Cast(dt), u.Cast(dt), "dot"), SDDMM(adj, u, u, "dot")},
		}
		for _, c := range cases {
			if c.low.DType() != dt || !sameShape(c.low.Shape(), c.want.Shape()) {
				t.Errorf("%s %s: got %s%v", dt, c.name, c.low.DType(), c.low.Shape())
				continue
			}
			got, want := c.low.Float().Float32s(), c.want.Float32s()
			for i := range want {
				if !relClose(float64(got[i]), float64(want[i]), tolFor(dt)) {
					t.Errorf("%s %s[%d] = %g, want %g", dt, c.name, i, got[i], want[i])
					break
				}
			}
		}
	}
}

// TestSumOverManyNeighbors: a sum over 3000 in-edges of 1.0 is 3000 (a
// float16 accumulator would stall at 2048, a bfloat16 one at 256).
func TestSumOverManyNeighbors(t *testing.T) {
	const deg = 3000
	adj := &Adj{NumSrc: deg, NumDst: 1, Indptr: []int64{0, deg}, Indices: make([]int64, deg)}
	for i := range adj.Indices {
		adj.Indices[i] = int64(i)
	}
	for _, dt := range []DType{Float16, BFloat16} {
		u := Ones(deg, 2).Cast(dt)
		if s := SpMM(adj, u, nil, "sum").At(0, 1); !relClose(s, deg, 4e-3) {
			t.Errorf("%s: sum over %d neighbors = %g", dt, deg, s)
		}
		if m := SpMM(adj, u, nil, "mean").At(0, 0); m != 1 {
			t.Errorf("%s: mean over %d neighbors = %g", dt, deg, m)
		}
		e := Full(0.5, deg).Cast(dt)
		if s := SpMM(adj, u, e, "sum").At(0, 0); !relClose(s, deg/2, 4e-3) {
			t.Errorf("%s: u_mul_e sum = %g", dt, s)
		}
		w := Ones(deg, 3).Cast(dt)
		if s := MatMul(Ones(1, deg).Cast(dt), w).At(0, 2); !relClose(s, deg, 4e-3) {
			t.Errorf("%s: MatMul inner sum = %g", dt, s)
		}
		on, odt := SetAutocast(true, dt)
		if s := Sum(u); s.DType() != Float32 || s.Item() != 2*deg {
			t.Errorf("%s: Sum under autocast = %v", dt, s)
		}
		SetAutocast(on, odt)
	}
}

// TestMaxSingleNegative: the max over one message is that message, however
// negative; a destination without messages gets 0.
func TestMaxSingleNegative(t *testing.T) {
	adj := &Adj{NumSrc: 2, NumDst: 2, Indptr: []int64{0, 1, 1}, Indices: []int64{1}}
	for _, v := range []float32{-60000, -65504, float32(math.Inf(-1)), -1e-7} {
		u := FromFloat32([]float32{5, 5, v, v}, 2, 2).Half()
		out := SpMM(adj, u, nil, "max")
		want := float64(lowElem(Float16, f32ToF16(v)))
		if out.At(0, 0) != want || out.At(0, 1) != want || out.At(1, 0) != 0 {
			t.Errorf("max of a single %g: %v", v, out)
		}
	}
}

// TestAttentionAboveFloat16Range: scores beyond float16's range, in
// float32 or overflowed to Inf in float16, give a softmax without NaN.
func TestAttentionAboveFloat16Range(t *testing.T) {
	adj := &Adj{NumSrc: 3, NumDst: 2, Indptr: []int64{0, 3, 5}, Indices: []int64{0, 1, 2, 0, 1}}
	scores := FromFloat32([]float32{1e5, 7e4, 1, 2e5, 2e5 - 1}, 5)
	on, odt := SetAutocast(true, Float16)
	got := EdgeSoftmax(adj, scores)
	SetAutocast(on, odt)
	want := EdgeSoftmax(adj, scores)
	if got.DType() != Float32 {
		t.Fatalf("EdgeSoftmax under float16 autocast gave %s", got.DType())
	}
	for i, v := range got.Float32s() {
		if v != v || !relClose(float64(v), float64(want.Float32s()[i]), 1e-6) {
			t.Errorf("attention %d = %g, want %g", i, v, want.Float32s()[i])
		}
	}
	// GAT-style logits el[src] + er[dst] that overflow float16 in SDDMM.
	el := FromFloat32([]float32{5e4, 4e4, 1, 3}, 4, 1).SetRequiresGrad(true)
	er := FromFloat32([]float32{5e4, 2}, 2, 1).SetRequiresGrad(true)
	adj2 := &Adj{NumSrc: 4, NumDst: 2, Indptr: []int64{0, 3, 5}, Indices: []int64{0, 1, 2, 2, 3}}
	SetAutocast(true, Float16)
	logits := SDDMM(adj2, el, er, "add")
	a := EdgeSoftmax(adj2, LeakyReLU(logits, 0.2))
	SetAutocast(on, odt)
	if logits.DType() != Float16 || !math.IsInf(logits.At(0, 0), 1) {
		t.Fatalf("SDDMM logits %v: want float16 with +Inf", logits)
	}
	wantA := []float64{0.5, 0.5, 0}
	for i, v := range a.Float32s()[:3] {
		if v != v || math.Abs(float64(v)-wantA[i]) > 1e-6 {
			t.Errorf("overflowed attention %d = %g, want %g", i, v, wantA[i])
		}
	}
	Sum(Mul(a, FromFloat32([]float32{1, 2, 3, 4, 5}, 5, 1))).Backward()
	for _, g := range append(el.Grad().Float32s(), er.Grad().Float32s()...) {
		if g != g {
			t.Fatalf("NaN gradient: el %v er %v", el.Grad(), er.Grad())
		}
	}
}

// (MatMul of float16 / bfloat16 runs on a GPU through cuBLAS; the dense
// kernels without a low-precision GPU kernel are checked by
// TestCUDAMatMulRandomLowNotImplemented.)
func TestLowPrecisionOnGPUNamesOpAndDType(t *testing.T) {
	b := Ones(2, 3).BFloat16()
	// The CUDA backend refuses the dtypes it has no kernels for before it
	// touches the device, so a device value with no GPU behind it shows it.
	d := &cudaDevice{name: "cuda:0"}
	for name, f := range map[string]func(){
		"ReLU": func() { d.Unary(UnaryReLU, b, b, 0) },
		"ReLU backward": func() {
			d.UnaryBackward(UnaryReLU, b, b, b, b, 0)
		},
		"Cast": func() { d.Cast(Ones(2).Half(), Ones(2).BFloat16()) }, // float32 <-> 16 bits only
	} {
		err := Catch(f)
		var te *Error
		if !errors.Is(err, ErrNotImplemented) || !errors.As(err, &te) || !strings.Contains(err.Error(), "bfloat16") && !strings.Contains(err.Error(), "float16") ||
			!strings.Contains(err.Error(), "cuda:0") {
			t.Errorf("%s: err %v, want ErrNotImplemented naming the dtype and the device", name, err)
		}
	}
}
