package tensor

import (
	"math"
	"runtime"
)

// The CPU's elementwise kernels (ElementwiseKernels, elementwise.go). Each
// kernel has a float32 path, with direct loops where a call per element
// would cost more than the arithmetic (Add, Sub and Mul, ReLU and its
// gradient, MulScalar, the bias reduction), and one path for float16 and
// bfloat16 through the block accessors of lowprec.go: blocks of elements
// are widened to float32, computed with the same function as the float32
// loop and rounded once into the result.

// binaryFunc is the arithmetic of op on float32 values.
func binaryFunc(op BinaryOp) func(x, y float32) float32 {
	switch op {
	case BinaryAdd:
		return func(x, y float32) float32 { return x + y }
	case BinarySub:
		return func(x, y float32) float32 { return x - y }
	case BinaryMul:
		return func(x, y float32) float32 { return x * y }
	case BinaryDiv:
		return func(x, y float32) float32 { return x / y }
	}
	panicf(ErrNotImplemented, "Binary", "unknown binary op %d", int(op))
	return nil
}

// unaryFunc is f of op with parameter p on float32 values.
func unaryFunc(op UnaryOp, p float32) func(float32) float32 {
	switch op {
	case UnaryScale:
		return func(v float32) float32 { return p * v }
	case UnaryAddScalar:
		return func(v float32) float32 { return v + p }
	case UnaryReLU:
		return func(v float32) float32 {
			if v <= 0 {
				return 0
			}
			return v // NaN stays NaN, as in torch
		}
	case UnaryLeakyReLU:
		return func(v float32) float32 {
			if v > 0 {
				return v
			}
			return p * v
		}
	case UnaryELU:
		return func(v float32) float32 {
			if v > 0 {
				return v
			}
			return p * float32(math.Expm1(float64(v)))
		}
	case UnarySigmoid:
		return func(v float32) float32 { return float32(1 / (1 + math.Exp(-float64(v)))) }
	case UnaryTanh:
		return func(v float32) float32 { return float32(math.Tanh(float64(v))) }
	case UnaryExp:
		return func(v float32) float32 { return float32(math.Exp(float64(v))) }
	case UnaryLog:
		return func(v float32) float32 { return float32(math.Log(float64(v))) }
	case UnarySqrt:
		return func(v float32) float32 { return float32(math.Sqrt(float64(v))) }
	case UnaryPow:
		return func(v float32) float32 { return float32(math.Pow(float64(v), float64(p))) }
	}
	panicf(ErrNotImplemented, "Unary", "unknown unary op %d", int(op))
	return nil
}

// unaryDerivative is f'(x, y) of op with parameter p, y = f(x).
func unaryDerivative(op UnaryOp, p float32) func(x, y float32) float32 {
	switch op {
	case UnaryScale:
		return func(_, _ float32) float32 { return p }
	case UnaryAddScalar:
		return func(_, _ float32) float32 { return 1 }
	case UnaryReLU:
		return func(x, _ float32) float32 {
			if x > 0 {
				return 1
			}
			return 0
		}
	case UnaryLeakyReLU:
		return func(x, _ float32) float32 {
			if x > 0 {
				return 1
			}
			return p
		}
	case UnaryELU:
		return func(x, y float32) float32 {
			if x > 0 {
				return 1
			}
			return y + p
		}
	case UnarySigmoid:
		return func(_, y float32) float32 { return y * (1 - y) }
	case UnaryTanh:
		return func(_, y float32) float32 { return 1 - y*y }
	case UnaryExp:
		return func(_, y float32) float32 { return y }
	case UnaryLog:
		return func(x, _ float32) float32 { return 1 / x }
	case UnarySqrt:
		return func(_, y float32) float32 { return 0.5 / y }
	case UnaryPow:
		return func(x, _ float32) float32 { return p * float32(math.Pow(float64(x), float64(p-1))) }
	}
	panicf(ErrNotImplemented, "UnaryBackward", "unknown unary op %d", int(op))
	return nil
}

// Binary sets out = a op b with broadcasting (float32 loops, or the block
// path when a tensor is not float32).
func (*cpuBackend) Binary(op BinaryOp, out, a, b *Tensor) {
	f := binaryFunc(op)
	if out.dtype == Float32 && a.dtype == Float32 && b.dtype == Float32 {
		binaryF32(op, f, out, a, b)
		return
	}
	binaryLow(f, out, a, b)
}

