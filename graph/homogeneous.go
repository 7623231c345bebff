package graph

import (
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// NType and EType name the node and edge data holding type ids in a graph
// made by ToHomogeneous (dgl.NTYPE, dgl.ETYPE).
const (
	NType = "_TYPE"
	EType = "_TYPE"
)

// ToHomogeneous returns g as a homogeneous graph (dgl.to_homogeneous):
// the nodes of every node type in NTypes order, type after type (the nodes
// of type k get ids offset_k .. offset_k + N_k - 1, offset_k being the
// node count of the types before it), and the edges of every canonical
// edge type in CanonicalETypes order, relation after relation. Node data
// NType (int64 type index into NTypes) and NID (int64 id within its
// type), edge data EType (int64 index into CanonicalETypes) and EID (id
// within its relation) record where each came from. ndata and edata name
// data to carry over: each named data must exist on every node (edge) type
// with one shape per row and one dtype, and is concatenated. It returns an
// error naming data that is missing or differs in shape.
func (g *Graph) ToHomogeneous(ndata, edata []string) (*Graph, error) {
	const op = "ToHomogeneous"
	offsets := make([]int64, len(g.ntypes)+1)
	for i, n := range g.numNodes {
		offsets[i+1] = offsets[i] + int64(n)
	}
	n := int(offsets[len(g.ntypes)])
	var src, dst, etype, eid []int64
	for k, r := range g.rels {
		so, do := offsets[g.ntypeIndex(r.ce.Src)], offsets[g.ntypeIndex(r.ce.Dst)]
		for i := range r.src {
			src = append(src, r.src[i]+so)
			dst = append(dst, r.dst[i]+do)
			etype = append(etype, int64(k))
			eid = append(eid, int64(i))
		}
	}
	h, err := New(n, src, dst)
	if err != nil {
		return nil, err
	}
	ntype, nid := make([]int64, n), make([]int64, n)
	for k := range g.ntypes {
		for i := offsets[k]; i < offsets[k+1]; i++ {
			ntype[i], nid[i] = int64(k), i-offsets[k]
		}
	}
	h.ndata[0][NType], h.ndata[0][NID] = tensor.FromInt64(ntype), tensor.FromInt64(nid)
	h.rels[0].edata[EType], h.rels[0].edata[EID] = tensor.FromInt64(etype), tensor.FromInt64(eid)
	for _, name := range ndata {
		parts := make([]*tensor.Tensor, len(g.ntypes))
		for k, nt := range g.ntypes {
			t, ok := g.ndata[k][name]
			if !ok {
				return nil, errorf(engerr.ErrArgument, op, "node type %q has no node data %q", nt, name)
			}
			parts[k] = t
		}
		t, err := concatRows(op, "node data "+name, parts)
		if err != nil {
			return nil, err
		}
		h.ndata[0][name] = t
	}
	for _, name := range edata {
		parts := make([]*tensor.Tensor, len(g.rels))
		for k, r := range g.rels {
			t, ok := r.edata[name]
			if !ok {
				return nil, errorf(engerr.ErrArgument, op, "edge type %v has no edge data %q", r.ce, name)
			}
			parts[k] = t
		}
		t, err := concatRows(op, "edge data "+name, parts)
		if err != nil {
			return nil, err
		}
		h.rels[0].edata[name] = t
	}
	return h, nil
}

func concatRows(op, what string, parts []*tensor.Tensor) (*tensor.Tensor, error) {
	var nonEmpty []*tensor.Tensor
	for _, p := range parts {
		s0, s := parts[0].Shape(), p.Shape()
		if len(s) != len(s0) || p.DType() != parts[0].DType() {
			return nil, errorf(engerr.ErrShape, op, "%s is %s %v on one type and %s %v on another", what, parts[0].DType(), s0, p.DType(), s)
		}
		for i := 1; i < len(s); i++ {
			if s[i] != s0[i] {
				return nil, errorf(engerr.ErrShape, op, "%s has rows of shape %v on one type and %v on another", what, s0[1:], s[1:])
			}
		}
		if p.Size(0) > 0 {
			nonEmpty = append(nonEmpty, p)
		}
	}
	if len(nonEmpty) == 0 {
		return parts[0], nil
	}
	if !parts[0].DType().IsFloatingPoint() {
		var all []int64
		if parts[0].DType() != tensor.Int64 {
			return nil, errorf(engerr.ErrDType, op, "%s is %s; only float and int64 data can be concatenated", what, parts[0].DType())
		}
		for _, p := range nonEmpty {
			all = append(all, p.Int64s()...)
		}
		return tensor.FromInt64(all, append([]int{len(all) / max(1, rowLen(parts[0]))}, parts[0].Shape()[1:]...)...), nil
	}
	return tensor.Concat(nonEmpty, 0), nil
}

func rowLen(t *tensor.Tensor) int {
	n := 1
	for _, d := range t.Shape()[1:] {
		n *= d
	}
	return n
}

// NormByDst returns, for every edge of one edge type in edge-id order, the
// inverse in-degree of its destination within that edge type, (E, 1)
// float32 (dgl.norm_by_dst(g, etype).unsqueeze(1), the 1/c_{i,r} of
// R-GCN). It panics with *Error for an unknown or ambiguous edge type.
func (g *Graph) NormByDst(etype string) *tensor.Tensor {
	r := g.rel(etype)
	deg := make([]int64, r.dstN)
	for _, d := range r.dst {
		deg[d]++
	}
	w := make([]float32, len(r.dst))
	for i, d := range r.dst {
		w[i] = 1 / float32(deg[d])
	}
	return tensor.FromFloat32(w, len(w), 1)
}
