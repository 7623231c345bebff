package tensor

import (
	"math"
	"strings"
	"testing"
)

// gradCheck compares the analytic gradients of sum(w * f(inputs)) with
// central finite differences for every element of every input.
func gradCheck(t *testing.T, name string, f func(in []*Tensor) *Tensor, inputs ...*Tensor) {
	t.Helper()
	for _, in := range inputs {
		in.SetRequiresGrad(true)
		in.ZeroGrad()
	}
	out := f(inputs)
	gen := NewGenerator(99)
	w := Rand(gen, -1, 1, out.shape...)
	loss := Sum(Mul(out, w))
	loss.Backward()
	eval := func() float64 {
		var s float64
		NoGrad(func() {
			o := f(inputs)
			for i, v := range o.Float32s() {
				s += float64(v) * float64(w.Float32s()[i])
			}
		})
		return s
	}
	// Max is not differentiable where two messages tie; a smaller step
	// keeps the finite difference from crossing such a kink.
	eps := float32(1e-2)
	if strings.HasSuffix(name, "max") {
		eps = 1e-3
	}
	for k, in := range inputs {
		if in.Grad() == nil {
			t.Fatalf("%s: input %d got no gradient", name, k)
		}
		d := in.Float32s()
		for i := range d {
			old := d[i]
			d[i] = old + eps
			fp := eval()
			d[i] = old - eps
			fm := eval()
			d[i] = old
			num := (fp - fm) / (2 * float64(eps))
			got := float64(in.Grad().Float32s()[i])
			if math.Abs(num-got) > 2e-2*math.Max(1, math.Abs(num)) {
				t.Errorf("%s: d/d input%d[%d]: analytic %.5f, numeric %.5f", name, k, i, got, num)
			}
		}
	}
}

func randT(seed int64, shape ...int) *Tensor { return Rand(NewGenerator(seed), -1, 1, shape...) }

// testAdj: 4 sources, 3 destinations; destination 2 has no in-edges, and
// edge ids are permuted relative to positions.
func testAdj() *Adj {
	return &Adj{NumSrc: 4, NumDst: 3, Indptr: []int64{0, 3, 5, 5},
		Indices: []int64{0, 1, 3, 1, 2}, EIDs: []int64{4, 0, 2, 1, 3}}
}

func TestGradElementwise(t *testing.T) {
	gradCheck(t, "Add", func(in []*Tensor) *Tensor { return Add(in[0], in[1]) }, randT(1, 3, 4), randT(2, 4))
	gradCheck(t, "AddCol", func(in []*Tensor) *Tensor { return Add(in[0], in[1]) }, randT(1, 3, 4), randT(2, 3, 1))
	gradCheck(t, "Sub", func(in []*Tensor) *Tensor { return Sub(in[0], in[1]) }, randT(1, 2, 3), randT(2, 2, 3))
	gradCheck(t, "Mul", func(in []*Tensor) *Tensor { return Mul(in[0], in[1]) }, randT(3, 2, 3), randT(4, 1, 3))
	b := AddScalar(randT(6, 2, 3), 3).Detach()
	gradCheck(t, "Div", func(in []*Tensor) *Tensor { return Div(in[0], in[1]) }, randT(5, 2, 3), b)
	gradCheck(t, "MulScalar", func(in []*Tensor) *Tensor { return MulScalar(in[0], 2.5) }, randT(7, 5))
	gradCheck(t, "AddScalar", func(in []*Tensor) *Tensor { return AddScalar(in[0], 2.5) }, randT(7, 5))
	gradCheck(t, "ReLU", func(in []*Tensor) *Tensor { return ReLU(in[0]) }, randT(8, 4, 5))
	gradCheck(t, "LeakyReLU", func(in []*Tensor) *Tensor { return LeakyReLU(in[0], 0.2) }, randT(9, 4, 5))
	gradCheck(t, "ELU", func(in []*Tensor) *Tensor { return ELU(in[0], 1) }, randT(10, 4, 5))
	gradCheck(t, "Sigmoid", func(in []*Tensor) *Tensor { return Sigmoid(in[0]) }, randT(11, 6))
	gradCheck(t, "Tanh", func(in []*Tensor) *Tensor { return Tanh(in[0]) }, randT(12, 6))
	gradCheck(t, "Exp", func(in []*Tensor) *Tensor { return Exp(in[0]) }, randT(13, 6))
	pos := AddScalar(randT(14, 6), 2).Detach()
	gradCheck(t, "Log", func(in []*Tensor) *Tensor { return Log(in[0]) }, pos)
	gradCheck(t, "Sqrt", func(in []*Tensor) *Tensor { return Sqrt(in[0]) }, AddScalar(randT(15, 6), 2).Detach())
	gradCheck(t, "Pow", func(in []*Tensor) *Tensor { return Pow(in[0], 3) }, randT(16, 6))
}

