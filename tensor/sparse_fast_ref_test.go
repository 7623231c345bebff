package tensor

// The CPU sparse ops as they were before the edge-partitioned fast paths
// (sparse_fast.go): node-partitioned, plain loops. Tests compare the fast
// paths with them on random power-law graphs.

import "math"

// SpMM is DGL's generalised sparse-dense product (update_all): it sends a
// message along every edge and reduces the messages at each destination.
// With e nil the message is the source row (copy_u); with e of shape (E) or
// (E, H) it is the source row times the edge value (u_mul_e), the source's F
// features split into H equal heads. reduce is "sum", "mean" or "max";
// destinations without in-edges get 0 for every reducer.
//
//	u (NumSrc, F), e (E) | (E, H) | nil  ->  (NumDst, F)
//
// Float32; gradients flow to u and e. Panics with ErrShape on mismatched
// sizes and with a plain *Error on an unknown reducer.
func refSpMM(adj *Adj, u, e *Tensor, reduce string) *Tensor {
	checkFloat("SpMM", u)
	ns, f := rows2("SpMM", u)
	if ns != adj.NumSrc {
		panicf(ErrShape, "SpMM", "source features have %d rows, graph has %d source nodes", ns, adj.NumSrc)
	}
	h := 1
	var ed []float32
	if e != nil {
		checkFloat("SpMM", e)
		var ne int
		ne, h = rows2("SpMM", e)
		if ne != adj.NumEdges() {
			panicf(ErrShape, "SpMM", "edge values have %d rows, graph has %d edges", ne, adj.NumEdges())
		}
		if h == 0 || f%h != 0 {
			panicf(ErrShape, "SpMM", "features %v do not split into %d heads of edge values %v", u.shape, h, e.shape)
		}
		ed = e.Float32s()
	}
	if reduce != "sum" && reduce != "mean" && reduce != "max" {
		panicf(ErrShape, "SpMM", "reduce must be \"sum\", \"mean\" or \"max\", got %q", reduce)
	}
	w := f / h
	out := Zeros(adj.NumDst, f)
	od, ud := out.Float32s(), u.Float32s()
	var arg []int64 // max: edge position chosen for (d, j), -1 for none
	if reduce == "max" {
		arg = make([]int64, adj.NumDst*f)
	}
	refParallelFor(adj.NumDst, 64, func(lo, hi int) {
		for d := lo; d < hi; d++ {
			row := od[d*f : (d+1)*f]
			p0, p1 := adj.Indptr[d], adj.Indptr[d+1]
			if reduce == "max" {
				a := arg[d*f : (d+1)*f]
				for j := range row {
					row[j] = float32(math.Inf(-1))
					a[j] = -1
				}
				for p := p0; p < p1; p++ {
					src := ud[adj.Indices[p]*int64(f):]
					for j := range row {
						v := src[j]
						if ed != nil {
							v *= ed[adj.eid(p)*int64(h)+int64(j/w)]
						}
						if v > row[j] {
							row[j], a[j] = v, p
						}
					}
				}
				for j := range row {
					if a[j] < 0 {
						row[j] = 0
					}
				}
				continue
			}
			for p := p0; p < p1; p++ {
				src := ud[adj.Indices[p]*int64(f) : (adj.Indices[p]+1)*int64(f)]
				if ed == nil {
					refAxpy(1, src, row)
					continue
				}
				eb := ed[adj.eid(p)*int64(h):]
				for k := 0; k < h; k++ {
					refAxpy(eb[k], src[k*w:(k+1)*w], row[k*w:(k+1)*w])
				}
			}
			if reduce == "mean" && p1 > p0 {
				s := 1 / float32(p1-p0)
				for j := range row {
					row[j] *= s
				}
			}
		}
	})
	inputs := []*Tensor{u, e}
	return record(out, "SpMM", inputs, func(g *Tensor) []*Tensor {
		gd := g.Float32s()
		var gu, ge *Tensor
		if reduce == "max" {
			if u.requiresGrad {
				gu = Zeros(u.shape...)
			}
			if e != nil && e.requiresGrad {
				ge = Zeros(e.shape...)
			}
			for d := 0; d < adj.NumDst; d++ {
				for j := 0; j < f; j++ {
					p := arg[d*f+j]
					if p < 0 {
						continue
					}
					s, gv := adj.Indices[p], gd[d*f+j]
					scale := float32(1)
					if ed != nil {
						scale = ed[adj.eid(p)*int64(h)+int64(j/w)]
					}
					if gu != nil {
						gu.Float32s()[s*int64(f)+int64(j)] += gv * scale
					}
					if ge != nil {
						ge.Float32s()[adj.eid(p)*int64(h)+int64(j/w)] += gv * ud[s*int64(f)+int64(j)]
					}
				}
			}
			return []*Tensor{gu, ge}
		}
		// sum / mean: scale of destination d's gradient.
		inv := func(d int64) float32 {
			if reduce == "mean" {
				if n := adj.Indptr[d+1] - adj.Indptr[d]; n > 0 {
					return 1 / float32(n)
				}
			}
			return 1
		}
		if u.requiresGrad {
			gu = Zeros(u.shape...)
			gud := gu.Float32s()
			r := adj.Reverse()
			refParallelFor(adj.NumSrc, 64, func(lo, hi int) {
				for s := lo; s < hi; s++ {
					row := gud[s*f : (s+1)*f]
					for q := r.Indptr[s]; q < r.Indptr[s+1]; q++ {
						d := r.Indices[q]
						gr := gd[d*int64(f) : (d+1)*int64(f)]
						if ed == nil {
							refAxpy(inv(d), gr, row)
							continue
						}
						eb := ed[r.EIDs[q]*int64(h):]
						for k := 0; k < h; k++ {
							refAxpy(eb[k]*inv(d), gr[k*w:(k+1)*w], row[k*w:(k+1)*w])
						}
					}
				}
			})
		}
		if e != nil && e.requiresGrad {
			ge = Zeros(e.shape...)
			ged := ge.Float32s()
			refParallelFor(adj.NumDst, 64, func(lo, hi int) {
				for d := lo; d < hi; d++ {
					gr := gd[d*f : (d+1)*f]
					sc := inv(int64(d))
					for p := adj.Indptr[d]; p < adj.Indptr[d+1]; p++ {
						src := ud[adj.Indices[p]*int64(f):]
						id := adj.eid(p) * int64(h)
						for k := 0; k < h; k++ {
							ged[id+int64(k)] = sc * refDot(gr[k*w:(k+1)*w], src[k*w:(k+1)*w])
						}
					}
				}
			})
		}
		return []*Tensor{gu, ge}
	})
}

