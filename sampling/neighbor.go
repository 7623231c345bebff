package sampling

import (
	"fmt"
	"math"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// ErrArgument is wrapped by every error about an invalid option, seed id or
// data name. It is tensor.ErrArgument, the engine's shared sentinel, so
// errors.Is(err, tensor.ErrArgument) holds for these errors too.
var ErrArgument = engerr.ErrArgument

// Sampler turns seed nodes into the blocks of a multi-layer GNN (DGL's
// BlockSampler.sample_blocks).
type Sampler interface {
	// SampleBlocks returns one block per layer for the seeds of g: blocks[0]
	// is the input layer, and the destination nodes of the last block are
	// the seeds, in order. The sample is a function of (g, epochSeed) and
	// each node's id only, never of which other seeds are in the call.
	SampleBlocks(g *graph.Graph, seeds []int64, epochSeed uint64) ([]*graph.Block, error)
}

var (
	_ Sampler = NeighborSampler{}
	_ Sampler = MultiLayerFullNeighborSampler{}
)

// NeighborSampler samples a fixed number of neighbours per node and layer,
// as DGL's dgl.dataloading.NeighborSampler(fanouts, edge_dir, prob,
// replace) (Hamilton et al., "Inductive Representation Learning on Large
// Graphs", NeurIPS 2017).
//
// Fanouts lists the number of neighbours to sample per layer, input layer
// first: Fanouts[i] is used for blocks[i], so sampling starts with the last
// fanout at the seeds and proceeds towards the input. A fanout of -1 takes
// all neighbours.
//
// EdgeDir is "in" (the default when empty): a node's neighbours are the
// sources of its in-edges, and messages flow along the edges. With "out" a
// node's neighbours are the destinations of its out-edges, and messages
// flow from them to the node, against the direction of the parent edges
// (the block edge u -> v stands for the parent edge v -> u, whose id it
// records).
//
// Prob names float32 edge data of shape (E) or (E, 1) holding non-negative
// sampling weights; "" samples uniformly. An edge is picked with probability
// proportional to its weight (without replacement by A-ES); an edge of
// weight 0 is never picked, even with fanout -1, so a node may get fewer
// edges than its fanout.
//
// Replace samples with replacement: a node with at least one neighbour gets
// exactly fanout edges (repeats possible). Without replacement a node gets
// min(fanout, degree) distinct edges, each neighbour once when the fanout
// is at least the degree.
//
// The zero value is not usable: Fanouts must have at least one entry.
type NeighborSampler struct {
	Fanouts []int
	EdgeDir string
	Prob    string
	Replace bool
}

// NumLayers returns len(s.Fanouts).
func (s NeighborSampler) NumLayers() int { return len(s.Fanouts) }

// prepared is a checked sampler bound to a graph.
type prepared struct {
	adj      *tensor.Adj
	owner    []int64 // owner[e]: the node whose adjacency list in adj holds edge e
	weights  []float32
	numNodes int
}

// prepare checks the options against g without scanning the weights and
// returns what sampling needs.
func (s NeighborSampler) prepare(g *graph.Graph) (*prepared, error) {
	const name = "sampling.NeighborSampler"
	if g == nil {
		return nil, fmt.Errorf("%s: the graph is nil: %w", name, ErrArgument)
	}
	if !g.IsHomogeneous() {
		return nil, fmt.Errorf("%s: %w (node types %v, edge types %v); sample a homogeneous graph",
			name, graph.ErrHetero, g.NTypes(), g.ETypes())
	}
	if len(s.Fanouts) == 0 {
		return nil, fmt.Errorf("%s: Fanouts is empty; give one fanout per layer (a count >= 0, or -1 for all neighbours): %w", name, ErrArgument)
	}
	for i, f := range s.Fanouts {
		if f < -1 {
			return nil, fmt.Errorf("%s: Fanouts[%d] = %d; a fanout is a count >= 0, or -1 for all neighbours: %w", name, i, f, ErrArgument)
		}
	}
	p := &prepared{numNodes: g.NumNodes()}
	if p.numNodes > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d nodes; the sampler's int32 relabelling marker supports at most %d: %w", name, p.numNodes, math.MaxInt32, ErrArgument)
	}
	switch s.EdgeDir {
	case "", "in":
		p.adj = g.Adj()
		_, dst := g.Edges()
		p.owner = dst.Int64s()
	case "out":
		p.adj = g.OutAdj()
		src, _ := g.Edges()
		p.owner = src.Int64s()
	default:
		return nil, fmt.Errorf("%s: EdgeDir %q; want \"in\" (the default) or \"out\": %w", name, s.EdgeDir, ErrArgument)
	}
	if s.Prob != "" {
		if !g.HasEData(s.Prob) {
			return nil, fmt.Errorf("%s: Prob %q is not edge data of the graph (have %v): %w", name, s.Prob, g.EDataNames(), ErrArgument)
		}
		t := g.EData(s.Prob)
		sh := t.Shape()
		if t.DType() != tensor.Float32 || !(len(sh) == 1 || len(sh) == 2 && sh[1] == 1) {
			return nil, fmt.Errorf("%s: Prob %q must be float32 of shape (%d) or (%d, 1), got %s %v: %w",
				name, s.Prob, g.NumEdges(), g.NumEdges(), t.DType(), sh, ErrArgument)
		}
		p.weights = t.Float32s()
	}
	return p, nil
}

