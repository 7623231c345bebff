// Package graph holds gnnrepl's graphs: homogeneous and heterogeneous
// graphs built from edge lists, with in-edge (CSC) and out-edge (CSR)
// adjacency built on demand, node and edge data by name, structural
// transforms (self loops, bidirection, node and edge subgraphs, reverse
// edges and relations, to and from a homogeneous graph with type ids, the
// metagraph: hetero_transform.go), blocks (DGL's
// message flow graphs produced by samplers) and message passing
// (UpdateAll with copy_u / u_mul_e and sum / mean / max, as DGL's
// update_all with dgl.function).
//
// Node types and canonical edge types (src type, edge type, dst type) are
// part of every graph; a homogeneous graph has the single node type "_N"
// and edge type ("_N", "_E", "_N"), as in DGL.
//
// Error policy (the engine's, see package tensor): constructors and data
// setters, which have an error result, return a *graph.Error (the engine's
// one type, tensor.Error) that names the argument, of kind ErrIndex (an
// edge or node id out of range), ErrShape (lengths or a row count that
// disagree) or ErrArgument (a negative count, an unknown node type);
// calling a single-type accessor on a heterogeneous graph (kind ErrHetero,
// itself an ErrArgument), asking for data or a type that is not there, or
// message passing with missing data or an unknown function (ErrArgument)
// panics with the same type, which the front ends recover.
package graph
