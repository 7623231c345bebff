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
