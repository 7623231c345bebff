package amp

import (
	"errors"
	"math"
	"testing"

	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func mustPanic(t *testing.T, kind error, f func()) {
	t.Helper()
	err := tensor.Catch(f)
	var ae *Error
	if err == nil || !errors.Is(err, kind) || !errors.As(err, &ae) || ae.Pkg != "amp" {
		t.Errorf("got %v, want an *amp.Error of kind %v", err, kind)
	}
}

func TestAutocastNestsAndRestores(t *testing.T) {
	if IsEnabled() {
		t.Fatal("autocast on at start")
	}
	Autocast(tensor.BFloat16, func() {
		if c := Current(); !c.Enabled || c.DType != tensor.BFloat16 {
			t.Errorf("outer region: %+v", c)
		}
		if y := tensor.MatMul(tensor.Ones(2, 3), tensor.Ones(3, 2)); y.DType() != tensor.BFloat16 {
			t.Errorf("MatMul in a bfloat16 region gave %s", y.DType())
		}
		Autocast(tensor.Float16, func() {
			if c := Current(); c.DType != tensor.Float16 {
				t.Errorf("inner region: %+v", c)
			}
			prev := Disable()
			if IsEnabled() || !prev.Enabled || prev.DType != tensor.Float16 {
				t.Errorf("Disable: enabled %v, prev %+v", IsEnabled(), prev)
			}
			if y := tensor.MatMul(tensor.Ones(2, 3), tensor.Ones(3, 2)); y.DType() != tensor.Float32 {
				t.Errorf("MatMul with autocast disabled gave %s", y.DType())
			}
			Restore(prev)
		})
		if c := Current(); !c.Enabled || c.DType != tensor.BFloat16 {
			t.Errorf("after the inner region: %+v", c)
		}
		// A panic inside a region restores the state, and goes on (a plain
		// panic, which tensor.Catch would not turn into an error).
		var r any
		func() {
			defer func() { r = recover() }()
			Autocast(tensor.Float16, func() { panic("boom") })
		}()
		if r != "boom" || Current().DType != tensor.BFloat16 || !IsEnabled() {
			t.Errorf("after a panic: %v, state %+v", r, Current())
		}
	})
	if IsEnabled() {
		t.Error("autocast still on after the region")
	}
	prev := Enable(tensor.Float16)
	if prev.Enabled || !IsEnabled() {
		t.Errorf("Enable: prev %+v", prev)
	}
	Restore(prev)
	if IsEnabled() {
		t.Error("Restore did not turn autocast off")
	}
	mustPanic(t, ErrOption, func() { Enable(tensor.Float32) })
	mustPanic(t, ErrOption, func() { Autocast(tensor.Int8, func() {}) })
	if IsEnabled() {
		t.Error("a rejected Enable turned autocast on")
	}
}

// quadratic returns a parameter p (n values) and a loss function
// sum(c * p^2) / 2, whose gradient is c * p.
func quadratic(vals []float32) (*tensor.Tensor, func(c float32) *tensor.Tensor) {
	p := tensor.FromFloat32(append([]float32(nil), vals...)).SetRequiresGrad(true)
	return p, func(c float32) *tensor.Tensor {
		return tensor.MulScalar(tensor.Sum(tensor.Mul(p, p)), c/2)
	}
}

func TestGradScalerStep(t *testing.T) {
	s := NewGradScaler(GradScalerOptions{})
	if s.GetScale() != 65536 || !s.IsEnabled() {
		t.Fatalf("defaults: %v", s)
	}
	p, loss := quadratic([]float32{1, -2, 3})
	opt := optim.NewSGD([]*tensor.Tensor{p}, optim.SGDOptions{LR: 0.1})
	l := s.Scale(loss(1))
	if l.Item() != 65536*7 {
		t.Errorf("scaled loss %g", l.Item())
	}
	l.Backward()
	if g := p.Grad().Float32s(); g[1] != -2*65536 {
		t.Errorf("scaled gradient %v", g)
	}
	if skipped := s.Step(opt); skipped {
		t.Error("a finite step was skipped")
	}
	// p -= 0.1 * p (the unscaled gradient is p itself).
	for i, want := range []float32{0.9, -1.8, 2.7} {
		if got := p.Float32s()[i]; math.Abs(float64(got-want)) > 1e-6 {
			t.Errorf("p[%d] = %g, want %g", i, got, want)
		}
	}
	mustPanic(t, ErrState, func() { s.Step(opt) })
	mustPanic(t, ErrState, func() { s.Unscale(opt) })
	s.Update()
	mustPanic(t, ErrState, s.Update)
	if s.GetScale() != 65536 {
		t.Errorf("scale after one clean step %g", s.GetScale())
	}
}

func TestGradScalerUnscaleOnceForClipping(t *testing.T) {
	s := NewGradScaler(GradScalerOptions{InitScale: 1024})
	p, loss := quadratic([]float32{3, 4})
	opt := optim.NewSGD([]*tensor.Tensor{p}, optim.SGDOptions{LR: 1})
	s.Scale(loss(1)).Backward()
	s.Unscale(opt)
	if g := p.Grad().Float32s(); g[0] != 3 || g[1] != 4 {
		t.Fatalf("unscaled gradient %v", g)
	}
	mustPanic(t, ErrState, func() { s.Unscale(opt) })
	// Clip to norm 1 on the true gradient, then step: no second division.
	for i, v := range p.Grad().Float32s() {
		p.Grad().Float32s()[i] = v / 5
	}
	s.Step(opt)
	if v := p.Float32s(); math.Abs(float64(v[0]-2.4)) > 1e-6 || math.Abs(float64(v[1]-3.2)) > 1e-6 {
		t.Errorf("after clipped step p = %v, want [2.4 3.2]", v)
	}
	s.Update()
}

func TestGradScalerSkipsInfAndBacksOff(t *testing.T) {
	s := NewGradScaler(GradScalerOptions{InitScale: 8, GrowthInterval: 3})
	p, loss := quadratic([]float32{1, 2})
	opt := optim.NewAdam([]*tensor.Tensor{p}, optim.AdamOptions{LR: 0.1})
	step := func(c float32) bool {
		opt.ZeroGrad()
		s.Scale(loss(c)).Backward()
		skipped := s.Step(opt)
		s.Update()
		return skipped
	}
	before := append([]float32(nil), p.Float32s()...)
	for _, c := range []float32{float32(math.Inf(1)), float32(math.NaN())} {
		if !step(c) {
			t.Errorf("a step with gradient factor %g was not skipped", c)
		}
	}
	if p.Float32s()[0] != before[0] || p.Float32s()[1] != before[1] {
		t.Errorf("a skipped step changed p: %v", p.Float32s())
	}
	if len(opt.StateDict()) != 2 { // only the groups' hyperparameters: Adam never stepped
		t.Errorf("Adam state after skipped steps: %v", opt.StateDict())
	}
	if s.GetScale() != 2 {
		t.Errorf("scale after two skipped steps %g, want 2", s.GetScale())
	}
	// Three clean steps grow the scale; an overflow in between resets the count.
	for i := 0; i < 2; i++ {
		step(1)
	}
	step(float32(math.Inf(1)))
	if s.GetScale() != 1 {
		t.Errorf("scale %g, want 1", s.GetScale())
	}
	for i := 0; i < 3; i++ {
		if step(1) {
			t.Error("a clean step was skipped")
		}
	}
	if s.GetScale() != 2 {
		t.Errorf("scale after 3 clean steps %g, want 2", s.GetScale())
	}
	if p.Float32s()[0] == before[0] {
		t.Error("clean steps did not move p")
	}
}

func TestGradScalerStateDict(t *testing.T) {
	s := NewGradScaler(GradScalerOptions{InitScale: 256, GrowthInterval: 5})
	p, loss := quadratic([]float32{1})
	opt := optim.NewSGD([]*tensor.Tensor{p}, optim.SGDOptions{LR: 0.1})
	for i := 0; i < 2; i++ {
		opt.ZeroGrad()
		s.Scale(loss(1)).Backward()
		s.Step(opt)
		s.Update()
	}
	sd := s.StateDict()
	if sd["scale"].Item() != 256 || sd["_growth_tracker"].Item() != 2 || sd["growth_interval"].Item() != 5 {
		t.Fatalf("state dict %v", sd)
	}
	r := NewGradScaler(GradScalerOptions{})
	if err := r.LoadStateDict(sd); err != nil {
		t.Fatal(err)
	}
	if r.String() != s.String() {
		t.Errorf("restored %v, want %v", r, s)
	}
	if err := r.LoadStateDict(map[string]*tensor.Tensor{}); !errors.Is(err, ErrState) {
		t.Errorf("empty state dict: %v", err)
	}
	sd["_growth_tracker"] = tensor.FromInt64([]int64{7})
	if err := r.LoadStateDict(sd); !errors.Is(err, ErrState) || r.String() != s.String() {
		t.Errorf("inconsistent tracker: %v, state %v", err, r)
	}
	sd["extra"] = tensor.Scalar(1)
	delete(sd, "_growth_tracker")
	if err := r.LoadStateDict(sd); !errors.Is(err, ErrState) {
		t.Errorf("missing key: %v", err)
	}
}

func TestGradScalerDisabledAndOptions(t *testing.T) {
	s := NewGradScaler(GradScalerOptions{Disabled: true})
	p, loss := quadratic([]float32{2})
	opt := optim.NewSGD([]*tensor.Tensor{p}, optim.SGDOptions{LR: 0.5})
	l := loss(1)
	if s.Scale(l) != l || s.GetScale() != 1 || len(s.StateDict()) != 0 {
		t.Error("a disabled scaler scales")
	}
	l.Backward()
	s.Unscale(opt)
	if s.Step(opt) || p.Float32s()[0] != 1 {
		t.Errorf("disabled Step: p = %v", p.Float32s())
	}
	s.Update()
	for _, o := range []GradScalerOptions{{InitScale: -1}, {GrowthFactor: 1}, {BackoffFactor: 1.5}, {GrowthInterval: -2}, {InitScale: math.Inf(1)}} {
		mustPanic(t, ErrOption, func() { NewGradScaler(o) })
	}
	mustPanic(t, ErrOption, func() { NewGradScaler(GradScalerOptions{}).Step(nil) })
}
