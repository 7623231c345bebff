package tensor

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

// BenchmarkAxpyKernels compares y += a*x on rows of common widths: the plain
// loop, the unrolled axpyTo, and gonum's blas32.Axpy (assembly inside).
func BenchmarkAxpyKernels(b *testing.B) {
	for _, n := range []int{16, 64, 256} {
		x, y := randT(1, n).Float32s(), randT(2, n).Float32s()
		b.Run(fmt.Sprintf("plain/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				refAxpy(0.5, x, y)
			}
		})
		b.Run(fmt.Sprintf("unrolled/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				axpyTo(0.5, x, y)
			}
		})
		b.Run(fmt.Sprintf("blas32/%d", n), func(b *testing.B) {
			xv, yv := blas32.Vector{N: n, Inc: 1, Data: x}, blas32.Vector{N: n, Inc: 1, Data: y}
			for i := 0; i < b.N; i++ {
				blas32.Axpy(0.5, xv, yv)
			}
		})
	}
}

func TestKernelsMatchPlainLoops(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 33, 64} {
		x, z := randT(1, n+1).Float32s()[:n], randT(3, n+1).Float32s()[:n]
		y1, y2 := randT(2, n+1).Float32s()[:n], randT(2, n+1).Float32s()[:n]
		refAxpy(0.3, x, y1)
		axpyTo(0.3, x, y2)
		refAxpy(1, x, y1)
		axpyTo(1, x, y2)
		for i := range y1 {
			y1[i] += x[i] * z[i]
			y1[i] *= 0.7
		}
		mulAddTo(x, z, y2)
		scaleTo(0.7, y2)
		for i := range y1 {
			if y1[i] != y2[i] {
				t.Fatalf("n=%d: element %d: %v != %v", n, i, y2[i], y1[i])
			}
		}
		if a, b := refDot(x, z), dotSeq(x, z); a != b {
			t.Fatalf("n=%d: dot %v != %v", n, b, a)
		}
	}
}

// TestSumRowsSetMatchesPlainLoop checks SpMM's float32 fast path against
// clearing the row, adding the rows idx in order and scaling: bit-identical
// for widths below, at and above the unrolled eight and the prefetch's 16.
func TestSumRowsSetMatchesPlainLoop(t *testing.T) {
	for _, f := range []int{1, 7, 8, 17, 64, 131} {
		u := randT(5, 40, f).Float32s()
		for _, idx := range [][]int64{nil, {3}, {0, 39, 3, 3, 17}} {
			for _, scale := range []float32{1, 1 / float32(max(len(idx), 1)), 0.3} {
				want := make([]float32, f)
				for _, s := range idx {
					for j := range want {
						want[j] += u[int(s)*f+j]
					}
				}
				for j := range want {
					want[j] *= scale
				}
				got := randT(6, f+3).Float32s() // arbitrary contents, overwritten
				sumRowsSet(u, idx, f, got, scale)
				for j := range want {
					if got[j] != want[j] {
						t.Fatalf("f=%d idx=%v scale=%v: element %d: %v != %v", f, idx, scale, j, got[j], want[j])
					}
				}
			}
		}
	}
}
