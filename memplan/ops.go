package memplan

import "fmt"

// Symbolic twins of the tensor ops the models use: each allocates what the
// engine's op allocates (output, temporaries) and records the same inputs
// in the same order, with a gradient rule allocating what the op's backward
// allocates. Shapes are in elements; elem is the element size: 4 for
// float32, 2 for float16 / bfloat16, 8 for int64.
//
// Conventions: an op does not consume its inputs' program references and
// returns a tensor holding one. Temporaries an op allocates (tmp) stay
// counted until the op returns, as the engine's accounting releases them
// only when garbage is collected (at op boundaries in Measure).
//
// Autocast (tensor/lowprec.go, tensor/cast.go): while s.ac is set (the
// forward pass inside amp.Autocast), MatMul, SpMM and SDDMM cast their
// float inputs to the low dtype first (differentiable Cast ops) and compute
// in it; reductions, softmaxes and losses cast a low input to float32 and
// stay float32; elementwise ops compute in the promoted dtype (bfloat16 with
// float32 gives float32). Backward runs with autocast off, each op in the
// dtypes its forward chose, and a gradient is cast to its tensor's dtype.

const (
	f32 int64 = 4
	low int64 = 2
	i64 int64 = 8
)

// begin labels what follows (for Plan.PeakAt) with op and the layer.
func (s *sim) begin(op string) {
	if s.layer >= 0 {
		s.at = fmt.Sprintf("%s (layer %d)", op, s.layer)
	} else {
		s.at = op
	}
}

// tmp allocates a counted temporary released when the current op ends.
func (s *sim) tmp(bytes int64) {
	s.tmps = append(s.tmps, s.alloc(catWorkspace, bytes, true))
}

// endOp releases the current op's temporaries.
func (s *sim) endOp() {
	for _, b := range s.tmps {
		s.unref(b)
	}
	s.tmps = s.tmps[:0]
}

// outE allocates an op's output of element size elem: an activation until
// settle finds that no node holds it.
func (s *sim) outE(elem int64, shape ...int64) *tn {
	return s.newT(catActivations, elem, true, shape...)
}

// settle reclassifies out as workspace when no node was recorded (it is
// then a temporary or a no-grad value, not a saved activation), and ends
// the op.
func (s *sim) settle(out *tn) *tn {
	if out.node == nil && out.b.cat == catActivations {
		s.recat(out.b, catWorkspace)
	}
	s.endOp()
	return out
}

func (s *sim) recat(b *blk, c category) {
	if b.refs <= 0 || b.cat == c {
		return
	}
	if !b.phantom {
		s.by[b.cat] -= b.bytes
		s.by[c] += b.bytes
	}
	if b.counted {
		s.byCounted[b.cat] -= b.bytes
		s.byCounted[c] += b.bytes
	}
	b.cat = c
}

// gradE allocates a gradient of element size elem.
func (s *sim) gradE(elem int64, shape []int64) *tn { return s.newT(catWorkspace, elem, true, shape...) }

// keep returns t with one more program reference (an op returning its
// input unchanged).
func (s *sim) keep(t *tn) *tn {
	if t != nil {
		s.ref(t.b)
	}
	return t
}

// promote is tensor.PromoteTypes for float element sizes.
func promote(a, b int64) int64 {
	if a == b {
		return a
	}
	return f32
}

// cast is tensor.Tensor.Cast: t itself when it has the element size
// already, else a converted copy whose gradient is cast back.
func (s *sim) cast(t *tn, elem int64) *tn {
	if t == nil || t.elem == elem {
		return s.keep(t)
	}
	s.begin("Cast")
	out := s.outE(elem, t.shape...)
	src := t.elem
	return s.settle(s.record(out, "Cast", []*tn{t}, func(g *tn) []*tn { return []*tn{s.castRaw(g, src)} }))
}

// castRaw is the engine's castRaw for a gradient: g itself (shared) when it
// has the element size already, else a new tensor.
func (s *sim) castRaw(g *tn, elem int64) *tn {
	if g.elem == elem {
		return s.share(g)
	}
	return s.gradE(elem, g.shape)
}

// lower2 is the entry of MatMul, SpMM and SDDMM: under autocast float
// inputs are cast to the low dtype; outside it, two different float dtypes
// are promoted. The results hold program references.
func (s *sim) lower2(a, b *tn) (*tn, *tn) {
	if s.ac != 0 {
		return s.cast(a, s.ac), s.cast(b, s.ac)
	}
	if a != nil && b != nil && a.elem != b.elem {
		return s.cast(a, f32), s.cast(b, f32)
	}
	return s.keep(a), s.keep(b)
}

