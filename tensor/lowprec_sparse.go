package tensor

import (
	"math"
	"runtime"
)

// SpMM and SDDMM for float16 and bfloat16 operands of one dtype. Each
// destination (or source, in the backward pass) accumulates its row in a
// float32 buffer; source rows and edge values are widened as they are
// read, and the finished row is rounded once. A sum over thousands of
// neighbors therefore loses nothing to a 16-bit accumulator (float16 stops
// counting at 2048, bfloat16 at 256); only the final value is rounded.

// spmmLow is SpMM for u (NumSrc, F) and e (E, H) or nil of one low dtype;
// the shapes and the reducer are already checked.
func spmmLow(adj *Adj, u, e *Tensor, reduce string, f, h int) *Tensor {
	dt := u.dtype
	w := f / h
	out := New(dt, adj.NumDst, f)
	od, ud := out.Uint16s(), u.Uint16s()
	var ed []uint16
	if e != nil {
		ed = e.Uint16s()
	}
	urow := func(s int64, buf []float32) []float32 {
		lowToF32(dt, ud[s*int64(f):(s+1)*int64(f)], buf)
		return buf
	}
	var arg []int64  // max: edge position chosen for (d, j), -1 for none
	var argT *Tensor // arg's storage, a tensor so that its bytes are counted
	if reduce == "max" {
		argT = New(Int64, adj.NumDst*f)
		arg = argT.Int64s()
	}
	parallelEdges(adj.Indptr, adj.NumDst, f, func(lo, hi int) {
		acc, src := make([]float32, f), make([]float32, f)
		for d := lo; d < hi; d++ {
			p0, p1 := adj.Indptr[d], adj.Indptr[d+1]
			clear(acc)
			switch {
			case reduce == "max":
				a := arg[d*f : (d+1)*f]
				for j := range a {
					a[j] = -1
				}
				for p := p0; p < p1; p++ {
					urow(adj.Indices[p], src)
					for k := 0; k < h; k++ {
						sc := float32(1)
						if ed != nil {
							sc = lowElem(dt, ed[adj.eid(p)*int64(h)+int64(k)])
						}
						for j := k * w; j < (k+1)*w; j++ {
							// The first message always wins, so a single
							// message of any value (even -Inf) is the max.
							if v := src[j] * sc; a[j] < 0 || v > acc[j] {
								acc[j], a[j] = v, p
							}
						}
					}
				}
			case ed == nil:
				for _, s := range adj.Indices[p0:p1] {
					addTo(urow(s, src), acc)
				}
			default:
				for p := p0; p < p1; p++ {
					urow(adj.Indices[p], src)
					eb := ed[adj.eid(p)*int64(h):]
					for k := 0; k < h; k++ {
						axpyTo(lowElem(dt, eb[k]), src[k*w:(k+1)*w], acc[k*w:(k+1)*w])
					}
				}
			}
			if reduce == "mean" && p1 > p0 {
				scaleTo(1/float32(p1-p0), acc)
			}
			f32ToLow(dt, acc, od[d*f:(d+1)*f])
		}
	})
	return record(out, "SpMM", []*Tensor{u, e}, func(g *Tensor) []*Tensor {
		runtime.KeepAlive(argT) // arg is counted until the backward pass is released
		var gu, ge *Tensor
		gd := g.Uint16s()
		grow := func(d int64, buf []float32) []float32 {
			lowToF32(dt, gd[d*int64(f):(d+1)*int64(f)], buf)
			return buf
		}
		if reduce == "max" {
			// Every (d, j) sends its gradient to the edge that won it.
			if u.requiresGrad {
				gu32 := Zeros(u.shape...)
				var ed32 []float32
				if e != nil {
					ed32 = castRaw(e, Float32).Float32s()
				}
				spmmMaxBackwardU(adj, ed32, f, h, arg, castRaw(g, Float32).Float32s(), gu32.Float32s())
				gu = castRaw(gu32, dt)
			}
			if e != nil && e.requiresGrad {
				ge32 := Zeros(e.shape...)
				ged := ge32.Float32s()
				parallelEdges(adj.Indptr, adj.NumDst, f, func(lo, hi int) {
					for d := lo; d < hi; d++ {
						for j, p := range arg[d*f : (d+1)*f] {
							if p < 0 {
								continue
							}
							s := adj.Indices[p]
							ged[adj.eid(p)*int64(h)+int64(j/w)] += lowElem(dt, gd[d*f+j]) * lowElem(dt, ud[s*int64(f)+int64(j)])
						}
					}
				})
				ge = castRaw(ge32, dt)
			}
			return []*Tensor{gu, ge}
		}
		mean := reduce == "mean"
		inv := func(d int64) float32 {
			if mean {
				if n := adj.Indptr[d+1] - adj.Indptr[d]; n > 0 {
					return 1 / float32(n)
				}
			}
			return 1
		}
		if u.requiresGrad {
			gu = New(dt, u.shape...)
			gud := gu.Uint16s()
			r := adj.Reverse()
			parallelEdges(r.Indptr, adj.NumSrc, f, func(lo, hi int) {
				acc, gr := make([]float32, f), make([]float32, f)
				for s := lo; s < hi; s++ {
					clear(acc)
					for q := r.Indptr[s]; q < r.Indptr[s+1]; q++ {
						d := r.Indices[q]
						grow(d, gr)
						if ed == nil {
							axpyTo(inv(d), gr, acc)
							continue
						}
						eb := ed[r.EIDs[q]*int64(h):]
						sc := inv(d)
						for k := 0; k < h; k++ {
							axpyTo(lowElem(dt, eb[k])*sc, gr[k*w:(k+1)*w], acc[k*w:(k+1)*w])
						}
					}
					f32ToLow(dt, acc, gud[s*f:(s+1)*f])
				}
			})
		}
		if e != nil && e.requiresGrad {
			ge = New(dt, e.shape...)
			ged := ge.Uint16s()
			parallelEdges(adj.Indptr, adj.NumDst, f, func(lo, hi int) {
				gr, src := make([]float32, f), make([]float32, f)
				for d := lo; d < hi; d++ {
					grow(int64(d), gr)
					sc := inv(int64(d))
					for p := adj.Indptr[d]; p < adj.Indptr[d+1]; p++ {
						urow(adj.Indices[p], src)
						id := adj.eid(p) * int64(h)
						for k := 0; k < h; k++ {
							ged[id+int64(k)] = lowRound(dt, sc*dotSeq(gr[k*w:(k+1)*w], src[k*w:(k+1)*w]))
						}
					}
				}
			})
		}
		return []*Tensor{gu, ge}
	})
}

