package tensor

import (
	"math"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/kernels"
)

// Graph ops on a GPU. An Adj is uploaded to a device the first time a graph
// op runs there with tensors on it, and the copy is cached on the Adj (one
// per device) until the Adj is garbage: indptr (int64), the source ids
// (int32 when they fit), and, for an Adj with EIDs, the edge-id permutation
// both ways, since the kernels index edge data by CSR position while tensor
// edge data is in edge-id order.

// devAdj is an Adj on one device.
type devAdj struct {
	csr       kernels.CSR
	idxType   kernels.DType
	eids, inv kernels.DevicePtr // int64 position -> edge id, edge id -> position; 0 without EIDs
	dst       kernels.DevicePtr // int64 destination of each position (SDDMM "mul"), built lazily
	keep      []*storage        // the blocks above, released with the devAdj
}

// onDevice returns adj's copy on d, uploading it on first use.
func (a *Adj) onDevice(op string, d *cudaDevice) *devAdj {
	if v, ok := a.cuda.Load(d.name); ok {
		return v.(*devAdj)
	}
	if len(a.Indptr) != a.NumDst+1 || (a.NumDst >= 0 && a.Indptr[a.NumDst] != int64(len(a.Indices))) {
		panicf(ErrShape, op, "adjacency with %d destinations has %d indptr entries for %d edges", a.NumDst, len(a.Indptr), len(a.Indices))
	}
	e := len(a.Indices)
	da := &devAdj{}
	ip := d.uploadRaw(op, 8*len(a.Indptr), unsafe.Pointer(&a.Indptr[0]))
	da.keep = append(da.keep, ip)
	var ix *storage
	if a.NumSrc <= math.MaxInt32 {
		i32 := make([]int32, e)
		for i, v := range a.Indices {
			i32[i] = int32(v)
		}
		da.idxType = kernels.DTypeInt32
		if e > 0 {
			ix = d.uploadRaw(op, 4*e, unsafe.Pointer(&i32[0]))
		}
	} else {
		da.idxType = kernels.DTypeInt64
		ix = d.uploadRaw(op, 8*e, unsafe.Pointer(&a.Indices[0]))
	}
	var ixp kernels.DevicePtr
	if ix != nil {
		da.keep = append(da.keep, ix)
		ixp = cudaBufOf(ix).ptr
	}
	da.csr = kernels.CSR{Indptr: cudaBufOf(ip).ptr, Indices: ixp, IndexType: da.idxType,
		NumDst: a.NumDst, NumSrc: a.NumSrc, NumEdges: e}
	if a.EIDs != nil && e > 0 {
		inv := make([]int64, e)
		for p, id := range a.EIDs {
			inv[id] = int64(p)
		}
		se := d.uploadRaw(op, 8*e, unsafe.Pointer(&a.EIDs[0]))
		si := d.uploadRaw(op, 8*e, unsafe.Pointer(&inv[0]))
		da.keep = append(da.keep, se, si)
		da.eids, da.inv = cudaBufOf(se).ptr, cudaBufOf(si).ptr
	}
	if e > 0 {
		dst := make([]int64, e)
		for v := 0; v < a.NumDst; v++ {
			for p := a.Indptr[v]; p < a.Indptr[v+1]; p++ {
				dst[p] = int64(v)
			}
		}
		sd := d.uploadRaw(op, 8*e, unsafe.Pointer(&dst[0]))
		da.keep = append(da.keep, sd)
		da.dst = cudaBufOf(sd).ptr
	}
	v, _ := a.cuda.LoadOrStore(d.name, da)
	return v.(*devAdj)
}

