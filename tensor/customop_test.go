package tensor

import (
	"errors"
	"strings"
	"testing"
)

// tanhOp is tanh with its hand-written gradient 1 - tanh(x)², computed
// from the saved output.
var tanhOp = CustomOp{
	Name:    "my_tanh",
	Forward: func(in []*Tensor) *Tensor { return Tanh(in[0]) },
	Backward: func(g *Tensor, in []*Tensor, out *Tensor) []*Tensor {
		return []*Tensor{Mul(g, AddScalar(MulScalar(Mul(out, out), -1), 1))}
	},
}

// mulAddOp is a*b + c with gradients for a and b only (c is a constant).
var mulAddOp = CustomOp{
	Name:    "mul_add",
	Forward: func(in []*Tensor) *Tensor { return Add(Mul(in[0], in[1]), in[2]) },
	Backward: func(g *Tensor, in []*Tensor, _ *Tensor) []*Tensor {
		return []*Tensor{Mul(g, in[1]), Mul(g, in[0]), nil}
	},
}

func TestCustomOpGradCheck(t *testing.T) {
	gradCheck(t, "my_tanh", func(in []*Tensor) *Tensor { return tanhOp.Apply(in[0]) }, randT(1, 3, 4))
	gradCheck(t, "mul_add", func(in []*Tensor) *Tensor { return mulAddOp.Apply(in[0], in[1], randT(3, 2, 3)) }, randT(1, 2, 3), randT(2, 2, 3))
}

// TestCustomOpMatchesBuiltin: the custom tanh's gradient equals the
// built-in Tanh's through a small graph (x W then tanh then a sum).
func TestCustomOpMatchesBuiltin(t *testing.T) {
	grads := func(act func(*Tensor) *Tensor) ([]float32, []float32) {
		x := randT(1, 4, 3).SetRequiresGrad(true)
		w := randT(2, 3, 2).SetRequiresGrad(true)
		Sum(Mul(act(MatMul(x, w)), randT(3, 4, 2))).Backward()
		return x.Grad().Float32s(), w.Grad().Float32s()
	}
	gx, gw := grads(Tanh)
	cx, cw := grads(func(h *Tensor) *Tensor { return tanhOp.Apply(h) })
	for i := range gx {
		if d := gx[i] - cx[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("dx[%d]: built-in %g, custom %g", i, gx[i], cx[i])
		}
	}
	for i := range gw {
		if d := gw[i] - cw[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("dw[%d]: built-in %g, custom %g", i, gw[i], cw[i])
		}
	}
}

func TestCustomOpHistory(t *testing.T) {
	x := randT(1, 3)
	if y := tanhOp.Apply(x); y.RequiresGrad() || !y.IsLeaf() {
		t.Error("an op over inputs that need no grad recorded history")
	}
	x.SetRequiresGrad(true)
	var y *Tensor
	NoGrad(func() { y = tanhOp.Apply(x) })
	if y.RequiresGrad() {
		t.Error("an op under NoGrad recorded history")
	}
	// Forward's own ops record nothing; an identity op does not make its
	// input a non-leaf.
	id := CustomOp{Forward: func(in []*Tensor) *Tensor { return in[0] },
		Backward: func(g *Tensor, _ []*Tensor, _ *Tensor) []*Tensor { return []*Tensor{g} }}
	y = id.Apply(x)
	if !x.IsLeaf() || y.IsLeaf() || y == x {
		t.Error("identity op: the input lost its leaf status or the output is the input")
	}
	Sum(y).Backward()
	if g := x.Grad().Float32s(); g[0] != 1 || g[2] != 1 {
		t.Errorf("identity gradient %v", g)
	}
	// No Backward: no history.
	nb := CustomOp{Forward: func(in []*Tensor) *Tensor { return Tanh(in[0]) }}
	if nb.Apply(x).RequiresGrad() {
		t.Error("an op without Backward recorded history")
	}
}

func TestCustomOpErrors(t *testing.T) {
	x := func() *Tensor { return randT(1, 2, 3).SetRequiresGrad(true) }
	bw := func(grads ...*Tensor) CustomOp {
		return CustomOp{Name: "bad_op", Forward: func(in []*Tensor) *Tensor { return MulScalar(in[0], 2) },
			Backward: func(*Tensor, []*Tensor, *Tensor) []*Tensor { return grads }}
	}
	for _, tc := range []struct {
		name string
		f    func()
		kind error
		want string
	}{
		{"no Forward", func() { CustomOp{Name: "bad_op"}.Apply(x()) }, ErrArgument, "tensor.bad_op: CustomOp \"bad_op\" has no Forward"},
		{"nil input", func() { tanhOp.Apply(nil) }, ErrArgument, "tensor.my_tanh: input 0 of 1 is nil"},
		{"nil output", func() {
			CustomOp{Forward: func([]*Tensor) *Tensor { return nil }}.Apply(x())
		}, ErrArgument, "tensor.CustomOp: Forward returned nil"},
		{"too few", func() { Sum(bw().Apply(x())).Backward() }, ErrArgument, "tensor.bad_op.Backward: Backward returned 0 gradients for 1 inputs"},
		{"too many", func() { Sum(bw(Ones(2, 3), Ones(2, 3)).Apply(x())).Backward() }, ErrArgument, "returned 2 gradients for 1 inputs"},
		{"shape", func() { Sum(bw(Ones(3, 2)).Apply(x())).Backward() }, ErrShape, "tensor.bad_op.Backward: gradient 0 has shape [3 2], input 0 has shape [2 3]"},
		{"dtype", func() { Sum(bw(FromInt64([]int64{1, 2, 3, 4, 5, 6}, 2, 3)).Apply(x())).Backward() }, ErrDType, "gradient 0 is int64"},
	} {
		err := Catch(tc.f)
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %v saying %q", tc.name, err, tc.kind, tc.want)
		}
	}
}