// sddmmLow is SDDMM for lhs and rhs of one low dtype; shapes and op are
// already checked. d is the feature width, ow the output width (1 for
// "dot").
func sddmmLow(adj *Adj, lhs, rhs *Tensor, op string, d, ow int) *Tensor {
	dt := lhs.dtype
	ne := adj.NumEdges()
	out := New(dt, ne, ow)
	if lhs.Dim() == 1 && op != "dot" {
		out = New(dt, ne)
	}
	od, ld, rd := out.Uint16s(), lhs.Uint16s(), rhs.Uint16s()
	row := func(x []uint16, i int64, buf []float32) []float32 {
		lowToF32(dt, x[i*int64(d):(i+1)*int64(d)], buf)
		return buf
	}
	parallelEdges(adj.Indptr, adj.NumDst, d, func(lo, hi int) {
		rr, lr, o := make([]float32, d), make([]float32, d), make([]float32, d)
		for v := lo; v < hi; v++ {
			row(rd, int64(v), rr)
			for p := adj.Indptr[v]; p < adj.Indptr[v+1]; p++ {
				row(ld, adj.Indices[p], lr)
				id := adj.eid(p) * int64(ow)
				switch op {
				case "add":
					for j, x := range rr {
						o[j] = lr[j] + x
					}
					f32ToLow(dt, o, od[id:id+int64(d)])
				case "mul":
					for j, x := range rr {
						o[j] = lr[j] * x
					}
					f32ToLow(dt, o, od[id:id+int64(d)])
				case "dot":
					od[id] = lowRound(dt, dotSeq(rr, lr))
				}
			}
		}
	})
	return record(out, "SDDMM", []*Tensor{lhs, rhs}, func(g *Tensor) []*Tensor {
		gd := g.Uint16s()
		var gl, gr *Tensor
		// acc adds the edge gradient ge's contribution into sum, the other
		// endpoint's features being other.
		acc := func(ge, other, sum []float32) {
			switch op {
			case "add":
				addTo(ge[:d], sum)
			case "mul":
				mulAddTo(ge[:d], other, sum)
			case "dot":
				axpyTo(ge[0], other, sum)
			}
		}
		side := func(a *Adj, n int, other []uint16, ids func(a *Adj, q int64) (int64, int64), res *Tensor) {
			rs := res.Uint16s()
			parallelEdges(a.Indptr, n, d, func(lo, hi int) {
				sum, ob, gb := make([]float32, d), make([]float32, d), make([]float32, max(d, ow))
				for i := lo; i < hi; i++ {
					clear(sum)
					for q := a.Indptr[i]; q < a.Indptr[i+1]; q++ {
						j, id := ids(a, q)
						lowToF32(dt, gd[id*int64(ow):(id+1)*int64(ow)], gb)
						acc(gb, row(other, j, ob), sum)
					}
					f32ToLow(dt, sum, rs[i*d:(i+1)*d])
				}
			})
		}
		if lhs.requiresGrad {
			gl = New(dt, lhs.shape...)
			side(adj.Reverse(), adj.NumSrc, rd, func(r *Adj, q int64) (int64, int64) { return r.Indices[q], r.EIDs[q] }, gl)
		}
		if rhs.requiresGrad {
			gr = New(dt, rhs.shape...)
			side(adj, adj.NumDst, ld, func(a *Adj, p int64) (int64, int64) { return a.Indices[p], a.eid(p) }, gr)
		}
		return []*Tensor{gl, gr}
	})
}

// softmaxInf reports whether a destination's maximum score is +Inf, for
// which EdgeSoftmax calls edgeSoftmaxInf instead of computing
// exp(Inf - Inf) = NaN.
func softmaxInf(m float32) bool { return math.IsInf(float64(m), 1) }

// edgeSoftmaxInf writes the limit of the softmax of head k over positions
// [p0, p1) when some scores are +Inf: those share the mass equally, the
// others get 0.
func edgeSoftmaxInf(adj *Adj, sd, od []float32, h, k int, p0, p1 int64) {
	n := 0
	for p := p0; p < p1; p++ {
		if softmaxInf(sd[adj.eid(p)*int64(h)+int64(k)]) {
			n++
		}
	}
	for p := p0; p < p1; p++ {
		i := adj.eid(p)*int64(h) + int64(k)
		od[i] = 0
		if softmaxInf(sd[i]) {
			od[i] = 1 / float32(n)
		}
	}
}
