package graph

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Block is one layer of a sampled computation (DGL's block, a message flow
// graph): a bipartite graph from NumSrcNodes source nodes to NumDstNodes
// destination nodes, where the destination nodes are also the first
// NumDstNodes source nodes. Node ids inside a block run from 0; SrcNodes
// and DstNodes map them to the parent graph's ids, and EIDs maps the
// block's edges to the parent's edge ids.
type Block struct {
	srcNodes []int64
	numDst   int
	adj      *tensor.Adj
	eids     []int64

	// Tensors over srcNodes and eids, made once so that repeated calls
	// neither allocate nor count the same bytes twice.
	srcT, dstT, eidT *tensor.Tensor

	srcdata, dstdata, edata dataMap
}

// NewBlock builds a block from its source nodes' parent ids (destination
// nodes first), the destination count, a destination-major adjacency over
// block-local source ids (indptr (numDst+1), indices (E)) and the parent edge
// id of every edge (E), or nil. Samplers call it; it validates its input and
// returns an error naming the first inconsistency.
func NewBlock(srcNodes []int64, numDst int, indptr, indices, parentEIDs []int64) (*Block, error) {
	if numDst < 0 || numDst > len(srcNodes) {
		return nil, errorf(engerr.ErrShape, "NewBlock", "%d destination nodes but only %d source nodes", numDst, len(srcNodes))
	}
	adj := &tensor.Adj{NumSrc: len(srcNodes), NumDst: numDst, Indptr: indptr, Indices: indices}
	if err := adj.Validate(); err != nil {
		return nil, errorf(engerr.ErrShape, "NewBlock", "%v", err)
	}
	if parentEIDs != nil && len(parentEIDs) != len(indices) {
		return nil, errorf(engerr.ErrShape, "NewBlock", "%d parent edge ids for %d edges", len(parentEIDs), len(indices))
	}
	b := &Block{srcNodes: srcNodes, numDst: numDst, adj: adj, eids: parentEIDs,
		srcdata: dataMap{}, dstdata: dataMap{}, edata: dataMap{}}
	b.srcT = tensor.FromInt64(srcNodes)
	b.dstT = tensor.Narrow(b.srcT, 0, numDst)
	if parentEIDs != nil {
		b.eidT = tensor.FromInt64(parentEIDs)
	}
	return b, nil
}

// NumSrcNodes returns the number of source (input) nodes.
func (b *Block) NumSrcNodes() int { return len(b.srcNodes) }

// NumDstNodes returns the number of destination (output) nodes.
func (b *Block) NumDstNodes() int { return b.numDst }

// NumEdges returns the number of sampled edges.
func (b *Block) NumEdges() int { return b.adj.NumEdges() }

// Adj returns the block's destination-major adjacency over local ids.
func (b *Block) Adj() *tensor.Adj { return b.adj }

// SrcNodes returns the parent-graph ids of the source nodes, (NumSrc) int64
// (block.srcdata[dgl.NID]); the first NumDstNodes are the destinations.
func (b *Block) SrcNodes() *tensor.Tensor { return b.srcT }

// DstNodes returns the parent-graph ids of the destination nodes, (NumDst)
// int64.
func (b *Block) DstNodes() *tensor.Tensor { return b.dstT }

// SrcNodeIDs and DstNodeIDs return the same ids as plain slices (shared).
func (b *Block) SrcNodeIDs() []int64 { return b.srcNodes }

// DstNodeIDs returns the destination nodes' parent ids (shared).
func (b *Block) DstNodeIDs() []int64 { return b.srcNodes[:b.numDst] }

// EIDs returns the parent-graph edge id of every block edge, (E) int64
// (block.edata[dgl.EID]), or nil when the sampler did not record them.
func (b *Block) EIDs() *tensor.Tensor { return b.eidT }

// InDegrees returns the number of sampled in-edges of each destination.
func (b *Block) InDegrees() *tensor.Tensor { return tensor.FromInt64(b.adj.InDegrees()) }

// OutDegrees returns the number of sampled out-edges of each source.
func (b *Block) OutDegrees() *tensor.Tensor {
	d := make([]int64, len(b.srcNodes))
	for _, s := range b.adj.Indices {
		d[s]++
	}
	return tensor.FromInt64(d)
}

// SrcData returns source node data name (block.srcdata[name]).
func (b *Block) SrcData(name string) *tensor.Tensor { return b.srcdata.get("source node", name) }

// HasSrcData reports whether source node data name exists.
func (b *Block) HasSrcData(name string) bool { _, ok := b.srcdata[name]; return ok }

// HasDstData reports whether destination node data name exists.
func (b *Block) HasDstData(name string) bool { _, ok := b.dstdata[name]; return ok }

// HasEData reports whether block edge data name exists.
func (b *Block) HasEData(name string) bool { _, ok := b.edata[name]; return ok }

// SetSrcData stores source node data ((NumSrc, ...) rows).
func (b *Block) SetSrcData(name string, t *tensor.Tensor) error {
	return b.srcdata.set("source node", name, t, len(b.srcNodes))
}

// DstData returns destination node data name (block.dstdata[name]).
func (b *Block) DstData(name string) *tensor.Tensor { return b.dstdata.get("destination node", name) }

// SetDstData stores destination node data ((NumDst, ...) rows).
func (b *Block) SetDstData(name string, t *tensor.Tensor) error {
	return b.dstdata.set("destination node", name, t, b.numDst)
}

// EData returns block edge data name.
func (b *Block) EData(name string) *tensor.Tensor { return b.edata.get("edge", name) }

// SetEData stores block edge data ((E, ...) rows).
func (b *Block) SetEData(name string, t *tensor.Tensor) error {
	return b.edata.set("edge", name, t, b.adj.NumEdges())
}

// String is a one-line summary as DGL prints a block.
func (b *Block) String() string {
	return fmt.Sprintf("Block(num_src_nodes=%d, num_dst_nodes=%d, num_edges=%d)", len(b.srcNodes), b.numDst, b.adj.NumEdges())
}
