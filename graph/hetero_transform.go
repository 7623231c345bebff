package graph

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// This file holds the heterograph transforms of DGL's dgl.transforms and
// subgraph modules: to_heterogeneous, AddReverse / add_reverse_edges,
// edge_subgraph, node_subgraph on several types, and the metagraph.

// findRel is rel returning an error (for constructors) instead of
// panicking: the index of the relation etype names.
func (g *Graph) findRel(op, etype string) (int, error) {
	i := -1
	err := engerr.Catch(func() {
		i = findEType("", etype, len(g.rels), func(k int) CanonicalEType { return g.rels[k].ce }, g.ETypes)
	})
	if err != nil {
		return -1, errorf(engerr.ErrArgument, op, "%v", unwrapMsg(err))
	}
	return i, nil
}

// unwrapMsg is an *Error's message without its "graph: " prefix.
func unwrapMsg(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Msg
	}
	return err.Error()
}

// relByCE returns g's relation ce (nil when g has none).
func (g *Graph) relByCE(ce CanonicalEType) *relation {
	for _, r := range g.rels {
		if r.ce == ce {
			return r
		}
	}
	return nil
}

// Metagraph returns g's metagraph (DGLGraph.metagraph()) as a homogeneous
// graph: node i is the node type NTypes()[i], and edge j, from its source
// type's node to its destination type's node, is the canonical edge type
// CanonicalETypes()[j]. It has no data.
func (g *Graph) Metagraph() *Graph {
	src, dst := make([]int64, len(g.rels)), make([]int64, len(g.rels))
	for j, r := range g.rels {
		src[j], dst[j] = int64(g.ntypeIndex(r.ce.Src)), int64(g.ntypeIndex(r.ce.Dst))
	}
	m, err := New(len(g.ntypes), src, dst)
	if err != nil {
		panic(err) // unreachable: the ids are type indices
	}
	return m
}

