package tensor

import (
	"errors"
	"testing"
)

func TestGeneratorState(t *testing.T) {
	g := NewGenerator(7)
	g.Float64()
	Dropout(Ones(100), 0.5, true, g)
	st := g.GetState()
	want := []float64{g.Float64(), g.NormFloat64()}
	wantMask := Dropout(Ones(100), 0.5, true, g).Float32s()
	h := NewGenerator(99)
	if err := h.SetState(st); err != nil {
		t.Fatal(err)
	}
	got := []float64{h.Float64(), h.NormFloat64()}
	gotMask := Dropout(Ones(100), 0.5, true, h).Float32s()
	if got[0] != want[0] || got[1] != want[1] {
		t.Errorf("sequential stream after SetState: %v, want %v", got, want)
	}
	for i := range wantMask {
		if gotMask[i] != wantMask[i] {
			t.Fatalf("dropout mask after SetState differs at %d", i)
		}
	}
	before := h.GetState()
	for _, bad := range [][]byte{nil, []byte("nope"), st[:len(st)-3]} {
		if err := h.SetState(bad); !errors.Is(err, ErrArgument) {
			t.Errorf("SetState(%d bytes) = %v, want ErrArgument", len(bad), err)
		}
	}
	if string(h.GetState()) != string(before) {
		t.Error("a failed SetState changed the generator")
	}
}
