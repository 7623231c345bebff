package tensor

import (
	"math"
	"runtime"
)

// The CPU's graph kernels (SparseKernels). Each loop runs over destination
// (or, for gradients of sources, source) ranges balanced by edge count
// (parallelEdges, sparse_fast.go), so every output row is written by one
// goroutine and receives its terms in the order of the sequential loop:
// results do not depend on the number of threads.
//
// One code path serves every float dtype through the block accessors of
// lowprec.go: a float32 row is read and written in place (rowF32 and
// floats.slot return the tensor's own slice, store does nothing), a
// float16 or bfloat16 row is widened into a per-worker float32 buffer as
// it is read, accumulated there and rounded once when stored. A sum over
// thousands of neighbors therefore loses nothing to a 16-bit accumulator
// (float16 stops counting at 2048, bfloat16 at 256). Where float32 has a
// faster loop than the plain one (sumRowsSet for copy_u sums and means) the two sit
// side by side; they are bit-identical.

// rowF32 returns elements [lo, hi) of s as float32: the tensor's own slice
// for float32 (inlined, no copy), else widened into buf (floats.load).
func rowF32(s floats, lo, hi int, buf []float32) []float32 {
	if s.dt == Float32 {
		return s.f32[lo:hi:hi]
	}
	return s.load(lo, hi, buf)
}

// elemF32 returns element i of s as float32.
func elemF32(s floats, i int) float32 {
	if s.dt == Float32 {
		return s.f32[i]
	}
	return lowElem(s.dt, s.u16[i])
}

// rowBuf returns a widening buffer of n elements for rows of s: nil for
// float32, whose rows are used in place.
func rowBuf(s floats, n int) []float32 {
	if s.dt == Float32 {
		return nil
	}
	return make([]float32, n)
}

// roundTo rounds the float32 values src into the float16 or bfloat16
// tensor dst (castRaw's conversion).
func roundTo(dst *Tensor, src []float32) {
	d := hostView[uint16](dst)
	parallelFor(len(d), 1<<15, func(lo, hi int) { f32ToLow(dst.dtype, src[lo:hi], d[lo:hi]) })
}

// edgeHeads returns the heads of edge tensor e (1 for nil) and e's
// accessor.
func edgeHeads(e *Tensor) (int, floats, bool) {
	if e == nil {
		return 1, floats{}, false
	}
	_, h := rows2("SpMM", e)
	return h, floatsOf(e), true
}

// SpMM: out[d] = reduce over positions p of d's in-edges of u[src(p)]
// (times e[eid(p)] per head).
func (*cpuBackend) SpMM(adj *Adj, reduce string, u, e, out, arg *Tensor) {
	_, f := rows2("SpMM", u)
	h, ef, hasE := edgeHeads(e)
	w := f / h
	uf, of := floatsOf(u), floatsOf(out)
	var am []int64
	if arg != nil {
		am = hostView[int64](arg)
	}
	// The float16 and bfloat16 max lets the first message win whatever its
	// value; float32 starts from -Inf (see spmmMaxRow).
	firstWins := uf.dt != Float32
	parallelEdges(adj.Indptr, adj.NumDst, f, func(lo, hi int) {
		src, acc := rowBuf(uf, f), rowBuf(of, f)
		var eb []float32
		if hasE {
			eb = rowBuf(ef, h)
		}
		for d := lo; d < hi; d++ {
			row := of.slot(d*f, (d+1)*f, acc)
			p0, p1 := adj.Indptr[d], adj.Indptr[d+1]
			switch {
			case reduce == "max":
				spmmMaxRow(adj, uf, ef, hasE, f, h, p0, p1, row, am[d*f:(d+1)*f], firstWins, src, eb)
			case !hasE && uf.dt == Float32:
				// Fast path: the sum (and mean's scaling) in registers,
				// row written once; the same values as the loop below.
				scale := float32(1)
				if reduce == "mean" && p1 > p0 {
					scale = 1 / float32(p1-p0)
				}
				sumRowsSet(uf.f32, adj.Indices[p0:p1], f, row, scale)
				of.store(d*f, (d+1)*f, row)
				continue
			case !hasE:
				clear(row)
				for _, s := range adj.Indices[p0:p1] {
					addTo(uf.load(int(s)*f, int(s+1)*f, src), row)
				}
			default:
				clear(row)
				for p := p0; p < p1; p++ {
					s := int(adj.Indices[p])
					x := rowF32(uf, s*f, (s+1)*f, src)
					id := int(adj.eid(p)) * h
					ev := rowF32(ef, id, id+h, eb)
					for k := 0; k < h; k++ {
						axpyTo(ev[k], x[k*w:(k+1)*w], row[k*w:(k+1)*w])
					}
				}
			}
			if reduce == "mean" && p1 > p0 {
				scaleTo(1/float32(p1-p0), row)
			}
			of.store(d*f, (d+1)*f, row)
		}
	})
}