// ToHeterogeneous returns the heterograph a homogeneous graph g encodes
// with type ids (dgl.to_heterogeneous, the inverse of ToHomogeneous): node
// data NType holds every node's index into ntypes and edge data EType
// every edge's index into etypes. Node ids within a type follow the order
// of the homogeneous ids (as DGL), and so do edge ids within a relation.
// In the result, NID of every node type and EID of every edge type hold
// the homogeneous node and edge ids; every other node and edge data of g
// is split by type (any dtype). An edge whose endpoints' node types are
// not its canonical edge type's Src and Dst is an error, as are type ids
// outside ntypes or etypes, repeated names, a missing NType or EType
// data, an etype naming a node type not in ntypes, and a heterogeneous g.
func ToHeterogeneous(g *Graph, ntypes []string, etypes []CanonicalEType) (*Graph, error) {
	const op = "ToHeterogeneous"
	if g == nil {
		return nil, errorf(engerr.ErrArgument, op, "g is nil")
	}
	if !g.IsHomogeneous() {
		return nil, errorf(ErrHetero, op, "g has %d node types and %d edge types; want a homogeneous graph with type ids (ToHomogeneous)", len(g.ntypes), len(g.rels))
	}
	ntIndex := map[string]int{}
	for i, nt := range ntypes {
		if _, dup := ntIndex[nt]; dup {
			return nil, errorf(engerr.ErrArgument, op, "node type %q appears twice in ntypes", nt)
		}
		ntIndex[nt] = i
	}
	seen := map[CanonicalEType]bool{}
	for _, ce := range etypes {
		if seen[ce] {
			return nil, errorf(engerr.ErrArgument, op, "edge type %v appears twice in etypes", ce)
		}
		seen[ce] = true
		for _, nt := range []string{ce.Src, ce.Dst} {
			if _, ok := ntIndex[nt]; !ok {
				return nil, errorf(engerr.ErrArgument, op, "edge type %v uses node type %q, not in ntypes %v", ce, nt, ntypes)
			}
		}
	}
	typeIDs := func(what string, m dataMap, n, k int) ([]int64, error) {
		t, ok := m[NType]
		if !ok {
			return nil, errorf(engerr.ErrArgument, op, "g has no %s data %q with the type ids (have %v)", what, NType, m.names())
		}
		if t.DType() != tensor.Int64 || t.Dim() != 1 {
			return nil, errorf(engerr.ErrDType, op, "%s data %q must be (%d) int64 type ids, got %s%v", what, NType, n, t.DType(), t.Shape())
		}
		ids := t.Int64s()
		for i, id := range ids {
			if id < 0 || id >= int64(k) {
				return nil, errorf(engerr.ErrIndex, op, "%s %d has type id %d, outside [0, %d)", what, i, id, k)
			}
		}
		return ids, nil
	}
	r := g.rels[0]
	nt, err := typeIDs("node", g.ndata[0], g.numNodes[0], len(ntypes))
	if err != nil {
		return nil, err
	}
	et, err := typeIDs("edge", r.edata, len(r.src), len(etypes))
	if err != nil {
		return nil, err
	}
	// Node ids within their type, and the homogeneous ids of every type.
	local := make([]int64, len(nt))
	nodesOf := make([][]int64, len(ntypes))
	for v, k := range nt {
		local[v] = int64(len(nodesOf[k]))
		nodesOf[k] = append(nodesOf[k], int64(v))
	}
	edgesOf := make([][]int64, len(etypes))
	for e, k := range et {
		ce := etypes[k]
		s, d := r.src[e], r.dst[e]
		if ntypes[nt[s]] != ce.Src || ntypes[nt[d]] != ce.Dst {
			return nil, errorf(engerr.ErrArgument, op, "edge %d (%d -> %d) has edge type %v but joins node types %q and %q", e, s, d, ce, ntypes[nt[s]], ntypes[nt[d]])
		}
		edgesOf[k] = append(edgesOf[k], int64(e))
	}
	counts := map[string]int{}
	for k, nt := range ntypes {
		counts[nt] = len(nodesOf[k])
	}
	lists := map[CanonicalEType]EdgeList{}
	for k, ce := range etypes {
		el := EdgeList{Src: make([]int64, len(edgesOf[k])), Dst: make([]int64, len(edgesOf[k]))}
		for i, e := range edgesOf[k] {
			el.Src[i], el.Dst[i] = local[r.src[e]], local[r.dst[e]]
		}
		lists[ce] = el
	}
	h, err := NewHeteroOwned(counts, lists)
	if err != nil {
		return nil, err
	}
	for k, name := range ntypes {
		idx := tensor.FromInt64(nodesOf[k])
		m := h.ndata[h.ntypeIndex(name)]
		for dn, t := range g.ndata[0] {
			if dn != NType && dn != NID {
				m[dn] = tensor.IndexSelect(t.Detach(), idx)
			}
		}
		m[NID] = idx
	}
	for k, ce := range etypes {
		idx := tensor.FromInt64(edgesOf[k])
		m := h.relByCE(ce).edata
		for dn, t := range r.edata {
			if dn != EType && dn != EID {
				m[dn] = tensor.IndexSelect(t.Detach(), idx)
			}
		}
		m[EID] = idx
	}
	return h, nil
}

// AddReverseOptions configures AddReverseEdges (DGL's
// dgl.transforms.AddReverse).
type AddReverseOptions struct {
	// Prefix names the reverse edge type of (U, e, V): (V, Prefix+e, U);
	// "rev_" when empty (DGL's naming).
	Prefix string
	// CopyEData gives every reverse edge its edge's data (DGL copy_edata).
	// Without it the new relations have no edge data, and a relation
	// within one node type that gets its reverses appended loses its edge
	// data (its new rows would have none).
	CopyEData bool
	// SymNewEType puts the reverses of a relation within one node type,
	// (U, e, U), in a new relation (U, Prefix+e, U) too (DGL
	// sym_new_etype); by default they are appended to (U, e, U).
	SymNewEType bool
}

