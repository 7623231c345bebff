package sampling

import (
	"runtime"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/workers"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// sampleLayer builds the block of one layer whose destination nodes are dst
// (parent ids, in order): it picks the neighbours of every destination with
// c, then relabels them. The block's source nodes are dst (in order,
// repeats included) followed by the newly seen neighbours in order of first
// appearance (destination order, then adjacency order); a neighbour that is
// also a destination takes the destination's local id (its first one).
//
// The picking is split over goroutines when the layer is large (see
// pickParallel; the result is the same); the relabelling is one sequential
// pass. It allocates the block's arrays (indptr (|dst|+1), indices and edge
// ids (E), source ids) and nothing per edge; scratch comes from ws, whose
// marker must be zero on entry and is zero again on return.
func sampleLayer(ws *workspace, c *layerSpec, dst []int64) (*graph.Block, error) {
	nd := len(dst)
	indptr, nbr, eids, err := pickLayer(ws, c, dst)
	if err != nil {
		return nil, err
	}

	// Relabel with the dense marker: mark[v] = 1 + local id.
	mark := ws.mark
	src := append(ws.src[:0], dst...)
	for i, v := range dst {
		if mark[v] == 0 {
			mark[v] = int32(i + 1)
		}
	}
	for j, u := range nbr {
		m := mark[u]
		if m == 0 {
			src = append(src, u)
			m = int32(len(src))
			mark[u] = m
		}
		nbr[j] = int64(m - 1)
	}
	for _, u := range src {
		mark[u] = 0
	}
	srcNodes := make([]int64, len(src))
	copy(srcNodes, src)
	ws.src = src[:0]

	b, err := graph.NewBlock(srcNodes, nd, indptr, nbr, eids)
	if err != nil {
		return nil, err // a bug: the arrays are consistent by construction
	}
	// Parent ids as block data (block.srcdata[dgl.NID], block.edata[dgl.EID]):
	// the block's own tensors over those arrays, which count them in the
	// memory accounting (once; the adjacency's arrays are counted below).
	if err := b.SetSrcData(graph.NID, b.SrcNodes()); err != nil {
		return nil, err
	}
	if err := b.SetEData(graph.EID, b.EIDs()); err != nil {
		return nil, err
	}
	n := int64(len(indptr)+len(nbr)) * 8
	tensor.CountBytes("cpu", n)
	runtime.AddCleanup(b, func(n int64) { tensor.CountBytes("cpu", -n) }, n)
	return b, nil
}

// pickLayer picks the neighbours of every node of dst with c (split over
// goroutines when the layer is large; the result is the same) and returns
// them unrelabelled: dst[i]'s picks are nbr[indptr[i]:indptr[i+1]] (parent
// ids) through the parent edges eids[...].
func pickLayer(ws *workspace, c *layerSpec, dst []int64) (indptr, nbr, eids []int64, err error) {
	a := c.adj
	nd := len(dst)
	indptr = make([]int64, nd+1)
	for i, v := range dst {
		indptr[i+1] = indptr[i] + c.capacity(a.Indptr[v+1]-a.Indptr[v])
	}
	total := indptr[nd]
	nbr = make([]int64, total)
	eids = make([]int64, total)
	var w int64
	if p := pickProcs(total); p > 1 {
		w, err = pickParallel(ws, c, dst, indptr, nbr, eids, p)
	} else {
		w, err = pickRange(&ws.scratch, c, dst, 0, nd, 0, indptr, nbr, eids)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return indptr, nbr[:w:w], eids[:w:w], nil
}

// parallelEdges is the number of candidate edges in a layer from which the
// picking is split over goroutines; maxProcs, when set, replaces GOMAXPROCS
// as their number (tests set both to force either path).
var (
	parallelEdges int64 = 1 << 14
	maxProcs            = 0 // 0: GOMAXPROCS
)

// pickProcs returns how many goroutines pick a layer of total candidate
// edges.
func pickProcs(total int64) int {
	p := runtime.GOMAXPROCS(0)
	if maxProcs > 0 {
		p = maxProcs
	}
	if total < parallelEdges {
		return 1
	}
	return int(min(int64(p), total/(parallelEdges/4)))
}

// pickRange picks the neighbours of dst[lo:hi] into nbr and eids from
// position start (the capacity prefix sum at lo) on, compacting in place:
// node i's edges end at the position stored in indptr[i+1], and the last
// one is returned. It writes only indptr[lo+1:hi+1] and the slots of its
// range's capacity.
func pickRange(s *scratch, c *layerSpec, dst []int64, lo, hi int, start int64, indptr, nbr, eids []int64) (int64, error) {
	a := c.adj
	w := start
	for i := lo; i < hi; i++ {
		v := dst[i]
		room := c.capacity(a.Indptr[v+1] - a.Indptr[v])
		n, err := c.choose(s, v, nbr[w:w+room], eids[w:w+room])
		if err != nil {
			return 0, err
		}
		w += int64(n)
		indptr[i+1] = w
	}
	return w, nil
}

// pickParallel is pickRange over all of dst on p goroutines, each taking a
// contiguous range of destinations holding about the same number of
// candidate edges (split by edges, not nodes, so that hubs do not stall
// one goroutine). Ranges that came out short (zero weights) are moved down
// afterwards, so the result is the same as one pickRange over everything.
func pickParallel(ws *workspace, c *layerSpec, dst []int64, indptr, nbr, eids []int64, p int) (int64, error) {
	nd := len(dst)
	total := indptr[nd]
	// bounds[k] is the first destination of range k.
	bounds := make([]int, p+1)
	for k := 1; k < p; k++ {
		target := total * int64(k) / int64(p)
		lo, hi := bounds[k-1], nd
		for lo < hi { // first i with indptr[i] >= target
			m := (lo + hi) / 2
			if indptr[m] < target {
				lo = m + 1
			} else {
				hi = m
			}
		}
		bounds[k] = lo
	}
	bounds[p] = nd
	starts := make([]int64, p+1)
	for k := range starts {
		starts[k] = indptr[bounds[k]]
	}
	ends := make([]int64, p)
	errs := make([]error, p)
	var wg workers.Group
	run := func(k int, s *scratch) {
		ends[k], errs[k] = pickRange(s, c, dst, bounds[k], bounds[k+1], starts[k], indptr, nbr, eids)
	}
	for k := 1; k < p; k++ {
		wg.Go(func() {
			s := scratchPool.Get().(*scratch)
			defer scratchPool.Put(s)
			run(k, s)
		})
	}
	run(0, &ws.scratch)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	// Join the ranges: move range k down to where range k-1 ended.
	w := ends[0]
	for k := 1; k < p; k++ {
		if shift := starts[k] - w; shift > 0 {
			copy(nbr[w:], nbr[starts[k]:ends[k]])
			copy(eids[w:], eids[starts[k]:ends[k]])
			for i := bounds[k] + 1; i <= bounds[k+1]; i++ {
				indptr[i] -= shift
			}
		}
		w += ends[k] - starts[k]
	}
	return w, nil
}
