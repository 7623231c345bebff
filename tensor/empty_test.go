package tensor

import (
	"errors"
	"runtime"
	"testing"
)

// TestEmpty checks Empty's shape, dtype, accounting and that its storage is
// ordinary writable memory, below and above the size from which it skips
// clearing, for every dtype.
func TestEmpty(t *testing.T) {
	for _, dt := range []DType{Float32, Float16, BFloat16, Int8, Int64, Bool} {
		for _, rows := range []int{3, 1 << 12} {
			// The cumulative total: cleanups of earlier tests' tensors
			// lower the allocated count at any time, never the total.
			before := cpuStats.total.Load()
			x := Empty(dt, rows, 17)
			if got := x.Shape(); got[0] != rows || got[1] != 17 || x.DType() != dt {
				t.Fatalf("Empty(%v, %d, 17) is %v %v", dt, rows, x.DType(), got)
			}
			if grew := cpuStats.total.Load() - before; grew != int64(rows*17*dt.Size()) || x.st.bytes != grew {
				t.Errorf("Empty(%v, %d, 17) counted %d bytes, want %d", dt, rows, grew, rows*17*dt.Size())
			}
			y := Ones(rows, 17).Cast(dt)
			x.CopyFrom(y)
			if dt != Bool {
				if s := Sum(x.Float()).Item(); s != float64(rows*17) {
					t.Errorf("Empty(%v, %d, 17) after CopyFrom(ones) sums to %v", dt, rows, s)
				}
			}
			runtime.KeepAlive(x)
		}
	}
	if err := Catch(func() { Empty(DType(99), 3) }); !errors.Is(err, ErrDType) {
		t.Errorf("Empty(DType(99)) = %v, want ErrDType", err)
	}
}

// TestEmptyOutputsAreWritten checks the ops that build their output with
// Empty against values known in advance, after the heap was filled with
// garbage that Empty could hand back.
func TestEmptyOutputsAreWritten(t *testing.T) {
	for range 4 {
		g := Empty(Float32, 1<<16)
		d := g.Float32s()
		for i := range d {
			d[i] = 12345
		}
	}
	runtime.GC()
	a := Reshape(Arange(1<<15).Float(), 1<<13, 4)
	b := Full(2, 1<<13, 4)
	if s := Sum(Mul(a, b)).Item(); s != 2*float64((1<<15-1)*(1<<15)/2) {
		t.Errorf("Mul over Empty output sums to %v", s)
	}
	if s := Sum(a.Clone()).Item(); s != float64((1<<15-1)*(1<<15)/2) {
		t.Errorf("Clone sums to %v", s)
	}
	idx := FromInt64([]int64{5, 0, 5})
	if r := IndexSelect(a, idx).Float32s(); r[0] != 20 || r[4] != 0 || r[8] != 20 || len(r) != 12 {
		t.Errorf("IndexSelect rows: %v", r)
	}
	if s := Sum(b).Item(); s != 2*float64(1<<15) {
		t.Errorf("Full sums to %v", s)
	}
}
