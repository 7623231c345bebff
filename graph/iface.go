package graph

import "github.com/gnnrepl/gnnrepl/tensor"

// MessageGraph is what message passing and GNN layers run on: a full
// homogeneous graph (sources and destinations are the same N nodes) or a
// Block (NumSrcNodes sources, the first NumDstNodes of which are the
// destinations). Adj gives the in-edges of each destination.
type MessageGraph interface {
	NumSrcNodes() int
	NumDstNodes() int
	NumEdges() int
	// Adj returns the destination-major adjacency (CSC) used by
	// tensor.SpMM, tensor.SDDMM and tensor.EdgeSoftmax.
	Adj() *tensor.Adj
	// InDegrees returns the in-degree of each destination node, (NumDst)
	// int64.
	InDegrees() *tensor.Tensor
	// OutDegrees returns the out-degree of each source node, (NumSrc)
	// int64, counted over this graph's edges.
	OutDegrees() *tensor.Tensor
}

var (
	_ MessageGraph = (*Graph)(nil)
	_ MessageGraph = (*Block)(nil)
)