// binaryF32 is Binary for float32 tensors.
func binaryF32(op BinaryOp, f func(x, y float32) float32, out, a, b *Tensor) {
	shape := out.shape
	od, ad, bd := out.Float32s(), a.Float32s(), b.Float32s()
	switch {
	case sameShape(a.shape, b.shape):
		parallelFor(len(od), 1<<15, func(lo, hi int) {
			kernel2(op, f, od[lo:hi], ad[lo:hi], bd[lo:hi])
		})
	case b.n == 1:
		y := bd[0]
		for i := range od {
			od[i] = f(ad[i], y)
		}
	case isBiasRow(a, b, shape) && b.n > 0:
		f0 := b.shape[0]
		parallelFor(len(od)/f0, max(1, (1<<15)/f0), func(lo, hi int) {
			for r := lo; r < hi; r++ {
				kernel2(op, f, od[r*f0:(r+1)*f0], ad[r*f0:(r+1)*f0], bd)
			}
		})
	default:
		sa, sb := bstrides(a.shape, shape), bstrides(b.shape, shape)
		bcastLoop(shape, sa, sb, func(o, ai, bi, n, as, bs int) {
			for i := 0; i < n; i++ {
				od[o+i] = f(ad[ai+i*as], bd[bi+i*bs])
			}
		})
	}
}

// kernel2 sets od[i] = f(ad[i], bd[i]) for float32 slices of od's length,
// with direct loops for Add, Sub and Mul (a call per element costs more than
// the arithmetic).
func kernel2(op BinaryOp, f func(x, y float32) float32, od, ad, bd []float32) {
	ad, bd = ad[:len(od)], bd[:len(od)]
	switch op {
	case BinaryAdd:
		for i := range od {
			od[i] = ad[i] + bd[i]
		}
	case BinarySub:
		for i := range od {
			od[i] = ad[i] - bd[i]
		}
	case BinaryMul:
		for i := range od {
			od[i] = ad[i] * bd[i]
		}
	default:
		for i := range od {
			od[i] = f(ad[i], bd[i])
		}
	}
}

// binaryLow is Binary when a tensor is not float32: f over the broadcast
// of a and b, by blocks widened to float32, each result rounded once.
func binaryLow(f func(x, y float32) float32, out, a, b *Tensor) {
	shape := out.shape
	sa, sb, so := floatsOf(a), floatsOf(b), floatsOf(out)
	switch {
	case sameShape(a.shape, b.shape):
		lowBlocks(out.n, func(lo, hi int, s *scratch) {
			x, y, o := sa.load(lo, hi, s.a[:]), sb.load(lo, hi, s.b[:]), so.slot(lo, hi, s.c[:])
			for i := range o {
				o[i] = f(x[i], y[i])
			}
			so.store(lo, hi, o)
		})
	case b.n == 1 && sameShape(a.shape, shape):
		y := float32(elem(b, 0))
		lowBlocks(out.n, func(lo, hi int, s *scratch) {
			x, o := sa.load(lo, hi, s.a[:]), so.slot(lo, hi, s.c[:])
			for i := range o {
				o[i] = f(x[i], y)
			}
			so.store(lo, hi, o)
		})
	case a.n == 1 && sameShape(b.shape, shape):
		x := float32(elem(a, 0))
		lowBlocks(out.n, func(lo, hi int, s *scratch) {
			y, o := sb.load(lo, hi, s.b[:]), so.slot(lo, hi, s.c[:])
			for i := range o {
				o[i] = f(x, y[i])
			}
			so.store(lo, hi, o)
		})
	case isBiasRow(a, b, shape) && b.n <= lowBlock:
		// A bias (F) against (..., F): the bias is widened once.
		fw := b.n
		var bias [lowBlock]float32
		bv := sb.load(0, fw, bias[:])
		rows := 0
		if fw > 0 {
			rows = out.n / fw
		}
		parallelFor(rows, max(1, (1<<15)/max(fw, 1)), func(r0, r1 int) {
			s := new(scratch)
			for r := r0; r < r1; r++ {
				lo, hi := r*fw, (r+1)*fw
				x, o := sa.load(lo, hi, s.a[:]), so.slot(lo, hi, s.c[:])
				for j := range o {
					o[j] = f(x[j], bv[j])
				}
				so.store(lo, hi, o)
			}
		})
	default:
		// General broadcasting element by element (the ops give these
		// operands as float32 copies instead, lowBinaryDirect).
		ta, tb := bstrides(a.shape, shape), bstrides(b.shape, shape)
		bcastLoop(shape, ta, tb, func(o, ai, bi, n, as, bs int) {
			for i := 0; i < n; i++ {
				so.set(o+i, f(sa.at(ai+i*as), sb.at(bi+i*bs)))
			}
		})
	}
}

