package tensor

import (
	"math"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/kernels"
)

// The GPU's graph kernels (SparseKernels) over the kernels package. An Adj
// is uploaded to a device the first time a graph op runs there with
// tensors on it, and the copy is cached on the Adj (one per device) until
// the Adj is garbage: indptr (int64), the source ids (int32 when they
// fit), and, for an Adj with EIDs, the edge-id permutation both ways, since
// the kernels index edge data by CSR position while tensor edge data is in
// edge-id order (edge tensors are permuted into temporaries around the
// kernels, which are freed at once). The kernels queue on the device's
// stream and read no device memory, except SpMM max's edge gradient
// (computed on the host, see spmmMaxEdgeGradHost) and ScatterAdj (which
// downloads its index).

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

// permuteInto gathers the rows of edge tensor src (E, ...) into dst (same
// shape and dtype) by the int64 index perm: dst[i] = src[perm[i]].
func (da *devAdj) permuteInto(op string, d *cudaDevice, dst, src *Tensor, perm kernels.DevicePtr) {
	e := da.csr.NumEdges
	if e > 0 && src.n > 0 {
		d.must(op, kernels.GatherRows(d.s, ptr(src), perm, kernels.DTypeInt64, ptr(dst), e, src.n/e*src.dtype.Size()))
	}
}

// toPos returns edge tensor t (edge-id order) in CSR-position order: t
// itself for an Adj without EIDs, else a temporary (release it with
// freeTemp).
func (da *devAdj) toPos(op string, d *cudaDevice, t *Tensor) *Tensor {
	if da.eids == 0 {
		return t
	}
	pos := d.empty(op, t.dtype, t.shape)
	da.permuteInto(op, d, pos, t, da.eids)
	return pos
}

// posOut returns where a kernel writes the CSR-position order of the edge
// tensor out: out itself for an Adj without EIDs, else a temporary that
// fromPos moves into out.
func (da *devAdj) posOut(op string, d *cudaDevice, out *Tensor) *Tensor {
	if da.eids == 0 {
		return out
	}
	return d.empty(op, out.dtype, out.shape)
}

// fromPos moves pos (from posOut) into out in edge-id order and frees it.
func (da *devAdj) fromPos(op string, d *cudaDevice, pos, out *Tensor) {
	if pos == out {
		return
	}
	da.permuteInto(op, d, out, pos, da.inv)
	pos.Free()
}

