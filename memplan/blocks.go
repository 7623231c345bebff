package memplan

// BlockSize is the size of one sampled block (a message flow graph): its
// source nodes, destination nodes and edges.
type BlockSize struct {
	NumSrcNodes, NumDstNodes, NumEdges int
}