// at returns element i widened to float32.
func (s floats) at(i int) float32 {
	if s.dt == Float32 {
		return s.f32[i]
	}
	return lowElem(s.dt, s.u16[i])
}

// set stores v into element i, rounded to the tensor's dtype.
func (s floats) set(i int, v float32) {
	if s.dt == Float32 {
		s.f32[i] = v
		return
	}
	s.u16[i] = lowRound(s.dt, v)
}

// Unary sets out = f(x) (float32 loops, or the block path).
func (*cpuBackend) Unary(op UnaryOp, out, x *Tensor, p float32) {
	if x.dtype != Float32 || out.dtype != Float32 {
		unaryLow(unaryFunc(op, p), out, x)
		return
	}
	od, xd := out.Float32s(), x.Float32s()
	switch op {
	case UnaryReLU:
		parallelFor(len(od), 1<<15, func(lo, hi int) {
			o := od[lo:hi]
			for i, v := range xd[lo:hi] {
				o[i] = max(v, 0) // branch-free; NaN stays NaN, as in torch
			}
		})
	case UnaryScale:
		for i, v := range xd {
			od[i] = p * v
		}
	default:
		f := unaryFunc(op, p)
		parallelFor(len(od), 1<<15, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				od[i] = f(xd[i])
			}
		})
	}
}

// unaryLow is Unary when x or out is not float32.
func unaryLow(f func(float32) float32, out, x *Tensor) {
	sx, so := floatsOf(x), floatsOf(out)
	lowBlocks(out.n, func(lo, hi int, s *scratch) {
		v, o := sx.load(lo, hi, s.a[:]), so.slot(lo, hi, s.c[:])
		for i := range o {
			o[i] = f(v[i])
		}
		so.store(lo, hi, o)
	})
}

// UnaryBackward sets gx = g * f'(x, y): the float32 ReLU as a masked copy,
// other float32 ops with one loop, the block path otherwise.
func (*cpuBackend) UnaryBackward(op UnaryOp, gx, g, x, y *Tensor, p float32) {
	if gx.dtype != Float32 || g.dtype != Float32 || x.dtype != Float32 || y.dtype != Float32 {
		unaryGradLow(unaryDerivative(op, p), gx, g, x, y)
		return
	}
	if op == UnaryReLU {
		reluMask(gx.Float32s(), g.Float32s(), y.Float32s())
		return
	}
	df := unaryDerivative(op, p)
	od, gd, xd, yd := gx.Float32s(), g.Float32s(), x.Float32s(), y.Float32s()
	parallelFor(len(od), 1<<15, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			od[i] = gd[i] * df(xd[i], yd[i])
		}
	})
}

// b2u32 is 1 for true and 0 for false.
func b2u32(b bool) uint32 {
	var u uint32
	if b {
		u = 1
	}
	return u
}

// reluMask sets o[i] = g[i] where y[i] > 0 and +0 elsewhere (the float32
// ReLU gradient), without a branch.
func reluMask(o, g, y []float32) {
	parallelFor(len(o), 1<<15, func(lo, hi int) {
		o, gi := o[lo:hi], g[lo:hi]
		for i, v := range y[lo:hi] {
			// Keep g where y > 0 without a branch (the signs are random).
			o[i] = math.Float32frombits(math.Float32bits(gi[i]) & -b2u32(v > 0))
		}
	})
}

// reluGrad returns g where the ReLU output y is positive and 0 elsewhere
// (g float32 of y's length), for the CPU's fused AddMM + ReLU.
func reluGrad(g *Tensor, y []float32) *Tensor {
	gx := New(Float32, g.shape...)
	reluMask(gx.Float32s(), g.Float32s(), y)
	return gx
}

// unaryGradLow is UnaryBackward (g * df(x, y)) when a tensor is not float32.
func unaryGradLow(df func(x, y float32) float32, gx, g, x, y *Tensor) {
	sg, sx, sy, so := floatsOf(g), floatsOf(x), floatsOf(y), floatsOf(gx)
	parallelFor(gx.n, 1<<15, func(lo0, hi0 int) {
		s := new(scratch)
		yb := new([lowBlock]float32)
		for lo := lo0; lo < hi0; lo += lowBlock {
			hi := min(lo+lowBlock, hi0)
			gv, xv, yv, o := sg.load(lo, hi, s.a[:]), sx.load(lo, hi, s.b[:]), sy.load(lo, hi, yb[:]), so.slot(lo, hi, s.c[:])
			for i := range o {
				o[i] = gv[i] * df(xv[i], yv[i])
			}
			so.store(lo, hi, o)
		}
	})
}

