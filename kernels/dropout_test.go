package kernels

import (
	"math/rand/v2"
	"testing"
)

// Dropout: the GPU mask equals the CPU DropoutMask bit for bit, the
// forward values are exact (x * float32(1/(1-p)) or 0), the backward
// regenerates the same mask, and another offset gives another mask.
func TestDropoutParity(t *testing.T) {
	d, s := gpu(t)
	r := rand.New(rand.NewPCG(5, 6))
	const n = 100_001
	p := float32(0.4) // a variable: float32 run-time arithmetic, as on the device
	const seed, offset = uint64(0x1234_5678_9abc), uint64(77)
	x := randF32(r, n, -1, 1)
	dy := randF32(r, n, -1, 1)
	px, pdy := upF32(t, d, x), upF32(t, d, dy)
	y, dx := alloc(t, d, 4*n), alloc(t, d, 4*n)
	mask := alloc(t, d, n)
	must(t, DropoutForward(s, px, y, mask, n, p, seed, offset))
	must(t, DropoutBackward(s, pdy, dx, n, p, seed, offset))
	keep := make([]bool, n)
	DropoutMask(seed, offset, p, keep)
	scale := float32(1) / (1 - p)
	wantY, wantDx := make([]float32, n), make([]float32, n)
	kept := 0
	for i := range keep {
		if keep[i] {
			wantY[i], wantDx[i] = x[i]*scale, dy[i]*scale
			kept++
		}
	}
	closeTo(t, "dropout_fwd", downF32(t, s, y, n), wantY, 0, 0)
	closeTo(t, "dropout_bwd", downF32(t, s, dx, n), wantDx, 0, 0)
	must(t, s.Synchronize())
	gotMask := make([]byte, n)
	must(t, d.DownloadBytes(gotMask, mask))
	for i := range gotMask {
		if (gotMask[i] == 1) != keep[i] {
			t.Fatalf("mask[%d] = %d, CPU keep %v", i, gotMask[i], keep[i])
		}
	}
	t.Logf("dropout p=%.1f: kept %d of %d (%.3f), mask identical to the CPU's", p, kept, n, float64(kept)/n)
	if f := float64(kept) / n; f < 0.59 || f > 0.61 {
		t.Errorf("kept fraction %.4f, want about 0.6", f)
	}
}
