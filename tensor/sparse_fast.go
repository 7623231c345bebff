package tensor

import (
	"runtime"
	"sort"
	"sync/atomic"

	"github.com/gnnrepl/gnnrepl/internal/workers"
)

// Edge-balanced parallel loops for the sparse ops (SpMM, SDDMM,
// EdgeSoftmax) and the row scatter behind IndexSelect's gradient and
// IndexAdd.
//
// A compressed adjacency is split into contiguous node ranges holding about
// the same number of edges plus nodes (a binary search in the prefix sum
// Indptr), several ranges per worker, and workers take ranges from an atomic
// counter. A power-law hub therefore sits in a range of its own instead of
// stalling the worker that owns a fixed share of the nodes, and every node
// is still handled by exactly one goroutine, so each output row is written
// without locks and its additions happen in the reference order (results
// are identical to a single-threaded loop).

// minEdgeWork is the work (edges*width + nodes) below which a loop runs on
// the calling goroutine.
const minEdgeWork = 1 << 15

// parallelEdges runs body over node ranges [lo, hi) of [0, n) whose edge
// counts, read from indptr (n+1 entries), are balanced; width is the work
// per edge (feature columns) and weighs edges against nodes.
func parallelEdges(indptr []int64, n, width int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	e := indptr[n] - indptr[0]
	work := e*int64(max(width, 1)) + int64(n)
	nw := runtime.GOMAXPROCS(0)
	if nw <= 1 || work < minEdgeWork {
		body(0, n)
		return
	}
	parts := int(min(int64(4*nw), work/(minEdgeWork/4)))
	if parts <= 1 {
		body(0, n)
		return
	}
	// cost(i) = edges before node i + i (nodes weigh as one edge).
	cost := func(i int) int64 { return indptr[i] - indptr[0] + int64(i) }
	total := cost(n)
	bounds := make([]int, parts+1)
	for k := 1; k < parts; k++ {
		target := total * int64(k) / int64(parts)
		lo := bounds[k-1]
		bounds[k] = lo + sort.Search(n-lo, func(j int) bool { return cost(lo+j) >= target })
	}
	bounds[parts] = n
	var next atomic.Int32
	var wg workers.Group
	run := func() {
		for {
			k := int(next.Add(1)) - 1
			if k >= parts {
				return
			}
			if lo, hi := bounds[k], bounds[k+1]; lo < hi {
				body(lo, hi)
			}
		}
	}
	for w := 1; w < min(nw, parts); w++ {
		wg.Go(run)
	}
	wg.Run(run)
	wg.Wait()
}

// parallelRowsOf runs body over [0, n) rows of width f in contiguous
// chunks, on GOMAXPROCS goroutines when there is enough to move.
func parallelRowsOf(n, f int, body func(lo, hi int)) {
	parallelFor(n, max(1, minEdgeWork/max(f, 1)), body)
}
