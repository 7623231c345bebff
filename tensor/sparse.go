package tensor

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// SparseKernels are the primitive kernels of this file's ops: graph ops over an Adj: SpMM, SDDMM, edge softmax and segment reductions, forward and backward.
// Every Backend implements them (cpu_*.go, cuda_*.go, meta.go).
type SparseKernels interface{}

// Adj is a destination-major compressed adjacency: the in-edges of
// destination node d occupy positions Indptr[d] to Indptr[d+1] of Indices
// (their source ids) and EIDs (their edge ids, which index edge tensors;
// nil means the position is the edge id). It is the CSC of a graph, or of a
// block whose NumSrc source nodes and NumDst destination nodes are
// numbered separately. An Adj is read-only once built.
type Adj struct {
	NumSrc, NumDst int
	Indptr         []int64 // (NumDst + 1)
	Indices        []int64 // (E) source ids
	EIDs           []int64 // (E) edge ids, or nil

	revOnce sync.Once
	rev     *Adj
	cuda    sync.Map // device name -> *devAdj, the copy on that GPU (cuda_sparse.go)
}

// NumEdges returns the number of edges.
func (a *Adj) NumEdges() int { return len(a.Indices) }

// eid returns the edge id stored at position p.
func (a *Adj) eid(p int64) int64 {
	if a.EIDs == nil {
		return p
	}
	return a.EIDs[p]
}

// Validate checks the adjacency's invariants: Indptr has NumDst+1
// non-decreasing entries from 0 to E, every source id is in [0, NumSrc), and
// EIDs, when present, is a permutation-sized list of ids in [0, E).
func (a *Adj) Validate() error {
	if len(a.Indptr) != a.NumDst+1 {
		return fmt.Errorf("tensor.Adj: indptr has %d entries, want NumDst+1 = %d", len(a.Indptr), a.NumDst+1)
	}
	if a.Indptr[0] != 0 || a.Indptr[a.NumDst] != int64(len(a.Indices)) {
		return fmt.Errorf("tensor.Adj: indptr must run from 0 to %d, got %d..%d", len(a.Indices), a.Indptr[0], a.Indptr[a.NumDst])
	}
	for d := 0; d < a.NumDst; d++ {
		if a.Indptr[d+1] < a.Indptr[d] {
			return fmt.Errorf("tensor.Adj: indptr decreases at destination %d", d)
		}
	}
	for p, s := range a.Indices {
		if s < 0 || s >= int64(a.NumSrc) {
			return fmt.Errorf("tensor.Adj: source id %d at position %d is outside [0, %d)", s, p, a.NumSrc)
		}
	}
	if a.EIDs != nil {
		if len(a.EIDs) != len(a.Indices) {
			return fmt.Errorf("tensor.Adj: %d edge ids for %d edges", len(a.EIDs), len(a.Indices))
		}
		for p, e := range a.EIDs {
			if e < 0 || e >= int64(len(a.Indices)) {
				return fmt.Errorf("tensor.Adj: edge id %d at position %d is outside [0, %d)", e, p, len(a.Indices))
			}
		}
	}
	return nil
}

// InDegrees returns the number of in-edges of each destination node.
func (a *Adj) InDegrees() []int64 {
	d := make([]int64, a.NumDst)
	for i := range d {
		d[i] = a.Indptr[i+1] - a.Indptr[i]
	}
	return d
}

