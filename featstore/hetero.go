package featstore

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// PerType holds one Store per node type of a heterograph, the way DGL
// keeps node features per type (g.nodes[ntype].data[name]): float32,
// float16, bfloat16 or int8 stores, hot caches ordered by each type's
// degree over all relations (NewHotCachePerType) and precomputed
// per-relation features (PropagatePerType). Node types without features
// have no store. Gather reads the rows of one type; Bytes and BytesOf
// report what is stored, Float32BytesOf what float32 would take. The
// heterograph DataLoader gathers minibatch inputs from PerTypes
// (sampling.LoaderOptions.HeteroNodeFeatStores).
type PerType struct {
	stores map[string]Store
	ntypes []string // with a store, sorted
	// relations: PropagatePerType's blocks per type (RelationsOf).
	relations map[string][]string
}

func newPerType(stores map[string]Store) *PerType {
	p := &PerType{stores: stores}
	for nt := range stores {
		p.ntypes = append(p.ntypes, nt)
	}
	sort.Strings(p.ntypes)
	return p
}

// NewPerType stores the node data name of every node type of g that has
// it in dtype (see New: tensor.Float32 shares the tensor, Float16,
// BFloat16 and Int8 copy it). It returns an error wrapping ErrArgument when
// g is nil or no node type has the data or dtype is unknown, and the
// constructors' errors naming the node type.
func NewPerType(g *graph.Graph, name string, dtype tensor.DType) (*PerType, error) {
	const op = "NewPerType"
	if g == nil {
		return nil, newError(ErrArgument, op, "the graph is nil")
	}
	stores := map[string]Store{}
	for _, nt := range g.NTypes() {
		x := ndataOf(g, nt, name)
		if x == nil {
			continue
		}
		s, err := New(x, dtype)
		if err != nil {
			closeAll(stores)
			return nil, fmt.Errorf("featstore.%s: node type %q: %w", op, nt, err)
		}
		stores[nt] = s
	}
	if len(stores) == 0 {
		return nil, newError(ErrArgument, op, "no node type of the graph (%v) has node data %q", g.NTypes(), name)
	}
	return newPerType(stores), nil
}

// NewPerTypeStores checks stores, one per node type of g (not every type
// needs one), against g and returns them as a PerType. It returns an error
// wrapping ErrArgument naming an unknown node type, a nil store, or a store
// whose row count differs from the type's node count.
func NewPerTypeStores(g *graph.Graph, stores map[string]Store) (*PerType, error) {
	const op = "NewPerTypeStores"
	if g == nil {
		return nil, newError(ErrArgument, op, "the graph is nil")
	}
	if len(stores) == 0 {
		return nil, newError(ErrArgument, op, "no store given")
	}
	known := map[string]bool{}
	for _, nt := range g.NTypes() {
		known[nt] = true
	}
	cp := map[string]Store{}
	for nt, s := range stores {
		switch {
		case !known[nt]:
			return nil, newError(ErrArgument, op, "node type %q is not in the graph (have %v)", nt, g.NTypes())
		case s == nil:
			return nil, newError(ErrArgument, op, "the store of node type %q is nil", nt)
		case s.NumNodes() != g.NumNodesOf(nt):
			return nil, newError(ErrArgument, op, "the store of node type %q has %d rows, the type has %d nodes", nt, s.NumNodes(), g.NumNodesOf(nt))
		}
		cp[nt] = s
	}
	return newPerType(cp), nil
}

func closeAll(stores map[string]Store) {
	for _, s := range stores {
		closeStore(s)
	}
}

// ndataOf returns node data name of ntype, nil when the type has none.
func ndataOf(g *graph.Graph, ntype, name string) (x *tensor.Tensor) {
	if tensor.Catch(func() { x = g.NDataOf(ntype, name) }) != nil {
		return nil
	}
	return x
}