// freeTemp frees t when it is a temporary made from orig (by toPos or a
// cast); later kernels reuse its block only after the queued ones.
func freeTemp(t, orig *Tensor) {
	if t != nil && t != orig {
		t.Free()
	}
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

// sparseF32 panics with ErrNotImplemented unless t is float32: the
// kernel of what names has no other dtype.
func sparseF32(op, what string, d *cudaDevice, t *Tensor) {
	if t != nil && t.dtype != Float32 {
		panicf(ErrNotImplemented, op, "no CUDA kernel for %s %s on %s; compute on the CPU (To(\"cpu\")) or in float32", t.dtype, what, d.name)
	}
}

// edgeWeights returns SpMM's edge weights as the kernels take them:
// float32 (E, H) in CSR-position order (a temporary unless e is float32
// and the Adj has no EIDs), its address (0 without edges) and the heads.
func (da *devAdj) edgeWeights(op string, d *cudaDevice, e *Tensor) (w *Tensor, p kernels.DevicePtr, h int) {
	if e == nil {
		return nil, 0, 1
	}
	_, h = rows2(op, e)
	w = da.toPos(op, d, e)
	if e.dtype != Float32 {
		w32 := d.empty(op, Float32, e.shape)
		if e.n > 0 {
			d.must(op, kernels.Cast(d.s, ptr(w), d.floatKernelDType(op, e.dtype), ptr(w32), kernels.DTypeFloat32, e.n))
		}
		freeTemp(w, e)
		w = w32
	}
	if da.csr.NumEdges > 0 {
		p = ptr(w)
	}
	return w, p, h
}

// SpMM runs kernels.SpMM: features of float32, float16 or bfloat16 (float32
// accumulation), edge values widened to float32 weights.
func (d *cudaDevice) SpMM(adj *Adj, reduce string, u, e, out, arg *Tensor) {
	const op = "SpMM"
	kdt := d.floatKernelDType(op, u.dtype)
	_, f := rows2(op, u)
	da := adj.onDevice(op, d)
	wt, w, h := da.edgeWeights(op, d, e)
	argp := optPtr(arg)
	if out.n > 0 {
		d.must(op, kernels.SpMM(d.s, da.csr, reduceOf(reduce), ptr(u), kdt, f, w, h, ptr(out), argp))
	}
	freeTemp(wt, e)
}

// SpMMBackwardU runs kernels.SpMMBackward (float32; float16 and bfloat16
// have no kernel). gu is overwritten, so acc (gu itself) is not needed.
func (d *cudaDevice) SpMMBackwardU(adj *Adj, reduce string, g, e, arg, gu, acc *Tensor) {
	const op = "SpMM"
	sparseF32(op, "SpMM backward", d, gu)
	_, f := rows2(op, gu)
	da := adj.onDevice(op, d)
	wt, w, h := da.edgeWeights(op, d, e)
	argp := optPtr(arg)
	if gu.n > 0 {
		d.must(op, kernels.SpMMBackward(d.s, da.csr, reduceOf(reduce), w, h, argp, ptr(g), f, ptr(gu)))
	}
	freeTemp(wt, e)
}

// SpMMBackwardE runs kernels.SDDMMUDotV for "sum" and "mean" (float32);
// "max" has no kernel and is computed on the host (spmmMaxEdgeGradHost).
func (d *cudaDevice) SpMMBackwardE(adj *Adj, reduce string, g, u, arg, ge, acc *Tensor) {
	const op = "SpMM"
	sparseF32(op, "SpMM backward", d, ge)
	_, f := rows2(op, u)
	_, h := rows2(op, ge)
	da := adj.onDevice(op, d)
	ne := da.csr.NumEdges
	if reduce == "max" {
		spmmMaxEdgeGradHost(adj, d, arg, g, u, ge, f, h)
		return
	}
	gePos := da.posOut(op, d, ge)
	if ne > 0 {
		d.must(op, kernels.SDDMMUDotV(d.s, da.csr, ptr(u), ptr(g), ptr(gePos), h, f/h, reduce == "mean"))
	}
	da.fromPos(op, d, gePos, ge)
}

// spmmMaxEdgeGradHost computes the edge-value gradient of SpMM max on the
// host (no kernel for it): ge[eid(p), j/w] += g[d, j] * u[src(p), j] for
// the arg-max position p of each (d, j). It reads g, u and the arg-max (a
// synchronization) and uploads the result into ge.
func spmmMaxEdgeGradHost(adj *Adj, d *cudaDevice, arg, g, u, ge *Tensor, f, h int) {
	am := download(arg).Int64s()
	gd, ud := download(g).Float32s(), download(u).Float32s()
	w := f / h
	host := Zeros(ge.shape...)
	gv := host.Float32s()
	for v := 0; v < adj.NumDst; v++ {
		for j := 0; j < f; j++ {
			p := am[v*f+j]
			if p < 0 {
				continue
			}
			s := adj.Indices[p]
			gv[adj.eid(p)*int64(h)+int64(j/w)] += gd[v*f+j] * ud[s*int64(f)+int64(j)]
		}
	}
	d.Upload(ge, host)
}

// SDDMM runs kernels.SDDMMUAddV ("add"), SDDMMUDotV ("dot") or a gather of
// both endpoints and MulF32 ("mul"), float32.
func (d *cudaDevice) SDDMM(adj *Adj, op string, lhs, rhs, out *Tensor) {
	const name = "SDDMM"
	sparseF32(name, "SDDMM", d, lhs)
	_, dim := rows2(name, lhs)
	da := adj.onDevice(name, d)
	csr := da.csr
	ne := csr.NumEdges
	outPos := da.posOut(name, d, out)
	if ne > 0 && out.n > 0 {
		switch op {
		case "add":
			d.must(name, kernels.SDDMMUAddV(d.s, csr, ptr(lhs), ptr(rhs), ptr(outPos), dim))
		case "dot":
			d.must(name, kernels.SDDMMUDotV(d.s, csr, ptr(lhs), ptr(rhs), ptr(outPos), 1, dim, false))
		case "mul":
			srcL, dstR := da.gatherEnds(name, d, lhs, rhs)
			d.must(name, kernels.MulF32(d.s, ptr(srcL), ptr(dstR), ptr(outPos), ne*dim))
			srcL.Free()
			dstR.Free()
		}
	}
	da.fromPos(name, d, outPos, out)
}

// SDDMMBackward runs, per op, EdgeSumSrc / EdgeSumDst ("add"),
// SpMMBackward / SpMM with the edge gradient as weights ("dot"), or MulF32
// and ScatterAddRowsF32 into the endpoints ("mul"), float32.
func (d *cudaDevice) SDDMMBackward(adj *Adj, op string, g, lhs, rhs, gl, gr *Tensor) {
	const name = "SDDMM"
	sparseF32(name, "SDDMM backward", d, g)
	_, dim := rows2(name, lhs)
	da := adj.onDevice(name, d)
	csr := da.csr
	ne := csr.NumEdges
	for _, t := range []*Tensor{gl, gr} {
		if t != nil && t.n > 0 {
			d.must(name, d.dev.Memset8(ptr(t), 0, t.n*4))
		}
	}
	if ne == 0 || dim == 0 {
		return
	}
	gPos := da.toPos(name, d, g)
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
		srcL, dstR := da.gatherEnds(name, d, lhs, rhs)
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
		srcL.Free()
		dstR.Free()
	}
	freeTemp(gPos, g)
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

// EdgeSoftmax runs kernels.EdgeSoftmaxForward (float32).
func (d *cudaDevice) EdgeSoftmax(adj *Adj, scores, out *Tensor) {
	const op = "EdgeSoftmax"
	sparseF32(op, "EdgeSoftmax", d, scores)
	_, h := rows2(op, scores)
	da := adj.onDevice(op, d)
	sPos := da.toPos(op, d, scores)
	aPos := da.posOut(op, d, out)
	if da.csr.NumEdges > 0 && h > 0 {
		d.must(op, kernels.EdgeSoftmaxForward(d.s, da.csr, ptr(sPos), ptr(aPos), h))
	}
	freeTemp(sPos, scores)
	da.fromPos(op, d, aPos, out)
}

// EdgeSoftmaxBackward runs kernels.EdgeSoftmaxBackward (float32).
func (d *cudaDevice) EdgeSoftmaxBackward(adj *Adj, out, g, gs *Tensor) {
	const op = "EdgeSoftmax"
	sparseF32(op, "EdgeSoftmax backward", d, g)
	_, h := rows2(op, out)
	da := adj.onDevice(op, d)
	aPos, gPos := da.toPos(op, d, out), da.toPos(op, d, g)
	dsPos := da.posOut(op, d, gs)
	if da.csr.NumEdges > 0 && h > 0 {
		d.must(op, kernels.EdgeSoftmaxBackward(d.s, da.csr, ptr(aPos), ptr(gPos), ptr(dsPos), h))
	}
	freeTemp(aPos, out)
	freeTemp(gPos, g)
	da.fromPos(op, d, dsPos, gs)
}

// ScatterAdj downloads the index (a synchronization) and builds the
// adjacency on the host; SpMM then uploads it.
func (d *cudaDevice) ScatterAdj(idx *Tensor, n int) *Adj {
	return scatterAdj(download(idx).Int64s(), n)
}