// fp32In is the entry of the ops on autocast's float32 list (LogSoftmax,
// CrossEntropy, EdgeSoftmax, SumDim, MeanDim): a low input is cast to
// float32. (Outside autocast the result would be cast back; the planner
// only meets low tensors under autocast.)
func (s *sim) fp32In(x *tn) *tn { return s.cast(x, f32) }

// rowBlock is tensor's lowRowBlock capped at the rows: rows per block of
// the low-precision MatMul's float32 scratch (64 KiB rows of width w, at
// least 32).
func rowBlock(w, rows int64) int64 { return min(max(32, (1<<14)/max(w, 1)), max(rows, 1)) }

// matmul is tensor.MatMul: (M, K) x (K, N) -> (M, N). In float32 the
// backward allocates (M, K) for a and (K, N) for b when they require grad.
// In low precision (tensor/lowprec_matmul.go) the weight is widened to
// float32 and rows go through float32 scratch blocks, forward and backward,
// and b's gradient is accumulated in float32 before rounding.
func (s *sim) matmul(a0, b0 *tn) *tn {
	a, b := s.lower2(a0, b0)
	s.begin("MatMul")
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	var out *tn
	var back func(g *tn) []*tn
	if a.elem == low {
		out = s.outE(low, m, n)
		s.tmp(k * n * f32)
		blk := rowBlock(max(k, n), m)
		s.tmp(blk * k * f32)
		s.tmp(blk * n * f32)
		back = func(g *tn) []*tn {
			ga, gb := s.lowMatMulGrads(a, b, m, k, n)
			return []*tn{ga, gb}
		}
	} else {
		out = s.outE(f32, m, n)
		back = func(g *tn) []*tn {
			var ga, gb *tn
			if a.rg {
				ga = s.gradE(f32, a.shape)
			}
			if b.rg {
				gb = s.gradE(f32, b.shape)
			}
			return []*tn{ga, gb}
		}
	}
	res := s.settle(s.record(out, "MatMul", []*tn{a, b}, back))
	s.drop(a, b)
	return res
}

// addmm is tensor.AddMM (AddMMReLU when relu) of c and the (a, b) pairs,
// cast to the autocast dtype inside a region. Float32 pairs and c: one
// (M, N) output and, in backward, each input's gradient (c's shares g when
// c is (M, N)), the ReLU's masked gradient a temporary. Low pairs (and c
// low or autocast on): a low output, the widened weights and two float32
// row blocks as temporaries, and low-precision product gradients. Other
// mixes: the Adds of MatMuls (and a ReLU) it falls back to.
func (s *sim) addmm(relu bool, c *tn, pairs ...*tn) *tn {
	if s.ac != 0 {
		lowered := make([]*tn, len(pairs))
		for i, t := range pairs {
			lowered[i] = s.cast(t, s.ac)
		}
		defer s.drop(lowered...)
		pairs = lowered
	}
	dt, same := pairs[0].elem, true
	for _, t := range pairs {
		same = same && t.elem == dt
	}
	var elem int64
	switch {
	case same && dt == f32 && c.elem == f32:
		elem = f32
	case same && dt == low && (c.elem == low || s.ac != 0):
		elem = low
	default:
		out := s.keep(c)
		for i := 0; i < len(pairs); i += 2 {
			p := s.matmul(pairs[i], pairs[i+1])
			o := s.add(out, p)
			s.drop(out, p)
			out = o
		}
		if relu {
			out = s.relu(out)
		}
		return out
	}
	op := "AddMM"
	if relu {
		op = "AddMMReLU"
	}
	s.begin(op)
	m, n := pairs[0].shape[0], pairs[1].shape[1]
	out := s.outE(elem, m, n)
	if elem == low {
		kmax := int64(0)
		for i := 0; i < len(pairs); i += 2 {
			s.tmp(pairs[i+1].numel() * f32) // the widened weight
			kmax = max(kmax, pairs[i].shape[1])
		}
		blk := rowBlock(max(n, kmax), m)
		s.tmp(blk * n * f32)
		s.tmp(blk * kmax * f32)
	}
	inputs := append([]*tn{c}, pairs...)
	return s.settle(s.record(out, op, inputs, func(g *tn) []*tn {
		grads := make([]*tn, len(inputs))
		gm := g
		if relu {
			gm = s.gradE(elem, g.shape)
		}
		if c.rg {
			grads[0] = s.sumTo(gm, c.shape)
		}
		for i := 0; i < len(pairs); i += 2 {
			x, w := pairs[i], pairs[i+1]
			if elem == low {
				grads[1+i], grads[2+i] = s.lowMatMulGrads(x, w, m, x.shape[1], n)
				continue
			}
			if x.rg {
				grads[1+i] = s.gradE(f32, x.shape)
			}
			if w.rg {
				grads[2+i] = s.gradE(f32, w.shape)
			}
		}
		if relu {
			s.unref(gm.b)
		}
		return grads
	}))
}