func TestGradDense(t *testing.T) {
	gradCheck(t, "MatMul", func(in []*Tensor) *Tensor { return MatMul(in[0], in[1]) }, randT(1, 3, 4), randT(2, 4, 5))
	gradCheck(t, "AddMM bias", func(in []*Tensor) *Tensor { return AddMM(in[0], in[1], in[2]) }, randT(17, 5), randT(1, 3, 4), randT(2, 4, 5))
	gradCheck(t, "AddMM full", func(in []*Tensor) *Tensor { return AddMM(in[0], in[1], in[2]) }, randT(18, 3, 5), randT(1, 3, 4), randT(2, 4, 5))
	gradCheck(t, "AddMM pairs", func(in []*Tensor) *Tensor { return AddMM(in[0], in[1], in[2], in[3], in[4]) },
		randT(17, 5), randT(1, 3, 4), randT(2, 4, 5), randT(19, 3, 2), randT(20, 2, 5))
	gradCheck(t, "AddMMReLU", func(in []*Tensor) *Tensor { return AddMMReLU(in[0], in[1], in[2], in[3], in[4]) },
		randT(17, 5), randT(1, 3, 4), randT(2, 4, 5), randT(19, 3, 2), randT(20, 2, 5))
	gradCheck(t, "Transpose", func(in []*Tensor) *Tensor { return Transpose(in[0]) }, randT(3, 3, 4))
	gradCheck(t, "Sum", func(in []*Tensor) *Tensor { return Sum(in[0]) }, randT(4, 3, 4))
	gradCheck(t, "Mean", func(in []*Tensor) *Tensor { return Mean(in[0]) }, randT(5, 3, 4))
	gradCheck(t, "SumDim0", func(in []*Tensor) *Tensor { return SumDim(in[0], 0, false) }, randT(6, 3, 4))
	gradCheck(t, "SumDim1", func(in []*Tensor) *Tensor { return SumDim(in[0], 1, true) }, randT(7, 3, 4))
	gradCheck(t, "MeanDim", func(in []*Tensor) *Tensor { return MeanDim(in[0], -1, false) }, randT(7, 3, 4))
	gradCheck(t, "LogSoftmax", func(in []*Tensor) *Tensor { return LogSoftmax(in[0]) }, randT(8, 3, 5))
	gradCheck(t, "Softmax", func(in []*Tensor) *Tensor { return Softmax(in[0]) }, randT(9, 3, 5))
	tg := FromInt64([]int64{1, 0, 4})
	gradCheck(t, "CrossEntropy", func(in []*Tensor) *Tensor { return CrossEntropy(in[0], tg) }, randT(10, 3, 5))
	idx := FromInt64([]int64{2, 0, 2, 1})
	gradCheck(t, "IndexSelect", func(in []*Tensor) *Tensor { return IndexSelect(in[0], idx) }, randT(11, 3, 2))
	gradCheck(t, "IndexAdd", func(in []*Tensor) *Tensor { return IndexAdd(5, idx, in[0]) }, randT(12, 4, 2))
	gradCheck(t, "Narrow", func(in []*Tensor) *Tensor { return Narrow(in[0], 1, 2) }, randT(13, 4, 3))
	gradCheck(t, "Reshape", func(in []*Tensor) *Tensor { return Reshape(in[0], 2, -1) }, randT(14, 4, 3))
	gradCheck(t, "Concat0", func(in []*Tensor) *Tensor { return Concat(in, 0) }, randT(15, 2, 3), randT(16, 1, 3))
	gradCheck(t, "Concat1", func(in []*Tensor) *Tensor { return Concat(in, 1) }, randT(17, 2, 3), randT(18, 2, 2))
	gradCheck(t, "Dropout", func(in []*Tensor) *Tensor { return DropoutAt(in[0], 0.5, 7, 0) }, randT(19, 4, 5))
}

