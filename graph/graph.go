package graph

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Default type names of a homogeneous graph, as in DGL.
const (
	DefaultNType = "_N"
	DefaultEType = "_E"
	// NID and EID name the node and edge data holding original ids in
	// subgraphs and blocks (dgl.NID, dgl.EID).
	NID = "_ID"
	EID = "_ID"
)

// Error is the engine's error type, tensor.Error (the same type): graph
// methods panic with it on misuse, and constructors return it for bad
// input. Its Pkg is "graph"; Error() reads "graph: no node data named ..."
// or "graph.New: ...". Its Kind is tensor.ErrArgument (an unknown data
// name, node or edge type, reducer), tensor.ErrShape (lengths that
// disagree), tensor.ErrIndex (an id out of range), tensor.ErrDType or
// ErrHetero.
type Error = engerr.Error

// panicf panics with an *Error of the given kind; the message names the
// method itself when it needs to.
func panicf(kind error, format string, args ...any) {
	engerr.Panicf(kind, "graph", "", format, args...)
}

// errorf returns an *Error of the given kind raised by op ("New"; "" for
// none).
func errorf(kind error, op, format string, args ...any) error {
	return engerr.New(kind, "graph", op, format, args...)
}

// ErrHetero is wrapped by errors about calling a single-type method on a
// graph with several node or edge types. It is a kind of ErrArgument:
// errors.Is(err, tensor.ErrArgument) holds for these errors too.
var ErrHetero = engerr.NewKind("graph has several node or edge types", engerr.ErrArgument)

// CanonicalEType names a relation by its source node type, edge type and
// destination node type, as DGL's canonical edge type (src, etype, dst).
type CanonicalEType struct{ Src, EType, Dst string }

func (c CanonicalEType) String() string { return fmt.Sprintf("(%q, %q, %q)", c.Src, c.EType, c.Dst) }

// Key returns the compact form "src:etype:dst", accepted wherever an edge
// type is named by a string.
func (c CanonicalEType) Key() string { return c.Src + ":" + c.EType + ":" + c.Dst }

// EdgeList is the source and destination ids of one relation's edges; the
// position in the lists is the edge id.
type EdgeList struct{ Src, Dst []int64 }

// relation is one canonical edge type: its edges in edge-id order, its data
// and its compressed adjacencies, built on first use.
type relation struct {
	ce       CanonicalEType
	src, dst []int64
	srcN     int // node counts of the source and destination types
	dstN     int
	edata    dataMap

	edgesOnce       sync.Once
	srcT, dstT      *tensor.Tensor
	inOnce, outOnce sync.Once
	in, out         *tensor.Adj
}

// Graph is a directed graph with typed nodes and edges. Node ids of each
// type run from 0 to that type's node count minus one (isolated trailing
// nodes included); edge ids of each relation follow the order the edges
// were given in. A Graph's structure is immutable; transforms return new
// graphs, and node and edge data can be set.
type Graph struct {
	ntypes   []string
	numNodes []int
	ndata    []dataMap
	rels     []*relation
}

// New builds a homogeneous graph with numNodes nodes and the directed edges
// src[i] -> dst[i] (DGL's dgl.graph((src, dst), num_nodes=numNodes)). A
// numNodes of -1 means one more than the largest id. The slices are
// copied. It returns an error naming the first id outside [0, numNodes) or
// the length mismatch.
func New(numNodes int, src, dst []int64) (*Graph, error) {
	if len(src) != len(dst) {
		return nil, errorf(engerr.ErrShape, "New", "%d source ids but %d destination ids", len(src), len(dst))
	}
	if numNodes < -1 {
		return nil, errorf(engerr.ErrArgument, "New", "numNodes is %d; want a count >= 0, or -1 to infer it from the ids", numNodes)
	}
	if numNodes < 0 {
		for i := range src {
			numNodes = max(numNodes, int(src[i])+1, int(dst[i])+1)
		}
		numNodes = max(numNodes, 0)
	}
	return NewHetero(map[string]int{DefaultNType: numNodes},
		map[CanonicalEType]EdgeList{{DefaultNType, DefaultEType, DefaultNType}: {src, dst}})
}