// lowMatMulGrads is the backward of a low-precision product a (m, k) @
// b (k, n) (tensor's lowRowsTimes and lowATB): each gradient goes through
// the widened other operand and float32 row blocks.
func (s *sim) lowMatMulGrads(a, b *tn, m, k, n int64) (ga, gb *tn) {
	if a.rg {
		ga = s.gradE(low, a.shape)
		s.tmp(k * n * f32)
		blk := rowBlock(max(n, k), m)
		s.tmp(blk * n * f32)
		s.tmp(blk * k * f32)
	}
	if b.rg {
		s.tmp(k * n * f32)
		blk := rowBlock(max(k, n), m)
		s.tmp(blk * k * f32)
		s.tmp(blk * n * f32)
		gb = s.gradE(low, b.shape)
	}
	return ga, gb
}

// sumTo is the engine's sumTo: g itself when shapes agree, else a new
// tensor of the target shape in g's dtype (a low g's general reduction goes
// through float32 copies).
func (s *sim) sumTo(g *tn, shape []int64) *tn {
	if sameShape(g.shape, shape) {
		return s.share(g)
	}
	if g.elem == low && !(len(shape) == 1 && len(g.shape) == 2 && shape[0] == g.shape[1]) {
		s.tmp(g.numel() * f32)
		s.tmp(numel(shape) * f32)
	}
	return s.gradE(g.elem, shape)
}

func broadcast(a, b []int64) []int64 {
	n := max(len(a), len(b))
	out := make([]int64, n)
	for i := 0; i < n; i++ {
		da, db := int64(1), int64(1)
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		out[i] = max(da, db)
	}
	return out
}

// binary is the engine's binary: the output in the promoted dtype; a low
// operand with a general broadcast goes through whole float32 copies
// (tensor/lowprec_elementwise.go).
func (s *sim) binary(a, b *tn) *tn {
	shape := broadcast(a.shape, b.shape)
	pd := promote(a.elem, b.elem)
	if (a.elem != f32 || b.elem != f32) && !sameShape(a.shape, b.shape) && b.numel() != 1 && a.numel() != 1 &&
		!(sameShape(a.shape, shape) && len(b.shape) == 1 && b.shape[0] == shape[len(shape)-1] && b.numel() <= 2048) {
		if a.elem != f32 {
			s.tmp(a.numel() * f32)
		}
		if b.elem != f32 {
			s.tmp(b.numel() * f32)
		}
		out := s.outE(f32, shape...)
		if pd != f32 {
			s.tmps = append(s.tmps, out.b)
			out = s.outE(pd, shape...)
		}
		return out
	}
	return s.outE(pd, shape...)
}

// binaryGrad is binary for a gradient computation (g op other): a new
// gradient buffer of the promoted dtype.
func (s *sim) binaryGrad(g, other *tn) *tn {
	t := s.binary(g, other)
	s.recat(t.b, catWorkspace)
	return t
}

// add is tensor.Add with broadcasting; backward returns sumTo of the
// gradient for both inputs (aliases when the shapes agree).
func (s *sim) add(a, b *tn) *tn {
	s.begin("Add")
	out := s.binary(a, b)
	return s.settle(s.record(out, "Add", []*tn{a, b}, func(g *tn) []*tn {
		return []*tn{s.sumTo(g, a.shape), s.sumTo(g, b.shape)}
	}))
}

// mul is tensor.Mul with broadcasting; backward multiplies the gradient by
// the other operand (the broadcast shape) and reduces it to each input's
// shape.
func (s *sim) mul(a, b *tn) *tn {
	s.begin("Mul")
	out := s.binary(a, b)
	return s.settle(s.record(out, "Mul", []*tn{a, b}, func(g *tn) []*tn {
		var ga, gb *tn
		if a.rg {
			full := s.binaryGrad(g, b)
			ga = s.sumTo(full, a.shape)
			s.unref(full.b)
		}
		if b.rg {
			full := s.binaryGrad(g, a)
			gb = s.sumTo(full, b.shape)
			s.unref(full.b)
		}
		return []*tn{ga, gb}
	}))
}