func TestGradSparse(t *testing.T) {
	adj := testAdj()
	for _, red := range []string{"sum", "mean", "max"} {
		gradCheck(t, "SpMM copy_u "+red, func(in []*Tensor) *Tensor { return SpMM(adj, in[0], nil, red) }, randT(1, 4, 6))
		gradCheck(t, "SpMM u_mul_e "+red, func(in []*Tensor) *Tensor { return SpMM(adj, in[0], in[1], red) }, randT(2, 4, 6), randT(3, 5))
		gradCheck(t, "SpMM heads "+red, func(in []*Tensor) *Tensor { return SpMM(adj, in[0], in[1], red) }, randT(4, 4, 6), randT(5, 5, 3))
	}
	for _, op := range []string{"add", "mul", "dot"} {
		gradCheck(t, "SDDMM "+op, func(in []*Tensor) *Tensor { return SDDMM(adj, in[0], in[1], op) }, randT(6, 4, 2), randT(7, 3, 2))
	}
	gradCheck(t, "EdgeSoftmax", func(in []*Tensor) *Tensor { return EdgeSoftmax(adj, in[0]) }, randT(8, 5, 2))
	gradCheck(t, "SegmentReduce", func(in []*Tensor) *Tensor { return SegmentReduce(in[0], []int64{0, 2, 2, 5}, "mean") }, randT(9, 5, 3))
	gradCheck(t, "ScatterReduce", func(in []*Tensor) *Tensor {
		return ScatterReduce(3, FromInt64([]int64{2, 0, 2, 2}), in[0], "sum")
	}, randT(10, 4, 3))
}

// gradCheckLow checks the backward pass of ops on float16 and bfloat16
// tensors: the float32 inputs are cast to dt, f runs on them, and the
// gradients of sum(w * f) reaching the float32 inputs (through the casts)
// must match those of the float32 ops on the same rounded inputs, within
// tol times the largest gradient (a few roundings of a gradient to dt).
// Finite differences would drown in 16-bit rounding; the float32 ops are
// checked against them above.
func gradCheckLow(t *testing.T, name string, f func(in []*Tensor) *Tensor, inputs ...*Tensor) {
	t.Helper()
	for _, dt := range []DType{Float16, BFloat16} {
		tol := 1e-2
		if dt == BFloat16 {
			tol = 5e-2
		}
		run := func(cast bool) ([]*Tensor, DType) {
			ins := make([]*Tensor, len(inputs))
			leaves := make([]*Tensor, len(inputs))
			for k, in := range inputs {
				leaves[k] = in.Cast(dt).Float().Detach().SetRequiresGrad(true) // rounded values
				ins[k] = leaves[k]
				if cast {
					ins[k] = leaves[k].Cast(dt)
				}
			}
			out := f(ins)
			w := Rand(NewGenerator(99), -1, 1, out.shape...)
			Sum(Mul(out.Float(), w)).Backward()
			gs := make([]*Tensor, len(leaves))
			for k, l := range leaves {
				gs[k] = l.Grad()
			}
			return gs, out.dtype
		}
		low, odt := run(true)
		ref, _ := run(false)
		for k := range low {
			if low[k] == nil || ref[k] == nil {
				t.Fatalf("%s %s: input %d got no gradient", dt, name, k)
			}
			var scale float64
			for _, v := range ref[k].Float32s() {
				scale = math.Max(scale, math.Abs(float64(v)))
			}
			for i, v := range low[k].Float32s() {
				want := ref[k].Float32s()[i]
				if math.Abs(float64(v-want)) > tol*math.Max(scale, 1e-3) {
					t.Errorf("%s %s (result %s): d/d input%d[%d] = %g, float32 gives %g", dt, name, odt, k, i, v, want)
					break
				}
			}
		}
	}
}