// Validate checks the options against g as SampleBlocks does and also scans
// every weight of Prob, returning an error naming the first edge whose
// weight is negative, NaN or infinite. DataLoader calls it once at
// construction; SampleBlocks checks only the weights it reads.
func (s NeighborSampler) Validate(g *graph.Graph) error {
	p, err := s.prepare(g)
	if err != nil {
		return err
	}
	for e, w := range p.weights {
		if !validWeight(w) {
			return fmt.Errorf("sampling.NeighborSampler: Prob %q: edge %d has weight %g; weights must be finite and >= 0: %w",
				s.Prob, e, w, ErrArgument)
		}
	}
	return nil
}

// checkSeeds returns an error naming the first seed outside [0, n).
func checkSeeds(op string, seeds []int64, n int) error {
	for i, v := range seeds {
		if v < 0 || v >= int64(n) {
			return fmt.Errorf("%s: seed node id %d (position %d) is outside [0, %d): %w", op, v, i, n, ErrArgument)
		}
	}
	return nil
}

// SampleBlocks samples len(Fanouts) layers of neighbours of seeds in g and
// returns the blocks, input layer first (see Sampler). Block i has the
// source nodes of block i+1 as its destination nodes; the last block's
// destination nodes are seeds. Every block holds the parent ids of its
// source nodes (SrcData(graph.NID)) and edges (EData(graph.EID)).
//
// The neighbours of node v in layer i are drawn from a random stream keyed
// by (epochSeed, i, v), so they do not depend on the other seeds. Errors
// name an invalid option, a seed id outside [0, NumNodes), or an invalid
// weight met while sampling; a cancelled evaluation (runctx) stops it
// between layers with the context's error.
func (s NeighborSampler) SampleBlocks(g *graph.Graph, seeds []int64, epochSeed uint64) ([]*graph.Block, error) {
	p, err := s.prepare(g)
	if err != nil {
		return nil, err
	}
	if err := checkSeeds("sampling.NeighborSampler.SampleBlocks", seeds, p.numNodes); err != nil {
		return nil, err
	}
	return s.sample(p, seeds, epochSeed, nil)
}

// ExcludingSampler is a Sampler that can sample as if some edges were
// removed from the graph (the exclude_eids argument of DGL's
// BlockSampler.sample_blocks), as the edge DataLoader needs for its
// Exclude modes. NeighborSampler and MultiLayerFullNeighborSampler are
// ExcludingSamplers.
type ExcludingSampler interface {
	Sampler
	// SampleBlocksExcluding is SampleBlocks on g without the edges whose
	// ids are in excludeEIDs (repeats allowed).
	SampleBlocksExcluding(g *graph.Graph, seeds []int64, epochSeed uint64, excludeEIDs []int64) ([]*graph.Block, error)
}