// div is tensor.Div: b's gradient needs two temporaries of the output's
// shape.
func (s *sim) div(a, b *tn) *tn {
	s.begin("Div")
	out := s.binary(a, b)
	return s.settle(s.record(out, "Div", []*tn{a, b}, func(g *tn) []*tn {
		var ga, gb *tn
		if a.rg {
			full := s.binaryGrad(g, b)
			ga = s.sumTo(full, a.shape)
			s.unref(full.b)
		}
		if b.rg {
			t := s.binaryGrad(out, b)
			full := s.binaryGrad(g, t)
			s.unref(t.b)
			gb = s.sumTo(full, b.shape)
			s.unref(full.b)
		}
		return []*tn{ga, gb}
	}))
}

// unary is an elementwise op (ReLU, LeakyReLU, ELU, MulScalar): output and
// input gradient of the input's shape and dtype.
func (s *sim) unary(op string, x *tn) *tn {
	s.begin(op)
	out := s.outE(x.elem, x.shape...)
	return s.settle(s.record(out, op, []*tn{x}, func(g *tn) []*tn { return []*tn{s.gradE(x.elem, x.shape)} }))
}

// relu is tensor.ReLU of t, consuming the program's reference to t.
func (s *sim) relu(t *tn) *tn {
	r := s.unary("ReLU", t)
	s.drop(t)
	return r
}

// dropout is nn's core.dropout in training mode: identity for p = 0,
// tensor.Dropout otherwise, in x's dtype; the mask is kept as bits for
// backward, and a checkpointed forward keeps them for the recomputation.
func (s *sim) dropout(x *tn, p float32) *tn {
	if p == 0 {
		return s.keep(x)
	}
	// The output, then the mask as bits (an int64 word per 64 elements)
	// that the node keeps for backward.
	s.begin("Dropout")
	out := s.outE(x.elem, x.shape...)
	var mask *tn
	if len(s.maskReplay) > 0 {
		mask = s.keep(s.maskReplay[0])
		s.maskReplay = s.maskReplay[1:]
	} else {
		mask = s.newT(catActivations, i64, true, (x.numel()+63)/64)
		if s.maskTape != nil {
			*s.maskTape = append(*s.maskTape, s.keep(mask))
		}
	}
	r := s.settle(s.record(out, "Dropout", []*tn{x, mask}, func(g *tn) []*tn {
		return []*tn{s.gradE(x.elem, x.shape), nil}
	}))
	s.drop(mask)
	return r
}

// spmm is tensor.SpMM(adj, u, e, reduce) on an adjacency with nd
// destinations: (NumSrc, F) -> (nd, F), in u's dtype after lower2. The max
// reducer also keeps an (nd, F) int64 argmax tensor for backward. Backward allocates u's and e's shapes (the low max reducer's
// through float32 copies).
func (s *sim) spmm(nd int64, u0, e0 *tn, reduce string) *tn {
	u, e := s.lower2(u0, e0)
	s.begin("SpMM")
	f := u.shape[1]
	out := s.outE(u.elem, nd, f)
	var arg *blk
	if reduce == "max" {
		arg = s.alloc(catActivations, nd*f*8, true)
	}
	res := s.settle(s.record(out, "SpMM", []*tn{u, e}, func(g *tn) []*tn {
		var gu, ge *tn
		lowMax := reduce == "max" && u.elem == low
		if u.rg {
			if lowMax {
				s.tmp(u.numel() * f32)
				s.tmp(g.numel() * f32)
				if e != nil {
					s.tmp(e.numel() * f32)
				}
			}
			gu = s.gradE(u.elem, u.shape)
		}
		if e != nil && e.rg {
			if lowMax {
				s.tmp(e.numel() * f32)
			}
			ge = s.gradE(e.elem, e.shape)
		}
		return []*tn{gu, ge}
	}))
	if arg != nil {
		if res.node != nil {
			// The gradient closure keeps the argmax until it runs.
			back := res.node.back
			res.node.back = func(g *tn) []*tn {
				r := back(g)
				s.unref(arg)
				return r
			}
		} else {
			s.unref(arg)
		}
	}
	s.drop(u, e)
	return res
}