func TestGradLowPrecision(t *testing.T) {
	pos := AddScalar(randT(14, 6), 2).Detach()
	unary := map[string]func(*Tensor) *Tensor{
		"ReLU":         ReLU,
		"LeakyReLU":    func(x *Tensor) *Tensor { return LeakyReLU(x, 0.2) },
		"ELU":          func(x *Tensor) *Tensor { return ELU(x, 1) },
		"Sigmoid":      Sigmoid,
		"Tanh":         Tanh,
		"Exp":          Exp,
		"Pow":          func(x *Tensor) *Tensor { return Pow(x, 3) },
		"MulScalar":    func(x *Tensor) *Tensor { return MulScalar(x, 2.5) },
		"AddScalar":    func(x *Tensor) *Tensor { return AddScalar(x, 2.5) },
		"Neg":          Neg,
		"Transpose":    Transpose,
		"Sum":          Sum,
		"Mean":         Mean,
		"SumDim":       func(x *Tensor) *Tensor { return SumDim(x, 0, false) },
		"MeanDim":      func(x *Tensor) *Tensor { return MeanDim(x, 1, true) },
		"LogSoftmax":   LogSoftmax,
		"Softmax":      Softmax,
		"Narrow":       func(x *Tensor) *Tensor { return Narrow(x, 1, 2) },
		"Reshape":      func(x *Tensor) *Tensor { return Reshape(x, 2, -1) },
		"IndexSelect":  func(x *Tensor) *Tensor { return IndexSelect(x, FromInt64([]int64{2, 0, 2, 1})) },
		"CrossEntropy": func(x *Tensor) *Tensor { return CrossEntropy(x, FromInt64([]int64{1, 0, 3, 2})) },
	}
	for name, f := range unary {
		gradCheckLow(t, name, func(in []*Tensor) *Tensor { return f(in[0]) }, randT(8, 4, 5))
	}
	gradCheckLow(t, "Log", func(in []*Tensor) *Tensor { return Log(in[0]) }, pos)
	gradCheckLow(t, "Sqrt", func(in []*Tensor) *Tensor { return Sqrt(in[0]) }, pos)
	gradCheckLow(t, "Add bias", func(in []*Tensor) *Tensor { return Add(in[0], in[1]) }, randT(1, 3, 4), randT(2, 4))
	gradCheckLow(t, "Add column", func(in []*Tensor) *Tensor { return Add(in[0], in[1]) }, randT(1, 3, 4), randT(2, 3, 1))
	gradCheckLow(t, "Sub", func(in []*Tensor) *Tensor { return Sub(in[0], in[1]) }, randT(1, 2, 3), randT(2, 2, 3))
	gradCheckLow(t, "Mul", func(in []*Tensor) *Tensor { return Mul(in[0], in[1]) }, randT(3, 2, 3), randT(4, 1, 3))
	gradCheckLow(t, "Div", func(in []*Tensor) *Tensor { return Div(in[0], in[1]) }, randT(5, 2, 3), Reshape(pos, 2, 3))
	gradCheckLow(t, "MatMul", func(in []*Tensor) *Tensor { return MatMul(in[0], in[1]) }, randT(1, 7, 4), randT(2, 4, 5))
	gradCheckLow(t, "AddMM bias", func(in []*Tensor) *Tensor { return AddMM(in[0], in[1], in[2]) }, randT(3, 5), randT(1, 7, 4), randT(2, 4, 5))
	gradCheckLow(t, "AddMM pairs", func(in []*Tensor) *Tensor { return AddMM(in[0], in[1], in[2], in[3], in[4]) },
		randT(3, 7, 5), randT(1, 7, 4), randT(2, 4, 5), randT(4, 7, 3), randT(5, 3, 5))
	gradCheckLow(t, "AddMMReLU", func(in []*Tensor) *Tensor { return AddMMReLU(in[0], in[1], in[2], in[3], in[4]) },
		randT(3, 5), randT(1, 7, 4), randT(2, 4, 5), randT(4, 7, 3), randT(5, 3, 5))
	gradCheckLow(t, "IndexAdd", func(in []*Tensor) *Tensor { return IndexAdd(5, FromInt64([]int64{2, 0, 2, 1}), in[0]) }, randT(12, 4, 2))
	gradCheckLow(t, "Concat", func(in []*Tensor) *Tensor { return Concat(in, 1) }, randT(17, 2, 3), randT(18, 2, 2))
	gradCheckLow(t, "Dropout", func(in []*Tensor) *Tensor { return DropoutAt(in[0], 0.5, 7, 3) }, randT(19, 4, 5))
	adj := testAdj()
	for _, red := range []string{"sum", "mean", "max"} {
		gradCheckLow(t, "SpMM copy_u "+red, func(in []*Tensor) *Tensor { return SpMM(adj, in[0], nil, red) }, randT(1, 4, 6))
		gradCheckLow(t, "SpMM u_mul_e "+red, func(in []*Tensor) *Tensor { return SpMM(adj, in[0], in[1], red) }, randT(2, 4, 6), randT(3, 5))
		gradCheckLow(t, "SpMM heads "+red, func(in []*Tensor) *Tensor { return SpMM(adj, in[0], in[1], red) }, randT(4, 4, 6), randT(5, 5, 3))
	}
	for _, op := range []string{"add", "mul", "dot"} {
		gradCheckLow(t, "SDDMM "+op, func(in []*Tensor) *Tensor { return SDDMM(adj, in[0], in[1], op) }, randT(6, 4, 2), randT(7, 3, 2))
	}
	gradCheckLow(t, "EdgeSoftmax", func(in []*Tensor) *Tensor { return EdgeSoftmax(adj, in[0]) }, randT(8, 5, 2))
	gradCheckLow(t, "SegmentReduce", func(in []*Tensor) *Tensor { return SegmentReduce(in[0], []int64{0, 2, 2, 5}, "mean") }, randT(9, 5, 3))
}
