package sampling

import (
	"runtime"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// sampleLayer builds the block of one layer whose destination nodes are dst
// (parent ids, in order): it picks the neighbours of every destination with
// c, then relabels them. The block's source nodes are dst (in order,
// repeats included) followed by the newly seen neighbours in order of first
// appearance (destination order, then adjacency order); a neighbour that is
// also a destination takes the destination's local id (its first one).
//
// It allocates the block's arrays (indptr (|dst|+1), indices and edge ids
// (E), source ids) and nothing per edge; scratch comes from ws, whose marker
// must be zero on entry and is zero again on return.
func sampleLayer(ws *workspace, c *layerSpec, dst []int64) (*graph.Block, error) {
	a := c.adj
	nd := len(dst)
	indptr := make([]int64, nd+1)
	for i, v := range dst {
		indptr[i+1] = indptr[i] + c.capacity(a.Indptr[v+1]-a.Indptr[v])
	}
	total := indptr[nd]
	nbr := make([]int64, total)
	eids := make([]int64, total)
	// Pick into each node's slot, compacting in place: w never passes the
	// node's own slot start, and later slots are not written yet.
	w := int64(0)
	for i, v := range dst {
		room := c.capacity(a.Indptr[v+1] - a.Indptr[v])
		n, err := c.choose(ws, v, nbr[w:w+room], eids[w:w+room])
		if err != nil {
			return nil, err
		}
		w += int64(n)
		indptr[i+1] = w
	}
	nbr, eids = nbr[:w:w], eids[:w:w]

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
	// Parent ids as block data (block.srcdata[dgl.NID], block.edata[dgl.EID]);
	// the tensors also count those arrays in the memory accounting.
	if err := b.SetSrcData(graph.NID, tensor.FromInt64(srcNodes)); err != nil {
		return nil, err
	}
	if err := b.SetEData(graph.EID, tensor.FromInt64(eids)); err != nil {
		return nil, err
	}
	n := int64(len(indptr)+len(nbr)) * 8
	tensor.CountBytes("cpu", n)
	runtime.AddCleanup(b, func(n int64) { tensor.CountBytes("cpu", -n) }, n)
	return b, nil
}
