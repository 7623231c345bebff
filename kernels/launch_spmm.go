package kernels

// CSR is a graph (or a sampled block) on the device in compressed sparse
// rows over destination nodes, DGL's in-edge CSR: the in-edges of
// destination v are e in [Indptr[v], Indptr[v+1]), from source
// Indices[e]. Edge data (E, H) is indexed by this e.
type CSR struct {
	Indptr    DevicePtr // NumDst+1 int64 offsets, Indptr[0] = 0
	Indices   DevicePtr // NumEdges source node ids of IndexType
	IndexType DType     // DTypeInt32 or DTypeInt64
	NumDst    int       // destination nodes (rows)
	NumSrc    int       // source nodes (rows of the source features)
	NumEdges  int       // E = Indptr[NumDst]
}

func (g CSR) check(op string) string {
	mustCount(op, "NumDst", g.NumDst)
	mustCount(op, "NumSrc", g.NumSrc)
	mustCount(op, "NumEdges", g.NumEdges)
	return g.IndexType.indexSuffix(op)
}

// edgeLanes is the lane-group size for kernels that stride over a
// destination's in-edges: about the average in-degree.
func (g CSR) edgeLanes() int {
	if g.NumDst == 0 {
		return 1
	}
	return pow2Lanes(int64(g.NumEdges) / int64(g.NumDst))
}

// Reduce is the aggregation of SpMM: ReduceSum, ReduceMean or ReduceMax
// (DGL's fn.sum / fn.mean / fn.max, PyG's aggr="add" / "mean" / "max").
type Reduce int

const (
	ReduceSum Reduce = iota
	ReduceMean
	ReduceMax
)

func (r Reduce) String() string {
	switch r {
	case ReduceSum:
		return "sum"
	case ReduceMean:
		return "mean"
	case ReduceMax:
		return "max"
	}
	return "invalid"
}

func checkHeads(op string, f, heads int) {
	mustInt32(op, "F", f)
	if heads < 1 || f%heads != 0 {
		argPanic(op, "heads = %d must be >= 1 and divide F = %d", heads, f)
	}
}

// SpMM aggregates source features over the graph's in-edges (DGL's
// update_all(copy_u or u_mul_e, sum / mean / max)):
//
//	out[v, f] = reduce over e = (u -> v) of w[e, f/(F/heads)] * x[u, f]
//
// x (NumSrc, F) and out (NumDst, F) have storage dtype (float32, float16 or
// bfloat16; accumulation is float32). w is 0 for unweighted aggregation or
// (NumEdges, heads) float32 edge weights; with heads > 1, x is viewed as
// (NumSrc, heads, F/heads), GAT's per-head attention weights. Mean divides
// by the in-degree; destinations without in-edges get 0 for every reduce.
// For ReduceMax, argmax must be (NumDst, F) int64: it receives the edge id
// of each maximum, or -1 (the input of SpMMBackward); it is ignored
// otherwise. Panics if s is nil, a size is negative, heads does not divide
// F, or argmax is 0 for ReduceMax.
func SpMM(s *Stream, g CSR, reduce Reduce, x DevicePtr, dtype DType, f int, w DevicePtr, heads int, out, argmax DevicePtr) error {
	mustStream("SpMM", s)
	is := g.check("SpMM")
	ts := dtype.suffix("SpMM")
	checkHeads("SpMM", f, heads)
	if reduce < ReduceSum || reduce > ReduceMax {
		argPanic("SpMM", "reduce %d", reduce)
	}
	if reduce == ReduceMax && argmax == 0 {
		argPanic("SpMM", "ReduceMax needs an argmax buffer")
	}
	if g.NumDst == 0 || f == 0 {
		return nil
	}
	// 16-byte vectors when each head's slice of a row is a whole number of
	// them and the buffers are aligned.
	vec := 16 / dtype.Size()
	vs := "v16"
	if (f/heads)%vec != 0 || x%16 != 0 || out%16 != 0 {
		vec, vs = 1, "v1"
	}
	lanes := pow2Lanes(int64((f + vec - 1) / vec))
	suffix := reduce.String() + "_" + ts + "_" + is + "_" + vs
	// Rows longer than SpMMLongRow edges go to a queue in the stream's work
	// space (a count, then the row ids) for the block-per-row kernel.
	thr := int64(SpMMLongRow)
	if thr <= 0 || int64(g.NumEdges) <= thr {
		thr = 0 // no row can be long
	}
	var queue DevicePtr
	capRows := 0
	if thr > 0 {
		capRows = int(int64(g.NumEdges)/(thr+1)) + 1
		var err error
		if queue, err = s.scratchBuf(8 + 8*capRows); err != nil {
			return err
		}
		if err := s.Memset32Async(queue, 0, 1); err != nil {
			return err
		}
	}
	grid, block := rowGrid(int64(g.NumDst), lanes)
	if err := launch(s, "spmm", "gk_spmm_"+suffix, grid, block, 0,
		g.Indptr, g.Indices, w, x, out, argmax, int64(g.NumDst), int32(f), int32(heads),
		thr, queue, queue.Add(8)); err != nil || thr == 0 {
		return err
	}
	blocks := min(capRows, 4*max(s.dev.info.Multiprocessors, 1))
	return launch(s, "spmm", "gk_spmm_long_"+suffix, Dim3{blocks, 1, 1}, Dim3{lanes, 512 / lanes, 1}, 0,
		g.Indptr, g.Indices, w, x, out, argmax, int32(f), int32(heads), queue, queue.Add(8))
}

// SpMMLongRow is the in-degree above which SpMM aggregates a destination
// with a whole 512-thread block instead of one lane group, so that hubs of
// power-law graphs do not leave one group working long after the rest.
// Zero or negative disables the split.
var SpMMLongRow = 512

// SpMMBackward computes the gradient of SpMM with respect to x in float32:
// dx (NumSrc, F) from dout (NumDst, F), for the same graph, reduce, w and
// heads; for ReduceMax, argmax is SpMM's. dx is overwritten. Float32
// atomics scatter into dx, so the last bits may vary between runs; a
// deterministic alternative is SpMM over the reversed graph. The gradient
// with respect to w is SDDMMUDotV(x, dout) (with invDeg for mean).
func SpMMBackward(s *Stream, g CSR, reduce Reduce, w DevicePtr, heads int, argmax, dout DevicePtr, f int, dx DevicePtr) error {
	mustStream("SpMMBackward", s)
	is := g.check("SpMMBackward")
	checkHeads("SpMMBackward", f, heads)
	if f == 0 || g.NumSrc == 0 {
		return nil
	}
	if err := s.Memset32Async(dx, 0, g.NumSrc*f); err != nil {
		return err
	}
	if g.NumDst == 0 {
		return nil
	}
	switch reduce {
	case ReduceSum, ReduceMean:
		grid, block := rowGrid(int64(g.NumDst), pow2Lanes(int64(f)))
		return launch(s, "spmm", "gk_spmm_bwd_"+reduce.String()+"_f32_"+is, grid, block, 0,
			g.Indptr, g.Indices, w, dout, dx, int64(g.NumDst), int32(f), int32(heads))
	case ReduceMax:
		if argmax == 0 {
			argPanic("SpMMBackward", "ReduceMax needs SpMM's argmax")
		}
		return launch(s, "spmm", "gk_spmm_bwd_max_f32_"+is, gridFor(int64(g.NumDst)*int64(f), blockThreads), flat, 0,
			g.Indices, w, argmax, dout, dx, int64(g.NumDst), int32(f), int32(heads))
	}
	argPanic("SpMMBackward", "reduce %d", reduce)
	return nil
}