// permute gathers the rows of edge tensor t (E, ...) by the int64 index
// perm: out[i] = t[perm[i]]. With perm 0 (no EIDs) it returns t.
func (da *devAdj) permute(op string, d *cudaDevice, t *Tensor, perm kernels.DevicePtr, shape []int) *Tensor {
	if perm == 0 {
		if sameShape(t.shape, shape) {
			return t
		}
		return &Tensor{shape: shape, dtype: t.dtype, st: t.st, off: t.off, n: t.n}
	}
	out := d.empty(op, Float32, shape)
	e := da.csr.NumEdges
	if e > 0 && t.n > 0 {
		d.must(op, kernels.GatherRows(d.s, ptr(t), perm, kernels.DTypeInt64, ptr(out), e, t.n/e*4))
	}
	return out
}

// toPos puts edge data from edge-id order into CSR-position order; toID
// does the reverse.
func (da *devAdj) toPos(op string, d *cudaDevice, t *Tensor, shape []int) *Tensor {
	return da.permute(op, d, t, da.eids, shape)
}

func (da *devAdj) toID(op string, d *cudaDevice, t *Tensor, shape []int) *Tensor {
	return da.permute(op, d, t, da.inv, shape)
}

func reduceOf(r string) kernels.Reduce {
	switch r {
	case "mean":
		return kernels.ReduceMean
	case "max":
		return kernels.ReduceMax
	}
	return kernels.ReduceSum
}

func cudaSpMM(adj *Adj, u, e *Tensor, reduce string) *Tensor {
	const op = "SpMM"
	checkFloat(op, u)
	ns, f := rows2(op, u)
	if ns != adj.NumSrc {
		panicf(ErrShape, op, "source features have %d rows, graph has %d source nodes", ns, adj.NumSrc)
	}
	h := 1
	if e != nil {
		checkFloat(op, e)
		var ne int
		ne, h = rows2(op, e)
		if ne != adj.NumEdges() {
			panicf(ErrShape, op, "edge values have %d rows, graph has %d edges", ne, adj.NumEdges())
		}
		if h == 0 || f%h != 0 {
			panicf(ErrShape, op, "features %v do not split into %d heads of edge values %v", u.shape, h, e.shape)
		}
	}
	if reduce != "sum" && reduce != "mean" && reduce != "max" {
		panicf(ErrShape, op, "reduce must be \"sum\", \"mean\" or \"max\", got %q", reduce)
	}
	d := cudaOf(op, u)
	da := adj.onDevice(op, d)
	ne := adj.NumEdges()
	var w kernels.DevicePtr
	var ePos *Tensor
	if e != nil {
		ePos = da.toPos(op, d, e, []int{ne, h})
		if ne > 0 {
			w = ptr(ePos)
		}
	}
	red := reduceOf(reduce)
	out := d.empty(op, Float32, []int{adj.NumDst, f})
	var arg *storage
	var argp kernels.DevicePtr
	if red == kernels.ReduceMax {
		arg = d.newRaw(op, int64(adj.NumDst)*int64(f)*8)
		argp = cudaBufOf(arg).ptr
	}
	if out.n > 0 {
		d.must(op, kernels.SpMM(d.s, da.csr, red, ptr(u), kernels.DTypeFloat32, f, w, h, ptr(out), argp))
	}
	if !needsGrad(u, e) {
		freeNow(arg)
		return out
	}
	return record(out, op, []*Tensor{u, e}, func(g *Tensor) []*Tensor {
		var gu, ge *Tensor
		if u.requiresGrad {
			gu = d.empty(op, Float32, u.shape)
			if gu.n > 0 {
				d.must(op, kernels.SpMMBackward(d.s, da.csr, red, w, h, argp, ptr(g), f, ptr(gu)))
			}
		}
		if e != nil && e.requiresGrad {
			var gePos *Tensor
			if red == kernels.ReduceMax {
				gePos = spmmMaxEdgeGradHost(adj, d, arg, g, u, f, h)
			} else {
				gePos = d.empty(op, Float32, []int{ne, h})
				if ne > 0 {
					d.must(op, kernels.SDDMMUDotV(d.s, da.csr, ptr(u), ptr(g), ptr(gePos), h, f/h, red == kernels.ReduceMean))
				}
			}
			ge = da.toID(op, d, gePos, e.shape)
		}
		return []*Tensor{gu, ge}
	})
}

