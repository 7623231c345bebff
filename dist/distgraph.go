package dist

import (
	"fmt"
	"io"
	"slices"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// DistGraph is one rank's view of a graph partitioned with PartitionGraph
// (DGL's dgl.distributed.DistGraph): rank r holds part r (its inner nodes,
// their in-edges and 1-hop halo, LoadPartition) and reaches the rest
// through collectives over the communicator. Node and edge ids seen from a
// DistGraph are the ids of the original graph (DGL uses the partition's
// new ids; here the new ids stay internal), so seeds, labels and masks of
// the dataset apply unchanged and distributed blocks compare directly with
// the single-process sampler's.
//
// Every method that fetches remote data is a collective: all ranks must
// call it, in the same order (a rank with nothing to fetch passes no ids).
// Each rank keeps two int64 and one int32 array of the whole graph's node
// count (the id maps), and only its own part's structure and features.
type DistGraph struct {
	comm     *Comm
	part     int
	cfg      *PartitionConfig
	local    *graph.Graph
	closer   io.Closer
	numNodes int
	lo       int64   // the first new id of this part
	owner    []int32 // original id -> part
	newID    []int64 // original id -> new global id
	origOf   []int64 // local node -> original id
	origEdge []int64 // local edge -> original edge id
	inner    int     // local nodes [0, inner) are inner
}

// OpenDistGraph opens the part of the partitioned graph at configPath
// (PartitionConfig, written by Partitioning.Save) that belongs to this
// rank: part comm.Rank(), which needs comm.Size() == num_parts (comm nil is
// World()). It all-gathers the parts' original node ids to build the id
// maps (a collective). Errors: the config or part file as LoadPartition
// reports them, a rank count that is not the number of parts (ErrArgument).
// The ranks agree on the outcome first: when one rank's part cannot be
// opened, that rank gets its error and every other rank an ErrArgument
// error naming it, and none waits in a collective.
func OpenDistGraph(configPath string, comm *Comm) (*DistGraph, error) {
	const op = "OpenDistGraph"
	if comm == nil {
		comm = World()
	}
	if err := comm.ready(op); err != nil {
		return nil, err
	}
	g, cfg, closer, lerr := openPart(comm, configPath)
	// The ranks agree on the outcome before the first collective, so a
	// rank whose part is bad does not leave the others waiting in it.
	flag := int64(0)
	if lerr != nil {
		flag = 1
	}
	flags, _, err := comm.AllGatherInt64s([]int64{flag})
	if err != nil {
		if closer != nil {
			closer.Close()
		}
		return nil, err
	}
	var bad []int
	for r, f := range flags {
		if f != 0 {
			bad = append(bad, r)
		}
	}
	if lerr != nil {
		return nil, lerr
	}
	if len(bad) > 0 {
		closer.Close()
		return nil, comm.rankErr(ErrArgument, op, "ranks %v could not open their parts of %s (their errors are in their output)", bad, configPath)
	}
	d := &DistGraph{comm: comm, part: comm.Rank(), cfg: cfg, local: g, closer: closer, numNodes: cfg.NumNodes,
		lo: cfg.NodeMap[comm.Rank()][0], origOf: g.NData("orig_id").Int64s(), origEdge: g.EData("orig_id").Int64s()}
	d.inner = int(cfg.NodeMap[d.part][1] - cfg.NodeMap[d.part][0])
	// Inner nodes come first, in new id order: gathering them in rank
	// order lists the original id of every new id.
	all, _, err := comm.AllGatherInt64s(d.origOf[:d.inner])
	if err != nil {
		closer.Close()
		return nil, err
	}
	if len(all) != d.numNodes {
		closer.Close()
		return nil, comm.rankErr(ErrArgument, op, "the parts hold %d inner nodes; %s says %d nodes", len(all), configPath, d.numNodes)
	}
	d.newID = make([]int64, d.numNodes)
	d.owner = make([]int32, d.numNodes)
	p := 0
	for nid, v := range all {
		for int64(nid) >= cfg.NodeMap[p][1] {
			p++
		}
		if v < 0 || v >= int64(d.numNodes) {
			closer.Close()
			return nil, comm.rankErr(ErrArgument, op, "part %d lists original node id %d outside [0, %d)", p, v, d.numNodes)
		}
		d.newID[v], d.owner[v] = int64(nid), int32(p)
	}
	return d, nil
}

// openPart is this rank's part of OpenDistGraph before any collective.
func openPart(comm *Comm, configPath string) (*graph.Graph, *PartitionConfig, io.Closer, error) {
	const op = "OpenDistGraph"
	g, cfg, closer, err := LoadPartition(configPath, comm.Rank())
	if err != nil {
		return nil, nil, nil, comm.rankErr(ErrArgument, op, "%v", err)
	}
	if cfg.NumParts != comm.Size() {
		closer.Close()
		return nil, nil, nil, comm.rankErr(ErrArgument, op, "%s has %d parts but the job has %d ranks; partition into as many parts as ranks", configPath, cfg.NumParts, comm.Size())
	}
	if !g.HasNData("orig_id") || !g.HasEData("orig_id") || !g.HasNData("inner_node") {
		closer.Close()
		return nil, nil, nil, comm.rankErr(ErrArgument, op, "part %d of %s lacks the orig_id / inner_node data Partitioning.Save writes", comm.Rank(), configPath)
	}
	return g, cfg, closer, nil
}

// Close releases the part's memory-mapped file.
func (d *DistGraph) Close() error {
	if d == nil || d.closer == nil {
		return nil
	}
	err := d.closer.Close()
	d.closer = nil
	return err
}

// NumNodes returns the whole graph's node count.
func (d *DistGraph) NumNodes() int { return d.numNodes }

// NumEdges returns the whole graph's edge count.
func (d *DistGraph) NumEdges() int { return d.cfg.NumEdges }

// Rank returns the part this rank holds.
func (d *DistGraph) Rank() int { return d.part }

// Comm returns the communicator.
func (d *DistGraph) Comm() *Comm { return d.comm }

// LocalGraph returns this rank's part (inner nodes, then halo nodes; see
// Partitioning.PartGraph).
func (d *DistGraph) LocalGraph() *graph.Graph { return d.local }

// Owner returns the part that owns original node id v.
func (d *DistGraph) Owner(v int64) int { return int(d.owner[v]) }

// LocalNodes returns the original ids of this rank's inner nodes (DGL's
// node_split for one part), (N_inner) int64.
func (d *DistGraph) LocalNodes() *tensor.Tensor {
	return tensor.FromInt64(slices.Clone(d.origOf[:d.inner]), d.inner)
}

// checkIDs checks original node ids for op.
func (d *DistGraph) checkIDs(op string, ids []int64) error {
	for i, v := range ids {
		if v < 0 || v >= int64(d.numNodes) {
			return d.comm.rankErr(ErrArgument, op, "node id %d (position %d) outside [0, %d)", v, i, d.numNodes)
		}
	}
	return nil
}

// route groups ids by owning rank: the ids in rank order, the count per
// rank and, for each routed position, the position in ids it came from.
func (d *DistGraph) route(ids []int64) (send []int64, counts []int, from []int) {
	k := d.comm.Size()
	counts = make([]int, k)
	for _, v := range ids {
		counts[d.owner[v]]++
	}
	next := make([]int, k)
	for r := 1; r < k; r++ {
		next[r] = next[r-1] + counts[r-1]
	}
	send, from = make([]int64, len(ids)), make([]int, len(ids))
	for i, v := range ids {
		o := d.owner[v]
		send[next[o]], from[next[o]] = v, i
		next[o]++
	}
	return send, counts, from
}

// localIndex is the local node index of the inner node with original id v.
func (d *DistGraph) localIndex(v int64) int64 { return d.newID[v] - d.lo }

// FetchNodeData returns the rows of node data name for the original node
// ids ids, in order, (len(ids), ...) in the data's dtype: this rank's
// inner nodes are read locally, the others requested from their owners
// with two all-to-all(v) exchanges (the ids, then the rows; DGL's
// DistTensor indexing). A collective: every rank calls it, each with its
// own ids. Errors: an id outside [0, NumNodes), node data the part lacks.
func (d *DistGraph) FetchNodeData(name string, ids []int64) (*tensor.Tensor, error) {
	const op = "DistGraph.FetchNodeData"
	if err := d.comm.ready(op); err != nil {
		return nil, err
	}
	if err := d.checkIDs(op, ids); err != nil {
		return nil, err
	}
	if !d.local.HasNData(name) {
		return nil, d.comm.rankErr(ErrArgument, op, "node data %q is not in the partition (have %v)", name, d.local.NDataNames())
	}
	x := d.local.NData(name).Detach()
	send, counts, from := d.route(ids)
	reqs, rcounts, err := d.comm.AllToAllVInt64s(send, counts)
	if err != nil {
		return nil, err
	}
	loc := make([]int64, len(reqs))
	for i, v := range reqs {
		loc[i] = d.localIndex(v)
	}
	rows := gatherRows(x, tensor.FromInt64(loc, len(loc)))
	got, _, err := d.comm.AllToAllV(rows, rcounts)
	if err != nil {
		return nil, err
	}
	// Back to the order of ids: routed position j came from from[j].
	inv := make([]int64, len(ids))
	for j, i := range from {
		inv[i] = int64(j)
	}
	return gatherRows(got, tensor.FromInt64(inv, len(inv))), nil
}

// DistNeighborSampler samples blocks on a DistGraph (DGL's NeighborSampler
// over a DistGraph, as DistNodeDataLoader runs it): each layer's frontier
// is sent, node by node, to the rank that owns it (all-to-all(v)), the
// owner picks the neighbours from its part with the single-process
// sampler's per-node random streams (sampling.NeighborSampler.
// PickNeighbors keyed by original ids) and sends them back, and the
// requester relabels them as sampling does. The blocks therefore equal
// sampling.NeighborSampler's on the whole graph for the same seeds and
// epoch seed: the same source nodes in the same order, edges and parent
// ids (original ids). NodeFeats are fetched for blocks[0]'s source nodes
// into its SrcData and Labels for the seeds into the last block's DstData
// (FetchNodeData). EdgeDir "out" is not supported (a part holds the
// in-edges of its nodes). SampleBlocks is a collective: every rank calls
// it the same number of times (NewDistNodeDataLoader sees to it); its
// graph argument is ignored.
type DistNeighborSampler struct {
	Sampler   sampling.NeighborSampler
	Graph     *DistGraph
	NodeFeats []string
	Labels    []string
}

var _ sampling.Sampler = (*DistNeighborSampler)(nil)

// SampleBlocks samples the blocks of seeds (original ids); see
// DistNeighborSampler.
func (s *DistNeighborSampler) SampleBlocks(_ *graph.Graph, seeds []int64, epochSeed uint64) ([]*graph.Block, error) {
	const op = "DistNeighborSampler.SampleBlocks"
	d := s.Graph
	if d == nil {
		return nil, errf(ErrArgument, op, "the DistGraph is nil")
	}
	if s.Sampler.EdgeDir != "" && s.Sampler.EdgeDir != "in" {
		return nil, d.comm.rankErr(ErrArgument, op, "EdgeDir %q; distributed sampling follows in-edges only", s.Sampler.EdgeDir)
	}
	if len(s.Sampler.Fanouts) == 0 {
		return nil, d.comm.rankErr(ErrArgument, op, "Fanouts is empty")
	}
	if err := d.checkIDs(op, seeds); err != nil {
		return nil, err
	}
	blocks := make([]*graph.Block, len(s.Sampler.Fanouts))
	dst := seeds
	for l := len(blocks) - 1; l >= 0; l-- {
		b, err := s.sampleLayer(dst, l, epochSeed)
		if err != nil {
			return nil, err
		}
		blocks[l] = b
		dst = b.SrcNodeIDs()
	}
	for _, name := range s.NodeFeats {
		x, err := d.FetchNodeData(name, blocks[0].SrcNodeIDs())
		if err != nil {
			return nil, err
		}
		if err := blocks[0].SetSrcData(name, x); err != nil {
			return nil, err
		}
	}
	last := blocks[len(blocks)-1]
	for _, name := range s.Labels {
		y, err := d.FetchNodeData(name, last.DstNodeIDs())
		if err != nil {
			return nil, err
		}
		if err := last.SetDstData(name, y); err != nil {
			return nil, err
		}
	}
	return blocks, nil
}

// sampleLayer builds one layer's block for the destination nodes dst
// (original ids) with the owners' picks.
func (s *DistNeighborSampler) sampleLayer(dst []int64, layer int, epochSeed uint64) (*graph.Block, error) {
	d := s.Graph
	c := d.comm
	send, counts, from := d.route(dst)
	reqs, rcounts, err := c.AllToAllVInt64s(send, counts)
	if err != nil {
		return nil, err
	}
	loc := make([]int64, len(reqs))
	for i, v := range reqs {
		loc[i] = d.localIndex(v)
	}
	indptr, nbr, eids, err := s.Sampler.PickNeighbors(d.local, loc, layer, epochSeed, d.origOf)
	if err != nil {
		return nil, c.rankErr(ErrArgument, "DistNeighborSampler.SampleBlocks", "%v", err)
	}
	// Reply per requesting rank: for each node its count, then (neighbour,
	// edge) pairs, in original ids.
	reply := make([]int64, 0, len(reqs)+2*len(nbr))
	replyCounts := make([]int, c.Size())
	i := 0
	for r, n := range rcounts {
		start := len(reply)
		for ; n > 0; n-- {
			lo, hi := indptr[i], indptr[i+1]
			reply = append(reply, hi-lo)
			for p := lo; p < hi; p++ {
				reply = append(reply, d.origOf[nbr[p]], d.origEdge[eids[p]])
			}
			i++
		}
		replyCounts[r] = len(reply) - start
	}
	got, _, err := c.AllToAllVInt64s(reply, replyCounts)
	if err != nil {
		return nil, err
	}
	// Unpack in routed order (the owners answer in the order asked), then
	// lay out in dst order.
	off := make([]int, len(dst)) // where each dst's picks start in got
	cnt := make([]int, len(dst))
	p := 0
	for j := range from {
		n := int(got[p])
		off[from[j]], cnt[from[j]] = p+1, n
		p += 1 + 2*n
	}
	nd := len(dst)
	bIndptr := make([]int64, nd+1)
	for k := 0; k < nd; k++ {
		bIndptr[k+1] = bIndptr[k] + int64(cnt[k])
	}
	total := bIndptr[nd]
	bNbr, bEID := make([]int64, total), make([]int64, total)
	// Relabel as sampling does: the destinations first (repeats kept; a
	// repeated id maps to its first position), then new neighbours in order
	// of first appearance.
	pos := make(map[int64]int64, nd+int(total))
	src := slices.Clone(dst)
	for k, v := range dst {
		if _, ok := pos[v]; !ok {
			pos[v] = int64(k)
		}
	}
	w := 0
	for k := 0; k < nd; k++ {
		for q := 0; q < cnt[k]; q++ {
			u, e := got[off[k]+2*q], got[off[k]+2*q+1]
			m, ok := pos[u]
			if !ok {
				m = int64(len(src))
				src = append(src, u)
				pos[u] = m
			}
			bNbr[w], bEID[w] = m, e
			w++
		}
	}
	b, err := graph.NewBlock(src, nd, bIndptr, bNbr, bEID)
	if err != nil {
		return nil, c.rankErr(ErrArgument, "DistNeighborSampler.SampleBlocks", "%v", err)
	}
	if err := b.SetSrcData(graph.NID, b.SrcNodes()); err != nil {
		return nil, err
	}
	if err := b.SetEData(graph.EID, b.EIDs()); err != nil {
		return nil, err
	}
	return b, nil
}

// NewDistNodeDataLoader returns a DataLoader of minibatches of seeds
// (original node ids: an int64 tensor, or a bool mask over the whole
// graph's nodes; the same on every rank) sampled on the DistGraph (DGL's
// dgl.distributed.DistNodeDataLoader). It is sampling's DataLoader with a
// DistNeighborSampler: the seeds are shuffled per epoch from opts.Seed
// identically on every rank and sharded by opts.Shard (default: the
// DistGraph's communicator's, comm.Shard()), so that every rank runs the
// same number of batches and the collectives pair up;
// opts.PrefetchNodeFeats and PrefetchLabels are fetched from the owning
// ranks. Batches are sampled in the calling goroutine (NumWorkers must be
// 0: a worker's collectives would interleave with training's). Errors:
// NumWorkers > 0, NodeFeatStores or PrefetchEdgeFeats set, node data the
// parts lack, and sampling.NewDataLoader's own checks (ErrArgument).
func NewDistNodeDataLoader(d *DistGraph, seeds *tensor.Tensor, sampler sampling.NeighborSampler, opts sampling.LoaderOptions) (*sampling.DataLoader, error) {
	const op = "NewDistNodeDataLoader"
	if d == nil {
		return nil, errf(ErrArgument, op, "the DistGraph is nil")
	}
	switch {
	case opts.NumWorkers != 0:
		return nil, d.comm.rankErr(ErrArgument, op, "NumWorkers %d; distributed batches are sampled in the calling goroutine (0)", opts.NumWorkers)
	case len(opts.NodeFeatStores) > 0 || len(opts.PrefetchEdgeFeats) > 0:
		return nil, d.comm.rankErr(ErrArgument, op, "NodeFeatStores and PrefetchEdgeFeats are not supported on a DistGraph; use PrefetchNodeFeats and PrefetchLabels")
	}
	for _, name := range append(slices.Clone(opts.PrefetchNodeFeats), opts.PrefetchLabels...) {
		if !d.local.HasNData(name) {
			return nil, d.comm.rankErr(ErrArgument, op, "node data %q is not in the partition (have %v)", name, d.local.NDataNames())
		}
	}
	if opts.Shard.Size == 0 {
		opts.Shard = d.comm.Shard()
	}
	ds := &DistNeighborSampler{Sampler: sampler, Graph: d, NodeFeats: opts.PrefetchNodeFeats, Labels: opts.PrefetchLabels}
	opts.PrefetchNodeFeats, opts.PrefetchLabels = nil, nil
	// The loader needs only the node count of a graph: an edgeless stand-in.
	proxy, err := graph.New(d.numNodes, nil, nil)
	if err != nil {
		return nil, errf(ErrArgument, op, "%v", err)
	}
	return sampling.NewDataLoader(proxy, seeds, ds, opts)
}

// String is "dist.DistGraph{part 0 of 2, 2708 nodes, 10556 edges, local 1402 + 380 halo}".
func (d *DistGraph) String() string {
	return fmt.Sprintf("dist.DistGraph{part %d of %d, %d nodes, %d edges; local %d inner + %d halo nodes, %d edges}",
		d.part, d.cfg.NumParts, d.numNodes, d.cfg.NumEdges, d.inner, d.local.NumNodes()-d.inner, d.local.NumEdges())
}