// closeStore closes s when it has a Close method.
func closeStore(s Store) error {
	if c, ok := s.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// NTypes returns the node types that have a store, sorted.
func (p *PerType) NTypes() []string { return append([]string(nil), p.ntypes...) }

// Store returns the store of ntype, nil when the type has none.
func (p *PerType) Store(ntype string) Store { return p.stores[ntype] }

func (p *PerType) must(op, ntype string) Store {
	s, ok := p.stores[ntype]
	if !ok {
		panicf(ErrArgument, op, "no store for node type %q (have %v)", ntype, p.ntypes)
	}
	return s
}

// Gather returns the rows ids (1-D int64 CPU tensor of ids local to
// ntype) of ntype's features, (len(ids), F) float32, dequantised. It
// panics with ErrArgument naming an unknown node type and as Store.Gather.
func (p *PerType) Gather(ntype string, ids *tensor.Tensor) *tensor.Tensor {
	return GatherTensor(p.must("PerType.Gather", ntype), ids)
}

// Bytes returns what all the stores take.
func (p *PerType) Bytes() int64 {
	var b int64
	for _, s := range p.stores {
		b += s.Bytes()
	}
	return b
}

// BytesOf returns what ntype's store takes (0 when it has none).
func (p *PerType) BytesOf(ntype string) int64 {
	if s := p.stores[ntype]; s != nil {
		return s.Bytes()
	}
	return 0
}

// Float32BytesOf returns what ntype's features take in float32,
// 4*N*F (0 when the type has no store).
func (p *PerType) Float32BytesOf(ntype string) int64 {
	if s := p.stores[ntype]; s != nil {
		return 4 * int64(s.NumNodes()) * int64(s.Dim())
	}
	return 0
}

// StatsOf returns the hit counts of ntype's store when it is a HotCache
// (NewHotCachePerType), zero counts otherwise.
func (p *PerType) StatsOf(ntype string) CacheStats {
	if c, ok := p.stores[ntype].(*HotCache); ok {
		return c.Stats()
	}
	return CacheStats{}
}

// Close closes every store.
func (p *PerType) Close() error {
	var first error
	for _, nt := range p.ntypes {
		if err := closeStore(p.stores[nt]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// String is a table, one line per node type: rows, dim, dtype, bytes
// stored against float32, and the store.
func (p *PerType) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %8s %6s %8s %12s %12s %7s\n", "ntype", "nodes", "dim", "dtype", "bytes", "float32", "ratio")
	for _, nt := range p.ntypes {
		s := p.stores[nt]
		f32 := p.Float32BytesOf(nt)
		r := 0.0
		if f32 > 0 {
			r = float64(s.Bytes()) / float64(f32)
		}
		fmt.Fprintf(&b, "%-12s %8d %6d %8s %12d %12d %7.3f\n", nt, s.NumNodes(), s.Dim(), s.DType(), s.Bytes(), f32, r)
	}
	return strings.TrimRight(b.String(), "\n")
}

// NodeDegrees returns the degree of every node of type ntype of g summed
// over all the relations it takes part in: "out" (or "": the edges it is
// the source of), "in" (the edges it is the destination of) or "total".
// It is the order NewHotCachePerType fills each type's fast tier in. It
// returns an error wrapping ErrArgument for a nil graph, an unknown node
// type or kind.
func NodeDegrees(g *graph.Graph, ntype, kind string) ([]int64, error) {
	const op = "NodeDegrees"
	if g == nil {
		return nil, newError(ErrArgument, op, "the graph is nil")
	}
	if kind != "" && kind != "out" && kind != "in" && kind != "total" {
		return nil, newError(ErrArgument, op, "Degree %q; want \"out\", \"in\" or \"total\"", kind)
	}
	found := false
	for _, nt := range g.NTypes() {
		found = found || nt == ntype
	}
	if !found {
		return nil, newError(ErrArgument, op, "node type %q is not in the graph (have %v)", ntype, g.NTypes())
	}
	deg := make([]int64, g.NumNodesOf(ntype))
	for _, ce := range g.CanonicalETypes() {
		adj := g.AdjOf(ce.String())
		if ce.Src == ntype && kind != "in" {
			for _, s := range adj.Indices {
				deg[s]++
			}
		}
		if ce.Dst == ntype && (kind == "in" || kind == "total") {
			for d := 0; d < adj.NumDst; d++ {
				deg[d] += adj.Indptr[d+1] - adj.Indptr[d]
			}
		}
	}
	return deg, nil
}

// NewHotCachePerType puts a HotCache in front of every store of p, each
// keeping the nodes of its type with the highest degree over all
// relations (NodeDegrees with opts.Degree; Capacity or Fraction per type,
// Capacity clamped to the type's node count), as PaGraph's degree policy
// per type. The caches share p's stores (closing the result closes them).
// It returns an error wrapping ErrArgument when p or g is nil, a type of p
// is not in g or has another node count, and NewHotCache's option errors.
func NewHotCachePerType(p *PerType, g *graph.Graph, opts HotCacheOptions) (*PerType, error) {
	const op = "NewHotCachePerType"
	if p == nil || g == nil {
		return nil, newError(ErrArgument, op, "the stores or the graph is nil")
	}
	if _, err := NewPerTypeStores(g, p.stores); err != nil {
		return nil, err
	}
	out := map[string]Store{}
	for _, nt := range p.ntypes {
		s := p.stores[nt]
		n := s.NumNodes()
		var k int
		switch {
		case opts.Capacity < 0:
			return nil, newError(ErrArgument, op, "Capacity %d is negative", opts.Capacity)
		case opts.Fraction < 0 || opts.Fraction > 1 || opts.Fraction != opts.Fraction:
			return nil, newError(ErrArgument, op, "Fraction %g is outside [0, 1]", opts.Fraction)
		case opts.Capacity > 0 && opts.Fraction > 0:
			return nil, newError(ErrArgument, op, "Capacity (%d) and Fraction (%g) are both set; set one", opts.Capacity, opts.Fraction)
		case opts.Capacity > 0:
			k = min(opts.Capacity, n)
		case opts.Fraction > 0:
			k = int(opts.Fraction*float64(n) + 0.5)
		default:
			return nil, newError(ErrArgument, op, "set Capacity (a node count per type) or Fraction (a share of each type's nodes)")
		}
		deg, err := NodeDegrees(g, nt, opts.Degree)
		if err != nil {
			return nil, err
		}
		out[nt] = newHotCache(s, HotNodes(deg, k))
	}
	return newPerType(out), nil
}

// PropagatePerType precomputes static features for a heterograph, SIGN's
// idea per node type with one-hop relation aggregation as in SeHGNN (Yang
// et al., "Simple and Efficient Heterogeneous Graph Neural Network", AAAI
// 2023) and NARS: for every node type t, the concatenation of its own
// features X_t (node data name) and, for every relation r = (s, e, t)
// into t whose source type s has the data (in canonical edge type order),
// Â_r X_s, where Â_r averages the in-neighbours of r ("right", the default:
// Σ x_u / d_v, zero rows for nodes without an r-neighbour), sums them
// ("none") or uses 1/sqrt(d_u d_v) with the degrees of r ("both"). No self
// loops are added. A type without its own features gets the aggregates
// alone; a type with neither has no store. Each block is stored in
// opts.DType (its own per-row scales for int8) and the blocks of a type are
// a Concat; RelationsOf tells which relation each block came from.
//
// opts.K must be 0 (X alone) or 1; LastOnly keeps only the aggregates.
// Sums are float32, in compiled parallel loops. It returns an error
// wrapping ErrArgument for a nil graph, no type with the data, K other
// than 0 or 1, an unknown norm or dtype, and the store constructors'
// errors naming the type and relation.
func PropagatePerType(g *graph.Graph, name string, opts PropagateOptions) (*PerType, error) {
	const op = "PropagatePerType"
	if g == nil {
		return nil, newError(ErrArgument, op, "the graph is nil")
	}
	if opts.K != 0 && opts.K != 1 {
		return nil, newError(ErrArgument, op, "K = %d; per-relation propagation supports K = 0 or 1 (one hop per relation)", opts.K)
	}
	norm := opts.Norm
	switch norm {
	case "", "right", "rw":
		norm = "right"
	case "both", "sym", "none":
	default:
		return nil, newError(ErrArgument, op, "Norm %q; want \"right\" (mean, the default), \"both\" or \"none\"", opts.Norm)
	}
	switch opts.DType {
	case tensor.Float32, tensor.Float16, tensor.BFloat16, tensor.Int8:
	default:
		return nil, newError(ErrArgument, op, "DType %v; want float32, float16, bfloat16 or int8", opts.DType)
	}
	feats := map[string]*tensor.Tensor{}
	for _, nt := range g.NTypes() {
		if x := ndataOf(g, nt, name); x != nil {
			if _, _, _, err := checkFeatures(op, x); err != nil {
				return nil, fmt.Errorf("featstore.%s: node type %q: %w", op, nt, err)
			}
			feats[nt] = x
		}
	}
	if len(feats) == 0 {
		return nil, newError(ErrArgument, op, "no node type of the graph (%v) has node data %q", g.NTypes(), name)
	}
	stores := map[string]Store{}
	fail := func(err error) (*PerType, error) {
		closeAll(stores)
		return nil, err
	}
	rels := map[string][]string{}
	for _, nt := range g.NTypes() {
		var parts []Store
		var from []string
		if x, ok := feats[nt]; ok && !(opts.LastOnly && opts.K == 1) {
			s, err := New(x, opts.DType)
			if err != nil {
				return fail(fmt.Errorf("featstore.%s: node type %q: %w", op, nt, err))
			}
			parts, from = append(parts, s), append(from, "self")
		}
		if opts.K == 1 {
			for _, ce := range g.CanonicalETypes() {
				xs, ok := feats[ce.Src]
				if ce.Dst != nt || !ok {
					continue
				}
				agg, err := aggregateRelation(g, ce, xs, norm)
				if err != nil {
					return fail(err)
				}
				s, err := New(agg, opts.DType)
				if err != nil {
					return fail(fmt.Errorf("featstore.%s: node type %q, relation %v: %w", op, nt, ce, err))
				}
				parts, from = append(parts, s), append(from, ce.String())
			}
		}
		switch len(parts) {
		case 0:
			continue
		case 1:
			stores[nt] = parts[0]
		default:
			c, err := NewConcat(parts...)
			if err != nil {
				return fail(err)
			}
			stores[nt] = c
		}
		rels[nt] = from
	}
	p := newPerType(stores)
	p.relations = rels
	return p, nil
}

// RelationsOf returns, for a PerType of PropagatePerType, what each block
// of ntype's features holds in order: "self" (X_t) or the canonical edge
// type aggregated; nil for other PerTypes or a type without a store.
func (p *PerType) RelationsOf(ntype string) []string {
	return append([]string(nil), p.relations[ntype]...)
}

// aggregateRelation returns Â_r X_src for relation ce, (N_dst, F) float32.
func aggregateRelation(g *graph.Graph, ce graph.CanonicalEType, xs *tensor.Tensor, norm string) (*tensor.Tensor, error) {
	adj := g.AdjOf(ce.String())
	x, ns, f, err := checkFeatures("PropagatePerType", xs)
	if err != nil {
		return nil, err
	}
	if ns != adj.NumSrc {
		return nil, engerr.New(ErrShape, "featstore", "PropagatePerType", "node data of %q has %d rows, the type has %d nodes", ce.Src, ns, adj.NumSrc)
	}
	var outDeg []float64
	if norm == "both" {
		outDeg = make([]float64, adj.NumSrc)
		for _, s := range adj.Indices {
			outDeg[s]++
		}
	}
	out := tensor.New(tensor.Float32, adj.NumDst, f)
	o := out.Float32s()
	parallelRows(adj.NumDst, f, func(lo, hi int) {
		for d := lo; d < hi; d++ {
			deg := adj.Indptr[d+1] - adj.Indptr[d]
			if deg == 0 {
				continue
			}
			row := o[d*f : (d+1)*f]
			for p := adj.Indptr[d]; p < adj.Indptr[d+1]; p++ {
				s := adj.Indices[p]
				w := float32(1)
				switch norm {
				case "right":
					w = 1 / float32(deg)
				case "both":
					w = float32(1 / math.Sqrt(outDeg[s]*float64(deg)))
				}
				axpy(row, w, x[int(s)*f:(int(s)+1)*f])
			}
		}
	})
	return out, nil
}