// NewHetero builds a heterogeneous graph (dgl.heterograph) from node counts
// per node type and edge lists per canonical edge type. Types are kept in
// sorted order. Errors name the relation and the offending id.
func NewHetero(numNodes map[string]int, edges map[CanonicalEType]EdgeList) (*Graph, error) {
	return newHetero(numNodes, edges, true)
}

// NewHeteroOwned is NewHetero without the copies: the graph takes ownership
// of every edge list, which the caller must not modify afterwards (they
// may be views of a read-only memory-mapped file; see package graphstore).
// Errors are NewHetero's.
func NewHeteroOwned(numNodes map[string]int, edges map[CanonicalEType]EdgeList) (*Graph, error) {
	return newHetero(numNodes, edges, false)
}

func newHetero(numNodes map[string]int, edges map[CanonicalEType]EdgeList, copyEdges bool) (*Graph, error) {
	g := &Graph{}
	for nt := range numNodes {
		g.ntypes = append(g.ntypes, nt)
	}
	sort.Strings(g.ntypes)
	for _, nt := range g.ntypes {
		n := numNodes[nt]
		if n < 0 {
			return nil, errorf(engerr.ErrArgument, "", "node type %q has negative count %d", nt, n)
		}
		g.numNodes = append(g.numNodes, n)
		g.ndata = append(g.ndata, dataMap{})
	}
	ces := make([]CanonicalEType, 0, len(edges))
	for ce := range edges {
		ces = append(ces, ce)
	}
	sort.Slice(ces, func(i, j int) bool {
		a, b := ces[i], ces[j]
		if a.Src != b.Src {
			return a.Src < b.Src
		}
		if a.EType != b.EType {
			return a.EType < b.EType
		}
		return a.Dst < b.Dst
	})
	for _, ce := range ces {
		el := edges[ce]
		// Errors name the relation only on heterogeneous graphs, where
		// there is more than one to choose from.
		rel := fmt.Sprintf("relation %v: ", ce)
		if len(ces) == 1 && ce == (CanonicalEType{DefaultNType, DefaultEType, DefaultNType}) {
			rel = ""
		}
		si, di := g.ntypeIndex(ce.Src), g.ntypeIndex(ce.Dst)
		if si < 0 || di < 0 {
			return nil, errorf(engerr.ErrArgument, "", "relation %v uses a node type with no node count", ce)
		}
		if len(el.Src) != len(el.Dst) {
			return nil, errorf(engerr.ErrShape, "", "%s%d source ids but %d destination ids", rel, len(el.Src), len(el.Dst))
		}
		ns, nd := g.numNodes[si], g.numNodes[di]
		for i, s := range el.Src {
			if s < 0 || s >= int64(ns) {
				return nil, errorf(engerr.ErrIndex, "", "%ssource id %d of edge %d is outside [0, %d)", rel, s, i, ns)
			}
			if d := el.Dst[i]; d < 0 || d >= int64(nd) {
				return nil, errorf(engerr.ErrIndex, "", "%sdestination id %d of edge %d is outside [0, %d)", rel, d, i, nd)
			}
		}
		src, dst := el.Src, el.Dst
		if copyEdges {
			src, dst = append([]int64(nil), src...), append([]int64(nil), dst...)
		}
		g.rels = append(g.rels, &relation{ce: ce, src: src, dst: dst, srcN: ns, dstN: nd, edata: dataMap{}})
	}
	return g, nil
}

func (g *Graph) ntypeIndex(nt string) int {
	for i, t := range g.ntypes {
		if t == nt {
			return i
		}
	}
	return -1
}

