package graph

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// BlockRelation is the sampled edges of one canonical edge type of a
// HeteroBlock: a destination-major adjacency (indptr (NumDst(dst type)+1),
// indices (E) of block-local source ids of the source type) and the parent
// edge id of every edge (E, ids within the parent's relation), or nil.
type BlockRelation struct {
	Indptr, Indices, EIDs []int64
}

// HeteroBlock is one layer of a sampled computation on a heterograph
// (DGL's heterogeneous block, a message flow graph with node and edge
// types). It has every node type and every canonical edge type of the
// graph it was sampled from, in the graph's order, even those with no
// nodes or edges. For each node type it has source nodes and destination
// nodes, the destinations being the first NumDstNodes(ntype) sources (as
// in DGL), with parent ids SrcNodes(ntype); for each canonical edge type
// (src, etype, dst) it has the sampled edges from source nodes of type src
// to destination nodes of type dst, as a CSR from destinations to sources
// over block-local ids (AdjOf), with parent edge ids EIDs(etype).
//
// RelationGraph(etype) views one relation as a graph.MessageGraph, so GNN
// layers run per relation (nn.HeteroGraphConv.ForwardBlock,
// nn.RGCN.ForwardBlocks). Edge types are named as in Graph: an edge type
// name that only one canonical edge type has, or the canonical String form
// ("src", "etype", "dst"), or "src:etype:dst". Methods panic with *Error
// (ErrArgument) naming an unknown node or edge type or data name.
type HeteroBlock struct {
	ntypes           []string
	src              [][]int64
	numDst           []int
	srcT, dstT       []*tensor.Tensor
	srcdata, dstdata []dataMap
	rels             []*blockRel
}

// blockRel is one relation of a HeteroBlock.
type blockRel struct {
	ce     CanonicalEType
	si, di int
	adj    *tensor.Adj
	eids   []int64
	eidT   *tensor.Tensor
	edata  dataMap
}

// NewHeteroBlock builds a heterogeneous block (samplers call it): ntypes
// the node types (sorted, distinct, as Graph.NTypes), srcNodes[k] the
// parent ids of node type k's source nodes, destinations first, numDst[k]
// their destination count, etypes the canonical edge types (as
// Graph.CanonicalETypes, over ntypes) and rels[i] the edges of etypes[i].
// The slices are kept, not copied. It returns an error naming the first
// inconsistency: lengths that differ, an unknown node type, a destination
// count above the source count, an adjacency that does not fit its types'
// node counts.
func NewHeteroBlock(ntypes []string, srcNodes [][]int64, numDst []int, etypes []CanonicalEType, rels []BlockRelation) (*HeteroBlock, error) {
	const op = "NewHeteroBlock"
	if len(srcNodes) != len(ntypes) || len(numDst) != len(ntypes) {
		return nil, errorf(engerr.ErrShape, op, "%d node types, %d source node lists and %d destination counts", len(ntypes), len(srcNodes), len(numDst))
	}
	if len(rels) != len(etypes) {
		return nil, errorf(engerr.ErrShape, op, "%d edge types but %d relations", len(etypes), len(rels))
	}
	if !sort.StringsAreSorted(ntypes) {
		return nil, errorf(engerr.ErrArgument, op, "node types %v are not sorted", ntypes)
	}
	b := &HeteroBlock{ntypes: ntypes, src: srcNodes, numDst: numDst,
		srcT: make([]*tensor.Tensor, len(ntypes)), dstT: make([]*tensor.Tensor, len(ntypes)),
		srcdata: make([]dataMap, len(ntypes)), dstdata: make([]dataMap, len(ntypes))}
	for k, nt := range ntypes {
		if k > 0 && ntypes[k-1] == nt {
			return nil, errorf(engerr.ErrArgument, op, "node type %q is listed twice", nt)
		}
		if numDst[k] < 0 || numDst[k] > len(srcNodes[k]) {
			return nil, errorf(engerr.ErrShape, op, "node type %q: %d destination nodes but %d source nodes", nt, numDst[k], len(srcNodes[k]))
		}
		b.srcT[k] = tensor.FromInt64(srcNodes[k])
		b.dstT[k] = tensor.Narrow(b.srcT[k], 0, numDst[k])
		b.srcdata[k], b.dstdata[k] = dataMap{}, dataMap{}
	}
	for i, ce := range etypes {
		si, di := b.index(ce.Src), b.index(ce.Dst)
		if si < 0 || di < 0 {
			return nil, errorf(engerr.ErrArgument, op, "edge type %v uses a node type not in %v", ce, ntypes)
		}
		r := rels[i]
		adj := &tensor.Adj{NumSrc: len(srcNodes[si]), NumDst: numDst[di], Indptr: r.Indptr, Indices: r.Indices}
		if err := adj.Validate(); err != nil {
			return nil, errorf(engerr.ErrShape, op, "edge type %v: %v", ce, err)
		}
		if r.EIDs != nil && len(r.EIDs) != len(r.Indices) {
			return nil, errorf(engerr.ErrShape, op, "edge type %v: %d parent edge ids for %d edges", ce, len(r.EIDs), len(r.Indices))
		}
		br := &blockRel{ce: ce, si: si, di: di, adj: adj, eids: r.EIDs, edata: dataMap{}}
		if r.EIDs != nil {
			br.eidT = tensor.FromInt64(r.EIDs)
		}
		b.rels = append(b.rels, br)
	}
	return b, nil
}