// SDDMM computes a value on every edge from its source and destination rows
// (DGL's apply_edges with u_add_v, u_mul_v, u_dot_v), in edge-id order:
//
//	op "add": lhs (NumSrc, D), rhs (NumDst, D) -> (E, D), lhs[src] + rhs[dst]
//	op "mul": same shapes, lhs[src] * rhs[dst]
//	op "dot": lhs (NumSrc, D), rhs (NumDst, D) -> (E, 1), <lhs[src], rhs[dst]>
//
// GAT's attention logits are SDDMM(adj, el, er, "add") with el, er (N, H).
// Float32; gradients flow to lhs and rhs.
func refSDDMM(adj *Adj, lhs, rhs *Tensor, op string) *Tensor {
	checkFloat("SDDMM", lhs, rhs)
	nl, dl := rows2("SDDMM", lhs)
	nr, dr := rows2("SDDMM", rhs)
	if nl != adj.NumSrc || nr != adj.NumDst || dl != dr {
		panicf(ErrShape, "SDDMM", "lhs %v and rhs %v do not fit a graph with %d sources and %d destinations", lhs.shape, rhs.shape, adj.NumSrc, adj.NumDst)
	}
	if op != "add" && op != "mul" && op != "dot" {
		panicf(ErrShape, "SDDMM", "op must be \"add\", \"mul\" or \"dot\", got %q", op)
	}
	d := dl
	ow := d
	if op == "dot" {
		ow = 1
	}
	ne := adj.NumEdges()
	out := Zeros(ne, ow)
	if lhs.Dim() == 1 && op != "dot" {
		out = Zeros(ne)
	}
	od, ld, rd := out.Float32s(), lhs.Float32s(), rhs.Float32s()
	refParallelFor(adj.NumDst, 64, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			rr := rd[v*d : (v+1)*d]
			for p := adj.Indptr[v]; p < adj.Indptr[v+1]; p++ {
				lr := ld[adj.Indices[p]*int64(d):]
				o := od[adj.eid(p)*int64(ow):]
				switch op {
				case "add":
					for j, x := range rr {
						o[j] = lr[j] + x
					}
				case "mul":
					for j, x := range rr {
						o[j] = lr[j] * x
					}
				case "dot":
					o[0] = refDot(rr, lr)
				}
			}
		}
	})
	return record(out, "SDDMM", []*Tensor{lhs, rhs}, func(g *Tensor) []*Tensor {
		gd := g.Float32s()
		var gl, gr *Tensor
		if lhs.requiresGrad {
			gl = Zeros(lhs.shape...)
			gld := gl.Float32s()
			r := adj.Reverse()
			refParallelFor(adj.NumSrc, 64, func(lo, hi int) {
				for s := lo; s < hi; s++ {
					row := gld[s*d : (s+1)*d]
					for q := r.Indptr[s]; q < r.Indptr[s+1]; q++ {
						v, id := r.Indices[q], r.EIDs[q]
						ge := gd[id*int64(ow):]
						rr := rd[v*int64(d) : (v+1)*int64(d)]
						switch op {
						case "add":
							refAxpy(1, ge[:d], row)
						case "mul":
							for j := range row {
								row[j] += ge[j] * rr[j]
							}
						case "dot":
							refAxpy(ge[0], rr, row)
						}
					}
				}
			})
		}
		if rhs.requiresGrad {
			gr = Zeros(rhs.shape...)
			grd := gr.Float32s()
			refParallelFor(adj.NumDst, 64, func(lo, hi int) {
				for v := lo; v < hi; v++ {
					row := grd[v*d : (v+1)*d]
					for p := adj.Indptr[v]; p < adj.Indptr[v+1]; p++ {
						ge := gd[adj.eid(p)*int64(ow):]
						lr := ld[adj.Indices[p]*int64(d) : (adj.Indices[p]+1)*int64(d)]
						switch op {
						case "add":
							refAxpy(1, ge[:d], row)
						case "mul":
							for j := range row {
								row[j] += ge[j] * lr[j]
							}
						case "dot":
							refAxpy(ge[0], lr, row)
						}
					}
				}
			})
		}
		return []*Tensor{gl, gr}
	})
}