func (o AddReverseOptions) prefix() string {
	if o.Prefix == "" {
		return "rev_"
	}
	return o.Prefix
}

// reverseOf returns the relation holding the reverses of ce, and whether
// they are appended to ce itself.
func (o AddReverseOptions) reverseOf(ce CanonicalEType) (CanonicalEType, bool) {
	if ce.Src == ce.Dst && !o.SymNewEType {
		return ce, true
	}
	return CanonicalEType{ce.Dst, o.prefix() + ce.EType, ce.Src}, false
}

// AddReverseEdges returns g with the reverse of every edge (DGL's
// AddReverse transform; dgl.add_reverse_edges on a homogeneous graph):
// for every relation (U, e, V) with U != V a relation (V, Prefix+e, U)
// whose edge i is the reverse of edge i of (U, e, V); for a relation
// within one node type, the E reversed edges are appended to it (edge
// E+i is the reverse of edge i, self-loops included: see ReverseEdgeIDs),
// or form a new relation with SymNewEType. Node data is shared with g;
// edge data as AddReverseOptions.CopyEData says. ReverseETypes gives the
// map DGL's exclude="reverse_types" takes. It returns an error when a
// new relation's name is already one of g's canonical edge types.
func (g *Graph) AddReverseEdges(o AddReverseOptions) (*Graph, error) {
	const op = "AddReverseEdges"
	counts := map[string]int{}
	for i, nt := range g.ntypes {
		counts[nt] = g.numNodes[i]
	}
	lists := map[CanonicalEType]EdgeList{}
	for _, r := range g.rels {
		lists[r.ce] = EdgeList{Src: r.src, Dst: r.dst}
	}
	for _, r := range g.rels {
		rc, appended := o.reverseOf(r.ce)
		if appended {
			lists[rc] = EdgeList{Src: append(append([]int64(nil), r.src...), r.dst...), Dst: append(append([]int64(nil), r.dst...), r.src...)}
			continue
		}
		if _, clash := lists[rc]; clash {
			return nil, errorf(engerr.ErrArgument, op, "the reverse of %v would be %v, which g already has; set AddReverseOptions.Prefix", r.ce, rc)
		}
		lists[rc] = EdgeList{Src: r.dst, Dst: r.src}
	}
	// The relations not rebuilt keep g's (immutable) edge lists.
	h, err := NewHeteroOwned(counts, lists)
	if err != nil {
		return nil, err
	}
	for i := range g.ntypes {
		for k, t := range g.ndata[i] {
			h.ndata[i][k] = t
		}
	}
	for _, r := range g.rels {
		rc, appended := o.reverseOf(r.ce)
		if appended {
			if o.CopyEData {
				n := len(r.src)
				idx := make([]int64, 2*n)
				for i := range n {
					idx[i], idx[n+i] = int64(i), int64(i)
				}
				it := tensor.FromInt64(idx)
				for k, t := range r.edata {
					h.relByCE(rc).edata[k] = tensor.IndexSelect(t.Detach(), it)
				}
			}
			continue
		}
		for k, t := range r.edata {
			h.relByCE(r.ce).edata[k] = t
			if o.CopyEData {
				h.relByCE(rc).edata[k] = t
			}
		}
	}
	return h, nil
}

// ReverseETypes returns, for the graph AddReverseEdges(o) makes from g,
// the reverse edge type of each of its relations that has one in another
// relation, both ways, by canonical key ("U:e:V" -> "V:rev_e:U" and
// "V:rev_e:U" -> "U:e:V"): the reverse_etypes map of DGL's
// as_edge_prediction_sampler(exclude="reverse_types"). Relations whose
// reverses were appended to themselves (within one node type, without
// SymNewEType) are not in it: exclude their reverses by id
// (ReverseEdgeIDs).
func (g *Graph) ReverseETypes(o AddReverseOptions) map[string]string {
	m := map[string]string{}
	for _, r := range g.rels {
		rc, appended := o.reverseOf(r.ce)
		if !appended {
			m[r.ce.Key()], m[rc.Key()] = rc.Key(), r.ce.Key()
		}
	}
	return m
}

