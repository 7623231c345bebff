package sampling

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// heteroSource is what a HeteroDataLoader's batches need beyond source.
type heteroSource struct {
	sampler HeteroSampler
	ntypes  []string
	ces     []graph.CanonicalEType
	offsets []int64 // seed encoding: offsets[k] + id for node type k (len ntypes+1)
	// nodeFeats[j][k], labels[j][k]: node data opts.PrefetchNodeFeats[j]
	// (PrefetchLabels[j]) of node type k, nil where that type lacks it.
	nodeFeats, labels [][]*tensor.Tensor
	// edgeFeats[j][r]: edge data PrefetchEdgeFeats[j] of relation r, or nil.
	edgeFeats [][]*tensor.Tensor
	// storeNames: opts.HeteroNodeFeatStores' names, sorted; stores[j][k]
	// the store of storeNames[j] for node type k, nil where it has none.
	storeNames []string
	stores     [][]featstore.Store
}

// HeteroDataLoader iterates over minibatches of seed nodes of one or more
// node types of a heterograph, sampling their heterogeneous blocks and
// gathering their features (DGL's dgl.dataloading.DataLoader(g, {ntype:
// ids}, sampler) on a heterograph). It is the DataLoader's machinery
// (workers, prefetching, shuffling, Shard, StateDict, interruption through
// runctx) over typed seeds: batches are identical for every NumWorkers.
//
//	for loader.Next() {
//		blocks := loader.Blocks()            // []*graph.HeteroBlock
//		x := blocks[0].SrcData("paper", "feat")
//		y := blocks[len(blocks)-1].DstData("paper", "label")
//		...
//	}
//	if err := loader.Err(); err != nil { ... }
//
// A HeteroDataLoader is not safe for concurrent use.
type HeteroDataLoader struct {
	dl *DataLoader
}