// EdgeSoftmax normalises edge scores over the in-edges of each destination,
// separately per head (DGL's edge_softmax; GAT's attention coefficients,
// Veličković et al. 2018): scores (E) or (E, H) in edge-id order -> same
// shape, out[e] = exp(s[e]) / sum over in-edges e' of dst(e) of exp(s[e']),
// computed with the maximum subtracted. Float32.
func refEdgeSoftmax(adj *Adj, scores *Tensor) *Tensor {
	checkFloat("EdgeSoftmax", scores)
	ne, h := rows2("EdgeSoftmax", scores)
	if ne != adj.NumEdges() {
		panicf(ErrShape, "EdgeSoftmax", "scores have %d rows, graph has %d edges", ne, adj.NumEdges())
	}
	out := Zeros(scores.shape...)
	od, sd := out.Float32s(), scores.Float32s()
	refParallelFor(adj.NumDst, 64, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			p0, p1 := adj.Indptr[v], adj.Indptr[v+1]
			for k := 0; k < h; k++ {
				m := float32(math.Inf(-1))
				for p := p0; p < p1; p++ {
					if x := sd[adj.eid(p)*int64(h)+int64(k)]; x > m {
						m = x
					}
				}
				var s float64
				for p := p0; p < p1; p++ {
					i := adj.eid(p)*int64(h) + int64(k)
					ex := math.Exp(float64(sd[i] - m))
					od[i] = float32(ex)
					s += ex
				}
				for p := p0; p < p1; p++ {
					od[adj.eid(p)*int64(h)+int64(k)] /= float32(s)
				}
			}
		}
	})
	return record(out, "EdgeSoftmax", []*Tensor{scores}, func(g *Tensor) []*Tensor {
		gs := Zeros(scores.shape...)
		gsd, gd := gs.Float32s(), g.Float32s()
		refParallelFor(adj.NumDst, 64, func(lo, hi int) {
			for v := lo; v < hi; v++ {
				p0, p1 := adj.Indptr[v], adj.Indptr[v+1]
				for k := 0; k < h; k++ {
					var s float32
					for p := p0; p < p1; p++ {
						i := adj.eid(p)*int64(h) + int64(k)
						s += od[i] * gd[i]
					}
					for p := p0; p < p1; p++ {
						i := adj.eid(p)*int64(h) + int64(k)
						gsd[i] = od[i] * (gd[i] - s)
					}
				}
			}
		})
		return []*Tensor{gs}
	})
}

func refIndexAdd(n int, ids []int64, src *Tensor) *Tensor {
	f := rowSize(src)
	out := Zeros(append([]int{n}, src.shape[1:]...)...)
	od, sd := out.Float32s(), src.Float32s()
	for i, v := range ids {
		refAxpy(1, sd[i*f:(i+1)*f], od[int(v)*f:int(v+1)*f])
	}
	return out
}

func refAxpy(a float32, x, y []float32) {
	y = y[:len(x)]
	if a == 1 {
		for i, v := range x {
			y[i] += v
		}
		return
	}
	for i, v := range x {
		y[i] += a * v
	}
}

func refDot(x, y []float32) float32 {
	y = y[:len(x)]
	var s float32
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// refParallelFor is the node-split parallelFor the reference used.
func refParallelFor(n, grain int, body func(lo, hi int)) { parallelFor(n, grain, body) }
