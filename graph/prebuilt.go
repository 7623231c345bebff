package graph

import (
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// NewOwned is New without the copies: the graph takes ownership of src and
// dst, which the caller must not modify afterwards. It is meant for graphs
// whose edge lists fill a good part of memory (products-scale generators).
// numNodes must be >= 0. Errors are New's.
func NewOwned(numNodes int, src, dst []int64) (*Graph, error) {
	if len(src) != len(dst) {
		return nil, errorf(engerr.ErrShape, "NewOwned", "%d source ids but %d destination ids", len(src), len(dst))
	}
	if numNodes < 0 {
		return nil, errorf(engerr.ErrArgument, "NewOwned", "negative node count %d", numNodes)
	}
	for i := range src {
		if s := src[i]; s < 0 || s >= int64(numNodes) {
			return nil, errorf(engerr.ErrIndex, "NewOwned", "source id %d of edge %d is outside [0, %d)", s, i, numNodes)
		}
		if d := dst[i]; d < 0 || d >= int64(numNodes) {
			return nil, errorf(engerr.ErrIndex, "NewOwned", "destination id %d of edge %d is outside [0, %d)", d, i, numNodes)
		}
	}
	return homogeneousOwned(numNodes, src, dst), nil
}

func homogeneousOwned(numNodes int, src, dst []int64) *Graph {
	ce := CanonicalEType{DefaultNType, DefaultEType, DefaultNType}
	return &Graph{ntypes: []string{DefaultNType}, numNodes: []int{numNodes}, ndata: []dataMap{{}},
		rels: []*relation{{ce: ce, src: src, dst: dst, srcN: numNodes, dstN: numNodes, edata: dataMap{}}}}
}

// NewFromCSC builds a homogeneous graph from its in-edge adjacency (CSC),
// taking ownership of every slice (none is copied, so they may be
// memory-mapped read-only files; see package graphstore):
//
//	indptr  (numNodes+1)  in-edges of node v at positions indptr[v]..indptr[v+1]
//	indices (E)           source id of the edge at each position
//	eids    (E) or nil    edge id of the edge at each position; nil: the
//	                      position is the edge id
//	src, dst (E) or nil   the edge list in edge-id order (Edges, OutAdj,
//	                      transforms); nil builds it now: with eids nil, src
//	                      is indices itself and dst is expanded from indptr
//	                      (8 bytes per edge); with eids, both are scattered
//	                      (16 bytes per edge)
//
// Adj returns the given CSC as is (its EIDs nil when eids is nil). It
// returns an error naming the first inconsistency: a length, an indptr
// that does not run from 0 to E non-decreasingly, an id outside
// [0, numNodes), or src/dst disagreeing with the CSC at an edge.
func NewFromCSC(numNodes int, indptr, indices, eids, src, dst []int64) (*Graph, error) {
	const op = "NewFromCSC"
	e := len(indices)
	switch {
	case numNodes < 0:
		return nil, errorf(engerr.ErrArgument, op, "negative node count %d", numNodes)
	case len(indptr) != numNodes+1:
		return nil, errorf(engerr.ErrShape, op, "indptr has %d entries, want numNodes+1 = %d", len(indptr), numNodes+1)
	case indptr[0] != 0 || indptr[numNodes] != int64(e):
		return nil, errorf(engerr.ErrShape, op, "indptr must run from 0 to %d (the number of indices), got %d..%d", e, indptr[0], indptr[numNodes])
	case eids != nil && len(eids) != e:
		return nil, errorf(engerr.ErrShape, op, "%d edge ids for %d indices", len(eids), e)
	case (src == nil) != (dst == nil):
		return nil, errorf(engerr.ErrArgument, op, "give both src and dst or neither")
	case src != nil && (len(src) != e || len(dst) != e):
		return nil, errorf(engerr.ErrShape, op, "src has %d and dst %d entries for %d edges", len(src), len(dst), e)
	}
	for v := 0; v < numNodes; v++ {
		if indptr[v+1] < indptr[v] {
			return nil, errorf(engerr.ErrArgument, op, "indptr decreases at node %d", v)
		}
	}
	for p, s := range indices {
		if s < 0 || s >= int64(numNodes) {
			return nil, errorf(engerr.ErrIndex, op, "source id %d at position %d is outside [0, %d)", s, p, numNodes)
		}
	}
	if eids != nil {
		seen := make([]bool, e)
		for p, id := range eids {
			if id < 0 || id >= int64(e) || seen[id] {
				return nil, errorf(engerr.ErrIndex, op, "edge id %d at position %d is outside [0, %d) or repeated", id, p, e)
			}
			seen[id] = true
		}
	}
	if src == nil {
		dst = make([]int64, e)
		if eids == nil {
			src = indices
		} else {
			src = make([]int64, e)
		}
		for v := 0; v < numNodes; v++ {
			for p := indptr[v]; p < indptr[v+1]; p++ {
				id := p
				if eids != nil {
					id = eids[p]
					src[id] = indices[p]
				}
				dst[id] = int64(v)
			}
		}
	} else {
		for v := 0; v < numNodes; v++ {
			for p := indptr[v]; p < indptr[v+1]; p++ {
				id := p
				if eids != nil {
					id = eids[p]
				}
				if src[id] != indices[p] || dst[id] != int64(v) {
					return nil, errorf(engerr.ErrArgument, op, "edge %d is %d -> %d in src/dst but %d -> %d in the CSC", id, src[id], dst[id], indices[p], v)
				}
			}
		}
	}
	g := homogeneousOwned(numNodes, src, dst)
	r := g.rels[0]
	r.inOnce.Do(func() {
		r.in = &tensor.Adj{NumSrc: numNodes, NumDst: numNodes, Indptr: indptr, Indices: indices, EIDs: eids}
	})
	return g, nil
}

// SetOutAdj gives a homogeneous graph its out-edge adjacency (CSR) as is,
// taking ownership of the slices (see NewFromCSC; a loader of a stored CSR
// uses it so that OutAdj need not rebuild it). It must be called before
// the first OutAdj. It returns an error on a heterogeneous graph, when
// OutAdj was already built, or on inconsistent lengths, ids or an indptr
// that does not run from 0 to E.
func (g *Graph) SetOutAdj(indptr, indices, eids []int64) error {
	const op = "SetOutAdj"
	if !g.IsHomogeneous() {
		return errorf(ErrHetero, op, "%v", ErrHetero)
	}
	r := g.rels[0]
	n, e := r.srcN, len(r.src)
	switch {
	case len(indptr) != n+1:
		return errorf(engerr.ErrShape, op, "indptr has %d entries, want %d", len(indptr), n+1)
	case len(indices) != e || (eids != nil && len(eids) != e):
		return errorf(engerr.ErrShape, op, "%d indices and %d edge ids for %d edges", len(indices), len(eids), e)
	case indptr[0] != 0 || indptr[n] != int64(e):
		return errorf(engerr.ErrShape, op, "indptr must run from 0 to %d, got %d..%d", e, indptr[0], indptr[n])
	}
	for v := 0; v < n; v++ {
		if indptr[v+1] < indptr[v] {
			return errorf(engerr.ErrArgument, op, "indptr decreases at node %d", v)
		}
	}
	for p, d := range indices {
		if d < 0 || d >= int64(r.dstN) {
			return errorf(engerr.ErrIndex, op, "destination id %d at position %d is outside [0, %d)", d, p, r.dstN)
		}
	}
	set := false
	r.outOnce.Do(func() {
		r.out = &tensor.Adj{NumSrc: r.dstN, NumDst: n, Indptr: indptr, Indices: indices, EIDs: eids}
		set = true
	})
	if !set {
		return errorf(nil, op, "the out-edge adjacency was already built")
	}
	return nil
}
