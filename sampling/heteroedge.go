package sampling

import (
	"fmt"
	"sort"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// ExcludeReverseTypes is the Exclude mode of HeteroEdgePredictionOptions
// that removes the batch's edges and the edges with the same ids of their
// reverse edge types (ReverseETypes) before sampling (DGL's
// exclude="reverse_types").
const ExcludeReverseTypes = "reverse_types"

// HeteroEdgePredictionOptions configures AsHeteroEdgePredictionSampler;
// the names are those of DGL's
// dgl.dataloading.as_edge_prediction_sampler on a heterograph.
type HeteroEdgePredictionOptions struct {
	// Exclude says which edges the neighbourhoods are sampled without:
	// ExcludeNone (""), ExcludeSelf ("self": the batch's edges, per edge
	// type), ExcludeReverseTypes ("reverse_types": the batch's edges of
	// each edge type e and the edges with the same ids of ReverseETypes[e])
	// or ExcludeReverseID ("reverse_id": the batch's edges and, per edge
	// type, their reverses ReverseEIDs[e] within that type, as a symmetric
	// relation such as friendships needs). Anything else is an error.
	Exclude string
	// ReverseETypes maps an edge type to its reverse edge type (DGL's
	// reverse_etypes, e.g. {"listens": "rev-listens"}); keys as the fanout
	// maps accept. Edge i of the reverse type must be edge i of the type
	// reversed (the order graph.AddReverseEdges and the dataset loaders
	// keep). Required by "reverse_types", an error with another mode.
	ReverseETypes map[string]string
	// ReverseEIDs maps an edge type to the id, within the same type, of
	// every edge's reverse edge, (E_etype) int64. Required by "reverse_id"
	// (edge types without an entry exclude only the batch's edges), an
	// error with another mode.
	ReverseEIDs map[string]*tensor.Tensor
	// NegativeSampler draws the negative pairs of each batch's edges, per
	// edge type: PerSourceUniform(k), GlobalUniform(k) or your own. nil: no
	// negative pair graph.
	NegativeSampler HeteroNegativeSampler
}

// HeteroEdgePredictionSampler turns a HeteroSampler into one that samples
// for edge prediction on a heterograph (DGL's as_edge_prediction_sampler):
// for a batch of typed edge ids it builds the positive and negative pair
// heterographs and the blocks of every node of either, sampled with the
// inner sampler without the excluded edges. Use it with
// NewHeteroEdgeDataLoader.
type HeteroEdgePredictionSampler struct {
	Sampler HeteroSampler
	HeteroEdgePredictionOptions
}

// AsHeteroEdgePredictionSampler returns the HeteroEdgePredictionSampler of
// sampler with options o. The options are checked by
// NewHeteroEdgeDataLoader, against the graph.
func AsHeteroEdgePredictionSampler(sampler HeteroSampler, o HeteroEdgePredictionOptions) *HeteroEdgePredictionSampler {
	return &HeteroEdgePredictionSampler{Sampler: sampler, HeteroEdgePredictionOptions: o}
}

// heteroEdgeSpec is the checked form of a HeteroEdgePredictionSampler.
type heteroEdgeSpec struct {
	exclude  string
	rev      []int     // per relation: its reverse relation, or -1
	revIDs   [][]int64 // per relation: reverse edge ids within it, or nil
	neg      HeteroNegativeSampler
	excluder HeteroExcludingSampler
	eoff     []int64   // seed encoding: eoff[r] + id for relation r (len ces+1)
	src, dst [][]int64 // per relation: its edges
	si, di   []int     // per relation: source and destination type index
}

// NewHeteroEdgeDataLoader returns a loader over the edges eids (edge type
// -> a 1-D int64 tensor of edge ids within that type; copied) of the
// heterograph g for link prediction (DGL's DataLoader(g, {etype: eids},
// as_edge_prediction_sampler(sampler, exclude, reverse_etypes=...,
// negative_sampler=...))). Keys are edge type names one canonical edge
// type has, the canonical String form or "src:etype:dst". The edges of
// all edge types form one list (edge types in canonical order, ids in the
// given order), shuffled and cut into batches of BatchSize as the
// DataLoader does; a batch may hold edges of several types. Each batch
// gives:
//
//   - PairGraph: the positive pair heterograph over the batch's compacted
//     nodes, with every canonical edge type of g (zero edges where the
//     batch has none), one edge u' -> v' per batch edge u -> v of each
//     type, in batch order, the parent edge ids as EData(etype,
//     graph.EID) and the parent node ids of each node type as
//     NData(ntype, graph.NID);
//   - NegPairGraph: the negative sampler's pairs of each edge type over
//     the same nodes, with NData(graph.NID) (nil without a sampler);
//   - Blocks, InputNodes, OutputNodes: the inner sampler's blocks for the
//     compacted nodes, which are, per node type, the last block's
//     destination nodes (OutputNodes): the model's output rows of type t
//     are the pair graphs' nodes of type t.
//
// The compacted nodes of each type are the endpoints of the batch's
// edges, u then v edge by edge in batch order, then those of the negative
// pairs (edge types in canonical order), each once, in order of first
// appearance. The negatives of edge e of relation r are a function of
// (Seed, epoch, r, e), the neighbourhoods of (Seed, epoch, the batch's
// excluded edges): batches are the same for every NumWorkers. opts are
// NewHeteroDataLoader's (PrefetchLabels gathers for the endpoint types of
// the edge types of eids).
//
// Errors name the argument and wrap ErrArgument: a nil graph, sampler,
// inner sampler or eids tensor, no eids; an unknown or ambiguous edge type
// key, two keys naming one edge type; eids of another dtype or shape, or
// an id outside [0, NumEdgesOf(etype)) (naming the type and the id); an
// Exclude other than "", "self", "reverse_types" and "reverse_id";
// "reverse_types" without ReverseETypes, or ReverseETypes naming unknown
// edge types, a reverse type whose endpoint types are not the type's
// swapped, whose edge count differs, or whose edge i is not edge i
// reversed; "reverse_id" without ReverseEIDs, or ReverseEIDs not
// (NumEdgesOf(etype)) int64 ids in range; ReverseETypes or ReverseEIDs with
// another mode; an inner sampler that cannot exclude edges (not a
// HeteroExcludingSampler) with an Exclude mode; an invalid negative
// sampler for an edge type of eids (k <= 0 or more than the nodes of its
// destination type, naming both); and NewHeteroDataLoader's option errors.
// A negative sampler returning pairs of other lengths or ids out of range
// ends the epoch with an error (Err).
func NewHeteroEdgeDataLoader(g *graph.Graph, eids map[string]*tensor.Tensor, sampler *HeteroEdgePredictionSampler, opts LoaderOptions) (*HeteroDataLoader, error) {
	const name = "sampling.NewHeteroEdgeDataLoader"
	if g == nil || sampler == nil {
		return nil, fmt.Errorf("%s: the graph or the sampler is nil: %w", name, ErrArgument)
	}
	if sampler.Sampler == nil {
		return nil, fmt.Errorf("%s: the HeteroEdgePredictionSampler has no inner Sampler: %w", name, ErrArgument)
	}
	if len(eids) == 0 {
		return nil, fmt.Errorf("%s: no edges; give {edge type: edge ids}: %w", name, ErrArgument)
	}
	h, opts, err := newHeteroSource(name, g, sampler.Sampler, opts)
	if err != nil {
		return nil, err
	}
	ces := h.ces
	e := &heteroEdgeSpec{exclude: sampler.Exclude, neg: sampler.NegativeSampler, eoff: make([]int64, len(ces)+1)}
	ntIdx := map[string]int{}
	for k, nt := range h.ntypes {
		ntIdx[nt] = k
	}
	for r, ce := range ces {
		key := ce.String()
		s, d := g.EdgesOf(key)
		e.src, e.dst = append(e.src, s.Int64s()), append(e.dst, d.Int64s())
		e.si, e.di = append(e.si, ntIdx[ce.Src]), append(e.di, ntIdx[ce.Dst])
		e.eoff[r+1] = e.eoff[r] + int64(g.NumEdgesOf(key))
	}
	// The edges, per relation.
	perRel := make([][]int64, len(ces))
	named := make([]string, len(ces))
	keys := make([]string, 0, len(eids))
	for k := range eids {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r, err := matchEType(ces, k)
		if err != nil {
			return nil, fmt.Errorf("%s: eids: %w", name, err)
		}
		if named[r] != "" {
			return nil, fmt.Errorf("%s: eids: keys %q and %q name the same edge type %s: %w", name, named[r], k, ces[r].Key(), ErrArgument)
		}
		named[r] = k
		t := eids[k]
		if t == nil {
			return nil, fmt.Errorf("%s: the eids of edge type %q are nil: %w", name, k, ErrArgument)
		}
		if t.DType() != tensor.Int64 || t.Dim() != 1 {
			return nil, fmt.Errorf("%s: the eids of edge type %q must be 1-D int64 edge ids, got %s %v: %w", name, k, t.DType(), t.Shape(), ErrArgument)
		}
		if t.Device() != "cpu" {
			if t, err = t.To("cpu"); err != nil {
				return nil, fmt.Errorf("%s: copying the eids of edge type %q to the cpu: %w", name, k, err)
			}
		}
		ids := t.Int64s()
		if err := checkEIDs(fmt.Sprintf("%s: eids of edge type %s", name, ces[r].Key()), ids, int(e.eoff[r+1]-e.eoff[r])); err != nil {
			return nil, err
		}
		perRel[r] = ids
	}
	var all []int64
	var seedTypes []int
	seen := map[int]bool{}
	for r, ids := range perRel {
		if named[r] == "" {
			continue
		}
		for _, v := range ids {
			all = append(all, e.eoff[r]+v)
		}
		for _, k := range []int{e.si[r], e.di[r]} {
			if !seen[k] {
				seen[k] = true
				seedTypes = append(seedTypes, k)
			}
		}
	}
	sort.Ints(seedTypes)
	if err := e.check(name, g, sampler, named); err != nil {
		return nil, err
	}
	if err := h.setup(name, g, opts, seedTypes); err != nil {
		return nil, err
	}
	h.edge = e
	s := &source{g: g, seeds: all, opts: opts, het: h}
	return &HeteroDataLoader{dl: loaderOver(s)}, nil
}

// check checks the exclusion and negative sampling options against g;
// named[r] is the eids key of relation r, "" for relations without edges
// to load (the negative sampler is validated on the others).
func (e *heteroEdgeSpec) check(name string, g *graph.Graph, sampler *HeteroEdgePredictionSampler, named []string) error {
	ces := g.CanonicalETypes()
	switch sampler.Exclude {
	case ExcludeNone, ExcludeSelf, ExcludeReverseTypes, ExcludeReverseID:
	default:
		return fmt.Errorf("%s: Exclude %q; want \"\" (none), \"self\", \"reverse_types\" or \"reverse_id\": %w", name, sampler.Exclude, ErrArgument)
	}
	if sampler.Exclude != ExcludeNone {
		x, ok := sampler.Sampler.(HeteroExcludingSampler)
		if !ok {
			return fmt.Errorf("%s: Exclude %q needs an inner sampler that can exclude edges (a HeteroExcludingSampler such as NeighborSampler or HeteroNeighborSampler); %T is not: %w",
				name, sampler.Exclude, sampler.Sampler, ErrArgument)
		}
		e.excluder = x
	}
	if len(sampler.ReverseETypes) > 0 && sampler.Exclude != ExcludeReverseTypes {
		return fmt.Errorf("%s: ReverseETypes is set but Exclude is %q; set Exclude to \"reverse_types\" to use it: %w", name, sampler.Exclude, ErrArgument)
	}
	if len(sampler.ReverseEIDs) > 0 && sampler.Exclude != ExcludeReverseID {
		return fmt.Errorf("%s: ReverseEIDs is set but Exclude is %q; set Exclude to \"reverse_id\" to use it: %w", name, sampler.Exclude, ErrArgument)
	}
	switch sampler.Exclude {
	case ExcludeReverseTypes:
		if len(sampler.ReverseETypes) == 0 {
			return fmt.Errorf("%s: Exclude \"reverse_types\" needs ReverseETypes, the reverse edge type of each edge type ({etype: reverse etype}): %w", name, ErrArgument)
		}
		e.rev = make([]int, len(ces))
		for r := range e.rev {
			e.rev[r] = -1
		}
		keys := make([]string, 0, len(sampler.ReverseETypes))
		for k := range sampler.ReverseETypes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := sampler.ReverseETypes[k]
			r, err := matchEType(ces, k)
			if err != nil {
				return fmt.Errorf("%s: ReverseETypes key: %w", name, err)
			}
			q, err := matchEType(ces, v)
			if err != nil {
				return fmt.Errorf("%s: ReverseETypes[%q]: %w", name, k, err)
			}
			if e.rev[r] >= 0 {
				return fmt.Errorf("%s: ReverseETypes names the reverse of %s twice: %w", name, ces[r].Key(), ErrArgument)
			}
			a, b := ces[r], ces[q]
			if a.Src != b.Dst || a.Dst != b.Src {
				return fmt.Errorf("%s: ReverseETypes[%q] = %q: %s is not a reverse of %s (its endpoint types must be swapped): %w", name, k, v, b.Key(), a.Key(), ErrArgument)
			}
			if len(e.src[r]) != len(e.src[q]) {
				return fmt.Errorf("%s: ReverseETypes[%q] = %q: %s has %d edges, %s %d; a reverse type has the same edges reversed: %w",
					name, k, v, a.Key(), len(e.src[r]), b.Key(), len(e.src[q]), ErrArgument)
			}
			for i := range e.src[r] {
				if e.src[r][i] != e.dst[q][i] || e.dst[r][i] != e.src[q][i] {
					return fmt.Errorf("%s: ReverseETypes[%q] = %q: edge %d of %s is %d -> %d but edge %d of %s is %d -> %d, not its reverse (edge i of the reverse type must be edge i reversed): %w",
						name, k, v, i, a.Key(), e.src[r][i], e.dst[r][i], i, b.Key(), e.src[q][i], e.dst[q][i], ErrArgument)
				}
			}
			e.rev[r] = q
		}
	case ExcludeReverseID:
		if len(sampler.ReverseEIDs) == 0 {
			return fmt.Errorf("%s: Exclude \"reverse_id\" needs ReverseEIDs, per edge type the reverse edge id of every edge: %w", name, ErrArgument)
		}
		e.revIDs = make([][]int64, len(ces))
		keys := make([]string, 0, len(sampler.ReverseEIDs))
		for k := range sampler.ReverseEIDs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			r, err := matchEType(ces, k)
			if err != nil {
				return fmt.Errorf("%s: ReverseEIDs key: %w", name, err)
			}
			if e.revIDs[r] != nil {
				return fmt.Errorf("%s: ReverseEIDs names %s twice: %w", name, ces[r].Key(), ErrArgument)
			}
			t := sampler.ReverseEIDs[k]
			ne := len(e.src[r])
			if t == nil || t.DType() != tensor.Int64 || t.Dim() != 1 || t.Size(0) != ne {
				desc := "nil"
				if t != nil {
					desc = fmt.Sprintf("%s %v", t.DType(), t.Shape())
				}
				return fmt.Errorf("%s: ReverseEIDs[%q] must be (%d) int64, one reverse edge id per edge of %s, got %s: %w", name, k, ne, ces[r].Key(), desc, ErrArgument)
			}
			if t.Device() != "cpu" {
				if t, err = t.To("cpu"); err != nil {
					return fmt.Errorf("%s: copying ReverseEIDs[%q] to the cpu: %w", name, k, err)
				}
			}
			ids := append([]int64{}, t.Int64s()...)
			for i, v := range ids {
				if v < 0 || v >= int64(ne) {
					return fmt.Errorf("%s: ReverseEIDs[%q][%d] = %d is outside [0, %d): %w", name, k, i, v, ne, ErrArgument)
				}
			}
			e.revIDs[r] = ids
		}
	}
	if e.neg != nil {
		for r := range ces {
			if named[r] == "" {
				continue
			}
			if err := e.neg.ValidateEType(g, ces[r].Key()); err != nil {
				return fmt.Errorf("%s: NegativeSampler: %w", name, err)
			}
		}
	}
	return nil
}

