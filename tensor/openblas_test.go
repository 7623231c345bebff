package tensor

import (
	"math"
	"testing"
)

// TestOpenBLASMatchesGonum runs the same products through both BLASes:
// small ones (one call) and ones large enough to be split over goroutines
// by rows and by columns, all four transpose cases, with leading
// dimensions wider than the operands.
func TestOpenBLASMatchesGonum(t *testing.T) {
	prevName, prev := blasName, sgemm
	defer func() { blasName, sgemm = prevName, prev }()
	if err := LoadOpenBLAS(); err != nil {
		t.Skip(err)
	}
	gen := NewGenerator(3)
	for _, sz := range [][3]int{{37, 29, 53}, {301, 47, 53}, {47, 301, 53}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tc := range []struct{ ta, tb bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			lda, ldb, ldc := k+2, n+3, n+5
			ar, br := m, k
			if tc.ta {
				lda, ar = m+2, k
			}
			if tc.tb {
				ldb, br = k+3, n
			}
			a := Rand(gen, -1, 1, ar*lda).Float32s()
			b := Rand(gen, -1, 1, br*ldb).Float32s()
			c1 := make([]float32, m*ldc)
			c2 := make([]float32, m*ldc)
			for i := range c1 {
				c1[i], c2[i] = 1, 1
			}
			openblasGemm(tc.ta, tc.tb, m, n, k, 0.5, a, lda, b, ldb, 2, c1, ldc)
			gonumGemm(tc.ta, tc.tb, m, n, k, 0.5, a, lda, b, ldb, 2, c2, ldc)
			for i := range c1 {
				if math.Abs(float64(c1[i]-c2[i])) > 1e-4 {
					t.Fatalf("%v trans %v: element %d openblas %v gonum %v", sz, tc, i, c1[i], c2[i])
				}
			}
		}
	}
}