var (
	_ ExcludingSampler = NeighborSampler{}
	_ ExcludingSampler = MultiLayerFullNeighborSampler{}
)

// SampleBlocksExcluding is SampleBlocks with the edges excludeEIDs (parent
// edge ids, repeats allowed) removed from g first, as DGL's
// sample_neighbors(exclude_edges=...): an excluded edge is never sampled,
// and a node that has some gets min(fanout, remaining degree) edges drawn
// from its remaining ones. Nodes without an excluded edge are sampled
// exactly as by SampleBlocks with the same epochSeed. An excluded id
// outside [0, NumEdges) is an error naming it.
func (s NeighborSampler) SampleBlocksExcluding(g *graph.Graph, seeds []int64, epochSeed uint64, excludeEIDs []int64) ([]*graph.Block, error) {
	p, err := s.prepare(g)
	if err != nil {
		return nil, err
	}
	const op = "sampling.NeighborSampler.SampleBlocksExcluding"
	if err := checkSeeds(op, seeds, p.numNodes); err != nil {
		return nil, err
	}
	ne := int64(g.NumEdges())
	for i, e := range excludeEIDs {
		if e < 0 || e >= ne {
			return nil, fmt.Errorf("%s: excluded edge id %d (position %d) is outside [0, %d): %w", op, e, i, ne, ErrArgument)
		}
	}
	return s.sample(p, seeds, epochSeed, excludeEIDs)
}

// sample runs the layers of a prepared sampler over valid seeds, without
// the (valid) edges excl.
func (s NeighborSampler) sample(p *prepared, seeds []int64, epochSeed uint64, excl []int64) ([]*graph.Block, error) {
	ws := getWorkspace(p.numNodes)
	defer func() {
		ws.account()
		putWorkspace(ws)
	}()
	var x *exclusion
	if len(excl) > 0 {
		x = ws.exclude(p.adj, p.owner, excl)
		defer ws.clearExclusion(p.owner, excl)
	}
	blocks := make([]*graph.Block, len(s.Fanouts))
	dst := seeds
	for l := len(s.Fanouts) - 1; l >= 0; l-- {
		if err := runctx.Err(); err != nil {
			return nil, err
		}
		c := &layerSpec{adj: p.adj, weights: p.weights, probName: s.Prob, fanout: s.Fanouts[l],
			replace: s.Replace, key: layerKey(epochSeed, l), excl: x}
		b, err := sampleLayer(ws, c, dst)
		if err != nil {
			return nil, err
		}
		blocks[l] = b
		dst = b.SrcNodeIDs()
	}
	return blocks, nil
}

// MultiLayerFullNeighborSampler takes every neighbour of every node in each
// of NumLayers layers (DGL's dgl.dataloading.MultiLayerFullNeighborSampler),
// for inference and full-neighbourhood training. EdgeDir is as in
// NeighborSampler. The blocks carry parent node and edge ids.
type MultiLayerFullNeighborSampler struct {
	NumLayers int
	EdgeDir   string
}

// FullNeighborSampler is another name for MultiLayerFullNeighborSampler.
type FullNeighborSampler = MultiLayerFullNeighborSampler

// neighbor returns the equivalent NeighborSampler (fanout -1 everywhere).
func (s MultiLayerFullNeighborSampler) neighbor() (NeighborSampler, error) {
	if s.NumLayers < 1 {
		return NeighborSampler{}, fmt.Errorf("sampling.MultiLayerFullNeighborSampler: NumLayers = %d; want at least 1: %w", s.NumLayers, ErrArgument)
	}
	f := make([]int, s.NumLayers)
	for i := range f {
		f[i] = -1
	}
	return NeighborSampler{Fanouts: f, EdgeDir: s.EdgeDir}, nil
}