// spmmMaxEdgeGradHost computes the edge-value gradient of SpMM max on the
// host (no kernel for it): ge[p, j/w] += g[d, j] * u[src(p), j] for the arg-max
// position p of each (d, j). It reads g, u and the arg-max (a
// synchronization) and returns the gradient in CSR-position order.
func spmmMaxEdgeGradHost(adj *Adj, d *cudaDevice, arg *storage, g, u *Tensor, f, h int) *Tensor {
	nd := adj.NumDst
	am := make([]int64, nd*f)
	if len(am) > 0 {
		d.must("SpMM", d.dev.DownloadInt64(am, cudaBufOf(arg).ptr))
	}
	gd, ud := download(g).Float32s(), download(u).Float32s()
	w := f / h
	ge := Zeros(adj.NumEdges(), h)
	gv := ge.Float32s()
	for v := 0; v < nd; v++ {
		for j := 0; j < f; j++ {
			p := am[v*f+j]
			if p < 0 {
				continue
			}
			s := adj.Indices[p]
			gv[p*int64(h)+int64(j/w)] += gd[v*f+j] * ud[s*int64(f)+int64(j)]
		}
	}
	return d.upload("SpMM", ge)
}

func cudaSDDMM(adj *Adj, lhs, rhs *Tensor, op string) *Tensor {
	const name = "SDDMM"
	checkFloat(name, lhs, rhs)
	nl, dl := rows2(name, lhs)
	nr, dr := rows2(name, rhs)
	if nl != adj.NumSrc || nr != adj.NumDst || dl != dr {
		panicf(ErrShape, name, "lhs %v and rhs %v do not fit a graph with %d sources and %d destinations", lhs.shape, rhs.shape, adj.NumSrc, adj.NumDst)
	}
	if op != "add" && op != "mul" && op != "dot" {
		panicf(ErrShape, name, "op must be \"add\", \"mul\" or \"dot\", got %q", op)
	}
	dim := dl
	ow := dim
	if op == "dot" {
		ow = 1
	}
	ne := adj.NumEdges()
	shape := []int{ne, ow}
	if lhs.Dim() == 1 && op != "dot" {
		shape = []int{ne}
	}
	d := cudaOf(name, lhs)
	da := adj.onDevice(name, d)
	csr := da.csr
	outPos := d.empty(name, Float32, []int{ne, ow})
	var srcL, dstR *Tensor // gathered rows for "mul"
	if ne > 0 && ow > 0 {
		switch op {
		case "add":
			d.must(name, kernels.SDDMMUAddV(d.s, csr, ptr(lhs), ptr(rhs), ptr(outPos), dim))
		case "dot":
			d.must(name, kernels.SDDMMUDotV(d.s, csr, ptr(lhs), ptr(rhs), ptr(outPos), 1, dim, false))
		case "mul":
			srcL, dstR = da.gatherEnds(name, d, lhs, rhs)
			d.must(name, kernels.MulF32(d.s, ptr(srcL), ptr(dstR), ptr(outPos), ne*dim))
		}
	}
	out := da.toID(name, d, outPos, shape)
	return record(out, name, []*Tensor{lhs, rhs}, func(g *Tensor) []*Tensor {
		gPos := da.toPos(name, d, g, []int{ne, ow})
		var gl, gr *Tensor
		if lhs.requiresGrad {
			gl = d.zeros(name, Float32, lhs.shape)
		}
		if rhs.requiresGrad {
			gr = d.zeros(name, Float32, rhs.shape)
		}
		if ne == 0 || dim == 0 {
			return []*Tensor{gl, gr}
		}
		switch op {
		case "add":
			if gl != nil {
				d.must(name, kernels.EdgeSumSrc(d.s, csr, ptr(gPos), ptr(gl), dim))
			}
			if gr != nil {
				d.must(name, kernels.EdgeSumDst(d.s, csr, ptr(gPos), ptr(gr), dim))
			}
		case "dot":
			if gl != nil { // gl[u] = sum over out-edges of g[e] * rhs[v]
				d.must(name, kernels.SpMMBackward(d.s, csr, kernels.ReduceSum, ptr(gPos), 1, 0, ptr(rhs), dim, ptr(gl)))
			}
			if gr != nil { // gr[v] = sum over in-edges of g[e] * lhs[u]
				d.must(name, kernels.SpMM(d.s, csr, kernels.ReduceSum, ptr(lhs), kernels.DTypeFloat32, dim, ptr(gPos), 1, ptr(gr), 0))
			}
		case "mul":
			if srcL == nil {
				srcL, dstR = da.gatherEnds(name, d, lhs, rhs)
			}
			tmp := d.empty(name, Float32, []int{ne, dim})
			if gl != nil {
				d.must(name, kernels.MulF32(d.s, ptr(gPos), ptr(dstR), ptr(tmp), ne*dim))
				d.must(name, kernels.ScatterAddRowsF32(d.s, ptr(tmp), csr.Indices, da.idxType, ptr(gl), ne, dim))
			}
			if gr != nil {
				d.must(name, kernels.MulF32(d.s, ptr(gPos), ptr(srcL), ptr(tmp), ne*dim))
				d.must(name, kernels.ScatterAddRowsF32(d.s, ptr(tmp), da.dst, kernels.DTypeInt64, ptr(gr), ne, dim))
			}
			tmp.Free()
		}
		return []*Tensor{gl, gr}
	})
}

