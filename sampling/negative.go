package sampling

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// NegativeSampler draws negative node pairs for a batch of edges (DGL's
// dgl.dataloading.negative_sampler), for the negative pair graph of the
// edge DataLoader and for BPR or margin losses.
type NegativeSampler interface {
	// SampleNegatives returns the negative pairs for the edges eids of g
	// (valid ids) as source and destination node ids. The pairs are a
	// function of (g, eids, seed) only.
	SampleNegatives(g *graph.Graph, eids []int64, seed uint64) (src, dst []int64, err error)
	// Validate checks the sampler's options against g.
	Validate(g *graph.Graph) error
}

var (
	_ NegativeSampler = PerSourceUniformSampler{}
	_ NegativeSampler = GlobalUniformSampler{}
)

// PerSourceUniformSampler draws, for every edge u -> v, K pairs (u, v')
// with v' uniform over all nodes, with replacement (DGL's
// negative_sampler.PerSourceUniform(k)): exactly K*len(eids) pairs, the
// K negatives of eids[i] at positions i*K .. i*K+K-1, which is the layout
// nn.BPRLoss and nn.MarginLoss pair up. As in DGL, a v' may happen to be a
// true neighbour of u (or u itself); the cost of checking is left out, as
// the chance is small on sparse graphs.
//
// The K destinations of edge e are drawn from a random stream keyed by
// (seed, e), so they do not depend on the other edges of the batch.
type PerSourceUniformSampler struct{ K int }

// PerSourceUniform returns a PerSourceUniformSampler drawing k negatives
// per edge. k is checked when the sampler is used (Validate): k must be in
// [1, NumNodes].
func PerSourceUniform(k int) PerSourceUniformSampler { return PerSourceUniformSampler{K: k} }

// GlobalUniformSampler draws, for every edge, up to K pairs (u', v') with
// both ends uniform over all nodes, keeping only pairs that are not edges
// of the graph, not self loops (unless AllowSelfLoops) and, unless
// Replace, not drawn before in the same call (DGL's
// negative_sampler.GlobalUniform(k, exclude_self_loops, replace); the zero
// values of the flags are DGL's defaults). Each edge's pairs come from a
// stream keyed by (seed, e), with at most 8*K + 16 draws, so on a very
// small or dense graph an edge may get fewer than K pairs (DGL's sampler
// may also return fewer).
type GlobalUniformSampler struct {
	K              int
	AllowSelfLoops bool
	Replace        bool
}

// GlobalUniform returns a GlobalUniformSampler drawing up to k negatives
// per edge, without self loops or repeats (DGL's defaults). k must be in
// [1, NumNodes] (checked by Validate).
func GlobalUniform(k int) GlobalUniformSampler { return GlobalUniformSampler{K: k} }

// checkK checks a negative sampler's k against g.
func checkK(name string, k int, g *graph.Graph) error {
	if g == nil {
		return fmt.Errorf("sampling.%s: the graph is nil: %w", name, ErrArgument)
	}
	if !g.IsHomogeneous() {
		return fmt.Errorf("sampling.%s: %w; negative sampling takes a homogeneous graph", name, graph.ErrHetero)
	}
	if k <= 0 {
		return fmt.Errorf("sampling.%s: k = %d negatives per edge; want k >= 1: %w", name, k, ErrArgument)
	}
	if n := g.NumNodes(); k > n {
		return fmt.Errorf("sampling.%s: k = %d negatives per edge is more than the graph's %d nodes: %w", name, k, n, ErrArgument)
	}
	return nil
}

func checkEIDs(op string, eids []int64, numEdges int) error {
	for i, e := range eids {
		if e < 0 || e >= int64(numEdges) {
			return fmt.Errorf("%s: edge id %d (position %d) is outside [0, %d): %w", op, e, i, numEdges, ErrArgument)
		}
	}
	return nil
}

// negKey is the key of the negative sampler's streams under seed.
func negKey(seed uint64) uint64 { return mix64(seed ^ 0x6a09e667f3bcc909) }

