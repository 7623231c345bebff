package tensor

// Elementwise kernels for float16 and bfloat16 operands: blocks of elements
// are widened to float32, computed with the same function as the float32
// kernels, and rounded once into the result. The result dtype follows
// PyTorch's type promotion (PromoteTypes): bfloat16 with bfloat16 stays
// bfloat16, bfloat16 with float32 gives float32.

// binaryLow is binary (f over the broadcast of a and b) when a or b is not
// float32.
func binaryLow(op string, a, b *Tensor, f func(x, y float32) float32) *Tensor {
	checkFloats(op, a, b)
	pd := PromoteTypes(a.dtype, b.dtype)
	shape := broadcastShapes(op, a.shape, b.shape)
	out := New(pd, shape...)
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
	case sameShape(a.shape, shape) && len(b.shape) == 1 && len(shape) >= 1 && b.shape[0] == shape[len(shape)-1] && b.n <= lowBlock:
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
		// General broadcasting: through whole float32 copies (counted).
		r := binary(op, castRaw(a, Float32), castRaw(b, Float32), f)
		return castRaw(r, pd)
	}
	return out
}

// unaryLow is unary (f elementwise) for a float16 or bfloat16 x; the result
// has x's dtype.
func unaryLow(op string, x *Tensor, f func(float32) float32) *Tensor {
	checkFloats(op, x)
	out := New(x.dtype, x.shape...)
	sx, so := floatsOf(x), floatsOf(out)
	lowBlocks(out.n, func(lo, hi int, s *scratch) {
		v, o := sx.load(lo, hi, s.a[:]), so.slot(lo, hi, s.c[:])
		for i := range o {
			o[i] = f(v[i])
		}
		so.store(lo, hi, o)
	})
	return out
}

// unaryGradLow is unaryGrad (g * df(x, y)) when a tensor is not float32;
// the result has x's dtype.
func unaryGradLow(g, x, y *Tensor, df func(x, y float32) float32) *Tensor {
	out := New(x.dtype, g.shape...)
	sg, sx, sy, so := floatsOf(g), floatsOf(x), floatsOf(y), floatsOf(out)
	parallelFor(out.n, 1<<15, func(lo0, hi0 int) {
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
	return out
}

// scaleLow is scaleNew (s * t) for a float16 or bfloat16 t.
func scaleLow(t *Tensor, s float32) *Tensor {
	return unaryLow("MulScalar", t, func(v float32) float32 { return s * v })
}

// sumToLow is sumTo for a gradient g that is not float32: the reduction is
// accumulated in float32 and rounded once into g's dtype.
func sumToLow(g *Tensor, shape []int) *Tensor {
	if len(shape) == 1 && len(g.shape) == 2 && shape[0] == g.shape[1] {
		f := shape[0]
		acc := make([]float32, f)
		row := make([]float32, f)
		gd := g.Uint16s()
		for r := 0; r < g.shape[0]; r++ {
			lowToF32(g.dtype, gd[r*f:(r+1)*f], row)
			addTo(row, acc)
		}
		out := New(g.dtype, shape...)
		f32ToLow(g.dtype, acc, out.Uint16s())
		return out
	}
	return castRaw(sumTo(castRaw(g, Float32), shape), g.dtype)
}
