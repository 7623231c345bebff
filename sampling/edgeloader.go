package sampling

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// The Exclude modes of EdgePredictionOptions (DGL's exclude argument of
// as_edge_prediction_sampler).
const (
	// ExcludeNone keeps the batch's edges in the sampled neighbourhoods.
	ExcludeNone = ""
	// ExcludeSelf removes the batch's edges from the graph before
	// sampling the neighbourhoods.
	ExcludeSelf = "self"
	// ExcludeReverseID removes the batch's edges and their reverse edges
	// (ReverseEIDs) before sampling.
	ExcludeReverseID = "reverse_id"
)

// EdgePredictionOptions configures AsEdgePredictionSampler; the names are
// those of DGL's dgl.dataloading.as_edge_prediction_sampler.
type EdgePredictionOptions struct {
	// Exclude says which edges the neighbourhoods are sampled without, so
	// that a model does not see the edges it is asked to predict:
	// ExcludeNone (""), ExcludeSelf ("self": the batch's edges) or
	// ExcludeReverseID ("reverse_id": the batch's edges and their reverses
	// ReverseEIDs[e], as a graph with both directions of every undirected
	// edge needs). Anything else is an error.
	Exclude string
	// ReverseEIDs maps every edge id e of the graph to the id of its
	// reverse edge, (E) int64 (DGL's reverse_eids; datasets.LinkDataset's
	// ReverseEIDs). Required by "reverse_id", an error with another mode.
	ReverseEIDs *tensor.Tensor
	// NegativeSampler draws the negative pairs of each batch (DGL's
	// negative_sampler): PerSourceUniform(k), GlobalUniform(k) or your own.
	// nil: no negative pair graph.
	NegativeSampler NegativeSampler
}

// EdgePredictionSampler turns a node Sampler into one that samples for
// edge prediction (DGL's as_edge_prediction_sampler): for a batch of edge
// ids it builds the positive pair graph (the batch's edges), the negative
// pair graph (the negative sampler's pairs) and the blocks of every node of
// either, sampled with the inner Sampler without the excluded edges. Use it
// with NewEdgeDataLoader.
type EdgePredictionSampler struct {
	Sampler Sampler
	EdgePredictionOptions
}

// AsEdgePredictionSampler returns the EdgePredictionSampler of sampler with
// options o (dgl.dataloading.as_edge_prediction_sampler(sampler, exclude,
// reverse_eids, negative_sampler=...)). The options are checked by
// NewEdgeDataLoader, against the graph.
func AsEdgePredictionSampler(sampler Sampler, o EdgePredictionOptions) *EdgePredictionSampler {
	return &EdgePredictionSampler{Sampler: sampler, EdgePredictionOptions: o}
}

// edgeSpec is the checked form of an EdgePredictionSampler.
type edgeSpec struct {
	exclude  string
	rev      []int64 // reverse edge ids, for "reverse_id"
	neg      NegativeSampler
	excluder ExcludingSampler // the inner sampler, when exclude is set
	src, dst []int64          // the graph's edges
}