// gatherEnds returns lhs[src(p)] and rhs[dst(p)] for every CSR position p,
// (E, D) each.
func (da *devAdj) gatherEnds(op string, d *cudaDevice, lhs, rhs *Tensor) (*Tensor, *Tensor) {
	ne := da.csr.NumEdges
	_, dim := rows2(op, lhs)
	l := d.empty(op, Float32, []int{ne, dim})
	r := d.empty(op, Float32, []int{ne, dim})
	d.must(op, kernels.GatherRows(d.s, ptr(lhs), da.csr.Indices, da.idxType, ptr(l), ne, dim*4))
	d.must(op, kernels.GatherRows(d.s, ptr(rhs), da.dst, kernels.DTypeInt64, ptr(r), ne, dim*4))
	return l, r
}

func cudaEdgeSoftmax(adj *Adj, scores *Tensor) *Tensor {
	const op = "EdgeSoftmax"
	checkFloat(op, scores)
	ne, h := rows2(op, scores)
	if ne != adj.NumEdges() {
		panicf(ErrShape, op, "scores have %d rows, graph has %d edges", ne, adj.NumEdges())
	}
	d := cudaOf(op, scores)
	da := adj.onDevice(op, d)
	sPos := da.toPos(op, d, scores, []int{ne, h})
	aPos := d.empty(op, Float32, []int{ne, h})
	if ne > 0 && h > 0 {
		d.must(op, kernels.EdgeSoftmaxForward(d.s, da.csr, ptr(sPos), ptr(aPos), h))
	}
	out := da.toID(op, d, aPos, scores.shape)
	return record(out, op, []*Tensor{scores}, func(g *Tensor) []*Tensor {
		gPos := da.toPos(op, d, g, []int{ne, h})
		dsPos := d.empty(op, Float32, []int{ne, h})
		if ne > 0 && h > 0 {
			d.must(op, kernels.EdgeSoftmaxBackward(d.s, da.csr, ptr(aPos), ptr(gPos), ptr(dsPos), h))
		}
		return []*Tensor{da.toID(op, d, dsPos, scores.shape)}
	})
}
