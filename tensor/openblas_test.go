package tensor

import (
	"math"
	"testing"
)

// TestOpenBLASMatchesGonum runs the same products through both BLASes.
func TestOpenBLASMatchesGonum(t *testing.T) {
	prevName, prev := blasName, sgemm
	defer func() { blasName, sgemm = prevName, prev }()
	if err := LoadOpenBLAS(); err != nil {
		t.Skip(err)
	}
	gen := NewGenerator(3)
	for _, tc := range []struct{ ta, tb bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		m, n, k := 37, 29, 53
		a := Rand(gen, -1, 1, m*k).Float32s()
		b := Rand(gen, -1, 1, k*n).Float32s()
		lda, ldb := k, n
		if tc.ta {
			lda = m
		}
		if tc.tb {
			ldb = k
		}
		c1 := make([]float32, m*n)
		c2 := make([]float32, m*n)
		for i := range c1 {
			c1[i], c2[i] = 1, 1
		}
		openblasGemm(tc.ta, tc.tb, m, n, k, 0.5, a, lda, b, ldb, 2, c1, n)
		gonumGemm(tc.ta, tc.tb, m, n, k, 0.5, a, lda, b, ldb, 2, c2, n)
		for i := range c1 {
			if math.Abs(float64(c1[i]-c2[i])) > 1e-4 {
				t.Fatalf("trans %v: element %d openblas %v gonum %v", tc, i, c1[i], c2[i])
			}
		}
	}
}
