package optim

import (
	"errors"
	"math"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// fakeSparse is a SparseParam with a fixed gradient per step.
type fakeSparse struct {
	w         *tensor.Tensor
	idx, grad *tensor.Tensor
}

func (f *fakeSparse) SparseWeight() *tensor.Tensor           { return f.w }
func (f *fakeSparse) SparseGrad() (idx, grad *tensor.Tensor) { return f.idx, f.grad }
func (f *fakeSparse) ZeroSparseGrad()                        { f.idx, f.grad = nil, nil }

// TestSparseAdam checks two steps on a (3, 2) table against the formula:
// repeated ids sum, each row counts its own steps (DGL), untouched rows and
// their moments stay, and Step clears the gradient.
func TestSparseAdam(t *testing.T) {
	f := &fakeSparse{w: tensor.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 3, 2)}
	const lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
	a := NewSparseAdam([]SparseParam{f}, SparseAdamOptions{LR: lr})
	want := []float64{1, 2, 3, 4, 5, 6}
	m, v, step := make([]float64, 6), make([]float64, 6), make([]int, 3)
	apply := func(rows map[int][2]float64) {
		for r, g := range rows {
			step[r]++
			c1, c2 := 1-math.Pow(b1, float64(step[r])), 1-math.Pow(b2, float64(step[r]))
			for j := 0; j < 2; j++ {
				k := r*2 + j
				m[k] = b1*m[k] + (1-b1)*g[j]
				v[k] = b2*v[k] + (1-b2)*g[j]*g[j]
				want[k] -= lr * (m[k] / c1) / (math.Sqrt(v[k]/c2) + eps)
			}
		}
	}
	// Step 1: row 2 twice (gradients sum), row 0 once.
	f.idx, f.grad = tensor.FromInt64([]int64{2, 0, 2}), tensor.FromFloat32([]float32{1, -1, 0.5, 0.5, 2, 3}, 3, 2)
	a.Step()
	apply(map[int][2]float64{2: {3, 2}, 0: {0.5, 0.5}})
	if f.idx != nil {
		t.Fatalf("Step did not clear the gradient")
	}
	// Step 2: row 2 only (its second step; row 0 keeps its moments).
	f.idx, f.grad = tensor.FromInt64([]int64{2}), tensor.FromFloat32([]float32{-1, 1}, 1, 2)
	a.Step()
	apply(map[int][2]float64{2: {-1, 1}})
	for i, got := range f.w.Float32s() {
		if math.Abs(float64(got)-want[i]) > 1e-6 {
			t.Errorf("w[%d] = %g, want %g", i, got, want[i])
		}
	}
	// Errors name the problem.
	f.idx, f.grad = tensor.FromInt64([]int64{3}), tensor.FromFloat32([]float32{1, 1}, 1, 2)
	if err := tensor.Catch(a.Step); !errors.Is(err, ErrOption) {
		t.Errorf("row 3 of 3: %v, want ErrOption", err)
	}
	if err := tensor.Catch(func() { NewSparseAdam([]SparseParam{f}, SparseAdamOptions{LR: -1}) }); !errors.Is(err, ErrOption) {
		t.Errorf("LR -1: %v, want ErrOption", err)
	}
}
