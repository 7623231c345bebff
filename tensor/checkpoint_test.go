package tensor

import (
	"errors"
	"testing"
)

// ckptNet is a two-layer perceptron with dropout whose weights are leaves
// captured by the function, as a layer's parameters are.
type ckptNet struct {
	w1, b1, w2 *Tensor
	gen        *Generator
}

func newCkptNet(seed int64) *ckptNet {
	n := &ckptNet{w1: randT(seed, 6, 8), b1: randT(seed+1, 8), w2: randT(seed+2, 8, 5), gen: NewGenerator(seed + 3)}
	for _, p := range n.params() {
		p.SetRequiresGrad(true)
	}
	return n
}

func (n *ckptNet) params() []*Tensor { return []*Tensor{n.w1, n.b1, n.w2} }

// f returns the hidden layer after dropout, the output and an int64 arg max.
func (n *ckptNet) f(in []*Tensor) []*Tensor {
	h := Dropout(ReLU(Add(MatMul(in[0], n.w1), n.b1)), 0.5, true, n.gen)
	y := Tanh(MatMul(Dropout(h, 0.3, true, n.gen), n.w2))
	return []*Tensor{h, y, ArgMax(y)}
}

// loss weights both float outputs so that each receives a gradient.
func ckptLoss(outs []*Tensor) *Tensor {
	return Add(Sum(Mul(outs[1], randT(50, 4, 5))), MulScalar(Sum(outs[0]), 0.1))
}

func TestCheckpointGradientsEqualPlain(t *testing.T) {
	for _, xGrad := range []bool{true, false} {
		run := func(ckpt bool) (outs []*Tensor, grads []*Tensor, next *Tensor) {
			n := newCkptNet(10)
			x := randT(20, 4, 6).SetRequiresGrad(xGrad)
			if ckpt {
				outs = Checkpoint(n.f, x)
			} else {
				outs = n.f([]*Tensor{x})
			}
			ckptLoss(outs).Backward()
			grads = append(grads, x.Grad())
			for _, p := range n.params() {
				grads = append(grads, p.Grad())
			}
			// The generator must end where the plain run leaves it.
			next = Dropout(Ones(7), 0.5, true, n.gen)
			return outs, grads, next
		}
		po, pg, pn := run(false)
		co, cg, cn := run(true)
		for i := range po {
			if po[i].DType() == Float32 {
				sameFloats(t, "output", co[i], po[i], 0)
			} else if po[i].Int64s()[0] != co[i].Int64s()[0] {
				t.Errorf("int64 output differs")
			}
		}
		if co[2].RequiresGrad() || !co[0].RequiresGrad() || !co[1].RequiresGrad() {
			t.Errorf("requires grad of outputs: %v %v %v", co[0].RequiresGrad(), co[1].RequiresGrad(), co[2].RequiresGrad())
		}
		if !xGrad && cg[0] != nil {
			t.Errorf("input without requires grad got a gradient")
		}
		for i := range pg {
			sameFloats(t, "gradient", cg[i], pg[i], 0)
		}
		sameFloats(t, "next dropout mask", cn, pn, 0)
		if tapeOn.Load() {
			t.Errorf("dropout tape left active")
		}
	}
}

func TestCheckpointUnusedAndPassthroughOutputs(t *testing.T) {
	w := randT(1, 3, 3).SetRequiresGrad(true)
	x := randT(2, 2, 3).SetRequiresGrad(true)
	c := randT(3, 2, 3) // no grad anywhere
	f := func(in []*Tensor) []*Tensor {
		return []*Tensor{MatMul(in[0], w), in[0], MulScalar(in[1], 2), nil, Exp(in[0])}
	}
	outs := Checkpoint(f, x, c)
	if outs[3] != nil {
		t.Fatalf("nil output became %v", outs[3])
	}
	// Output 4 is unused; output 2 depends on nothing that needs grad.
	Sum(Add(Add(outs[0], outs[1]), outs[2])).Backward()
	want := f([]*Tensor{x, c})
	wx, ww := x.Grad().Clone(), w.Grad().Clone()
	x.ZeroGrad()
	w.ZeroGrad()
	Sum(Add(Add(want[0], want[1]), want[2])).Backward()
	sameFloats(t, "x grad", wx, x.Grad(), 0)
	sameFloats(t, "w grad", ww, w.Grad(), 0)
	if c.Grad() != nil {
		t.Errorf("constant got a gradient")
	}
}

func TestCheckpointOnlyConstantOutputs(t *testing.T) {
	x := randT(2, 2, 3)
	y := randT(3, 2, 3).SetRequiresGrad(true)
	out := Checkpoint(func(in []*Tensor) []*Tensor { return []*Tensor{Exp(in[0])} }, x)[0]
	Sum(Mul(out, y)).Backward() // nothing inside f needs a gradient
	want := Exp(x)
	sameFloats(t, "y grad", y.Grad(), want, 0)
}