// one returns the only relation, panicking on a heterogeneous graph.
func (g *Graph) one(op string) *relation {
	if len(g.rels) != 1 || len(g.ntypes) != 1 {
		panicf(ErrHetero, "%s: %v (%d node types, %d edge types); use the *Of form with a type", op, ErrHetero, len(g.ntypes), len(g.rels))
	}
	return g.rels[0]
}

// rel returns the relation named etype: an edge type name that only one
// canonical edge type has, or a canonical edge type's String form
// ("src", "etype", "dst") or "src:etype:dst". It panics with ErrArgument
// naming the candidates for an unknown or ambiguous name.
func (g *Graph) rel(etype string) *relation {
	return g.rels[findEType("", etype, len(g.rels), func(i int) CanonicalEType { return g.rels[i].ce }, g.ETypes)]
}

// findEType returns the index, among n canonical edge types ce(i), of the
// one etype names (a canonical String form, "src:etype:dst", or an edge
// type name only one of them has), panicking with ErrArgument naming the
// candidates for an unknown or ambiguous name; what prefixes the message.
func findEType(what, etype string, n int, ce func(int) CanonicalEType, names func() []string) int {
	found := -1
	var same []string
	for i := range n {
		c := ce(i)
		if c.String() == etype || c.Key() == etype {
			return i
		}
		if c.EType == etype {
			found = i
			same = append(same, c.String())
		}
	}
	if len(same) > 1 {
		panicf(engerr.ErrArgument, "%sedge type %q is ambiguous: %s have it; use the canonical form", what, etype, strings.Join(same, ", "))
	}
	if found < 0 {
		panicf(engerr.ErrArgument, "%sno edge type %q (have %v)", what, etype, names())
	}
	return found
}

// IsHomogeneous reports whether g has one node type and one edge type.
func (g *Graph) IsHomogeneous() bool { return len(g.ntypes) == 1 && len(g.rels) == 1 }

// NTypes returns the node type names in order.
func (g *Graph) NTypes() []string { return append([]string(nil), g.ntypes...) }

// ETypes returns the edge type names in canonical order.
func (g *Graph) ETypes() []string {
	out := make([]string, len(g.rels))
	for i, r := range g.rels {
		out[i] = r.ce.EType
	}
	return out
}

// CanonicalETypes returns the (src, etype, dst) triples in order.
func (g *Graph) CanonicalETypes() []CanonicalEType {
	out := make([]CanonicalEType, len(g.rels))
	for i, r := range g.rels {
		out[i] = r.ce
	}
	return out
}

// NumNodes returns the number of nodes of a graph with one node type; it
// panics on a heterogeneous graph (use NumNodesOf).
func (g *Graph) NumNodes() int {
	if len(g.ntypes) != 1 {
		panicf(ErrHetero, "NumNodes: %v; use NumNodesOf", ErrHetero)
	}
	return g.numNodes[0]
}

// NumNodesOf returns the number of nodes of type ntype.
func (g *Graph) NumNodesOf(ntype string) int {
	i := g.ntypeIndex(ntype)
	if i < 0 {
		panicf(engerr.ErrArgument, "no node type %q (have %v)", ntype, g.ntypes)
	}
	return g.numNodes[i]
}

// NumEdges returns the number of edges over all edge types.
func (g *Graph) NumEdges() int {
	n := 0
	for _, r := range g.rels {
		n += len(r.src)
	}
	return n
}

// NumEdgesOf returns the number of edges of one edge type.
func (g *Graph) NumEdgesOf(etype string) int { return len(g.rel(etype).src) }

// NumSrcNodes is NumNodes for a homogeneous graph (MessageGraph).
func (g *Graph) NumSrcNodes() int { return g.NumNodes() }

// NumDstNodes is NumNodes for a homogeneous graph (MessageGraph).
func (g *Graph) NumDstNodes() int { return g.NumNodes() }

// Edges returns the source and destination ids of every edge in edge-id
// order as int64 tensors (E).
func (g *Graph) Edges() (src, dst *tensor.Tensor) {
	return g.one("Edges").edges()
}

