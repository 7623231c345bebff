package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// GAT edge kernels against float64 loops, heads 1 and 4, int32 and int64
// indices: u_add_v exact; u_dot_v, edge softmax forward / backward and the
// edge sums atol 1e-5, rtol 1e-5 (float32 accumulation, device __expf).
func TestGATParity(t *testing.T) {
	d, s := gpu(t)
	r := rand.New(rand.NewPCG(19, 20))
	g := randGraph(r, 600, 400, 20)
	E := g.numEdges()
	for _, it := range []DType{DTypeInt32, DTypeInt64} {
		cg := g.upload(t, d, it)
		for _, heads := range []int{1, 4} {
			sfx := fmt.Sprintf("_%v_H%d", it, heads)
			el := randF32(r, g.nSrc*heads, -2, 2)
			er := randF32(r, g.nDst*heads, -2, 2)
			want := make([]float32, E*heads)
			for v := 0; v < g.nDst; v++ {
				for k := g.indptr[v]; k < g.indptr[v+1]; k++ {
					for h := 0; h < heads; h++ {
						want[int(k)*heads+h] = el[int(g.indices[k])*heads+h] + er[v*heads+h]
					}
				}
			}
			out := alloc(t, d, 4*E*heads)
			must(t, SDDMMUAddV(s, cg, upF32(t, d, el), upF32(t, d, er), out, heads))
			closeTo(t, "u_add_v"+sfx, downF32(t, s, out, E*heads), want, 0, 0)

			// Edge softmax forward and backward.
			sc := randF32(r, E*heads, -5, 5)
			da := randF32(r, E*heads, -1, 1)
			wantA := make([]float64, E*heads)
			wantDs := make([]float64, E*heads)
			wantSumDst := make([]float64, g.nDst*heads)
			wantSumSrc := make([]float64, g.nSrc*heads)
			for v := 0; v < g.nDst; v++ {
				lo, hi := g.indptr[v], g.indptr[v+1]
				for h := 0; h < heads; h++ {
					m := math.Inf(-1)
					for k := lo; k < hi; k++ {
						m = math.Max(m, float64(sc[int(k)*heads+h]))
					}
					var z, dot float64
					for k := lo; k < hi; k++ {
						z += math.Exp(float64(sc[int(k)*heads+h]) - m)
					}
					for k := lo; k < hi; k++ {
						i := int(k)*heads + h
						wantA[i] = math.Exp(float64(sc[i])-m) / z
						dot += wantA[i] * float64(da[i])
						wantSumDst[v*heads+h] += float64(da[i])
						wantSumSrc[int(g.indices[k])*heads+h] += float64(da[i])
					}
					for k := lo; k < hi; k++ {
						i := int(k)*heads + h
						wantDs[i] = wantA[i] * (float64(da[i]) - dot)
					}
				}
			}
			a := alloc(t, d, 4*E*heads)
			must(t, EdgeSoftmaxForward(s, cg, upF32(t, d, sc), a, heads))
			closeTo(t, "edge_softmax_fwd"+sfx, downF32(t, s, a, E*heads), f32s(wantA), 1e-6, 1e-5)
			ds := alloc(t, d, 4*E*heads)
			pda := upF32(t, d, da)
			must(t, EdgeSoftmaxBackward(s, cg, upF32(t, d, f32s(wantA)), pda, ds, heads))
			closeTo(t, "edge_softmax_bwd"+sfx, downF32(t, s, ds, E*heads), f32s(wantDs), 1e-6, 1e-5)
			sd := alloc(t, d, 4*g.nDst*heads)
			must(t, EdgeSumDst(s, cg, pda, sd, heads))
			closeTo(t, "edge_sum_dst"+sfx, downF32(t, s, sd, g.nDst*heads), f32s(wantSumDst), 1e-5, 1e-5)
			ss := alloc(t, d, 4*g.nSrc*heads)
			must(t, EdgeSumSrc(s, cg, pda, ss, heads))
			closeTo(t, "edge_sum_src"+sfx, downF32(t, s, ss, g.nSrc*heads), f32s(wantSumSrc), 1e-5, 1e-5)

			// u_dot_v over (N, heads, D), plain and scaled by 1/deg.
			for _, dd := range []int{16, 5} {
				x := randF32(r, g.nSrc*heads*dd, -1, 1)
				y := randF32(r, g.nDst*heads*dd, -1, 1)
				for _, inv := range []bool{false, true} {
					want := make([]float64, E*heads)
					for v := 0; v < g.nDst; v++ {
						lo, hi := g.indptr[v], g.indptr[v+1]
						for k := lo; k < hi; k++ {
							u := int(g.indices[k])
							for h := 0; h < heads; h++ {
								var acc float64
								for j := 0; j < dd; j++ {
									acc += float64(x[(u*heads+h)*dd+j]) * float64(y[(v*heads+h)*dd+j])
								}
								if inv {
									acc /= float64(hi - lo)
								}
								want[int(k)*heads+h] = acc
							}
						}
					}
					out := alloc(t, d, 4*E*heads)
					must(t, SDDMMUDotV(s, cg, upF32(t, d, x), upF32(t, d, y), out, heads, dd, inv))
					closeTo(t, fmt.Sprintf("u_dot_v%s_D%d_inv%v", sfx, dd, inv), downF32(t, s, out, E*heads), f32s(want), 1e-5, 1e-5)
				}
			}
		}
	}
}