// Validate checks that K is in [1, NumNodes].
func (s PerSourceUniformSampler) Validate(g *graph.Graph) error {
	return checkK("PerSourceUniform", s.K, g)
}

// SampleNegatives returns K pairs (u, v') per edge u -> v of eids, edge
// by edge. Errors: K outside [1, NumNodes], an edge id outside
// [0, NumEdges).
func (s PerSourceUniformSampler) SampleNegatives(g *graph.Graph, eids []int64, seed uint64) (src, dst []int64, err error) {
	if err := s.Validate(g); err != nil {
		return nil, nil, err
	}
	if err := checkEIDs("sampling.PerSourceUniform", eids, g.NumEdges()); err != nil {
		return nil, nil, err
	}
	gs, _ := g.Edges()
	us := gs.Int64s()
	n := int64(g.NumNodes())
	key := negKey(seed)
	src = make([]int64, 0, len(eids)*s.K)
	dst = make([]int64, 0, len(eids)*s.K)
	for _, e := range eids {
		st := nodeStream(key, e)
		for j := 0; j < s.K; j++ {
			src = append(src, us[e])
			dst = append(dst, st.intn(n))
		}
	}
	return src, dst, nil
}

// String renders the sampler as DGL users write it.
func (s PerSourceUniformSampler) String() string { return fmt.Sprintf("PerSourceUniform(k=%d)", s.K) }

// Validate checks that K is in [1, NumNodes].
func (s GlobalUniformSampler) Validate(g *graph.Graph) error {
	return checkK("GlobalUniform", s.K, g)
}

// SampleNegatives returns up to K pairs per edge of eids that are not
// edges of g (see GlobalUniformSampler), edge by edge. Errors as
// PerSourceUniformSampler's.
func (s GlobalUniformSampler) SampleNegatives(g *graph.Graph, eids []int64, seed uint64) (src, dst []int64, err error) {
	if err := s.Validate(g); err != nil {
		return nil, nil, err
	}
	if err := checkEIDs("sampling.GlobalUniform", eids, g.NumEdges()); err != nil {
		return nil, nil, err
	}
	out, in := g.OutAdj(), g.Adj()
	n := int64(g.NumNodes())
	key := negKey(seed)
	var seen map[[2]int64]struct{}
	if !s.Replace {
		seen = make(map[[2]int64]struct{}, len(eids)*s.K)
	}
	src = make([]int64, 0, len(eids)*s.K)
	dst = make([]int64, 0, len(eids)*s.K)
	for _, e := range eids {
		st := nodeStream(key, e)
		got := 0
		for try := 0; got < s.K && try < 8*s.K+16; try++ {
			u, v := st.intn(n), st.intn(n)
			if u == v && !s.AllowSelfLoops || hasEdge(out, in, u, v) {
				continue
			}
			if seen != nil {
				p := [2]int64{u, v}
				if _, dup := seen[p]; dup {
					continue
				}
				seen[p] = struct{}{}
			}
			src, dst = append(src, u), append(dst, v)
			got++
		}
	}
	return src, dst, nil
}

// String renders the sampler as DGL users write it.
func (s GlobalUniformSampler) String() string {
	return fmt.Sprintf("GlobalUniform(k=%d, exclude_self_loops=%v, replace=%v)", s.K, !s.AllowSelfLoops, s.Replace)
}

// hasEdge reports whether u -> v is an edge, scanning the shorter of u's
// out-list and v's in-list.
func hasEdge(out, in *tensor.Adj, u, v int64) bool {
	if out.Indptr[u+1]-out.Indptr[u] <= in.Indptr[v+1]-in.Indptr[v] {
		for _, w := range out.Indices[out.Indptr[u]:out.Indptr[u+1]] {
			if w == v {
				return true
			}
		}
		return false
	}
	for _, w := range in.Indices[in.Indptr[v]:in.Indptr[v+1]] {
		if w == u {
			return true
		}
	}
	return false
}

