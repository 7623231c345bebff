package graph

import (
	"sort"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// withEdges returns a homogeneous graph with g's nodes and node data and
// the given edges; rows[i] is the old edge id of new edge i (or -1 for a
// new edge), used to carry edge data over (new edges get fill).
func (g *Graph) withEdges(op string, src, dst, rows []int64, fill float32, keepEData bool) *Graph {
	r := g.one(op)
	ng := &Graph{ntypes: g.NTypes(), numNodes: append([]int(nil), g.numNodes...), ndata: []dataMap{{}}}
	for k, v := range g.ndata[0] {
		ng.ndata[0][k] = v
	}
	nr := &relation{ce: r.ce, src: src, dst: dst, srcN: r.srcN, dstN: r.dstN, edata: dataMap{}}
	ng.rels = []*relation{nr}
	if keepEData {
		for name, t := range r.edata {
			nr.edata[name] = gatherRows(t, rows, fill)
		}
	}
	return ng
}

// gatherRows returns t's rows in the order of rows; a -1 row is filled with
// fill (float32) or zero (other dtypes).
func gatherRows(t *tensor.Tensor, rows []int64, fill float32) *tensor.Tensor {
	shape := t.Shape()
	shape[0] = len(rows)
	out := tensor.New(t.DType(), shape...)
	w := 1
	for _, d := range shape[1:] {
		w *= d
	}
	for i, r := range rows {
		switch t.DType() {
		case tensor.Float32:
			dst := out.Float32s()[i*w : (i+1)*w]
			if r < 0 {
				for j := range dst {
					dst[j] = fill
				}
			} else {
				copy(dst, t.Float32s()[int(r)*w:])
			}
		case tensor.Int64:
			if r >= 0 {
				copy(out.Int64s()[i*w:(i+1)*w], t.Int64s()[int(r)*w:])
			}
		case tensor.Bool:
			if r >= 0 {
				copy(out.Bools()[i*w:(i+1)*w], t.Bools()[int(r)*w:])
			}
		}
	}
	return out
}

// AddSelfLoop returns a copy of a homogeneous graph with one edge i -> i
// appended for every node i, after the existing edges (dgl.add_self_loop).
// Node data is shared; float32 edge data of the new edges is filled with 1,
// other dtypes with 0, as DGL's fill_data default.
func (g *Graph) AddSelfLoop() *Graph {
	r := g.one("AddSelfLoop")
	n := g.numNodes[0]
	src := append(append([]int64(nil), r.src...), make([]int64, n)...)
	dst := append(append([]int64(nil), r.dst...), make([]int64, n)...)
	rows := make([]int64, len(src))
	for i := range r.src {
		rows[i] = int64(i)
	}
	for i := 0; i < n; i++ {
		src[len(r.src)+i], dst[len(r.src)+i] = int64(i), int64(i)
		rows[len(r.src)+i] = -1
	}
	return g.withEdges("AddSelfLoop", src, dst, rows, 1, true)
}

// RemoveSelfLoop returns a copy of a homogeneous graph without edges i -> i
// (dgl.remove_self_loop); other edges keep their order and edge data.
func (g *Graph) RemoveSelfLoop() *Graph {
	r := g.one("RemoveSelfLoop")
	var src, dst, rows []int64
	for i := range r.src {
		if r.src[i] != r.dst[i] {
			src, dst, rows = append(src, r.src[i]), append(dst, r.dst[i]), append(rows, int64(i))
		}
	}
	return g.withEdges("RemoveSelfLoop", src, dst, rows, 0, true)
}

// ToBidirected returns the simple graph with an edge v -> u for every edge
// u -> v and no duplicate edges, sorted by (src, dst) (dgl.to_bidirected).
// Node data is kept; edge data is dropped, as DGL does by default.
func (g *Graph) ToBidirected() *Graph {
	r := g.one("ToBidirected")
	type pair struct{ s, d int64 }
	ps := make([]pair, 0, 2*len(r.src))
	for i := range r.src {
		ps = append(ps, pair{r.src[i], r.dst[i]}, pair{r.dst[i], r.src[i]})
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].s != ps[j].s {
			return ps[i].s < ps[j].s
		}
		return ps[i].d < ps[j].d
	})
	var src, dst []int64
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		src, dst = append(src, p.s), append(dst, p.d)
	}
	return g.withEdges("ToBidirected", src, dst, nil, 0, false)
}

// NodeSubgraph returns the subgraph induced by nodes (dgl.node_subgraph):
// node i of the result is nodes[i], every edge between two chosen nodes is
// kept in edge-id order, node and edge data are sliced, and node data NID
// and edge data EID hold the original ids. Errors name an id out of range
// or repeated; a heterograph is an ErrHetero error (use NodeSubgraphOf).
func (g *Graph) NodeSubgraph(nodes []int64) (*Graph, error) {
	if !g.IsHomogeneous() {
		return nil, errorf(ErrHetero, "NodeSubgraph", "g has %d node types and %d edge types; use NodeSubgraphOf with a map from node type to ids", len(g.ntypes), len(g.rels))
	}
	r := g.one("NodeSubgraph")
	n := g.numNodes[0]
	pos := make([]int64, n)
	for i := range pos {
		pos[i] = -1
	}
	for i, v := range nodes {
		if v < 0 || v >= int64(n) {
			return nil, errorf(engerr.ErrIndex, "NodeSubgraph", "node id %d at position %d is outside [0, %d)", v, i, n)
		}
		if pos[v] >= 0 {
			return nil, errorf(engerr.ErrArgument, "NodeSubgraph", "node id %d appears twice", v)
		}
		pos[v] = int64(i)
	}
	var src, dst, eids []int64
	for e := range r.src {
		if ps, pd := pos[r.src[e]], pos[r.dst[e]]; ps >= 0 && pd >= 0 {
			src, dst, eids = append(src, ps), append(dst, pd), append(eids, int64(e))
		}
	}
	sg, err := New(len(nodes), src, dst)
	if err != nil {
		return nil, err
	}
	idx := tensor.FromInt64(append([]int64(nil), nodes...))
	for k, t := range g.ndata[0] {
		sg.ndata[0][k] = rowsOf(t, idx)
	}
	sg.ndata[0][NID] = idx
	eidT := tensor.FromInt64(eids)
	for k, t := range r.edata {
		sg.rels[0].edata[k] = rowsOf(t, eidT)
	}
	sg.rels[0].edata[EID] = eidT
	return sg, nil
}
