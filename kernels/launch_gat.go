package kernels

// Edge kernels of graph attention (gat.cu), float32, over a CSR graph (see
// CSR). Edge data is (NumEdges, heads); node data (N, heads) or
// (N, heads, D). GAT (Velickovic et al., ICLR 2018) as DGL's GATConv:
//
//	e = leaky_relu(SDDMMUAddV(el, er))   el = (x W) a_l, er = (x W) a_r per head
//	a = EdgeSoftmaxForward(e)
//	h = SpMM(sum, x W, w = a, heads)

func checkH(op string, heads int) {
	if heads < 1 {
		argPanic(op, "heads = %d, want >= 1", heads)
	}
}

// SDDMMUAddV computes out[e, h] = el[u, h] + er[v, h] for every edge
// e = (u -> v) (DGL's fn.u_add_v): el (NumSrc, heads), er (NumDst, heads),
// out (NumEdges, heads). Its backward is EdgeSumSrc (for el) and EdgeSumDst
// (for er) of the output gradient.
func SDDMMUAddV(s *Stream, g CSR, el, er, out DevicePtr, heads int) error {
	mustStream("SDDMMUAddV", s)
	is := g.check("SDDMMUAddV")
	checkH("SDDMMUAddV", heads)
	if g.NumDst == 0 {
		return nil
	}
	grid, block := rowGrid(int64(g.NumDst), 32)
	return launch(s, "gat", "gk_sddmm_u_add_v_f32_"+is, grid, block, 0, g.Indptr, g.Indices, el, er, out, int64(g.NumDst), int32(heads))
}

// SDDMMUDotV computes out[e, h] = sum_d x[u, h, d] * y[v, h, d] for every
// edge e = (u -> v) (DGL's fn.u_dot_v), times 1/in-degree(v) when invDeg:
// x (NumSrc, heads, d), y (NumDst, heads, d), out (NumEdges, heads). With
// x the features and y the output gradient it is the edge-weight gradient
// of SpMM (invDeg for ReduceMean).
func SDDMMUDotV(s *Stream, g CSR, x, y, out DevicePtr, heads, d int, invDeg bool) error {
	mustStream("SDDMMUDotV", s)
	is := g.check("SDDMMUDotV")
	checkH("SDDMMUDotV", heads)
	mustInt32("SDDMMUDotV", "d", d)
	if g.NumDst == 0 {
		return nil
	}
	var inv int32
	if invDeg {
		inv = 1
	}
	grid, block := rowGrid(int64(g.NumDst)*int64(heads), pow2Lanes(int64(d)))
	return launch(s, "gat", "gk_sddmm_u_dot_v_f32_"+is, grid, block, 0,
		g.Indptr, g.Indices, x, y, out, int64(g.NumDst), int32(heads), int32(d), inv)
}

// EdgeSoftmaxForward normalizes edge scores over each destination's
// in-edges, per head (dgl.ops.edge_softmax with norm_by='dst'):
// a[e, h] = exp(scores[e, h]) / sum over e' -> v of exp(scores[e', h]),
// computed with the row maximum subtracted. scores, a (NumEdges, heads).
func EdgeSoftmaxForward(s *Stream, g CSR, scores, a DevicePtr, heads int) error {
	mustStream("EdgeSoftmaxForward", s)
	g.check("EdgeSoftmaxForward")
	checkH("EdgeSoftmaxForward", heads)
	if g.NumDst == 0 {
		return nil
	}
	grid, block := rowGrid(int64(g.NumDst)*int64(heads), g.edgeLanes())
	return launch(s, "gat", "gk_edge_softmax_fwd_f32", grid, block, 0, g.Indptr, scores, a, int64(g.NumDst), int32(heads))
}

// EdgeSoftmaxBackward computes the score gradient from the forward output a
// and its gradient da: ds[e, h] = a[e, h] * (da[e, h] - sum over e' -> v of
// a[e', h] * da[e', h]). a, da, ds (NumEdges, heads).
func EdgeSoftmaxBackward(s *Stream, g CSR, a, da, ds DevicePtr, heads int) error {
	mustStream("EdgeSoftmaxBackward", s)
	g.check("EdgeSoftmaxBackward")
	checkH("EdgeSoftmaxBackward", heads)
	if g.NumDst == 0 {
		return nil
	}
	grid, block := rowGrid(int64(g.NumDst)*int64(heads), g.edgeLanes())
	return launch(s, "gat", "gk_edge_softmax_bwd_f32", grid, block, 0, g.Indptr, a, da, ds, int64(g.NumDst), int32(heads))
}

// EdgeSumDst computes out[v, h] = sum over the in-edges e of v of x[e, h]
// (DGL's update_all(copy_e, sum)): x (NumEdges, heads) -> out (NumDst,
// heads), deterministically.
func EdgeSumDst(s *Stream, g CSR, x, out DevicePtr, heads int) error {
	mustStream("EdgeSumDst", s)
	g.check("EdgeSumDst")
	checkH("EdgeSumDst", heads)
	if g.NumDst == 0 {
		return nil
	}
	grid, block := rowGrid(int64(g.NumDst)*int64(heads), g.edgeLanes())
	return launch(s, "gat", "gk_edge_sum_dst_f32", grid, block, 0, g.Indptr, x, out, int64(g.NumDst), int32(heads))
}

// EdgeSumSrc computes out[u, h] = sum over the out-edges e of u of x[e, h]:
// x (NumEdges, heads) -> out (NumSrc, heads), overwritten. Float32 atomics.
func EdgeSumSrc(s *Stream, g CSR, x, out DevicePtr, heads int) error {
	mustStream("EdgeSumSrc", s)
	is := g.check("EdgeSumSrc")
	checkH("EdgeSumSrc", heads)
	if g.NumSrc == 0 {
		return nil
	}
	if err := s.Memset32Async(out, 0, g.NumSrc*heads); err != nil {
		return err
	}
	if g.NumEdges == 0 {
		return nil
	}
	return launch(s, "gat", "gk_edge_sum_src_f32_"+is, gridFor(int64(g.NumEdges)*int64(heads), blockThreads), flat, 0,
		g.Indices, x, out, int64(g.NumEdges), int32(heads))
}