// SampleBlocks returns NumLayers blocks holding all in-edges (or out-edges)
// of their destination nodes; epochSeed is unused. See
// NeighborSampler.SampleBlocks for the layout and the errors.
func (s MultiLayerFullNeighborSampler) SampleBlocks(g *graph.Graph, seeds []int64, epochSeed uint64) ([]*graph.Block, error) {
	ns, err := s.neighbor()
	if err != nil {
		return nil, err
	}
	return ns.SampleBlocks(g, seeds, epochSeed)
}

// SampleBlocksExcluding is SampleBlocks without the edges excludeEIDs (see
// NeighborSampler.SampleBlocksExcluding).
func (s MultiLayerFullNeighborSampler) SampleBlocksExcluding(g *graph.Graph, seeds []int64, epochSeed uint64, excludeEIDs []int64) ([]*graph.Block, error) {
	ns, err := s.neighbor()
	if err != nil {
		return nil, err
	}
	return ns.SampleBlocksExcluding(g, seeds, epochSeed, excludeEIDs)
}

// Validate checks NumLayers and EdgeDir against g.
func (s MultiLayerFullNeighborSampler) Validate(g *graph.Graph) error {
	ns, err := s.neighbor()
	if err != nil {
		return err
	}
	return ns.Validate(g)
}

// String renders the sampler as DGL users write it.
func (s NeighborSampler) String() string {
	dir := s.EdgeDir
	if dir == "" {
		dir = "in"
	}
	return fmt.Sprintf("NeighborSampler(fanouts=%v, edge_dir=%q, prob=%q, replace=%v)", s.Fanouts, dir, s.Prob, s.Replace)
}

// PickNeighbors picks the neighbours of nodes (ids of g) in layer layer
// (0 is the input layer) under epochSeed exactly as SampleBlocks does, and
// returns them unrelabelled: node nodes[i]'s picks are nbr[indptr[i] :
// indptr[i+1]] (ids of g) through the edges eids[...] (edge ids of g), in
// adjacency order. It is the step distributed sampling runs on the rank
// that owns the nodes (package dist): with streamIDs set (one id per node
// of g, len g.NumNodes()), node v's random stream is keyed by streamIDs[v]
// instead of v, so that a partition's nodes, keyed by their ids in the
// whole graph, draw the same neighbours as the whole graph's sampler when
// their in-edges are listed in the same order. Errors: as SampleBlocks,
// a layer outside [0, len(Fanouts)), and streamIDs of another length.
func (s NeighborSampler) PickNeighbors(g *graph.Graph, nodes []int64, layer int, epochSeed uint64, streamIDs []int64) (indptr, nbr, eids []int64, err error) {
	const op = "sampling.NeighborSampler.PickNeighbors"
	p, err := s.prepare(g)
	if err != nil {
		return nil, nil, nil, err
	}
	if layer < 0 || layer >= len(s.Fanouts) {
		return nil, nil, nil, fmt.Errorf("%s: layer %d outside [0, %d): %w", op, layer, len(s.Fanouts), ErrArgument)
	}
	if streamIDs != nil && len(streamIDs) != p.numNodes {
		return nil, nil, nil, fmt.Errorf("%s: %d stream ids for %d nodes: %w", op, len(streamIDs), p.numNodes, ErrArgument)
	}
	if err := checkSeeds(op, nodes, p.numNodes); err != nil {
		return nil, nil, nil, err
	}
	c := &layerSpec{adj: p.adj, weights: p.weights, probName: s.Prob, fanout: s.Fanouts[layer],
		replace: s.Replace, key: layerKey(epochSeed, layer), ids: streamIDs}
	a := p.adj
	indptr = make([]int64, len(nodes)+1)
	for i, v := range nodes {
		indptr[i+1] = indptr[i] + c.capacity(a.Indptr[v+1]-a.Indptr[v])
	}
	total := indptr[len(nodes)]
	nbr, eids = make([]int64, total), make([]int64, total)
	var sc scratch
	w, err := pickRange(&sc, c, nodes, 0, len(nodes), 0, indptr, nbr, eids)
	if err != nil {
		return nil, nil, nil, err
	}
	return indptr, nbr[:w:w], eids[:w:w], nil
}
