package tensor

// SegmentReduce reduces consecutive row segments of x: segment i is rows
// offsets[i] to offsets[i+1]. (N, F) with offsets (B+1) -> (B, F); reduce is
// "sum", "mean" or "max", and an empty segment gives 0 (DGL's
// segment_reduce; graph readout over a batch of graphs). Float dtypes as
// SpMM, with gradients, on any device (the segment adjacency is built on
// the host from offsets). It is SpMM over the segment adjacency; it panics
// with ErrShape when offsets do not run from 0 to N without decreasing.
func SegmentReduce(x *Tensor, offsets []int64, reduce string) *Tensor {
	defer hookOp("SegmentReduce")()
	n, _ := rows2("SegmentReduce", x)
	b := len(offsets) - 1
	if b < 0 || offsets[0] != 0 || offsets[b] != int64(n) {
		panicf(ErrShape, "SegmentReduce", "offsets must run from 0 to %d (rows of %v), got %v", n, x.shape, offsets)
	}
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	adj := &Adj{NumSrc: n, NumDst: b, Indptr: offsets, Indices: idx}
	if err := adj.Validate(); err != nil {
		panicf(ErrShape, "SegmentReduce", "%v", err)
	}
	return SpMM(adj, x, nil, reduce)
}

// ScatterReduce reduces the rows of src into n output rows by index: row i
// of src goes to out[idx[i]] (PyG's torch_scatter.scatter with reduce
// "sum", "mean" or "max"; rows that receive nothing are 0). (M, F) with idx
// (M) int64 -> (n, F). Float dtypes as SpMM, with gradients. It is SpMM
// over the adjacency of the scatter (Backend.ScatterAdj), built on the
// host: a GPU index is downloaded (a synchronization), the values of a
// meta index are not needed. Panics with ErrIndex naming the first index
// outside [0, n), ErrDType for an index that is not 1-D int64, ErrShape
// when idx and src differ in length, ErrDevice for two devices.
func ScatterReduce(n int, idx, src *Tensor, reduce string) *Tensor {
	defer hookOp("ScatterReduce")()
	be := backendOf("ScatterReduce", idx, src)
	checkDevIndex("ScatterReduce", idx, n)
	m, _ := rows2("ScatterReduce", src)
	if m != idx.n {
		panicf(ErrShape, "ScatterReduce", "index has %d entries but src has %d rows", idx.n, m)
	}
	return SpMM(be.ScatterAdj(idx, n), src, nil, reduce)
}

// scatterAdj is the adjacency of a scatter by ids into n rows (ids in [0,
// n)): destination v's in-edges are the positions i with ids[i] == v, in
// increasing i (a counting sort).
func scatterAdj(ids []int64, n int) *Adj {
	m := len(ids)
	adj := &Adj{NumSrc: m, NumDst: n, Indptr: make([]int64, n+1), Indices: make([]int64, m)}
	for _, v := range ids {
		adj.Indptr[v+1]++
	}
	for i := 0; i < n; i++ {
		adj.Indptr[i+1] += adj.Indptr[i]
	}
	next := append([]int64(nil), adj.Indptr[:n]...)
	for i, v := range ids {
		adj.Indices[next[v]] = int64(i)
		next[v]++
	}
	return adj
}