// SampleNegativePairs runs a negative sampler on a tensor of edge ids, as
// DGL's neg_sampler(g, eids): eids is 1-D int64 (copied to the cpu when
// needed), and the result is the (M) int64 source and destination ids of
// the negative pairs. Errors name the argument: a nil sampler, graph or
// eids, eids of another dtype or shape, an edge id out of range, the
// sampler's own options.
func SampleNegativePairs(ns NegativeSampler, g *graph.Graph, eids *tensor.Tensor, seed int64) (src, dst *tensor.Tensor, err error) {
	const op = "sampling.SampleNegativePairs"
	if ns == nil || g == nil || eids == nil {
		return nil, nil, fmt.Errorf("%s: the sampler, the graph or eids is nil: %w", op, ErrArgument)
	}
	if eids.DType() != tensor.Int64 || eids.Dim() != 1 {
		return nil, nil, fmt.Errorf("%s: eids must be 1-D int64 edge ids, got %s %v: %w", op, eids.DType(), eids.Shape(), ErrArgument)
	}
	if eids.Device() != "cpu" {
		if eids, err = eids.To("cpu"); err != nil {
			return nil, nil, fmt.Errorf("%s: copying eids to the cpu: %w", op, err)
		}
	}
	s, d, err := ns.SampleNegatives(g, eids.Int64s(), uint64(seed))
	if err != nil {
		return nil, nil, err
	}
	return tensor.FromInt64(s), tensor.FromInt64(d), nil
}

// HeteroNegativeSampler draws negative node pairs for a batch of edges of
// one edge type of a heterograph (DGL's negative samplers called on a
// heterograph with {etype: eids}): sources of the edge type's source node
// type, destinations of its destination node type. PerSourceUniform(k)
// and GlobalUniform(k) are HeteroNegativeSamplers.
type HeteroNegativeSampler interface {
	// SampleNegativesOf returns the negative pairs for the edges eids
	// (valid ids within etype) of g's edge type etype (a key matchEType
	// accepts) as source ids of its source type and destination ids of its
	// destination type. The pairs are a function of (g, etype, eids, seed).
	SampleNegativesOf(g *graph.Graph, etype string, eids []int64, seed uint64) (src, dst []int64, err error)
	// ValidateEType checks the sampler's options against edge type etype
	// of g.
	ValidateEType(g *graph.Graph, etype string) error
}

var (
	_ HeteroNegativeSampler = PerSourceUniformSampler{}
	_ HeteroNegativeSampler = GlobalUniformSampler{}
)

// checkKOf checks k against the destination node type of etype of g and
// returns the canonical edge type.
func checkKOf(name string, k int, g *graph.Graph, etype string) (graph.CanonicalEType, error) {
	if g == nil {
		return graph.CanonicalEType{}, fmt.Errorf("sampling.%s: the graph is nil: %w", name, ErrArgument)
	}
	ces := g.CanonicalETypes()
	r, err := matchEType(ces, etype)
	if err != nil {
		return graph.CanonicalEType{}, fmt.Errorf("sampling.%s: %w", name, err)
	}
	ce := ces[r]
	if k <= 0 {
		return ce, fmt.Errorf("sampling.%s: k = %d negatives per edge of %s; want k >= 1: %w", name, k, ce.Key(), ErrArgument)
	}
	if n := g.NumNodesOf(ce.Dst); k > n {
		return ce, fmt.Errorf("sampling.%s: k = %d negatives per edge of %s is more than the %d nodes of its destination type %q: %w",
			name, k, ce.Key(), n, ce.Dst, ErrArgument)
	}
	return ce, nil
}

// checkNegativesOf is checkKOf and the check of eids against etype's
// edge count; key is the relation's canonical String form.
func checkNegativesOf(name string, k int, g *graph.Graph, etype string, eids []int64) (ce graph.CanonicalEType, key string, err error) {
	if ce, err = checkKOf(name, k, g, etype); err != nil {
		return ce, "", err
	}
	key = ce.String()
	return ce, key, checkEIDs("sampling."+name+": edge type "+ce.Key(), eids, g.NumEdgesOf(key))
}

