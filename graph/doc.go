// Package graph holds gnnrepl's graphs: homogeneous and heterogeneous
// graphs built from edge lists, with in-edge (CSC) and out-edge (CSR)
// adjacency built on demand, node and edge data by name, structural
// transforms (self loops, bidirection, node subgraphs), blocks (DGL's
// message flow graphs produced by samplers) and message passing
// (UpdateAll with copy_u / u_mul_e and sum / mean / max, as DGL's
// update_all with dgl.function).
//
// Node types and canonical edge types (src type, edge type, dst type) are
// part of every graph; a homogeneous graph has the single node type "_N"
// and edge type ("_N", "_E", "_N"), as in DGL.
//
// Error policy: constructors and data setters return errors that name the
// argument (an edge id out of range, a tensor with the wrong number of
// rows); calling a single-type accessor on a heterogeneous graph, or
// message passing with missing data, panics with *graph.Error, which the
// front ends recover.
package graph