// spmmMaxRow reduces destination row's messages at positions [p0, p1) by
// maximum, recording in arg the position that won each column (-1, and a 0
// output, when there is none). With firstWins (float16, bfloat16) the
// first message is taken whatever its value, so a single message of any
// value (even -Inf) is the max; otherwise the row starts at -Inf and only
// greater messages win (-Inf and NaN messages never do). src and eb are
// widening buffers (nil for float32).
func spmmMaxRow(adj *Adj, u, e floats, hasE bool, f, h int, p0, p1 int64, row []float32, arg []int64, firstWins bool, src, eb []float32) {
	w := f / h
	for j := range row {
		row[j] = float32(math.Inf(-1))
		arg[j] = -1
	}
	for p := p0; p < p1; p++ {
		s := int(adj.Indices[p])
		x := rowF32(u, s*f, (s+1)*f, src)
		row, arg := row[:len(x)], arg[:len(x)]
		take := firstWins && p == p0
		if !hasE {
			if take {
				copy(row, x)
				for j := range arg {
					arg[j] = p
				}
				continue
			}
			for j, v := range x {
				if v > row[j] {
					row[j], arg[j] = v, p
				}
			}
			continue
		}
		id := int(adj.eid(p)) * h
		ev := rowF32(e, id, id+h, eb)
		for k := 0; k < h; k++ {
			sc := ev[k]
			if take {
				for j := k * w; j < (k+1)*w; j++ {
					row[j], arg[j] = x[j]*sc, p
				}
				continue
			}
			for j := k * w; j < (k+1)*w; j++ {
				if v := x[j] * sc; v > row[j] {
					row[j], arg[j] = v, p
				}
			}
		}
	}
	for j := range row {
		if arg[j] < 0 {
			row[j] = 0
		}
	}
}

// SpMMBackwardU: for "sum" and "mean", each source s sums over its
// out-edges (the reverse adjacency, so that no two workers write one row)
// g[dst] times the edge value and 1/in-degree; for "max", each element's
// gradient goes to the source that won it (spmmMaxBackwardU).
func (*cpuBackend) SpMMBackwardU(adj *Adj, reduce string, g, e, arg, gu, acc *Tensor) {
	_, f := rows2("SpMM", gu)
	h, ef, hasE := edgeHeads(e)
	w := f / h
	gf := floatsOf(g)
	if reduce == "max" {
		a := hostView[float32](acc)
		spmmMaxBackwardU(adj, ef, hasE, f, h, hostView[int64](arg), gf, a)
		if acc != gu {
			roundTo(gu, a)
		}
		return
	}
	// sum / mean: scale of destination d's gradient.
	mean := reduce == "mean"
	inv := func(d int64) float32 {
		if mean {
			if n := adj.Indptr[d+1] - adj.Indptr[d]; n > 0 {
				return 1 / float32(n)
			}
		}
		return 1
	}
	guf := floatsOf(gu)
	r := adj.Reverse()
	parallelEdges(r.Indptr, adj.NumSrc, f, func(lo, hi int) {
		sum, gb := rowBuf(guf, f), rowBuf(gf, f)
		var eb []float32
		if hasE {
			eb = rowBuf(ef, h)
		}
		for s := lo; s < hi; s++ {
			row := guf.slot(s*f, (s+1)*f, sum)
			clear(row)
			for q := r.Indptr[s]; q < r.Indptr[s+1]; q++ {
				d := r.Indices[q]
				gr := rowF32(gf, int(d)*f, int(d+1)*f, gb)
				if !hasE {
					axpyTo(inv(d), gr, row)
					continue
				}
				id := int(r.EIDs[q]) * h
				ev := rowF32(ef, id, id+h, eb)
				sc := inv(d)
				for k := 0; k < h; k++ {
					axpyTo(ev[k]*sc, gr[k*w:(k+1)*w], row[k*w:(k+1)*w])
				}
			}
			guf.store(s*f, (s+1)*f, row)
		}
	})
}