// SumTo sums g over out's broadcast dimensions into out (zero on entry):
// float32 directly, a 16-bit bias gradient (N, F) -> (F) through one
// float32 row of accumulators, any other 16-bit reduction through float32
// accumulators for all of out (the ops give these as float32 copies
// instead, sumTo).
func (*cpuBackend) SumTo(out, g *Tensor) {
	shape := out.shape
	if g.dtype == Float32 && out.dtype == Float32 {
		sumToF32(out.Float32s(), g.Float32s(), shape, g.shape)
		return
	}
	if isBiasGrad(g.shape, shape) && isLow(g.dtype) && g.dtype == out.dtype {
		f := shape[0]
		acc := make([]float32, f)
		row := make([]float32, f)
		gd := g.Uint16s()
		for r := 0; r < g.shape[0]; r++ {
			lowToF32(g.dtype, gd[r*f:(r+1)*f], row)
			addTo(row, acc)
		}
		f32ToLow(g.dtype, acc, out.Uint16s())
		return
	}
	acc := make([]float32, out.n)
	sg := floatsOf(g)
	bcastLoop(g.shape, bstrides(shape, g.shape), bstrides(g.shape, g.shape), func(o, a, b, n, as, bs int) {
		for i := 0; i < n; i++ {
			acc[a+i*as] += sg.at(b + i*bs)
		}
	})
	so := floatsOf(out)
	for i, v := range acc {
		so.set(i, v)
	}
}

// isBiasGrad reports whether shape is a row (F) of a gradient (N, F).
func isBiasGrad(g, shape []int) bool {
	return len(shape) == 1 && len(g) == 2 && shape[0] == g[1]
}

// sumToF32 adds gd (shape gs) reduced to shape into od.
func sumToF32(od, gd []float32, shape, gs []int) {
	// Common case: bias of shape (F) against (N, F).
	if isBiasGrad(gs, shape) {
		// Column bands on separate goroutines, rows in order within each:
		// the same additions in the same order as one sequential loop.
		f, rows := shape[0], gs[0]
		band := f
		if p := runtime.GOMAXPROCS(0); p > 1 && rows*f >= 1<<16 && f >= 16 {
			band = (f/p + 7) &^ 7
		}
		parallelFor(f, band, func(lo, hi int) {
			o := od[lo:hi]
			for r := 0; r < rows; r++ {
				addTo(gd[r*f+lo:r*f+hi], o)
			}
		})
		return
	}
	so := bstrides(shape, gs)
	sg := bstrides(gs, gs)
	bcastLoop(gs, so, sg, func(o, a, b, n, as, bs int) {
		for i := 0; i < n; i++ {
			od[a+i*as] += gd[b+i*bs]
		}
	})
}

// Accumulate does dst += src: float32 with the unrolled addTo in parallel
// chunks, else by blocks rounded once per element.
func (*cpuBackend) Accumulate(dst, src *Tensor) {
	if dst.dtype == Float32 && src.dtype == Float32 {
		d, s := dst.Float32s(), src.Float32s()
		parallelFor(len(d), 1<<15, func(lo, hi int) { addTo(s[lo:hi], d[lo:hi]) })
		return
	}
	d, s := floatsOf(dst), floatsOf(src)
	lowBlocks(dst.n, func(lo, hi int, b *scratch) {
		y := d.load(lo, hi, b.a[:])
		x := s.load(lo, hi, b.b[:])
		o := d.slot(lo, hi, b.c[:])
		for i := range o {
			o[i] = y[i] + x[i]
		}
		d.store(lo, hi, o)
	})
}

// Cast converts x into out (castElems, lowprec.go).
func (*cpuBackend) Cast(out, x *Tensor) { castElems(out, x) }

// Fill sets every element of out to v.
func (*cpuBackend) Fill(out *Tensor, v float64) {
	switch out.dtype {
	case Float32:
		d, f := out.Float32s(), float32(v)
		for i := range d {
			d[i] = f
		}
	case Float16, BFloat16:
		d, h := out.Uint16s(), lowRound(out.dtype, float32(v))
		for i := range d {
			d[i] = h
		}
	default:
		for i := 0; i < out.n; i++ {
			setElem(out, i, v)
		}
	}
}
