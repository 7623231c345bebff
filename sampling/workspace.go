package sampling

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// workspace holds the scratch buffers of one sampling call: the dense
// relabelling marker (one entry per graph node, zero between calls) and
// per-node scratch for choosing neighbours. Workspaces live in wsPool, so a
// call allocates nothing per edge once the buffers have grown.
type workspace struct {
	// mark[v] is 1 + v's local id in the block being built, or 0.
	mark []int32
	// src collects the block's source nodes before they are copied out.
	src []int64
	// scratch serves the picking of the calling goroutine; helpers take
	// theirs from scratchPool.
	scratch
	// excl marks excluded edges and the nodes whose adjacency holds one,
	// zero between calls.
	excl exclusion
	// acct is the byte count reported to tensor.CountBytes, released by a
	// cleanup when the workspace is collected.
	acct *atomic.Int64
}

// scratch holds the buffers one goroutine needs to pick the neighbours of
// one node at a time.
type scratch struct {
	// pos holds chosen positions of one node (or a permutation scratch).
	pos []int64
	// cand holds the adjacency positions of a node's edges that are not
	// excluded.
	cand []int64
	// keys and cum hold A-ES keys and prefix sums of one node's weights.
	keys []float64
	cum  []float64
}

func (s *scratch) bytes() int64 { return int64(cap(s.pos)+cap(s.cand)+cap(s.keys)+cap(s.cum)) * 8 }

var (
	wsPool      sync.Pool
	scratchPool = sync.Pool{New: func() any { return new(scratch) }}
)

// getWorkspace returns a workspace whose marker covers numNodes nodes.
func getWorkspace(numNodes int) *workspace {
	ws, _ := wsPool.Get().(*workspace)
	if ws == nil {
		ws = &workspace{acct: new(atomic.Int64)}
		runtime.AddCleanup(ws, func(a *atomic.Int64) { tensor.CountBytes("cpu", -a.Load()) }, ws.acct)
	}
	if len(ws.mark) < numNodes {
		ws.mark = make([]int32, numNodes)
	}
	ws.account()
	return ws
}

func putWorkspace(ws *workspace) { wsPool.Put(ws) }

// account updates the workspace's share of the cpu memory accounting after
// its buffers grew.
func (ws *workspace) account() {
	n := int64(cap(ws.mark))*4 + int64(cap(ws.src))*8 + ws.scratch.bytes() + int64(cap(ws.excl.edges)+cap(ws.excl.nodes))*8
	if old := ws.acct.Swap(n); old != n {
		tensor.CountBytes("cpu", n-old)
	}
}

// growInt64 returns buf resliced to n entries, reallocated when too small.
func growInt64(buf []int64, n int) []int64 {
	if cap(buf) < n {
		return make([]int64, n, max(n, 2*cap(buf)))
	}
	return buf[:n]
}

func growFloat64(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n, max(n, 2*cap(buf)))
	}
	return buf[:n]
}

// exclude marks the edges excl (valid ids of a's edges) and the nodes of
// a whose adjacency lists hold them (owner[e] holds edge e), and returns
// the marks.
func (ws *workspace) exclude(a *tensor.Adj, owner, excl []int64) *exclusion {
	x := &ws.excl
	if ne := (a.NumEdges() + 63) / 64; len(x.edges) < ne {
		x.edges = make([]uint64, ne)
	}
	if nn := (a.NumDst + 63) / 64; len(x.nodes) < nn {
		x.nodes = make([]uint64, nn)
	}
	for _, e := range excl {
		x.edges[e>>6] |= 1 << (e & 63)
	}
	for _, e := range excl {
		v := owner[e]
		x.nodes[v>>6] |= 1 << (v & 63)
	}
	return x
}

// clearExclusion undoes exclude.
func (ws *workspace) clearExclusion(owner, excl []int64) {
	for _, e := range excl {
		ws.excl.edges[e>>6] = 0
		ws.excl.nodes[owner[e]>>6] = 0
	}
}
