package tensor

// Cast returns t converted to dtype dt, as torch.Tensor.to(dtype): t itself
// when it already has that dtype, otherwise a new tensor of t's shape on
// t's device. Float to float16 or bfloat16 rounds to nearest, ties to even
// (NaN stays NaN; finite values beyond float16's ±65504 become ±Inf);
// widening is exact; floats to Int8 or Int64 truncate toward zero (Int8
// saturating at -128 and 127, NaN giving 0); anything to Bool is value != 0.
//
// A cast between floating-point dtypes is differentiable: the gradient is
// cast back to t's dtype (so a float32 parameter used as bfloat16 receives
// a float32 gradient). Other casts record no history. Inside Backward
// (autograd off) it is a plain conversion, so gradient rules may call it.
//
// It panics with ErrDType for an unknown dtype. Devices: cpu and meta for
// every pair of dtypes; cuda for float32 <-> float16 and float32 <->
// bfloat16 (kernels.Cast), other pairs panic with ErrNotImplemented naming
// the dtypes and the device. Kernels: lowprec.go (castElems),
// cuda_elementwise.go.
func (t *Tensor) Cast(dt DType) *Tensor {
	defer hookOp("Cast")()
	if dt == t.dtype {
		return t
	}
	if dt.Size() == 0 {
		panicf(ErrDType, "Cast", "unknown dtype %d", int(dt))
	}
	out := castRaw(t, dt)
	if !t.dtype.IsFloatingPoint() || !dt.IsFloatingPoint() {
		return out
	}
	src := t.dtype
	return record(out, "Cast", []*Tensor{t}, func(g *Tensor) []*Tensor { return gradCast(g, src) })
}

// Half returns t cast to Float16 (torch.Tensor.half); see Cast.
func (t *Tensor) Half() *Tensor { return t.Cast(Float16) }

// BFloat16 returns t cast to BFloat16 (torch.Tensor.bfloat16); see Cast.
func (t *Tensor) BFloat16() *Tensor { return t.Cast(BFloat16) }

// Float returns t cast to Float32 (torch.Tensor.float); see Cast.
func (t *Tensor) Float() *Tensor { return t.Cast(Float32) }

// autocastOn reports whether an autocast region is open.
func autocastOn() bool {
	on, _ := AutocastState()
	return on
}

// autocastTo is the cast autocast inserts before op: a float tensor of
// another dtype is cast (differentiably) to dt, on its device; nil and
// non-float tensors pass unchanged.
func autocastTo(op string, t *Tensor, dt DType) *Tensor {
	if t == nil || t.dtype == dt || !t.dtype.IsFloatingPoint() {
		return t
	}
	return t.Cast(dt)
}

// lowerPrecision2 is the entry of the ops on autocast's lower-precision
// list (MatMul, SpMM, SDDMM; torch's mm/matmul/linear, DGL's gspmm and
// gsddmm): under autocast, float inputs are cast to the autocast dtype;
// outside it, inputs of two different float dtypes are promoted to a
// common one (PromoteTypes).
func lowerPrecision2(op string, a, b *Tensor) (*Tensor, *Tensor) {
	if on, dt := AutocastState(); on {
		return autocastTo(op, a, dt), autocastTo(op, b, dt)
	}
	if a != nil && b != nil && a.dtype != b.dtype && a.dtype.IsFloatingPoint() && b.dtype.IsFloatingPoint() {
		pd := PromoteTypes(a.dtype, b.dtype)
		return autocastTo(op, a, pd), autocastTo(op, b, pd)
	}
	return a, b
}

// fp32Op runs f, an op on autocast's float32 list (reductions, softmax,
// log-softmax, edge softmax, losses), on a float16 or bfloat16 x: f runs
// on x cast to float32; under autocast the result stays float32, outside
// it the result is cast back to x's dtype (torch computes these ops in
// float32 internally and returns the input dtype).
func fp32Op(op string, x *Tensor, f func(*Tensor) *Tensor) *Tensor {
	y := f(autocastTo(op, x, Float32))
	if autocastOn() {
		return y
	}
	return y.Cast(x.dtype)
}

// checkFloats panics with ErrDType unless every tensor has a
// floating-point dtype.
func checkFloats(op string, ts ...*Tensor) {
	for _, t := range ts {
		if t != nil && !t.dtype.IsFloatingPoint() {
			panicf(ErrDType, op, "needs floating-point tensors, got %s of shape %v", t.dtype, t.shape)
		}
	}
}

// autocastFloat32 is the entry of the elementwise ops on autocast's float32
// list (Exp, Log, Pow): under autocast a float16 or bfloat16 x is cast to
// float32; outside it x is returned as is (the op then runs in x's dtype).
func autocastFloat32(op string, x *Tensor) *Tensor {
	if isLow(x.dtype) && autocastOn() {
		return autocastTo(op, x, Float32)
	}
	return x
}