// sddmm is tensor.SDDMM(adj, lhs, rhs, "add") over e edges: (Ns, H), (Nd,
// H) -> (E, H); backward allocates both input shapes.
func (s *sim) sddmm(e int64, lhs0, rhs0 *tn) *tn {
	lhs, rhs := s.lower2(lhs0, rhs0)
	s.begin("SDDMM")
	out := s.outE(lhs.elem, e, lhs.shape[len(lhs.shape)-1])
	res := s.settle(s.record(out, "SDDMM", []*tn{lhs, rhs}, func(g *tn) []*tn {
		var gl, gr *tn
		if lhs.rg {
			gl = s.gradE(lhs.elem, lhs.shape)
		}
		if rhs.rg {
			gr = s.gradE(rhs.elem, rhs.shape)
		}
		return []*tn{gl, gr}
	}))
	s.drop(lhs, rhs)
	return res
}

// fp32Unary runs a float32-list op with a single input x as unary does,
// after casting a low x to float32.
func (s *sim) fp32Unary(op string, x *tn) *tn {
	x32 := s.fp32In(x)
	out := s.unary(op, x32)
	s.drop(x32)
	return out
}

// edgeSoftmax is tensor.EdgeSoftmax: (E, H) -> (E, H), backward (E, H).
func (s *sim) edgeSoftmax(x *tn) *tn { return s.fp32Unary("EdgeSoftmax", x) }

// sumDimLast is tensor.SumDim over the last dimension: (..., D) -> (...);
// backward allocates the input's shape.
func (s *sim) sumDimLast(x0 *tn) *tn {
	x := s.fp32In(x0)
	s.begin("SumDim")
	out := s.outE(x.elem, x.shape[:len(x.shape)-1]...)
	res := s.settle(s.record(out, "SumDim", []*tn{x}, func(g *tn) []*tn { return []*tn{s.gradE(x.elem, x.shape)} }))
	s.drop(x)
	return res
}

// meanDim1 is tensor.MeanDim over dimension 1 of (N, H, F) -> (N, F):
// SumDim then MulScalar.
func (s *sim) meanDim1(x0 *tn) *tn {
	x := s.fp32In(x0)
	s.begin("SumDim")
	sum := s.outE(x.elem, x.shape[0], x.shape[2])
	sum = s.settle(s.record(sum, "SumDim", []*tn{x}, func(g *tn) []*tn { return []*tn{s.gradE(x.elem, x.shape)} }))
	s.drop(x)
	out := s.unary("MulScalar", sum)
	s.drop(sum)
	return out
}

// narrow is tensor.Narrow(x, 0, n): a view; backward allocates x's whole
// shape.
func (s *sim) narrow(x *tn, n int64) *tn {
	if n == x.shape[0] {
		return s.keep(x)
	}
	s.begin("Narrow")
	sh := append([]int64{n}, x.shape[1:]...)
	out := s.view(x, sh...)
	return s.record(out, "Narrow", []*tn{x}, func(g *tn) []*tn { return []*tn{s.gradE(g.elem, x.shape)} })
}

// reshape is tensor.Reshape: a view whose gradient is a view of the output
// gradient.
func (s *sim) reshape(x *tn, shape ...int64) *tn {
	s.begin("Reshape")
	out := s.view(x, shape...)
	return s.record(out, "Reshape", []*tn{x}, func(g *tn) []*tn {
		r := s.share(g)
		r.shape = x.shape
		return []*tn{r}
	})
}

// indexSelect is tensor.IndexSelect of m rows of x: (N, F) -> (m, F);
// backward scatters into a new (N, F) (a low gradient is scattered in
// float32 copies and rounded).
func (s *sim) indexSelect(x *tn, m int64) *tn {
	s.begin("IndexSelect")
	sh := append([]int64{m}, x.shape[1:]...)
	out := s.outE(x.elem, sh...)
	return s.settle(s.record(out, "IndexSelect", []*tn{x}, func(g *tn) []*tn {
		if g.elem == low {
			s.tmp(g.numel() * f32)
			s.tmp(x.numel() * f32)
		}
		return []*tn{s.gradE(g.elem, x.shape)}
	}))
}

// crossEntropy is tensor.CrossEntropy = NLLLoss(LogSoftmax(logits)), in
// float32 (a low input is cast first): LogSoftmax allocates (M, C) and its
// backward (M, C); NLLLoss allocates a scalar and its backward (M, C).
func (s *sim) crossEntropy(logits *tn) *tn {
	x := s.fp32In(logits)
	lp := s.unary("LogSoftmax", x)
	s.drop(x)
	s.begin("NLLLoss")
	loss := s.outE(f32)
	loss = s.settle(s.record(loss, "NLLLoss", []*tn{lp}, func(g *tn) []*tn { return []*tn{s.gradE(f32, lp.shape)} }))
	s.drop(lp)
	return loss
}