// ValidateEType checks that K is in [1, NumNodesOf(destination type of
// etype)] and that g has the edge type etype.
func (s PerSourceUniformSampler) ValidateEType(g *graph.Graph, etype string) error {
	_, err := checkKOf("PerSourceUniform", s.K, g, etype)
	return err
}

// SampleNegativesOf returns K pairs (u, v') per edge u -> v of eids of
// etype, v' uniform over the destination type's nodes, with replacement,
// edge by edge (as SampleNegatives on a homogeneous graph: the K
// negatives of eids[i] at positions i*K .. i*K+K-1, drawn from a stream
// keyed by (seed, e)). Errors: an unknown edge type, K outside
// [1, NumNodesOf(dst type)], an edge id outside [0, NumEdgesOf(etype)).
func (s PerSourceUniformSampler) SampleNegativesOf(g *graph.Graph, etype string, eids []int64, seed uint64) (src, dst []int64, err error) {
	ce, key, err := checkNegativesOf("PerSourceUniform", s.K, g, etype, eids)
	if err != nil {
		return nil, nil, err
	}
	gs, _ := g.EdgesOf(key)
	us := gs.Int64s()
	n := int64(g.NumNodesOf(ce.Dst))
	nk := negKey(seed)
	src = make([]int64, 0, len(eids)*s.K)
	dst = make([]int64, 0, len(eids)*s.K)
	for _, e := range eids {
		st := nodeStream(nk, e)
		for j := 0; j < s.K; j++ {
			src = append(src, us[e])
			dst = append(dst, st.intn(n))
		}
	}
	return src, dst, nil
}

// ValidateEType checks that K is in [1, NumNodesOf(destination type of
// etype)] and that g has the edge type etype.
func (s GlobalUniformSampler) ValidateEType(g *graph.Graph, etype string) error {
	_, err := checkKOf("GlobalUniform", s.K, g, etype)
	return err
}

// SampleNegativesOf returns up to K pairs (u', v') per edge of eids of
// etype, u' uniform over the source type's nodes and v' over the
// destination type's, that are not edges of etype (nor self loops when
// the two types are the same, unless AllowSelfLoops; nor repeats, unless
// Replace), edge by edge, as SampleNegatives. Errors as
// PerSourceUniformSampler.SampleNegativesOf.
func (s GlobalUniformSampler) SampleNegativesOf(g *graph.Graph, etype string, eids []int64, seed uint64) (src, dst []int64, err error) {
	ce, key, err := checkNegativesOf("GlobalUniform", s.K, g, etype, eids)
	if err != nil {
		return nil, nil, err
	}
	out, in := g.OutAdjOf(key), g.AdjOf(key)
	ns, nd := int64(g.NumNodesOf(ce.Src)), int64(g.NumNodesOf(ce.Dst))
	same := ce.Src == ce.Dst
	nk := negKey(seed)
	var seen map[[2]int64]struct{}
	if !s.Replace {
		seen = make(map[[2]int64]struct{}, len(eids)*s.K)
	}
	src = make([]int64, 0, len(eids)*s.K)
	dst = make([]int64, 0, len(eids)*s.K)
	for _, e := range eids {
		st := nodeStream(nk, e)
		got := 0
		for try := 0; got < s.K && try < 8*s.K+16; try++ {
			u, v := st.intn(ns), st.intn(nd)
			if same && u == v && !s.AllowSelfLoops || hasEdge(out, in, u, v) {
				continue
			}
			if seen != nil {
				p := [2]int64{u, v}
				if _, dup := seen[p]; dup {
					continue
				}
				seen[p] = struct{}{}
			}
			src, dst = append(src, u), append(dst, v)
			got++
		}
	}
	return src, dst, nil
}