// ReverseEdgeIDs returns the reverse edge id of every edge of a relation
// of numEdges edges whose second half reverses its first (edge i and edge
// i + numEdges/2), as AddReverseEdges and dgl.add_reverse_edges build it:
// (numEdges) int64, the ReverseEIDs of sampling's exclude "reverse_id".
// It panics with ErrArgument for an odd or negative numEdges.
func ReverseEdgeIDs(numEdges int) *tensor.Tensor {
	if numEdges < 0 || numEdges%2 != 0 {
		panicf(engerr.ErrArgument, "ReverseEdgeIDs: numEdges is %d; want an even count (E edges and their E reverses)", numEdges)
	}
	h := numEdges / 2
	rev := make([]int64, numEdges)
	for i := range h {
		rev[i], rev[h+i] = int64(h+i), int64(i)
	}
	return tensor.FromInt64(rev)
}

// EdgeSubgraph returns the subgraph of the given edges (dgl.edge_subgraph):
// eids maps an edge type (a name as EDataOf takes: "etype", "src:etype:dst"
// or the canonical String form; "_E" on a homogeneous graph) to the ids of
// its edges to keep, in that order (repeats allowed); relations not named
// keep no edges. With relabelNodes, every node type keeps only the nodes
// the kept edges touch, in ascending id order, and node data NID holds
// their ids in g; otherwise all nodes are kept with their ids. Node data
// and edge data are sliced, and edge data EID holds the kept edges' ids.
// Errors name an unknown edge type or an id out of range.
func (g *Graph) EdgeSubgraph(eids map[string][]int64, relabelNodes bool) (*Graph, error) {
	const op = "EdgeSubgraph"
	keep := make([][]int64, len(g.rels))
	named := make([]bool, len(g.rels))
	for et, ids := range eids {
		k, err := g.findRel(op, et)
		if err != nil {
			return nil, err
		}
		if named[k] {
			return nil, errorf(engerr.ErrArgument, op, "edge type %v is named twice in eids", g.rels[k].ce)
		}
		named[k] = true
		n := int64(len(g.rels[k].src))
		for i, e := range ids {
			if e < 0 || e >= n {
				return nil, errorf(engerr.ErrIndex, op, "edge id %d at position %d of %q is outside [0, %d)", e, i, et, n)
			}
		}
		keep[k] = ids
	}
	// pos[t][v]: v's id in the subgraph (-1: dropped).
	pos := make([][]int64, len(g.ntypes))
	for t, n := range g.numNodes {
		pos[t] = make([]int64, n)
		for v := range pos[t] {
			if relabelNodes {
				pos[t][v] = -1
			} else {
				pos[t][v] = int64(v)
			}
		}
	}
	if relabelNodes {
		for k, r := range g.rels {
			si, di := g.ntypeIndex(r.ce.Src), g.ntypeIndex(r.ce.Dst)
			for _, e := range keep[k] {
				pos[si][r.src[e]], pos[di][r.dst[e]] = 0, 0
			}
		}
	}
	return g.subgraph(op, pos, relabelNodes, func(k int) []int64 { return keep[k] })
}