// edges wraps the relation's id lists as tensors once (read-only views).
func (r *relation) edges() (src, dst *tensor.Tensor) {
	r.edgesOnce.Do(func() { r.srcT, r.dstT = tensor.FromInt64(r.src), tensor.FromInt64(r.dst) })
	return r.srcT, r.dstT
}

// EdgesOf returns one edge type's source and destination ids.
func (g *Graph) EdgesOf(etype string) (src, dst *tensor.Tensor) {
	return g.rel(etype).edges()
}

// compress builds a major-by-key compressed adjacency of the edges
// (key[i] -> other[i]) with edge ids, stable in edge-id order.
func compress(nKey, nOther int, key, other []int64) *tensor.Adj {
	a := &tensor.Adj{NumDst: nKey, NumSrc: nOther, Indptr: make([]int64, nKey+1),
		Indices: make([]int64, len(key)), EIDs: make([]int64, len(key))}
	for _, k := range key {
		a.Indptr[k+1]++
	}
	for i := 0; i < nKey; i++ {
		a.Indptr[i+1] += a.Indptr[i]
	}
	next := append([]int64(nil), a.Indptr[:nKey]...)
	for e, k := range key {
		p := next[k]
		next[k]++
		a.Indices[p] = other[e]
		a.EIDs[p] = int64(e)
	}
	return a
}

func (r *relation) inAdj() *tensor.Adj {
	r.inOnce.Do(func() { r.in = compress(r.dstN, r.srcN, r.dst, r.src) })
	return r.in
}

func (r *relation) outAdj() *tensor.Adj {
	r.outOnce.Do(func() { r.out = compress(r.srcN, r.dstN, r.src, r.dst) })
	return r.out
}

// Adj returns the in-edge adjacency (CSC): for each node, its in-neighbours
// and the ids of those edges, in edge-id order within a node.
func (g *Graph) Adj() *tensor.Adj { return g.one("Adj").inAdj() }

// OutAdj returns the out-edge adjacency (CSR): for each node, its
// out-neighbours (in the Indices field) and edge ids. Its NumDst counts the
// nodes it is indexed by (the sources).
func (g *Graph) OutAdj() *tensor.Adj { return g.one("OutAdj").outAdj() }

// AdjOf and OutAdjOf are Adj and OutAdj of one edge type.
func (g *Graph) AdjOf(etype string) *tensor.Adj    { return g.rel(etype).inAdj() }
func (g *Graph) OutAdjOf(etype string) *tensor.Adj { return g.rel(etype).outAdj() }

// InDegrees returns each node's number of in-edges, (N) int64.
func (g *Graph) InDegrees() *tensor.Tensor { return tensor.FromInt64(g.Adj().InDegrees()) }

// OutDegrees returns each node's number of out-edges, (N) int64.
func (g *Graph) OutDegrees() *tensor.Tensor { return tensor.FromInt64(g.OutAdj().InDegrees()) }

// String is a one-line summary in the manner of DGL's repr.
func (g *Graph) String() string {
	if g.IsHomogeneous() {
		return fmt.Sprintf("Graph(num_nodes=%d, num_edges=%d, ndata_schemes=%s, edata_schemes=%s)",
			g.numNodes[0], len(g.rels[0].src), g.ndata[0].schemes(), g.rels[0].edata.schemes())
	}
	var nn, ne []string
	for i, nt := range g.ntypes {
		nn = append(nn, fmt.Sprintf("'%s': %d", nt, g.numNodes[i]))
	}
	for _, r := range g.rels {
		ne = append(ne, fmt.Sprintf("('%s', '%s', '%s'): %d", r.ce.Src, r.ce.EType, r.ce.Dst, len(r.src)))
	}
	return fmt.Sprintf("Graph(num_nodes={%s}, num_edges={%s})", strings.Join(nn, ", "), strings.Join(ne, ", "))
}