func (b *HeteroBlock) index(nt string) int {
	k := sort.SearchStrings(b.ntypes, nt)
	if k < len(b.ntypes) && b.ntypes[k] == nt {
		return k
	}
	return -1
}

// nt returns the index of node type nt, panicking for an unknown one.
func (b *HeteroBlock) nt(nt string) int {
	k := b.index(nt)
	if k < 0 {
		panicf(engerr.ErrArgument, "HeteroBlock: no node type %q (have %v)", nt, b.ntypes)
	}
	return k
}

// rel returns the relation named etype (see HeteroBlock), panicking for an
// unknown or ambiguous name.
func (b *HeteroBlock) rel(etype string) *blockRel {
	return b.rels[findEType("HeteroBlock: ", etype, len(b.rels), func(i int) CanonicalEType { return b.rels[i].ce }, b.ETypes)]
}

// NTypes returns the node types in order.
func (b *HeteroBlock) NTypes() []string { return append([]string(nil), b.ntypes...) }

// ETypes returns the edge type names in canonical order.
func (b *HeteroBlock) ETypes() []string {
	out := make([]string, len(b.rels))
	for i, r := range b.rels {
		out[i] = r.ce.EType
	}
	return out
}

// CanonicalETypes returns the (src, etype, dst) triples in order.
func (b *HeteroBlock) CanonicalETypes() []CanonicalEType {
	out := make([]CanonicalEType, len(b.rels))
	for i, r := range b.rels {
		out[i] = r.ce
	}
	return out
}

// NumSrcNodes returns the number of source nodes of node type ntype
// (block.num_src_nodes(ntype)).
func (b *HeteroBlock) NumSrcNodes(ntype string) int { return len(b.src[b.nt(ntype)]) }

// NumDstNodes returns the number of destination nodes of node type ntype.
func (b *HeteroBlock) NumDstNodes(ntype string) int { return b.numDst[b.nt(ntype)] }

// NumEdges returns the number of sampled edges over all edge types.
func (b *HeteroBlock) NumEdges() int {
	n := 0
	for _, r := range b.rels {
		n += r.adj.NumEdges()
	}
	return n
}

// NumEdgesOf returns the number of sampled edges of one edge type.
func (b *HeteroBlock) NumEdgesOf(etype string) int { return b.rel(etype).adj.NumEdges() }

// SrcNodes returns the parent ids (within node type ntype) of ntype's
// source nodes, (NumSrcNodes(ntype)) int64 (block.srcnodes[ntype].data[dgl.NID]);
// the first NumDstNodes(ntype) are the destinations.
func (b *HeteroBlock) SrcNodes(ntype string) *tensor.Tensor { return b.srcT[b.nt(ntype)] }

// DstNodes returns the parent ids of ntype's destination nodes,
// (NumDstNodes(ntype)) int64.
func (b *HeteroBlock) DstNodes(ntype string) *tensor.Tensor { return b.dstT[b.nt(ntype)] }

// SrcNodeIDs returns SrcNodes(ntype) as a plain slice (shared).
func (b *HeteroBlock) SrcNodeIDs(ntype string) []int64 { return b.src[b.nt(ntype)] }

// DstNodeIDs returns DstNodes(ntype) as a plain slice (shared).
func (b *HeteroBlock) DstNodeIDs(ntype string) []int64 {
	k := b.nt(ntype)
	return b.src[k][:b.numDst[k]]
}

// AdjOf returns the destination-major adjacency of one edge type over
// block-local ids: NumDst destinations of the destination type, NumSrc
// sources of the source type.
func (b *HeteroBlock) AdjOf(etype string) *tensor.Adj { return b.rel(etype).adj }

// EIDs returns the parent edge ids (within the parent's relation) of one
// edge type's sampled edges, (E) int64 (block.edges[etype].data[dgl.EID]),
// or nil when the sampler recorded none.
func (b *HeteroBlock) EIDs(etype string) *tensor.Tensor { return b.rel(etype).eidT }

// EIDList returns EIDs(etype) as a plain slice (shared), or nil.
func (b *HeteroBlock) EIDList(etype string) []int64 { return b.rel(etype).eids }