// NewHeteroDataLoader returns a loader over seeds (node type -> a 1-D int64
// tensor of node ids of that type, or a bool mask of shape
// (NumNodesOf(ntype)); copied) that samples with sampler (NeighborSampler,
// HeteroNeighborSampler or your own HeteroSampler). The seeds of all node
// types form one list, node types in sorted order and ids in the given
// order, which is shuffled and cut into batches of BatchSize as the
// DataLoader does; a batch may hold seeds of several node types.
//
// opts are the DataLoader's, per node type: PrefetchNodeFeats names node
// data gathered for the input nodes of every node type that has it into
// blocks[0].SrcData(ntype, name) (at least one node type must have it);
// PrefetchLabels names node data gathered for the seeds of every seed node
// type into the last block's DstData(ntype, name) (every seed node type
// must have it); PrefetchEdgeFeats names edge data gathered for the sampled
// edges of every edge type that has it into each block's EData(etype,
// name). HeteroNodeFeatStores gathers, for each name, the input nodes'
// rows of every node type its featstore.PerType has a store for (float16,
// bfloat16, int8, a hot cache, precomputed per-relation features) into
// blocks[0].SrcData(ntype, name), (N_in(ntype), F) float32 or
// StoreGatherDType, in the workers as PrefetchNodeFeats are.
// NodeFeatStores (one store for the whole graph), and PinMemory on a GPU,
// are not supported on heterographs (errors).
//
// Errors name the argument and wrap ErrArgument: a nil graph, sampler or
// seeds, no seeds, a node type of seeds the graph does not have, seeds of
// another dtype or shape, a seed id outside [0, NumNodesOf(ntype)) (naming
// the type and the id), data to prefetch that no node (edge) type has, the
// sampler's own options (a sampler with a Validate(*graph.Graph) error
// method is validated against g: an unknown, ambiguous or missing edge
// type of a fanout map), and NewDataLoader's option errors.
func NewHeteroDataLoader(g *graph.Graph, seeds map[string]*tensor.Tensor, sampler HeteroSampler, opts LoaderOptions) (*HeteroDataLoader, error) {
	const name = "sampling.NewHeteroDataLoader"
	if g == nil {
		return nil, fmt.Errorf("%s: the graph is nil: %w", name, ErrArgument)
	}
	if sampler == nil {
		return nil, fmt.Errorf("%s: the sampler is nil: %w", name, ErrArgument)
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("%s: no seeds; give {node type: ids}: %w", name, ErrArgument)
	}
	opts, err := checkLoaderOptions(name, opts)
	if err != nil {
		return nil, err
	}
	if opts.PinMemory && strings.HasPrefix(opts.Device, "cuda") {
		return nil, fmt.Errorf("%s: PinMemory is not supported on heterographs yet; leave it off (batches are copied to %s synchronously): %w", name, opts.Device, ErrArgument)
	}
	if len(opts.NodeFeatStores) > 0 {
		return nil, fmt.Errorf("%s: NodeFeatStores holds one store for a homogeneous graph; on a heterograph use HeteroNodeFeatStores (a featstore.PerType per name) or PrefetchNodeFeats: %w", name, ErrArgument)
	}
	h := &heteroSource{sampler: sampler, ntypes: g.NTypes(), ces: g.CanonicalETypes()}
	h.offsets = make([]int64, len(h.ntypes)+1)
	for k, nt := range h.ntypes {
		h.offsets[k+1] = h.offsets[k] + int64(g.NumNodesOf(nt))
	}
	keys := make([]string, 0, len(seeds))
	for k := range seeds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var all []int64
	var seedTypes []int
	for _, nt := range keys {
		k := sort.SearchStrings(h.ntypes, nt)
		if k >= len(h.ntypes) || h.ntypes[k] != nt {
			return nil, fmt.Errorf("%s: seeds of node type %q, which the graph does not have (have %v): %w", name, nt, h.ntypes, ErrArgument)
		}
		t := seeds[nt]
		if t == nil {
			return nil, fmt.Errorf("%s: the seeds of node type %q are nil: %w", name, nt, ErrArgument)
		}
		if t.Device() != "cpu" {
			if t, err = t.To("cpu"); err != nil {
				return nil, fmt.Errorf("%s: copying the seeds of node type %q to the cpu: %w", name, nt, err)
			}
		}
		n := int(h.offsets[k+1] - h.offsets[k])
		var ids []int64
		switch {
		case t.DType() == tensor.Int64 && t.Dim() == 1:
			ids = t.Int64s()
		case t.DType() == tensor.Bool && t.Dim() == 1 && t.Size(0) == n:
			for i, b := range t.Bools() {
				if b {
					ids = append(ids, int64(i))
				}
			}
		default:
			return nil, fmt.Errorf("%s: the seeds of node type %q must be 1-D int64 node ids or a bool mask of shape (%d), got %s %v: %w",
				name, nt, n, t.DType(), t.Shape(), ErrArgument)
		}
		if err := checkSeeds(fmt.Sprintf("%s: node type %q", name, nt), ids, n); err != nil {
			return nil, err
		}
		for _, v := range ids {
			all = append(all, h.offsets[k]+v)
		}
		seedTypes = append(seedTypes, k)
	}
	if v, ok := sampler.(interface{ ValidateHetero(*graph.Graph) error }); ok {
		if err := v.ValidateHetero(g); err != nil {
			return nil, err
		}
	} else if v, ok := sampler.(interface{ Validate(*graph.Graph) error }); ok {
		if err := v.Validate(g); err != nil {
			return nil, err
		}
	}
	dev := opts.Device
	hostData := func(what, n string, t *tensor.Tensor) error {
		if t.Device() == "cpu" || t.IsMeta() && isMetaDevice(dev) {
			return nil
		}
		return fmt.Errorf("%s: %s %q is on %s; the loader gathers from host memory: %w", name, what, n, t.Device(), ErrArgument)
	}
	for _, n := range opts.PrefetchNodeFeats {
		per := make([]*tensor.Tensor, len(h.ntypes))
		found := false
		for k, nt := range h.ntypes {
			if g.HasNDataOf(nt, n) {
				t := g.NDataOf(nt, n)
				if err := hostData("PrefetchNodeFeats", n, t); err != nil {
					return nil, err
				}
				per[k], found = t.Detach(), true
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: PrefetchNodeFeats: no node type has node data %q: %w", name, n, ErrArgument)
		}
		h.nodeFeats = append(h.nodeFeats, per)
	}
	for _, n := range opts.PrefetchLabels {
		per := make([]*tensor.Tensor, len(h.ntypes))
		for _, k := range seedTypes {
			nt := h.ntypes[k]
			if !g.HasNDataOf(nt, n) {
				return nil, fmt.Errorf("%s: PrefetchLabels: seed node type %q has no node data %q: %w", name, nt, n, ErrArgument)
			}
			t := g.NDataOf(nt, n)
			if err := hostData("PrefetchLabels", n, t); err != nil {
				return nil, err
			}
			per[k] = t.Detach()
		}
		h.labels = append(h.labels, per)
	}
	for _, n := range opts.PrefetchEdgeFeats {
		per := make([]*tensor.Tensor, len(h.ces))
		found := false
		for r, ce := range h.ces {
			if g.HasEDataOf(ce.String(), n) {
				t := g.EDataOf(ce.String(), n)
				if err := hostData("PrefetchEdgeFeats", n, t); err != nil {
					return nil, err
				}
				per[r], found = t.Detach(), true
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: PrefetchEdgeFeats: no edge type has edge data %q: %w", name, n, ErrArgument)
		}
		h.edgeFeats = append(h.edgeFeats, per)
	}
	for n := range opts.HeteroNodeFeatStores {
		h.storeNames = append(h.storeNames, n)
	}
	sort.Strings(h.storeNames)
	for _, n := range h.storeNames {
		p := opts.HeteroNodeFeatStores[n]
		if p == nil {
			return nil, fmt.Errorf("%s: HeteroNodeFeatStores[%q] is nil: %w", name, n, ErrArgument)
		}
		if slices.Contains(opts.PrefetchNodeFeats, n) {
			return nil, fmt.Errorf("%s: %q is both in HeteroNodeFeatStores and in PrefetchNodeFeats; keep one: %w", name, n, ErrArgument)
		}
		per := make([]featstore.Store, len(h.ntypes))
		for _, nt := range p.NTypes() {
			k := sort.SearchStrings(h.ntypes, nt)
			if k >= len(h.ntypes) || h.ntypes[k] != nt {
				return nil, fmt.Errorf("%s: HeteroNodeFeatStores[%q] has a store for node type %q, which the graph does not have (have %v): %w", name, n, nt, h.ntypes, ErrArgument)
			}
			st := p.Store(nt)
			if st.NumNodes() != g.NumNodesOf(nt) {
				return nil, fmt.Errorf("%s: HeteroNodeFeatStores[%q]: the store of node type %q has %d rows, the type %d nodes: %w", name, n, nt, st.NumNodes(), g.NumNodesOf(nt), ErrArgument)
			}
			per[k] = st
		}
		h.stores = append(h.stores, per)
	}
	s := &source{g: g, seeds: all, opts: opts, het: h}
	return &HeteroDataLoader{dl: loaderOver(s)}, nil
}

// produce samples batch i (its encoded seeds) and gathers its data.
func (h *heteroSource) produce(s *source, i int, enc []int64, epochSeed uint64) (*batchResult, error) {
	seeds := map[string][]int64{}
	for _, v := range enc {
		k := sort.Search(len(h.ntypes), func(k int) bool { return h.offsets[k+1] > v })
		nt := h.ntypes[k]
		seeds[nt] = append(seeds[nt], v-h.offsets[k])
	}
	blocks, err := h.sampler.SampleHeteroBlocks(s.g, seeds, epochSeed)
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("sampling.HeteroDataLoader: the sampler returned no blocks")
	}
	first, last := blocks[0], blocks[len(blocks)-1]
	b := &batchResult{index: i, hblocks: blocks, hinput: map[string]*tensor.Tensor{}, houtput: map[string]*tensor.Tensor{}}
	for _, nt := range h.ntypes {
		b.hinput[nt] = first.SrcNodes(nt)
		b.houtput[nt] = last.DstNodes(nt)
	}
	dev := s.opts.Device
	for j, per := range h.nodeFeats {
		for k, t := range per {
			if t == nil {
				continue
			}
			nt := h.ntypes[k]
			x, buf := gatherPooled(s.pool, dev, t, first.SrcNodeIDs(nt))
			if buf != nil {
				b.pooled = append(b.pooled, buf)
			}
			if err := first.SetSrcData(nt, s.opts.PrefetchNodeFeats[j], x); err != nil {
				return nil, err
			}
		}
	}
	for j, per := range h.stores {
		for k, st := range per {
			if st == nil {
				continue
			}
			nt := h.ntypes[k]
			if err := first.SetSrcData(nt, h.storeNames[j], gatherStore(dev, st, first.SrcNodes(nt), s.opts.StoreGatherDType)); err != nil {
				return nil, err
			}
		}
	}
	for j, per := range h.labels {
		for k, t := range per {
			if t == nil {
				continue
			}
			nt := h.ntypes[k]
			if err := last.SetDstData(nt, s.opts.PrefetchLabels[j], gatherOn(dev, t, last.DstNodeIDs(nt))); err != nil {
				return nil, err
			}
		}
	}
	for j, per := range h.edgeFeats {
		for _, blk := range blocks {
			for r, t := range per {
				if t == nil {
					continue
				}
				key := h.ces[r].String()
				e := blk.EIDList(key)
				if e == nil {
					return nil, fmt.Errorf("sampling.HeteroDataLoader: PrefetchEdgeFeats needs parent edge ids, but the sampler recorded none for %v", h.ces[r])
				}
				if err := blk.SetEData(key, s.opts.PrefetchEdgeFeats[j], gatherOn(dev, t, e)); err != nil {
					return nil, err
				}
			}
		}
	}
	return b, nil
}

// Next advances to the next batch and reports whether there is one (see
// DataLoader.Next).
func (l *HeteroDataLoader) Next() bool { return l.dl.Next() }

// Err returns the error that ended the last epoch early (see
// DataLoader.Err).
func (l *HeteroDataLoader) Err() error { return l.dl.Err() }

// Close stops the workers and ends the loader (see DataLoader.Close).
func (l *HeteroDataLoader) Close() error { return l.dl.Close() }

// Reset abandons the epoch in progress (see DataLoader.Reset).
func (l *HeteroDataLoader) Reset() { l.dl.Reset() }

// SetEpoch makes the next call to Next start epoch e (see
// DataLoader.SetEpoch).
func (l *HeteroDataLoader) SetEpoch(e int) { l.dl.SetEpoch(e) }

// Epoch returns the epoch in progress or the next one (see
// DataLoader.Epoch).
func (l *HeteroDataLoader) Epoch() int { return l.dl.Epoch() }

// Len returns the number of batches per epoch.
func (l *HeteroDataLoader) Len() int { return l.dl.Len() }

// NumSeeds returns the number of seed nodes over all node types.
func (l *HeteroDataLoader) NumSeeds() int { return l.dl.NumSeeds() }

// Options returns the options in use, defaults filled in.
func (l *HeteroDataLoader) Options() LoaderOptions { return l.dl.Options() }

// StateDict returns the loader's position (see DataLoader.StateDict).
func (l *HeteroDataLoader) StateDict() map[string]any { return l.dl.StateDict() }

// LoadStateDict resumes from a StateDict (see DataLoader.LoadStateDict).
func (l *HeteroDataLoader) LoadStateDict(sd map[string]any) error { return l.dl.LoadStateDict(sd) }

// BatchIndex returns the index of the current batch in its epoch, or -1.
func (l *HeteroDataLoader) BatchIndex() int { return l.dl.BatchIndex() }

// Blocks returns the current batch's heterogeneous blocks, input layer
// first (nil before the first Next and after it returns false).
func (l *HeteroDataLoader) Blocks() []*graph.HeteroBlock {
	if l.dl.batch == nil {
		return nil
	}
	return l.dl.batch.hblocks
}

// InputNodes returns, per node type, the parent ids of the current batch's
// input nodes (blocks[0]'s source nodes), (N_in(ntype)) int64; every node
// type is present.
func (l *HeteroDataLoader) InputNodes() map[string]*tensor.Tensor {
	if l.dl.batch == nil {
		return nil
	}
	return l.dl.batch.hinput
}

// OutputNodes returns, per node type, the parent ids of the current
// batch's seeds (the last block's destination nodes), (N_out(ntype))
// int64; every node type is present, with no ids for types without seeds.
func (l *HeteroDataLoader) OutputNodes() map[string]*tensor.Tensor {
	if l.dl.batch == nil {
		return nil
	}
	return l.dl.batch.houtput
}

// String describes the loader in one line.
func (l *HeteroDataLoader) String() string {
	o := l.dl.src.opts
	return fmt.Sprintf("HeteroDataLoader(num_seeds=%d, batch_size=%d, num_batches=%d, shuffle=%v, drop_last=%v, num_workers=%d)",
		len(l.dl.src.seeds), o.BatchSize, l.dl.Len(), o.Shuffle, o.DropLast, o.NumWorkers)
}