// Reverse returns the source-major view of the same edges (for each source
// node, its out-edges' destination ids and edge ids), built once and cached.
// Backward passes use it to scatter into sources without write conflicts.
func (a *Adj) Reverse() *Adj {
	a.revOnce.Do(func() {
		e := len(a.Indices)
		r := &Adj{NumSrc: a.NumDst, NumDst: a.NumSrc, Indptr: make([]int64, a.NumSrc+1),
			Indices: make([]int64, e), EIDs: make([]int64, e)}
		for _, s := range a.Indices {
			r.Indptr[s+1]++
		}
		for i := 0; i < a.NumSrc; i++ {
			r.Indptr[i+1] += r.Indptr[i]
		}
		next := append([]int64(nil), r.Indptr[:a.NumSrc]...)
		for d := 0; d < a.NumDst; d++ {
			for p := a.Indptr[d]; p < a.Indptr[d+1]; p++ {
				s := a.Indices[p]
				q := next[s]
				next[s]++
				r.Indices[q] = int64(d)
				r.EIDs[q] = a.eid(p)
			}
		}
		a.rev = r
	})
	return a.rev
}

func rows2(op string, t *Tensor) (int, int) {
	if t.Dim() == 1 {
		return t.shape[0], 1
	}
	if t.Dim() != 2 {
		panicf(ErrShape, op, "needs a 1-D or 2-D tensor, got shape %v", t.shape)
	}
	return t.shape[0], t.shape[1]
}

