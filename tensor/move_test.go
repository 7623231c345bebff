package tensor

import (
	"errors"
	"testing"
)

func TestMoveTo(t *testing.T) {
	x := FromFloat32([]float32{1, 2, 3}, 3)
	x.SetRequiresGrad(true)
	x.SetGrad(FromFloat32([]float32{1, 1, 1}, 3))
	if err := x.MoveTo("cpu"); err != nil || x.Float32s()[2] != 3 {
		t.Fatalf("MoveTo(cpu): %v", err)
	}
	if err := x.MoveTo("meta"); err != nil {
		t.Fatal(err)
	}
	if !x.IsMeta() || x.Grad() == nil || !x.Grad().IsMeta() || !x.RequiresGrad() || x.Size(0) != 3 {
		t.Fatalf("after MoveTo(meta): %s, grad %v", x.Device(), x.Grad())
	}
	y := FromFloat32([]float32{1}, 1)
	y.SetRequiresGrad(true)
	z := Mul(y, y)
	if err := z.MoveTo("meta"); !errors.Is(err, ErrArgument) {
		t.Errorf("MoveTo of an op's result: %v, want ErrArgument", err)
	}
	if err := y.MoveTo("tpu"); !errors.Is(err, ErrDevice) {
		t.Errorf("MoveTo(tpu): %v, want ErrDevice", err)
	}
	m := EmptyOn("meta", Float32, 2, 2)
	m.SetMetaDensity(0.5)
	if m.MetaDensity() != 0.5 {
		t.Errorf("density %g", m.MetaDensity())
	}
	if err := Catch(func() { x := Zeros(2); x.SetMetaDensity(0.5) }); !errors.Is(err, ErrDevice) {
		t.Errorf("SetMetaDensity on cpu: %v", err)
	}
	s := FromFloat32([]float32{1, -2}, 2)
	s.ScaleInPlace(3)
	if v := s.Float32s(); v[0] != 3 || v[1] != -6 {
		t.Errorf("ScaleInPlace: %v", v)
	}
}