// NewEdgeDataLoader returns a DataLoader over the edges eids of g for link
// prediction (DGL's DataLoader(g, train_eids,
// as_edge_prediction_sampler(sampler, ...)), the EdgeDataLoader of older
// DGL). Each batch holds BatchSize edge ids (shuffled as node seeds are,
// with opts as for NewDataLoader), and the DataLoader's accessors give:
//
//   - PairGraph: the positive pair graph, one edge u' -> v' per batch edge
//     u -> v in batch order, over the batch's compacted nodes, with the
//     parent edge ids as EData(graph.EID) and parent node ids as
//     NData(graph.NID);
//   - NegPairGraph: the negative pairs of NegativeSampler over the same
//     nodes (nil without a negative sampler);
//   - Blocks, InputNodes, OutputNodes: the inner sampler's blocks for the
//     compacted nodes, which are the last block's destination nodes
//     (OutputNodes), so the model's output rows are the pair graphs' nodes.
//
// The compacted nodes are the endpoints of the batch's edges, u then v
// edge by edge, then those of the negative pairs, each once, in order of
// first appearance. The negatives of edge e are a function of (Seed,
// epoch, e), the neighbourhoods of (Seed, epoch, the batch's excluded
// edges): batches are the same for every NumWorkers.
//
// eids is a 1-D int64 tensor of edge ids (copied). Errors name the
// argument and wrap ErrArgument: a nil graph, sampler or eids; eids of
// another dtype or shape, or an id outside [0, NumEdges) (naming it); an
// Exclude other than "", "self" and "reverse_id"; "reverse_id" without
// ReverseEIDs, or ReverseEIDs that are not (NumEdges) int64 ids in range;
// an inner sampler that cannot exclude edges (not an ExcludingSampler)
// with an Exclude mode; an invalid negative sampler (k <= 0 or more than
// the graph's nodes); and NewDataLoader's option errors.
func NewEdgeDataLoader(g *graph.Graph, eids *tensor.Tensor, sampler *EdgePredictionSampler, opts LoaderOptions) (*DataLoader, error) {
	const name = "sampling.NewEdgeDataLoader"
	for _, a := range []struct {
		arg string
		nil bool
	}{{"g (the graph)", g == nil}, {"eids (the edge ids)", eids == nil}, {"sampler", sampler == nil}} {
		if a.nil {
			return nil, fmt.Errorf("%s: %s is nil: %w", name, a.arg, ErrArgument)
		}
	}
	if eids.DType() != tensor.Int64 || eids.Dim() != 1 {
		return nil, fmt.Errorf("%s: eids must be 1-D int64 edge ids, got %s %v: %w", name, eids.DType(), eids.Shape(), ErrArgument)
	}
	if eids.Device() != "cpu" {
		cpu, err := eids.To("cpu")
		if err != nil {
			return nil, fmt.Errorf("%s: copying eids to the cpu: %w", name, err)
		}
		eids = cpu
	}
	if sampler.Sampler == nil {
		return nil, fmt.Errorf("%s: the EdgePredictionSampler has no inner Sampler: %w", name, ErrArgument)
	}
	spec := &edgeSpec{exclude: sampler.Exclude, neg: sampler.NegativeSampler}
	if spec.neg != nil {
		if err := spec.neg.Validate(g); err != nil {
			return nil, fmt.Errorf("%s: NegativeSampler: %w", name, err)
		}
	}
	switch sampler.Exclude {
	case ExcludeNone, ExcludeSelf, ExcludeReverseID:
	default:
		return nil, fmt.Errorf("%s: Exclude %q; want \"\" (none), \"self\" or \"reverse_id\": %w", name, sampler.Exclude, ErrArgument)
	}
	if sampler.Exclude != ExcludeNone {
		x, ok := sampler.Sampler.(ExcludingSampler)
		if !ok {
			return nil, fmt.Errorf("%s: Exclude %q needs an inner sampler that can exclude edges (an ExcludingSampler such as NeighborSampler); %T is not: %w",
				name, sampler.Exclude, sampler.Sampler, ErrArgument)
		}
		spec.excluder = x
	}
	if r := sampler.ReverseEIDs; r != nil {
		if sampler.Exclude != ExcludeReverseID {
			return nil, fmt.Errorf("%s: ReverseEIDs is set but Exclude is %q; set Exclude to \"reverse_id\" to use it: %w", name, sampler.Exclude, ErrArgument)
		}
		if r.DType() != tensor.Int64 || r.Dim() != 1 || r.Size(0) != g.NumEdges() {
			return nil, fmt.Errorf("%s: ReverseEIDs must be (%d) int64, one reverse edge id per edge, got %s %v: %w",
				name, g.NumEdges(), r.DType(), r.Shape(), ErrArgument)
		}
		if r.Device() != "cpu" {
			cpu, err := r.To("cpu")
			if err != nil {
				return nil, fmt.Errorf("%s: copying ReverseEIDs to the cpu: %w", name, err)
			}
			r = cpu
		}
		spec.rev = append([]int64(nil), r.Int64s()...)
		for e, v := range spec.rev {
			if v < 0 || v >= int64(g.NumEdges()) {
				return nil, fmt.Errorf("%s: ReverseEIDs[%d] = %d is outside [0, %d): %w", name, e, v, g.NumEdges(), ErrArgument)
			}
		}
	} else if sampler.Exclude == ExcludeReverseID {
		return nil, fmt.Errorf("%s: Exclude \"reverse_id\" needs ReverseEIDs, the reverse edge id of every edge: %w", name, ErrArgument)
	}
	return newDataLoader(name, g, eids.Int64s(), sampler.Sampler, opts, spec)
}

// validate takes g's edge lists (the options were checked by
// NewEdgeDataLoader, g's homogeneity by newDataLoader).
func (e *edgeSpec) validate(name string, g *graph.Graph) error {
	s, d := g.Edges()
	e.src, e.dst = s.Int64s(), d.Int64s()
	return nil
}