// SpMM is DGL's generalised sparse-dense product (update_all): it sends a
// message along every edge and reduces the messages at each destination.
// With e nil the message is the source row (copy_u); with e of shape (E) or
// (E, H) it is the source row times the edge value (u_mul_e), the source's F
// features split into H equal heads. reduce is "sum", "mean" or "max";
// destinations without in-edges get 0 for every reducer.
//
//	u (NumSrc, F), e (E) | (E, H) | nil  ->  (NumDst, F)
//
// Gradients flow to u and e. Panics with ErrShape on mismatched sizes and
// with a plain *Error on an unknown reducer.
//
// SpMM is on autocast's lower-precision list (DGL casts gspmm's inputs to
// the autocast dtype): inside an autocast region u and e are cast to
// float16 or bfloat16 and so is the result, each destination's row being
// accumulated in float32 and rounded once (a sum over thousands of
// neighbors does not stall as a 16-bit accumulator would; a sum beyond
// float16's ±65504 is ±Inf, use "mean" or bfloat16 there). The max of a
// single message is that message, however negative. Outside autocast,
// float16 or bfloat16 operands of one dtype give a result of their dtype
// the same way, and mixed float dtypes are promoted (PromoteTypes).
func SpMM(adj *Adj, u, e *Tensor, reduce string) *Tensor {
	defer hookOp("SpMM")()
	u, e = lowerPrecision2("SpMM", u, e)
	if d := deviceOf("SpMM", u, e); d != "cpu" {
		return cudaSpMM(adj, u, e, reduce)
	}
	low := u.dtype != Float32
	if low {
		checkFloats("SpMM", u, e)
	} else {
		checkFloat("SpMM", u)
	}
	ns, f := rows2("SpMM", u)
	if ns != adj.NumSrc {
		panicf(ErrShape, "SpMM", "source features have %d rows, graph has %d source nodes", ns, adj.NumSrc)
	}
	h := 1
	var ed []float32
	if e != nil {
		if !low {
			checkFloat("SpMM", e)
		}
		var ne int
		ne, h = rows2("SpMM", e)
		if ne != adj.NumEdges() {
			panicf(ErrShape, "SpMM", "edge values have %d rows, graph has %d edges", ne, adj.NumEdges())
		}
		if h == 0 || f%h != 0 {
			panicf(ErrShape, "SpMM", "features %v do not split into %d heads of edge values %v", u.shape, h, e.shape)
		}
		if !low {
			ed = e.Float32s()
		}
	}
	if reduce != "sum" && reduce != "mean" && reduce != "max" {
		panicf(ErrShape, "SpMM", "reduce must be \"sum\", \"mean\" or \"max\", got %q", reduce)
	}
	if low {
		return spmmLow(adj, u, e, reduce, f, h)
	}
	w := f / h
	out := Zeros(adj.NumDst, f)
	od, ud := out.Float32s(), u.Float32s()
	var arg []int64  // max: edge position chosen for (d, j), -1 for none
	var argT *Tensor // arg's storage, a tensor so that its bytes are counted
	if reduce == "max" {
		argT = New(Int64, adj.NumDst*f)
		arg = argT.Int64s()
	}
	parallelEdges(adj.Indptr, adj.NumDst, f, func(lo, hi int) {
		for d := lo; d < hi; d++ {
			row := od[d*f : (d+1)*f]
			p0, p1 := adj.Indptr[d], adj.Indptr[d+1]
			switch {
			case reduce == "max":
				spmmMaxRow(adj, ud, ed, f, h, p0, p1, row, arg[d*f:(d+1)*f])
			case ed == nil:
				sumRowsTo(ud, adj.Indices[p0:p1], f, row)
			default:
				for p := p0; p < p1; p++ {
					s := adj.Indices[p]
					src := ud[s*int64(f) : (s+1)*int64(f)]
					eb := ed[adj.eid(p)*int64(h):]
					for k := 0; k < h; k++ {
						axpyTo(eb[k], src[k*w:(k+1)*w], row[k*w:(k+1)*w])
					}
				}
			}
			if reduce == "mean" && p1 > p0 {
				scaleTo(1/float32(p1-p0), row)
			}
		}
	})
	inputs := []*Tensor{u, e}
	return record(out, "SpMM", inputs, func(g *Tensor) []*Tensor {
		runtime.KeepAlive(argT) // arg is counted until the backward pass is released
		gd := g.Float32s()
		var gu, ge *Tensor
		if reduce == "max" {
			if u.requiresGrad {
				gu = Zeros(u.shape...)
				spmmMaxBackwardU(adj, ed, f, h, arg, gd, gu.Float32s())
			}
			if e != nil && e.requiresGrad {
				ge = Zeros(e.shape...)
				ged := ge.Float32s()
				parallelEdges(adj.Indptr, adj.NumDst, f, func(lo, hi int) {
					for d := lo; d < hi; d++ {
						for j, p := range arg[d*f : (d+1)*f] {
							if p < 0 {
								continue
							}
							s := adj.Indices[p]
							ged[adj.eid(p)*int64(h)+int64(j/w)] += gd[d*f+j] * ud[s*int64(f)+int64(j)]
						}
					}
				})
			}
			return []*Tensor{gu, ge}
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
		if u.requiresGrad {
			gu = Zeros(u.shape...)
			gud := gu.Float32s()
			r := adj.Reverse()
			parallelEdges(r.Indptr, adj.NumSrc, f, func(lo, hi int) {
				for s := lo; s < hi; s++ {
					row := gud[s*f : (s+1)*f]
					for q := r.Indptr[s]; q < r.Indptr[s+1]; q++ {
						d := r.Indices[q]
						gr := gd[d*int64(f) : (d+1)*int64(f)]
						if ed == nil {
							axpyTo(inv(d), gr, row)
							continue
						}
						eb := ed[r.EIDs[q]*int64(h):]
						sc := inv(d)
						for k := 0; k < h; k++ {
							axpyTo(eb[k]*sc, gr[k*w:(k+1)*w], row[k*w:(k+1)*w])
						}
					}
				}
			})
		}
		if e != nil && e.requiresGrad {
			ge = Zeros(e.shape...)
			ged := ge.Float32s()
			parallelEdges(adj.Indptr, adj.NumDst, f, func(lo, hi int) {
				for d := lo; d < hi; d++ {
					gr := gd[d*f : (d+1)*f]
					sc := inv(int64(d))
					for p := adj.Indptr[d]; p < adj.Indptr[d+1]; p++ {
						s := adj.Indices[p]
						src := ud[s*int64(f) : (s+1)*int64(f)]
						id := adj.eid(p) * int64(h)
						for k := 0; k < h; k++ {
							ged[id+int64(k)] = sc * dotSeq(gr[k*w:(k+1)*w], src[k*w:(k+1)*w])
						}
					}
				}
			})
		}
		return []*Tensor{gu, ge}
	})
}

// spmmMaxRow reduces destination row's messages at positions [p0, p1) by
// maximum, recording in arg the position that won each column (-1, and a 0
// output, when there is none).
func spmmMaxRow(adj *Adj, ud, ed []float32, f, h int, p0, p1 int64, row []float32, arg []int64) {
	w := f / h
	for j := range row {
		row[j] = float32(math.Inf(-1))
		arg[j] = -1
	}
	for p := p0; p < p1; p++ {
		s := adj.Indices[p]
		src := ud[s*int64(f) : (s+1)*int64(f)]
		row, arg := row[:len(src)], arg[:len(src)]
		if ed == nil {
			for j, v := range src {
				if v > row[j] {
					row[j], arg[j] = v, p
				}
			}
			continue
		}
		eb := ed[adj.eid(p)*int64(h):]
		for k := 0; k < h; k++ {
			sc := eb[k]
			for j := k * w; j < (k+1)*w; j++ {
				if v := src[j] * sc; v > row[j] {
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

// spmmMaxBackwardU adds the max reducer's gradient into gud: each (d, j)
// sends gd[d, j] (times the edge value) to the source that won it.
// Workers own disjoint ranges of columns j, so every gud element receives
// its additions in increasing d as the sequential loop does.
func spmmMaxBackwardU(adj *Adj, ed []float32, f, h int, arg []int64, gd, gud []float32) {
	w := f / h
	cols := func(j0, j1 int) {
		for d := 0; d < adj.NumDst; d++ {
			a := arg[d*f : (d+1)*f]
			for j := j0; j < j1; j++ {
				p := a[j]
				if p < 0 {
					continue
				}
				gv := gd[d*f+j]
				if ed != nil {
					gv *= ed[adj.eid(p)*int64(h)+int64(j/w)]
				}
				gud[adj.Indices[p]*int64(f)+int64(j)] += gv
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

// SDDMM computes a value on every edge from its source and destination rows
// (DGL's apply_edges with u_add_v, u_mul_v, u_dot_v), in edge-id order:
//
//	op "add": lhs (NumSrc, D), rhs (NumDst, D) -> (E, D), lhs[src] + rhs[dst]
//	op "mul": same shapes, lhs[src] * rhs[dst]
//	op "dot": lhs (NumSrc, D), rhs (NumDst, D) -> (E, 1), <lhs[src], rhs[dst]>
//
// GAT's attention logits are SDDMM(adj, el, er, "add") with el, er (N, H).
// Gradients flow to lhs and rhs. Like SpMM, SDDMM is on autocast's
// lower-precision list (DGL's gsddmm): inside an autocast region the
// operands and the result are float16 or bfloat16, each value computed in
// float32 and rounded once (a float16 result beyond ±65504 is ±Inf, which
// EdgeSoftmax handles).
func SDDMM(adj *Adj, lhs, rhs *Tensor, op string) *Tensor {
	defer hookOp("SDDMM")()
	lhs, rhs = lowerPrecision2("SDDMM", lhs, rhs)
	if d := deviceOf("SDDMM", lhs, rhs); d != "cpu" {
		return cudaSDDMM(adj, lhs, rhs, op)
	}
	low := lhs.dtype != Float32 || rhs.dtype != Float32
	if low {
		checkFloats("SDDMM", lhs, rhs)
	} else {
		checkFloat("SDDMM", lhs, rhs)
	}
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
	if low {
		return sddmmLow(adj, lhs, rhs, op, d, ow)
	}
	ne := adj.NumEdges()
	out := Zeros(ne, ow)
	if lhs.Dim() == 1 && op != "dot" {
		out = Zeros(ne)
	}
	od, ld, rd := out.Float32s(), lhs.Float32s(), rhs.Float32s()
	parallelEdges(adj.Indptr, adj.NumDst, d, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			rr := rd[v*d : (v+1)*d]
			for p := adj.Indptr[v]; p < adj.Indptr[v+1]; p++ {
				s := adj.Indices[p]
				lr := ld[s*int64(d) : (s+1)*int64(d)]
				o := od[adj.eid(p)*int64(ow):]
				switch op {
				case "add":
					o = o[:d]
					for j, x := range rr {
						o[j] = lr[j] + x
					}
				case "mul":
					o = o[:d]
					for j, x := range rr {
						o[j] = lr[j] * x
					}
				case "dot":
					o[0] = dotSeq(rr, lr)
				}
			}
		}
	})
	return record(out, "SDDMM", []*Tensor{lhs, rhs}, func(g *Tensor) []*Tensor {
		gd := g.Float32s()
		var gl, gr *Tensor
		// acc adds edge gradient ge's contribution into row, the other
		// endpoint's features being other.
		acc := func(ge, other, row []float32) {
			switch op {
			case "add":
				addTo(ge[:d], row)
			case "mul":
				mulAddTo(ge[:d], other, row)
			case "dot":
				axpyTo(ge[0], other, row)
			}
		}
		if lhs.requiresGrad {
			gl = Zeros(lhs.shape...)
			gld := gl.Float32s()
			r := adj.Reverse()
			parallelEdges(r.Indptr, adj.NumSrc, d, func(lo, hi int) {
				for s := lo; s < hi; s++ {
					row := gld[s*d : (s+1)*d]
					for q := r.Indptr[s]; q < r.Indptr[s+1]; q++ {
						v, id := r.Indices[q], r.EIDs[q]
						acc(gd[id*int64(ow):], rd[v*int64(d):(v+1)*int64(d)], row)
					}
				}
			})
		}
		if rhs.requiresGrad {
			gr = Zeros(rhs.shape...)
			grd := gr.Float32s()
			parallelEdges(adj.Indptr, adj.NumDst, d, func(lo, hi int) {
				for v := lo; v < hi; v++ {
					row := grd[v*d : (v+1)*d]
					for p := adj.Indptr[v]; p < adj.Indptr[v+1]; p++ {
						s := adj.Indices[p]
						acc(gd[adj.eid(p)*int64(ow):], ld[s*int64(d):(s+1)*int64(d)], row)
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
// computed with the maximum subtracted. When some of a destination's
// scores are +Inf (a float16 score that overflowed), they share the
// destination's mass equally and the others get 0, the limit of the
// softmax, instead of NaN.
//
// EdgeSoftmax is on autocast's float32 list (DGL's edge_softmax runs in
// float32 under autocast): a float16 or bfloat16 score tensor is
// normalised in float32, and the result is float32 inside an autocast
// region and the scores' dtype outside it.
func EdgeSoftmax(adj *Adj, scores *Tensor) *Tensor {
	defer hookOp("EdgeSoftmax")()
	if isLow(scores.dtype) {
		return fp32Op("EdgeSoftmax", scores, func(s *Tensor) *Tensor { return EdgeSoftmax(adj, s) })
	}
	if d := deviceOf("EdgeSoftmax", scores); d != "cpu" {
		return cudaEdgeSoftmax(adj, scores)
	}
	checkFloat("EdgeSoftmax", scores)
	ne, h := rows2("EdgeSoftmax", scores)
	if ne != adj.NumEdges() {
		panicf(ErrShape, "EdgeSoftmax", "scores have %d rows, graph has %d edges", ne, adj.NumEdges())
	}
	out := Zeros(scores.shape...)
	od, sd := out.Float32s(), scores.Float32s()
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
	return record(out, "EdgeSoftmax", []*Tensor{scores}, func(g *Tensor) []*Tensor {
		gs := Zeros(scores.shape...)
		gsd, gd := gs.Float32s(), g.Float32s()
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
		return []*Tensor{gs}
	})
}
