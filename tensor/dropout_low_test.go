package tensor

import "testing"

// TestDropoutLowPrecision checks that Dropout takes float16 and bfloat16
// tensors natively: the same mask as for float32 from the same generator
// state, kept values scaled in float32 and rounded once, the result and
// its gradient in x's dtype.
func TestDropoutLowPrecision(t *testing.T) {
	const p = 0.3
	x32 := Rand(NewGenerator(5), -2, 2, 37, 11)
	for _, dt := range []DType{Float16, BFloat16} {
		x := x32.Cast(dt).Detach().SetRequiresGrad(true)
		ref := Dropout(x.Float().Detach(), p, true, NewGenerator(9))
		y := Dropout(x, p, true, NewGenerator(9))
		if y.DType() != dt {
			t.Fatalf("%v: Dropout returned %v", dt, y.DType())
		}
		xv, yv, rv := x.Float().Float32s(), y.Float().Float32s(), ref.Float32s()
		for i := range yv {
			want := float32(0)
			if rv[i] != 0 || xv[i] == 0 {
				want = lowElem(dt, lowRound(dt, xv[i]*(1/(1-p))))
			}
			if yv[i] != want {
				t.Fatalf("%v: element %d is %g, want %g (float32 mask gives %g)", dt, i, yv[i], want, rv[i])
			}
		}
		Sum(y.Float()).Backward()
		g := x.Grad()
		if g == nil || g.DType() != dt {
			t.Fatalf("%v: gradient %v", dt, g)
		}
		for i, v := range g.Float().Float32s() {
			if (v != 0) != (yv[i] != 0 || (rv[i] != 0 && xv[i] == 0)) {
				t.Fatalf("%v: gradient element %d is %g but the output is %g", dt, i, v, yv[i])
			}
		}
	}
	if Dropout(FromInt64([]int64{1, 2}), 0.5, false, nil) == nil {
		t.Fatal("not training: x itself")
	}
	if err := Catch(func() { Dropout(FromInt64([]int64{1, 2}), 0.5, true, nil) }); err == nil {
		t.Fatal("int64 dropout did not panic")
	}
}