// NodeSubgraphOf is NodeSubgraph for any graph (dgl.node_subgraph with a
// dict): nodes maps a node type to the ids of its nodes to keep, in the
// subgraph's order (node types not named keep none); every edge between
// two kept nodes is kept in edge-id order. Node and edge data are sliced,
// and NID and EID hold the original ids. Errors name an unknown node
// type, an id out of range or repeated.
func (g *Graph) NodeSubgraphOf(nodes map[string][]int64) (*Graph, error) {
	const op = "NodeSubgraphOf"
	pos := make([][]int64, len(g.ntypes))
	for t, n := range g.numNodes {
		pos[t] = make([]int64, n)
		for v := range pos[t] {
			pos[t][v] = -1
		}
	}
	order := make([][]int64, len(g.ntypes))
	for nt, ids := range nodes {
		t := g.ntypeIndex(nt)
		if t < 0 {
			return nil, errorf(engerr.ErrArgument, op, "no node type %q (have %v)", nt, g.ntypes)
		}
		for i, v := range ids {
			if v < 0 || v >= int64(g.numNodes[t]) {
				return nil, errorf(engerr.ErrIndex, op, "node id %d at position %d of %q is outside [0, %d)", v, i, nt, g.numNodes[t])
			}
			if pos[t][v] >= 0 {
				return nil, errorf(engerr.ErrArgument, op, "node id %d of %q appears twice", v, nt)
			}
			pos[t][v] = int64(i)
		}
		order[t] = ids
	}
	return g.build(op, pos, order, func(k int) []int64 {
		r := g.rels[k]
		si, di := g.ntypeIndex(r.ce.Src), g.ntypeIndex(r.ce.Dst)
		var ids []int64
		for e := range r.src {
			if pos[si][r.src[e]] >= 0 && pos[di][r.dst[e]] >= 0 {
				ids = append(ids, int64(e))
			}
		}
		return ids
	})
}

// subgraph is build with the kept nodes of every type in
// ascending id order (pos[t][v] >= 0 marks a kept node; relabel numbers
// them, otherwise pos is the identity and no NID is set).
func (g *Graph) subgraph(op string, pos [][]int64, relabel bool, edges func(k int) []int64) (*Graph, error) {
	if !relabel {
		return g.build(op, pos, nil, edges)
	}
	order := make([][]int64, len(pos))
	for t := range pos {
		for v, p := range pos[t] {
			if p >= 0 {
				pos[t][v] = int64(len(order[t]))
				order[t] = append(order[t], int64(v))
			}
		}
	}
	return g.build(op, pos, order, edges)
}

// build makes the subgraph: node type t keeps order[t] (all nodes when
// order is nil), relation k the edges edges(k), endpoints mapped by pos.
func (g *Graph) build(op string, pos, order [][]int64, edges func(k int) []int64) (*Graph, error) {
	counts := map[string]int{}
	for t, nt := range g.ntypes {
		if order == nil {
			counts[nt] = g.numNodes[t]
		} else {
			counts[nt] = len(order[t])
		}
	}
	lists := map[CanonicalEType]EdgeList{}
	kept := make([][]int64, len(g.rels))
	for k, r := range g.rels {
		ids := edges(k)
		kept[k] = ids
		si, di := g.ntypeIndex(r.ce.Src), g.ntypeIndex(r.ce.Dst)
		el := EdgeList{Src: make([]int64, len(ids)), Dst: make([]int64, len(ids))}
		for i, e := range ids {
			el.Src[i], el.Dst[i] = pos[si][r.src[e]], pos[di][r.dst[e]]
		}
		lists[r.ce] = el
	}
	h, err := NewHeteroOwned(counts, lists)
	if err != nil {
		return nil, fmt.Errorf("graph.%s: %w", op, err)
	}
	for t := range g.ntypes {
		if order == nil {
			for k, v := range g.ndata[t] {
				h.ndata[t][k] = v
			}
			continue
		}
		idx := tensor.FromInt64(append([]int64(nil), order[t]...))
		for k, v := range g.ndata[t] {
			h.ndata[t][k] = tensor.IndexSelect(v.Detach(), idx)
		}
		h.ndata[t][NID] = idx
	}
	for k, r := range g.rels {
		idx := tensor.FromInt64(append([]int64(nil), kept[k]...))
		m := h.relByCE(r.ce).edata
		for name, v := range r.edata {
			m[name] = tensor.IndexSelect(v.Detach(), idx)
		}
		m[EID] = idx
	}
	return h, nil
}