// negSeed is the seed of relation r's negatives in an epoch.
func negSeed(epochSeed uint64, r int) uint64 { return mix64(epochSeed ^ uint64(r+1)*golden) }

// sample builds one batch of the encoded edges enc: the compacted nodes,
// the pair graphs and the blocks.
func (e *heteroEdgeSpec) sample(g *graph.Graph, h *heteroSource, enc []int64, epochSeed uint64) (blocks []*graph.HeteroBlock, pair, neg *graph.Graph, err error) {
	nr := len(h.ces)
	perRel := make([][]int64, nr)
	rels := make([]int, len(enc))
	for i, v := range enc {
		r := sort.Search(nr, func(r int) bool { return e.eoff[r+1] > v })
		rels[i] = r
		perRel[r] = append(perRel[r], v-e.eoff[r])
	}
	var nsrc, ndst [][]int64
	if e.neg != nil {
		nsrc, ndst = make([][]int64, nr), make([][]int64, nr)
		for r, ids := range perRel {
			if len(ids) == 0 {
				continue
			}
			ce := h.ces[r]
			s, d, err := e.neg.SampleNegativesOf(g, ce.Key(), ids, negSeed(epochSeed, r))
			if err != nil {
				return nil, nil, nil, err
			}
			if len(s) != len(d) {
				return nil, nil, nil, fmt.Errorf("sampling.HeteroDataLoader: the negative sampler returned %d sources and %d destinations for %s: %w", len(s), len(d), ce.Key(), ErrArgument)
			}
			ns, nd := int64(g.NumNodesOf(ce.Src)), int64(g.NumNodesOf(ce.Dst))
			for i := range s {
				if s[i] < 0 || s[i] >= ns || d[i] < 0 || d[i] >= nd {
					return nil, nil, nil, fmt.Errorf("sampling.HeteroDataLoader: the negative sampler returned the pair %d -> %d of %s outside [0, %d) x [0, %d): %w", s[i], d[i], ce.Key(), ns, nd, ErrArgument)
				}
			}
			nsrc[r], ndst[r] = s, d
		}
	}
	// Compact with the dense marker of a workspace over all node types:
	// mark[offsets[k] + v] = 1 + local id.
	ws := getWorkspace(int(h.offsets[len(h.ntypes)]))
	nodes := make([][]int64, len(h.ntypes))
	local := func(k int, v int64) int64 {
		j := h.offsets[k] + v
		m := ws.mark[j]
		if m == 0 {
			nodes[k] = append(nodes[k], v)
			m = int32(len(nodes[k]))
			ws.mark[j] = m
		}
		return int64(m - 1)
	}
	pu, pv := make([][]int64, nr), make([][]int64, nr)
	for i, v := range enc {
		r := rels[i]
		id := v - e.eoff[r]
		pu[r] = append(pu[r], local(e.si[r], e.src[r][id]))
		pv[r] = append(pv[r], local(e.di[r], e.dst[r][id]))
	}
	var nu, nv [][]int64
	if e.neg != nil {
		nu, nv = make([][]int64, nr), make([][]int64, nr)
		for r := range nsrc {
			nu[r], nv[r] = make([]int64, len(nsrc[r])), make([]int64, len(nsrc[r]))
			for i := range nsrc[r] {
				nu[r][i], nv[r][i] = local(e.si[r], nsrc[r][i]), local(e.di[r], ndst[r][i])
			}
		}
	}
	for k, ns := range nodes {
		for _, v := range ns {
			ws.mark[h.offsets[k]+v] = 0
		}
	}
	putWorkspace(ws)

	seeds := make(map[string][]int64, len(h.ntypes))
	for k, nt := range h.ntypes {
		seeds[nt] = nodes[k]
	}
	if e.exclude == ExcludeNone {
		blocks, err = h.sampler.SampleHeteroBlocks(g, seeds, epochSeed)
	} else {
		x := make([][]int64, nr)
		for r, ids := range perRel {
			x[r] = append(x[r], ids...)
			switch e.exclude {
			case ExcludeReverseTypes:
				if q := e.rev[r]; q >= 0 {
					x[q] = append(x[q], ids...)
				}
			case ExcludeReverseID:
				if rv := e.revIDs[r]; rv != nil {
					for _, id := range ids {
						x[r] = append(x[r], rv[id])
					}
				}
			}
		}
		ex := make(map[string][]int64, nr)
		for r, ids := range x {
			if len(ids) > 0 {
				ex[h.ces[r].Key()] = ids
			}
		}
		blocks, err = e.excluder.SampleHeteroBlocksExcluding(g, seeds, epochSeed, ex)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if pair, err = heteroPairGraph(h, nodes, pu, pv); err != nil {
		return nil, nil, nil, err
	}
	for r, ce := range h.ces {
		ids := perRel[r]
		if ids == nil {
			ids = []int64{}
		}
		if err = pair.SetEDataOf(ce.String(), graph.EID, tensor.FromInt64(ids)); err != nil {
			return nil, nil, nil, err
		}
	}
	if e.neg != nil {
		if neg, err = heteroPairGraph(h, nodes, nu, nv); err != nil {
			return nil, nil, nil, err
		}
	}
	return blocks, pair, neg, nil
}

// heteroPairGraph builds a pair heterograph over the compacted nodes
// (per node type index) with the edges src[r] -> dst[r] (local ids) of
// every relation r, and the parent node ids as NData(graph.NID).
func heteroPairGraph(h *heteroSource, nodes [][]int64, src, dst [][]int64) (*graph.Graph, error) {
	num := make(map[string]int, len(h.ntypes))
	for k, nt := range h.ntypes {
		num[nt] = len(nodes[k])
	}
	edges := make(map[graph.CanonicalEType]graph.EdgeList, len(h.ces))
	for r, ce := range h.ces {
		s, d := src[r], dst[r]
		if s == nil {
			s, d = []int64{}, []int64{}
		}
		edges[ce] = graph.EdgeList{Src: s, Dst: d}
	}
	g, err := graph.NewHeteroOwned(num, edges)
	if err != nil {
		return nil, err
	}
	for k, nt := range h.ntypes {
		ids := nodes[k]
		if ids == nil {
			ids = []int64{}
		}
		if err := g.SetNDataOf(nt, graph.NID, tensor.FromInt64(ids)); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// PairGraph returns the current batch's positive pair heterograph of a
// heterograph edge DataLoader (see NewHeteroEdgeDataLoader): every
// canonical edge type of the graph, one edge per batch edge of that type,
// over the batch's compacted nodes, with EData(etype, graph.EID) and
// NData(ntype, graph.NID). It is nil for a node HeteroDataLoader, before
// the first Next and after Next returns false.
func (l *HeteroDataLoader) PairGraph() *graph.Graph {
	if l.dl.batch == nil {
		return nil
	}
	return l.dl.batch.pair
}

// NegPairGraph returns the current batch's negative pair heterograph of a
// heterograph edge DataLoader, over the same nodes as PairGraph, with
// NData(ntype, graph.NID); nil without a negative sampler (and when
// PairGraph is nil).
func (l *HeteroDataLoader) NegPairGraph() *graph.Graph {
	if l.dl.batch == nil {
		return nil
	}
	return l.dl.batch.negPair
}