// sample builds one batch of the edges eids: the compacted nodes, the
// pair graphs and the blocks.
func (e *edgeSpec) sample(g *graph.Graph, sampler Sampler, eids []int64, epochSeed uint64) (blocks []*graph.Block, pair, neg *graph.Graph, err error) {
	var nsrc, ndst []int64
	if e.neg != nil {
		if nsrc, ndst, err = e.neg.SampleNegatives(g, eids, epochSeed); err != nil {
			return nil, nil, nil, err
		}
		if len(nsrc) != len(ndst) {
			return nil, nil, nil, fmt.Errorf("sampling.DataLoader: the negative sampler returned %d sources and %d destinations: %w", len(nsrc), len(ndst), ErrArgument)
		}
		n := int64(g.NumNodes())
		for i := range nsrc {
			if nsrc[i] < 0 || nsrc[i] >= n || ndst[i] < 0 || ndst[i] >= n {
				return nil, nil, nil, fmt.Errorf("sampling.DataLoader: the negative sampler returned the pair %d -> %d outside [0, %d): %w", nsrc[i], ndst[i], n, ErrArgument)
			}
		}
	}
	// Compact with the dense marker of a workspace: mark[v] = 1 + local id.
	ws := getWorkspace(g.NumNodes())
	nodes := make([]int64, 0, 2*len(eids)+2*len(nsrc))
	local := func(v int64) int64 {
		m := ws.mark[v]
		if m == 0 {
			nodes = append(nodes, v)
			m = int32(len(nodes))
			ws.mark[v] = m
		}
		return int64(m - 1)
	}
	pu, pv := make([]int64, len(eids)), make([]int64, len(eids))
	for i, id := range eids {
		pu[i], pv[i] = local(e.src[id]), local(e.dst[id])
	}
	nu, nv := make([]int64, len(nsrc)), make([]int64, len(nsrc))
	for i := range nsrc {
		nu[i], nv[i] = local(nsrc[i]), local(ndst[i])
	}
	for _, v := range nodes {
		ws.mark[v] = 0
	}
	putWorkspace(ws)

	switch e.exclude {
	case ExcludeNone:
		blocks, err = sampler.SampleBlocks(g, nodes, epochSeed)
	case ExcludeSelf:
		blocks, err = e.excluder.SampleBlocksExcluding(g, nodes, epochSeed, eids)
	case ExcludeReverseID:
		x := make([]int64, 0, 2*len(eids))
		x = append(x, eids...)
		for _, id := range eids {
			x = append(x, e.rev[id])
		}
		blocks, err = e.excluder.SampleBlocksExcluding(g, nodes, epochSeed, x)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	nid := tensor.FromInt64(nodes)
	if pair, err = pairGraph(len(nodes), pu, pv, nid); err != nil {
		return nil, nil, nil, err
	}
	if err = pair.SetEData(graph.EID, tensor.FromInt64(append([]int64(nil), eids...))); err != nil {
		return nil, nil, nil, err
	}
	if e.neg != nil {
		if neg, err = pairGraph(len(nodes), nu, nv, nid); err != nil {
			return nil, nil, nil, err
		}
	}
	return blocks, pair, neg, nil
}

func pairGraph(n int, src, dst []int64, nid *tensor.Tensor) (*graph.Graph, error) {
	g, err := graph.New(n, src, dst)
	if err != nil {
		return nil, err
	}
	if err := g.SetNData(graph.NID, nid); err != nil {
		return nil, err
	}
	return g, nil
}

// PairGraph returns the current batch's positive pair graph of an edge
// DataLoader (see NewEdgeDataLoader): one edge per batch edge, over the
// batch's compacted nodes, with EData(graph.EID) and NData(graph.NID). It
// is nil for a node DataLoader, before the first Next and after Next
// returns false.
func (dl *DataLoader) PairGraph() *graph.Graph {
	if dl.batch == nil {
		return nil
	}
	return dl.batch.pair
}

// NegPairGraph returns the current batch's negative pair graph of an edge
// DataLoader, over the same nodes as PairGraph, with NData(graph.NID); nil
// without a negative sampler (and when PairGraph is nil).
func (dl *DataLoader) NegPairGraph() *graph.Graph {
	if dl.batch == nil {
		return nil
	}
	return dl.batch.negPair
}
