package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// spmmRef is the CPU reference of SpMM over float32 values (the storage
// values the device sees), accumulating in float64; for max it returns the
// first edge holding the maximum, as the kernel.
func spmmRef(g testGraph, red Reduce, x []float32, f int, w []float32, heads int) ([]float64, []int64) {
	out := make([]float64, g.nDst*f)
	arg := make([]int64, g.nDst*f)
	dh := f / heads
	for v := 0; v < g.nDst; v++ {
		s, e := g.indptr[v], g.indptr[v+1]
		for c := 0; c < f; c++ {
			h := c / dh
			acc, best, am := 0.0, float32(math.Inf(-1)), int64(-1)
			for k := s; k < e; k++ {
				u := g.indices[k]
				we := float32(1)
				if w != nil {
					we = w[k*int64(heads)+int64(h)]
				}
				m := we * x[u*int64(f)+int64(c)] // float32 product, as the kernel
				acc += float64(m)
				if m > best {
					best, am = m, k
				}
			}
			switch red {
			case ReduceSum:
				out[v*f+c] = acc
			case ReduceMean:
				if e > s {
					out[v*f+c] = acc / float64(e-s)
				}
			case ReduceMax:
				if am >= 0 {
					out[v*f+c] = float64(best)
				}
				arg[v*f+c] = am
			}
		}
	}
	return out, arg
}

// spmmBwdRef is the float64 gradient of SpMM with respect to x.
func spmmBwdRef(g testGraph, red Reduce, dout []float32, f int, w []float32, heads int, arg []int64) []float64 {
	dx := make([]float64, g.nSrc*f)
	dh := f / heads
	for v := 0; v < g.nDst; v++ {
		s, e := g.indptr[v], g.indptr[v+1]
		for c := 0; c < f; c++ {
			h := c / dh
			gv := float64(dout[v*f+c])
			if red == ReduceMax {
				if k := arg[v*f+c]; k >= 0 {
					we := 1.0
					if w != nil {
						we = float64(w[k*int64(heads)+int64(h)])
					}
					dx[g.indices[k]*int64(f)+int64(c)] += we * gv
				}
				continue
			}
			if red == ReduceMean && e > s {
				gv /= float64(e - s)
			}
			for k := s; k < e; k++ {
				we := 1.0
				if w != nil {
					we = float64(w[k*int64(heads)+int64(h)])
				}
				dx[g.indices[k]*int64(f)+int64(c)] += we * gv
			}
		}
	}
	return dx
}

func f32s(v []float64) []float32 {
	o := make([]float32, len(v))
	for i := range v {
		o[i] = float32(v[i])
	}
	return o
}

// SpMM forward for sum / mean / max, float32 / float16 / bfloat16 storage,
// int32 / int64 indices, with and without (multi-head) edge weights, with
// vectorized (F divisible) and scalar (odd F) paths; backward for each
// reduce in float32. The reference uses the rounded storage values and
// float64 accumulation; the device accumulates in float32 and rounds the
// output to the storage type. Tolerance: float32 atol 1e-5, rtol 1e-5;
// float16 atol 1e-3, rtol 2e-3 (one half ulp is 2^-11); bfloat16 atol 1e-2,
// rtol 8e-3 (one half ulp is 2^-8). argmax must match exactly; backward
// atol 1e-5, rtol 1e-5. Run with the long-row split off and at 8 edges
// (most rows and the hub then take the block-per-row kernel).
func TestSpMMParity(t *testing.T) {
	for _, lr := range []int{0, 8} {
		t.Run(fmt.Sprintf("longrow%d", lr), func(t *testing.T) {
			defer func(old int) { SpMMLongRow = old }(SpMMLongRow)
			SpMMLongRow = lr
			testSpMMParity(t)
		})
	}
}

func testSpMMParity(t *testing.T) {
	d, s := gpu(t)
	r := rand.New(rand.NewPCG(17, 18))
	g := randGraph(r, 700, 500, 12)
	tol := map[DType][2]float64{DTypeFloat32: {1e-5, 1e-5}, DTypeFloat16: {1e-3, 2e-3}, DTypeBFloat16: {1e-2, 8e-3}}
	for _, it := range []DType{DTypeInt32, DTypeInt64} {
		cg := g.upload(t, d, it)
		for _, shape := range [][2]int{{64, 1}, {64, 4}, {13, 1}, {48, 3}, {256, 1}} {
			f, heads := shape[0], shape[1]
			x32 := randF32(r, g.nSrc*f, -1, 1)
			dout := randF32(r, g.nDst*f, -1, 1)
			for _, weighted := range []bool{false, true} {
				var w []float32
				var pw DevicePtr
				if weighted {
					w = randF32(r, g.numEdges()*heads, 0, 1)
					pw = upF32(t, d, w)
				} else if heads > 1 {
					continue
				}
				for _, dt := range []DType{DTypeFloat32, DTypeFloat16, DTypeBFloat16} {
					bits, xs := toStorage(dt, x32)
					var px DevicePtr
					if dt == DTypeFloat32 {
						px = upF32(t, d, x32)
					} else {
						px = upU16(t, d, bits)
					}
					for _, red := range []Reduce{ReduceSum, ReduceMean, ReduceMax} {
						name := fmt.Sprintf("spmm_%v_%v_%v_F%d_H%d_w%v", red, dt, it, f, heads, weighted)
						want, wantArg := spmmRef(g, red, xs, f, w, heads)
						out := alloc(t, d, dt.Size()*g.nDst*f)
						arg := alloc(t, d, 8*g.nDst*f)
						must(t, SpMM(s, cg, red, px, dt, f, pw, heads, out, arg))
						var got []float32
						if dt == DTypeFloat32 {
							got = downF32(t, s, out, g.nDst*f)
						} else {
							got = fromStorage(dt, downU16(t, s, out, g.nDst*f))
						}
						closeTo(t, name, got, f32s(want), tol[dt][0], tol[dt][1])
						if red == ReduceMax {
							ga := downI64(t, s, arg, g.nDst*f)
							for i := range ga {
								if ga[i] != wantArg[i] {
									t.Fatalf("%s: argmax[%d] = %d, want %d", name, i, ga[i], wantArg[i])
								}
							}
						}
						if dt != DTypeFloat32 {
							continue
						}
						dx := alloc(t, d, 4*g.nSrc*f)
						must(t, SpMMBackward(s, cg, red, pw, heads, arg, upF32(t, d, dout), f, dx))
						wantArgFor := wantArg
						closeTo(t, name+"_bwd", downF32(t, s, dx, g.nSrc*f), f32s(spmmBwdRef(g, red, dout, f, w, heads, wantArgFor)), 1e-5, 1e-5)
					}
				}
			}
		}
	}
}
