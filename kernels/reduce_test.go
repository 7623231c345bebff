package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Sums against float64 loops: rtol 1e-5 (float32 partial sums of up to
// 1e6 terms), atol 1e-5.
func TestSumParity(t *testing.T) {
	d, s := gpu(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 1000, 1_000_003} {
		x := randF32(r, n, -1, 1)
		var want float64
		for _, v := range x {
			want += float64(v)
		}
		out := alloc(t, d, 4)
		must(t, SumF32(s, upF32(t, d, x), n, out, 1))
		closeTo(t, "sum", downF32(t, s, out, 1), []float32{float32(want)}, 1e-5, 1e-5)
		if n > 0 {
			must(t, SumF32(s, upF32(t, d, x), n, out, 1/float32(n)))
			closeTo(t, "mean", downF32(t, s, out, 1), []float32{float32(want / float64(n))}, 1e-6, 1e-5)
		}
	}
	const rows, cols = 3001, 70
	x := randF32(r, rows*cols, -1, 1)
	px := upF32(t, d, x)
	w0 := make([]float32, cols)
	w1 := make([]float32, rows)
	for c := 0; c < cols; c++ {
		var acc float64
		for i := 0; i < rows; i++ {
			acc += float64(x[i*cols+c])
		}
		w0[c] = float32(0.5 * acc)
	}
	for i := 0; i < rows; i++ {
		var acc float64
		for c := 0; c < cols; c++ {
			acc += float64(x[i*cols+c])
		}
		w1[i] = float32(2 * acc)
	}
	y0, y1 := alloc(t, d, 4*cols), alloc(t, d, 4*rows)
	must(t, SumDim0F32(s, px, y0, rows, cols, 0.5))
	must(t, SumDim1F32(s, px, y1, rows, cols, 2))
	closeTo(t, "sum_dim0", downF32(t, s, y0, cols), w0, 1e-5, 1e-5)
	closeTo(t, "sum_dim1", downF32(t, s, y1, rows), w1, 1e-5, 1e-5)
}

// Softmax family against float64 loops: atol 1e-5, rtol 1e-5 (device
// __expf). Labels include ignore_index -100.
func TestSoftmaxCrossEntropyParity(t *testing.T) {
	d, s := gpu(t)
	r := rand.New(rand.NewPCG(9, 10))
	for _, shape := range [][2]int{{2000, 7}, {333, 47}, {17, 300}} {
		rows, cols := shape[0], shape[1]
		x := randF32(r, rows*cols, -6, 6)
		dy := randF32(r, rows*cols, -1, 1)
		labels := make([]int64, rows)
		for i := range labels {
			labels[i] = int64(r.IntN(cols))
			if i%11 == 5 {
				labels[i] = -100
			}
		}
		dloss := randF32(r, rows, 0, 1)
		logp := make([]float64, rows*cols)
		lse := make([]float64, rows)
		for i := 0; i < rows; i++ {
			m := math.Inf(-1)
			for c := 0; c < cols; c++ {
				m = math.Max(m, float64(x[i*cols+c]))
			}
			var z float64
			for c := 0; c < cols; c++ {
				z += math.Exp(float64(x[i*cols+c]) - m)
			}
			lse[i] = m + math.Log(z)
			for c := 0; c < cols; c++ {
				logp[i*cols+c] = float64(x[i*cols+c]) - lse[i]
			}
		}
		wantLogp, wantProb := make([]float32, rows*cols), make([]float32, rows*cols)
		wantLsBwd, wantSmBwd, wantCeBwd := make([]float32, rows*cols), make([]float32, rows*cols), make([]float32, rows*cols)
		wantLoss, wantLse := make([]float32, rows), make([]float32, rows)
		for i := 0; i < rows; i++ {
			var sdy, sdyp float64
			for c := 0; c < cols; c++ {
				k := i*cols + c
				sdy += float64(dy[k])
				sdyp += float64(dy[k]) * math.Exp(logp[k])
			}
			for c := 0; c < cols; c++ {
				k := i*cols + c
				p := math.Exp(logp[k])
				wantLogp[k] = float32(logp[k])
				wantProb[k] = float32(p)
				wantLsBwd[k] = float32(float64(dy[k]) - p*sdy)
				wantSmBwd[k] = float32(p * (float64(dy[k]) - sdyp))
				if labels[i] >= 0 {
					oh := 0.0
					if int64(c) == labels[i] {
						oh = 1
					}
					wantCeBwd[k] = float32(float64(dloss[i]) * (p - oh))
				}
			}
			wantLse[i] = float32(lse[i])
			if labels[i] >= 0 {
				wantLoss[i] = float32(-logp[i*cols+int(labels[i])])
			}
		}
		n := rows * cols
		px, pdy := upF32(t, d, x), upF32(t, d, dy)
		ly, sy := alloc(t, d, 4*n), alloc(t, d, 4*n)
		must(t, LogSoftmaxForward(s, px, ly, rows, cols))
		must(t, SoftmaxForward(s, px, sy, rows, cols))
		closeTo(t, "log_softmax_fwd", downF32(t, s, ly, n), wantLogp, 1e-5, 1e-5)
		closeTo(t, "softmax_fwd", downF32(t, s, sy, n), wantProb, 1e-6, 1e-5)
		dx := alloc(t, d, 4*n)
		must(t, LogSoftmaxBackward(s, upF32(t, d, wantLogp), pdy, dx, rows, cols))
		closeTo(t, "log_softmax_bwd", downF32(t, s, dx, n), wantLsBwd, 1e-5, 1e-5)
		must(t, SoftmaxBackward(s, upF32(t, d, wantProb), pdy, dx, rows, cols))
		closeTo(t, "softmax_bwd", downF32(t, s, dx, n), wantSmBwd, 1e-5, 1e-5)
		pl := upI64(t, d, labels)
		loss, plse := alloc(t, d, 4*rows), alloc(t, d, 4*rows)
		must(t, CrossEntropyForward(s, px, pl, loss, plse, rows, cols))
		closeTo(t, "cross_entropy_fwd", downF32(t, s, loss, rows), wantLoss, 1e-5, 1e-5)
		closeTo(t, "cross_entropy_lse", downF32(t, s, plse, rows), wantLse, 1e-5, 1e-5)
		must(t, CrossEntropyBackward(s, px, pl, plse, upF32(t, d, dloss), dx, rows, cols))
		closeTo(t, "cross_entropy_bwd", downF32(t, s, dx, n), wantCeBwd, 1e-6, 1e-5)
	}
}