func TestCheckpointNested(t *testing.T) {
	run := func(ckpt bool) []*Tensor {
		n := newCkptNet(30)
		w3 := randT(34, 5, 5).SetRequiresGrad(true)
		x := randT(35, 4, 6).SetRequiresGrad(true)
		inner := func(in []*Tensor) []*Tensor {
			return []*Tensor{Dropout(Tanh(MatMul(in[0], w3)), 0.4, true, n.gen)}
		}
		outer := func(in []*Tensor) []*Tensor {
			o := n.f(in)
			var z *Tensor
			if ckpt {
				z = Checkpoint(inner, o[1])[0]
			} else {
				z = inner(o[1:2])[0]
			}
			return []*Tensor{Dropout(z, 0.2, true, n.gen), o[0]}
		}
		var outs []*Tensor
		if ckpt {
			outs = Checkpoint(outer, x)
		} else {
			outs = outer([]*Tensor{x})
		}
		Add(Sum(Mul(outs[0], randT(36, 4, 5))), Sum(outs[1])).Backward()
		grads := []*Tensor{x.Grad(), w3.Grad()}
		grads = append(grads, n.params()...)
		for i := 2; i < len(grads); i++ {
			grads[i] = grads[i].Grad()
		}
		return append(grads, Dropout(Ones(9), 0.5, true, n.gen))
	}
	plain, ckpt := run(false), run(true)
	for i := range plain {
		sameFloats(t, "nested gradient", ckpt[i], plain[i], 0)
	}
}

func TestCheckpointNoGrad(t *testing.T) {
	x := randT(1, 2, 2).SetRequiresGrad(true)
	var out *Tensor
	NoGrad(func() {
		out = Checkpoint(func(in []*Tensor) []*Tensor { return []*Tensor{Exp(in[0])} }, x)[0]
	})
	if out.RequiresGrad() {
		t.Errorf("output of a checkpoint under NoGrad requires grad")
	}
}

func TestCheckpointAutocastReplayed(t *testing.T) {
	defer SetAutocast(false, Float32)
	var seen []bool
	var dts []DType
	f := func(in []*Tensor) []*Tensor {
		on, dt := AutocastState()
		seen, dts = append(seen, on), append(dts, dt)
		return []*Tensor{MulScalar(in[0], 2)}
	}
	x := randT(1, 3).SetRequiresGrad(true)
	SetAutocast(true, BFloat16)
	out := Checkpoint(f, x)[0]
	SetAutocast(false, Float32)
	Sum(out).Backward()
	if len(seen) != 2 || !seen[0] || !seen[1] || dts[1] != BFloat16 {
		t.Errorf("autocast state in forward and recomputation: %v %v", seen, dts)
	}
	if on, _ := AutocastState(); on {
		t.Errorf("autocast left on after backward")
	}
}

func TestCheckpointPanicRestoresState(t *testing.T) {
	defer SetAutocast(false, Float32)
	SetAutocast(true, Float16)
	boom := errors.New("boom")
	x := randT(1, 3).SetRequiresGrad(true)
	gen := NewGenerator(1)
	err := catchAny(func() {
		Checkpoint(func(in []*Tensor) []*Tensor {
			Dropout(in[0], 0.5, true, gen)
			Checkpoint(func(in []*Tensor) []*Tensor { panic(boom) }, in...)
			return nil
		}, x)
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the panic of f", err)
	}
	if !GradEnabled() || tapeOn.Load() || len(tapes) != 0 {
		t.Errorf("after a panic: grad enabled %v, tapes %d", GradEnabled(), len(tapes))
	}
	if on, dt := AutocastState(); !on || dt != Float16 {
		t.Errorf("autocast after a panic: %v %s", on, dt)
	}

	// A panic during the recomputation, inside Backward.
	calls := 0
	out := Checkpoint(func(in []*Tensor) []*Tensor {
		calls++
		if calls == 2 {
			panic(boom)
		}
		return []*Tensor{Dropout(in[0], 0.5, true, gen)}
	}, x)[0]
	SetAutocast(false, Float32)
	err = catchAny(func() { Sum(out).Backward() })
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the panic of the recomputation", err)
	}
	if !GradEnabled() || tapeOn.Load() {
		t.Errorf("after a panic in recomputation: grad enabled %v, tape on %v", GradEnabled(), tapeOn.Load())
	}
	if on, _ := AutocastState(); on {
		t.Errorf("autocast state not restored after a panic in recomputation")
	}
}

func TestCheckpointNondeterministicPanics(t *testing.T) {
	gen := NewGenerator(1)
	x := randT(1, 8).SetRequiresGrad(true)
	calls := 0
	out := Checkpoint(func(in []*Tensor) []*Tensor {
		calls++
		if calls == 1 {
			return []*Tensor{Dropout(in[0], 0.5, true, gen)}
		}
		return []*Tensor{in[0]} // no dropout this time
	}, x)[0]
	err := Catch(func() { Sum(out).Backward() })
	if !errors.Is(err, ErrCheckpoint) {
		t.Fatalf("got %v, want ErrCheckpoint", err)
	}
	if err := Catch(func() { Checkpoint(nil, x) }); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("nil function: got %v", err)
	}
	calls = 0
	out = Checkpoint(func(in []*Tensor) []*Tensor {
		calls++
		return []*Tensor{Reshape(in[0], calls, -1)}
	}, x)[0]
	if err := Catch(func() { Sum(out).Backward() }); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("shape change: got %v, want ErrCheckpoint", err)
	}
}