// SrcData returns source node data name of node type ntype
// (block.srcdata[name][ntype]).
func (b *HeteroBlock) SrcData(ntype, name string) *tensor.Tensor {
	return b.srcdata[b.nt(ntype)].get(fmt.Sprintf("%q source node", ntype), name)
}

// HasSrcData reports whether node type ntype has source node data name.
func (b *HeteroBlock) HasSrcData(ntype, name string) bool {
	_, ok := b.srcdata[b.nt(ntype)][name]
	return ok
}

// SetSrcData stores source node data of ntype ((NumSrcNodes(ntype), ...)
// rows); nil removes it.
func (b *HeteroBlock) SetSrcData(ntype, name string, t *tensor.Tensor) error {
	k := b.nt(ntype)
	return b.srcdata[k].set(fmt.Sprintf("%q source node", ntype), name, t, len(b.src[k]))
}

// DstData returns destination node data name of node type ntype
// (block.dstdata[name][ntype]).
func (b *HeteroBlock) DstData(ntype, name string) *tensor.Tensor {
	return b.dstdata[b.nt(ntype)].get(fmt.Sprintf("%q destination node", ntype), name)
}

// HasDstData reports whether node type ntype has destination node data name.
func (b *HeteroBlock) HasDstData(ntype, name string) bool {
	_, ok := b.dstdata[b.nt(ntype)][name]
	return ok
}

// SetDstData stores destination node data of ntype ((NumDstNodes(ntype),
// ...) rows); nil removes it.
func (b *HeteroBlock) SetDstData(ntype, name string, t *tensor.Tensor) error {
	k := b.nt(ntype)
	return b.dstdata[k].set(fmt.Sprintf("%q destination node", ntype), name, t, b.numDst[k])
}

// EData returns edge data name of one edge type's sampled edges.
func (b *HeteroBlock) EData(etype, name string) *tensor.Tensor {
	r := b.rel(etype)
	return r.edata.get(fmt.Sprintf("%v edge", r.ce), name)
}

// HasEData reports whether edge type etype has block edge data name.
func (b *HeteroBlock) HasEData(etype, name string) bool {
	_, ok := b.rel(etype).edata[name]
	return ok
}

// SetEData stores edge data of one edge type ((NumEdgesOf(etype), ...)
// rows); nil removes it.
func (b *HeteroBlock) SetEData(etype, name string, t *tensor.Tensor) error {
	r := b.rel(etype)
	return r.edata.set(fmt.Sprintf("%v edge", r.ce), name, t, r.adj.NumEdges())
}

// RelationGraph returns one edge type of the block as a MessageGraph
// (DGL's block[etype]): NumSrcNodes source nodes of the source type,
// NumDstNodes destination nodes of the destination type, the sampled
// edges. Layers that read destination features from the first NumDstNodes
// source rows (SAGEConv's self term) are only right on relations within
// one node type; aggregating layers (GraphConv, RelGraphConv's messages)
// fit every relation. It panics with *Error for an unknown or ambiguous
// edge type.
func (b *HeteroBlock) RelationGraph(etype string) MessageGraph { return blockRelGraph{b.rel(etype)} }

// blockRelGraph is one relation of a HeteroBlock seen as a MessageGraph.
type blockRelGraph struct{ r *blockRel }

func (v blockRelGraph) NumSrcNodes() int { return v.r.adj.NumSrc }
func (v blockRelGraph) NumDstNodes() int { return v.r.adj.NumDst }
func (v blockRelGraph) NumEdges() int    { return v.r.adj.NumEdges() }
func (v blockRelGraph) Adj() *tensor.Adj { return v.r.adj }
func (v blockRelGraph) InDegrees() *tensor.Tensor {
	return tensor.FromInt64(v.r.adj.InDegrees())
}
func (v blockRelGraph) OutDegrees() *tensor.Tensor {
	d := make([]int64, v.r.adj.NumSrc)
	for _, s := range v.r.adj.Indices {
		d[s]++
	}
	return tensor.FromInt64(d)
}

// String is a one-line summary as DGL prints a heterogeneous block.
func (b *HeteroBlock) String() string {
	var ns, nd, ne []string
	for k, nt := range b.ntypes {
		ns = append(ns, fmt.Sprintf("'%s': %d", nt, len(b.src[k])))
		nd = append(nd, fmt.Sprintf("'%s': %d", nt, b.numDst[k]))
	}
	for _, r := range b.rels {
		ne = append(ne, fmt.Sprintf("('%s', '%s', '%s'): %d", r.ce.Src, r.ce.EType, r.ce.Dst, r.adj.NumEdges()))
	}
	return fmt.Sprintf("HeteroBlock(num_src_nodes={%s}, num_dst_nodes={%s}, num_edges={%s})",
		strings.Join(ns, ", "), strings.Join(nd, ", "), strings.Join(ne, ", "))
}