// spmmMaxBackwardU adds the max reducer's gradient into gud (float32,
// zeroed): each (d, j) sends g[d, j] (times the edge value) to the source
// that won it. Workers own disjoint ranges of columns j, so every gud
// element receives its additions in increasing d as the sequential loop
// does.
func spmmMaxBackwardU(adj *Adj, e floats, hasE bool, f, h int, arg []int64, g floats, gud []float32) {
	w := f / h
	cols := func(j0, j1 int) {
		gb := rowBuf(g, j1-j0)
		for d := 0; d < adj.NumDst; d++ {
			a := arg[d*f : (d+1)*f]
			gr := rowF32(g, d*f+j0, d*f+j1, gb)
			for j := j0; j < j1; j++ {
				p := a[j]
				if p < 0 {
					continue
				}
				gv := gr[j-j0]
				if hasE {
					gv *= elemF32(e, int(adj.eid(p))*h+j/w)
				}
				gud[int(adj.Indices[p])*f+j] += gv
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if int64(adj.NumDst)*int64(f) < minEdgeWork || f < 2*workers {
		cols(0, f)
		return
	}
	parallelFor(f, (f+workers-1)/workers, cols)
}

// SpMMBackwardE: for "sum" and "mean", ge[eid(p), k] = <g[d], u[src(p)]>
// over head k (divided by d's in-degree for "mean"); for "max", the sum of
// g[d, j] * u[src(p), j] over the elements p won.
func (*cpuBackend) SpMMBackwardE(adj *Adj, reduce string, g, u, arg, ge, acc *Tensor) {
	_, f := rows2("SpMM", u)
	_, h := rows2("SpMM", ge)
	w := f / h
	gf, uf := floatsOf(g), floatsOf(u)
	if reduce == "max" {
		a, am := hostView[float32](acc), hostView[int64](arg)
		parallelEdges(adj.Indptr, adj.NumDst, f, func(lo, hi int) {
			gb := rowBuf(gf, f)
			for d := lo; d < hi; d++ {
				gr := rowF32(gf, d*f, (d+1)*f, gb)
				for j, p := range am[d*f : (d+1)*f] {
					if p < 0 {
						continue
					}
					s := int(adj.Indices[p])
					a[int(adj.eid(p))*h+j/w] += gr[j] * elemF32(uf, s*f+j)
				}
			}
		})
		if acc != ge {
			roundTo(ge, a)
		}
		return
	}
	mean := reduce == "mean"
	gef := floatsOf(ge)
	parallelEdges(adj.Indptr, adj.NumDst, f, func(lo, hi int) {
		gb, sb, ob := rowBuf(gf, f), rowBuf(uf, f), rowBuf(gef, h)
		for d := lo; d < hi; d++ {
			gr := rowF32(gf, d*f, (d+1)*f, gb)
			sc := float32(1)
			if n := adj.Indptr[d+1] - adj.Indptr[d]; mean && n > 0 {
				sc = 1 / float32(n)
			}
			for p := adj.Indptr[d]; p < adj.Indptr[d+1]; p++ {
				s := int(adj.Indices[p])
				src := rowF32(uf, s*f, (s+1)*f, sb)
				id := int(adj.eid(p)) * h
				o := gef.slot(id, id+h, ob)
				for k := 0; k < h; k++ {
					o[k] = sc * dotSeq(gr[k*w:(k+1)*w], src[k*w:(k+1)*w])
				}
				gef.store(id, id+h, o)
			}
		}
	})
}

// SDDMM op codes.
const (
	sddmmAdd = iota
	sddmmMul
	sddmmDot
)

func sddmmCode(op string) int {
	switch op {
	case "mul":
		return sddmmMul
	case "dot":
		return sddmmDot
	}
	return sddmmAdd
}

// SDDMM: out[eid(p)] = lhs[src(p)] op rhs[d] for every position p of
// destination d.
func (*cpuBackend) SDDMM(adj *Adj, op string, lhs, rhs, out *Tensor) {
	_, d := rows2("SDDMM", lhs)
	code := sddmmCode(op)
	ow := d
	if code == sddmmDot {
		ow = 1
	}
	lf, rf, of := floatsOf(lhs), floatsOf(rhs), floatsOf(out)
	parallelEdges(adj.Indptr, adj.NumDst, d, func(lo, hi int) {
		rb, lb, ob := rowBuf(rf, d), rowBuf(lf, d), rowBuf(of, ow)
		for v := lo; v < hi; v++ {
			rr := rowF32(rf, v*d, (v+1)*d, rb)
			for p := adj.Indptr[v]; p < adj.Indptr[v+1]; p++ {
				s := int(adj.Indices[p])
				lr := rowF32(lf, s*d, (s+1)*d, lb)
				id := int(adj.eid(p)) * ow
				o := of.slot(id, id+ow, ob)
				switch code {
				case sddmmAdd:
					o = o[:len(rr)]
					for j, x := range rr {
						o[j] = lr[j] + x
					}
				case sddmmMul:
					o = o[:len(rr)]
					for j, x := range rr {
						o[j] = lr[j] * x
					}
				case sddmmDot:
					o[0] = dotSeq(rr, lr)
				}
				of.store(id, id+ow, o)
			}
		}
	})
}

// SDDMMBackward: the lhs gradient gathers each source's out-edges over the
// reverse adjacency, the rhs gradient each destination's in-edges, so that
// every row is written by one worker.
func (*cpuBackend) SDDMMBackward(adj *Adj, op string, g, lhs, rhs, gl, gr *Tensor) {
	_, d := rows2("SDDMM", lhs)
	code := sddmmCode(op)
	ow := d
	if code == sddmmDot {
		ow = 1
	}
	gf := floatsOf(g)
	if gl != nil {
		sddmmBackwardSide(adj.Reverse(), adj.NumSrc, code, d, ow, gf, floatsOf(rhs), floatsOf(gl))
	}
	if gr != nil {
		sddmmBackwardSide(adj, adj.NumDst, code, d, ow, gf, floatsOf(lhs), floatsOf(gr))
	}
}

// sddmmBackwardSide writes into res row i (of n, width d) the sum over
// a's positions q of row i of the contribution of edge gradient g[eid(q)],
// the edge's other endpoint being other[a.Indices[q]]: "add" g, "mul"
// g * other, "dot" g[0] * other.
func sddmmBackwardSide(a *Adj, n, code, d, ow int, g, other, res floats) {
	parallelEdges(a.Indptr, n, d, func(lo, hi int) {
		sum, gb, ob := rowBuf(res, d), rowBuf(g, ow), rowBuf(other, d)
		for i := lo; i < hi; i++ {
			row := res.slot(i*d, (i+1)*d, sum)
			clear(row)
			for q := a.Indptr[i]; q < a.Indptr[i+1]; q++ {
				id := int(a.eid(q))
				ge := rowF32(g, id*ow, (id+1)*ow, gb)
				switch code {
				case sddmmAdd:
					addTo(ge[:d], row)
				case sddmmMul:
					j := int(a.Indices[q])
					mulAddTo(ge[:d], rowF32(other, j*d, (j+1)*d, ob), row)
				case sddmmDot:
					j := int(a.Indices[q])
					axpyTo(ge[0], rowF32(other, j*d, (j+1)*d, ob), row)
				}
			}
			res.store(i*d, (i+1)*d, row)
		}
	})
}

// EdgeSoftmax (float32): per destination and head, the maximum, then the
// exponentials accumulated in float64 and normalised.
func (*cpuBackend) EdgeSoftmax(adj *Adj, scores, out *Tensor) {
	_, h := rows2("EdgeSoftmax", scores)
	od, sd := hostView[float32](out), hostView[float32](scores)
	parallelEdges(adj.Indptr, adj.NumDst, h, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			p0, p1 := adj.Indptr[v], adj.Indptr[v+1]
			for k := 0; k < h; k++ {
				m := float32(math.Inf(-1))
				for p := p0; p < p1; p++ {
					if x := sd[adj.eid(p)*int64(h)+int64(k)]; x > m {
						m = x
					}
				}
				if softmaxInf(m) {
					edgeSoftmaxInf(adj, sd, od, h, k, p0, p1)
					continue
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

// EdgeSoftmaxBackward (float32): gs = out * (g - <out, g> over the
// destination's in-edges), per head.
func (*cpuBackend) EdgeSoftmaxBackward(adj *Adj, out, g, gs *Tensor) {
	_, h := rows2("EdgeSoftmax", out)
	od, gd, gsd := hostView[float32](out), hostView[float32](g), hostView[float32](gs)
	parallelEdges(adj.Indptr, adj.NumDst, h, func(lo, hi int) {
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
}

// ScatterAdj reads the index in place.
func (*cpuBackend) ScatterAdj(idx *Tensor, n int) *Adj { return scatterAdj(hostView[int64](idx), n) }
