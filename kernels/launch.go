package kernels

import "math"

// Launch-shape helpers shared by the launchers.

const (
	blockThreads = 256
	maxGridX     = 1 << 20 // grid-stride kernels cover the rest
)

func mustStream(op string, s *Stream) {
	if s == nil || s.dev == nil {
		argPanic(op, "nil stream")
	}
}

func mustCount(op, what string, n int) {
	if n < 0 {
		argPanic(op, "%s = %d, want >= 0", what, n)
	}
}

func mustInt32(op, what string, n int) {
	if n < 0 || n > math.MaxInt32 {
		argPanic(op, "%s = %d, want 0..2^31-1", what, n)
	}
}

// gridFor returns the blocks of `per` work items each that cover n, capped
// at maxGridX, at least 1.
func gridFor(n int64, per int) Dim3 {
	b := (n + int64(per) - 1) / int64(per)
	if b < 1 {
		b = 1
	}
	if b > maxGridX {
		b = maxGridX
	}
	return Dim3{int(b), 1, 1}
}

// rowGrid is the grid of kernels with a lane group of g lanes per row
// (block (g, blockThreads/g)) over rows rows.
func rowGrid(rows int64, g int) (grid, block Dim3) {
	per := blockThreads / g
	b := (rows + int64(per) - 1) / int64(per)
	if b < 1 {
		b = 1
	}
	if b > math.MaxInt32 {
		argPanic("launch", "%d rows exceed the grid", rows)
	}
	return Dim3{int(b), 1, 1}, Dim3{g, per, 1}
}

// pow2Lanes returns the smallest power of two >= n, between 1 and 32.
func pow2Lanes(n int64) int {
	g := 1
	for g < 32 && int64(g) < n {
		g <<= 1
	}
	return g
}

var flat = Dim3{blockThreads, 1, 1}
