package sampling

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// MaxWorkers bounds LoaderOptions.NumWorkers and PrefetchFactor.
const MaxWorkers = 1024

// ErrClosed is returned by DataLoader.Err after Close.
var ErrClosed = engerr.NewKind("sampling: the DataLoader is closed", nil)

// LoaderOptions configures a DataLoader; the field names are DGL's
// dgl.dataloading.DataLoader (and torch.utils.data.DataLoader) parameters.
type LoaderOptions struct {
	// BatchSize is the number of seed nodes per batch; 0 means 1, the
	// default of DGL and PyTorch. Negative is an error.
	BatchSize int
	// Shuffle visits the seeds in a new random order every epoch, drawn from
	// Seed and the epoch number.
	Shuffle bool
	// DropLast drops the last batch of an epoch when it is smaller than
	// BatchSize.
	DropLast bool
	// NumWorkers is the number of goroutines sampling batches ahead of the
	// consumer; 0 samples each batch in the goroutine that calls Next.
	// Batches come out in order and are identical for every NumWorkers.
	NumWorkers int
	// PrefetchFactor is the number of batches each worker may sample ahead
	// (PyTorch's prefetch_factor); 0 means 2. Ignored when NumWorkers is 0.
	PrefetchFactor int
	// Seed seeds the shuffle and, with the epoch number, the sampler (see
	// EpochSeed).
	Seed int64
	// PrefetchNodeFeats names node data gathered for the input nodes into
	// blocks[0].SrcData (DGL's prefetch_node_feats).
	PrefetchNodeFeats []string
	// NodeFeatStores gathers input features from feature stores (float16,
	// int8, a hot cache, precomputed SIGN features; package featstore)
	// instead of node data: for each name, the rows of the input nodes
	// (blocks[0]'s source nodes), dequantised to (N_in, F) float32 (or
	// StoreGatherDType), go into
	// blocks[0].SrcData under that name, gathered in the workers as
	// PrefetchNodeFeats are. Every store must have g.NumNodes() rows, and a
	// name may not also be in PrefetchNodeFeats.
	NodeFeatStores map[string]featstore.Store
	// HeteroNodeFeatStores is NodeFeatStores for NewHeteroDataLoader: for
	// each name, the stores of the node types that have one
	// (featstore.NewPerType, NewHotCachePerType, PropagatePerType); the
	// input nodes' rows of each such type go into blocks[0].SrcData(ntype,
	// name), dequantised to (N_in(ntype), F) float32 (or
	// StoreGatherDType). A name may not also be in PrefetchNodeFeats. The
	// homogeneous loaders reject it (use NodeFeatStores).
	HeteroNodeFeatStores map[string]*featstore.PerType
	// StoreGatherDType is the dtype NodeFeatStores' rows are gathered in:
	// tensor.Float32 (the zero value), or tensor.Float16 / tensor.BFloat16,
	// in which case each (N_in, F) input feature tensor is built in that
	// dtype directly (featstore.GatherHalf: a bit copy from a store of the
	// same dtype, each value rounded to nearest, ties to even, from any
	// other store), with no float32 copy, for training under autocast
	// (package amp) in that dtype: a bfloat16 store gathered as bfloat16
	// under amp.Autocast(tensor.BFloat16, ...) keeps the input features at
	// 2 bytes a value from the store to the first layer's product. Other
	// dtypes are an error. Node data (PrefetchNodeFeats) keeps its dtype.
	StoreGatherDType tensor.DType
	// PrefetchLabels names node data gathered for the output nodes into the
	// last block's DstData (DGL's prefetch_labels).
	PrefetchLabels []string
	// PrefetchEdgeFeats names edge data gathered for the sampled edges of
	// every block into its EData (DGL's prefetch_edge_feats).
	PrefetchEdgeFeats []string
	// Device is where batches' gathered data (node and edge features,
	// labels) is put (DGL's device): "" or "cpu", "cuda", "cuda:N", or a
	// meta device ("meta", "meta:cuda"). Off the CPU the rows are gathered
	// on the host and copied to the device; on a meta device nothing is
	// gathered: the batch holds meta tensors of the shapes and dtypes the
	// gather gives (the float32 features carrying the density of the rows
	// they stand for, tensor.SetMetaDensity), which is how memplan.Predict
	// runs the real loader. Blocks' structure stays in host memory.
	Device string
	// PinMemory (DGL's pin_prefetcher, torch's pin_memory) applies to a
	// CUDA Device: batches are gathered on the host, staged in a small ring
	// of reused pinned (page-locked) buffers and copied to the GPU on a
	// copy stream of the DataLoader's own (tensor.PinnedUploader), one
	// batch ahead: when Next hands out batch i it queues the copy of batch
	// i+1, which then runs while batch i computes; the compute stream waits
	// for a batch's copy (a CUDA event) before Next hands it out, so ops
	// see its data. Without it, a CUDA batch is copied synchronously in the
	// worker that gathered it. Batches are identical either way. On the CPU
	// and meta devices it is ignored, as DGL ignores pin_prefetcher when the
	// device is not a GPU; on a machine without a GPU, Device "cuda" is an
	// error naming the missing driver or device, with or without it. Close
	// the DataLoader to release the pinned memory and the stream at once
	// (the garbage collector does otherwise).
	PinMemory bool
	// UseUVA (DGL's use_uva: sampling from a graph and features in pinned
	// host memory with GPU kernels) is not implemented: gnnrepl has no GPU
	// sampling kernels yet (issue 13). Setting it is an error wrapping
	// tensor.ErrNotImplemented.
	UseUVA bool
	// Shard gives this process its share of the seeds in a data-parallel
	// job (DGL's use_ddp, torch's DistributedSampler): every epoch the whole
	// seed list is shuffled (when Shuffle) from Seed and the epoch number,
	// the same on every rank, then padded by repeating its first seeds to a
	// multiple of Shard.Size (or, with DropLast, cut to one), and rank
	// Shard.Rank takes the Rank-th of Size equal consecutive chunks. Every
	// rank thus has the same number of seeds and batches, and the shards of
	// an epoch cover every seed. The zero value (Size 0 or 1) is no sharding.
	// dist.Comm.Shard returns the value for a communicator.
	Shard Shard
	// OnInterrupt says what the next Next does after an interrupt (Ctrl-C
	// in the shell, interrupt_request in Jupyter: runctx) that came while
	// an epoch was in progress, whether inside Next (which then returned
	// false with Err the context's error) or in the code between two calls
	// (the cell stopped in its loop body):
	//
	//	"restart" (or "", the default): the interrupted epoch is dropped and
	//	          the next Next starts the following epoch at its first batch
	//	          (new shuffle, new samples), as re-iterating a DGL or
	//	          PyTorch DataLoader does;
	//	"resume":  the next Next hands out the batch after the last one
	//	          handed out, of the same epoch (the batch Next was waiting
	//	          for when the interrupt came inside it), so that the epoch
	//	          is completed exactly once.
	//
	// Either way the rest of the epoch never runs unasked for. An epoch is
	// counted interrupted when any interrupt of the session came between
	// two calls of its Next (runctx.Interrupts).
	OnInterrupt string
	// ReuseBuffers recycles the memory of gathered float32 node features
	// (PrefetchNodeFeats on the CPU) from batch to batch: the feature
	// tensors of a batch are valid only until the following call to Next,
	// Reset or Close, after which the workers gather later batches into the
	// same memory. Clone a tensor (t.Clone()) to keep it longer. Reused
	// memory is already mapped, so a large gather is a plain copy instead of
	// a copy plus a page fault every 4 KiB of fresh memory, which on a
	// 2-core machine costs more than the copy (R-GCN on ogbn-mag gathers
	// about 200 MB a batch); the loader keeps at most the buffers of a few
	// batches (the prefetched ones and the current one). Batches are
	// identical with and without it. Off by default, as DGL and PyTorch
	// hand out fresh tensors. Only the CPU device reuses buffers; elsewhere
	// it is ignored.
	ReuseBuffers bool
}

// Shard is a rank and a number of ranks (LoaderOptions.Shard).
type Shard struct {
	Rank, Size int
}

// DataLoader iterates over minibatches of seed nodes, sampling their blocks
// and gathering their features (DGL's dgl.dataloading.DataLoader over a
// NeighborSampler). Use it as
//
//	for loader.Next() {
//		input, output, blocks := loader.InputNodes(), loader.OutputNodes(), loader.Blocks()
//		...
//	}
//	if err := loader.Err(); err != nil { ... }
//
// Each run of Next until it returns false is one epoch; the following call
// to Next starts the next epoch (new shuffle, new samples). Next stops, and
// Err returns the context's error, when the running evaluation is cancelled
// (runctx, Ctrl-C in the shell); the batches handed out so far stay valid.
// The next Next after an interrupt that came mid-epoch, inside Next or
// between two calls, starts the following epoch or resumes the interrupted
// one, as LoaderOptions.OnInterrupt says.
// A DataLoader is not safe for concurrent use; its workers are internal.
type DataLoader struct {
	src *source
	ctl *control

	nextEpoch int
	nextBatch int    // the batch the next epoch starts at (LoadStateDict)
	seen      uint64 // runctx.Interrupts() at the last Next
	cur       *epochRun
	batch     *batchResult
	err       error
	closed    bool
	cleanup   runtime.Cleanup
}

// source is what producing a batch needs; workers hold it, never the
// DataLoader, so that an abandoned DataLoader can be collected and its
// cleanup can stop them.
type source struct {
	g       *graph.Graph
	seeds   []int64
	sampler Sampler
	opts    LoaderOptions
	// gatherDev is where produce puts gathered data: opts.Device, or
	// "cpu" with PinMemory (Next uploads the batch).
	gatherDev  string
	pin        bool              // PinMemory on a CUDA device: produce stages the gathered data
	nodeFeats  []*tensor.Tensor  // detached node data, as opts.PrefetchNodeFeats
	storeNames []string          // opts.NodeFeatStores' names, sorted
	stores     []featstore.Store // the stores, as storeNames
	labels     []*tensor.Tensor
	edgeFeats  []*tensor.Tensor
	// edge is set for an edge DataLoader (NewEdgeDataLoader): seeds are
	// then edge ids.
	edge *edgeSpec
	// het is set for a HeteroDataLoader: seeds are then typed node ids
	// encoded as offsets[type] + id.
	het *heteroSource
	// pool recycles gathered feature buffers (ReuseBuffers on the CPU), or
	// is nil.
	pool *bufPool
}

// control lets the DataLoader's cleanup stop the running pipeline and
// release the uploader.
type control struct {
	mu   sync.Mutex
	pipe *pipeline
	up   uploader // PinMemory's, nil without
}

// uploader copies a batch's gathered tensors to the device ahead of use:
// a *tensor.PinnedUploader, or a fake in tests.
type uploader interface {
	start(ts []*tensor.Tensor) (pendingUpload, error)
	close() error
}

type pendingUpload interface {
	ready() ([]*tensor.Tensor, error)
}

type pinnedUploader struct{ u *tensor.PinnedUploader }

func (p pinnedUploader) start(ts []*tensor.Tensor) (pendingUpload, error) {
	pu, err := p.u.Start(ts)
	if err != nil {
		return nil, err
	}
	return pendingPinned{pu}, nil
}
func (p pinnedUploader) close() error { return p.u.Close() }

type pendingPinned struct{ p *tensor.PendingUpload }

func (p pendingPinned) ready() ([]*tensor.Tensor, error) { return p.p.Ready() }

// release stops the pipeline and closes the uploader (the cleanup).
func (c *control) release() {
	c.set(nil)
	c.mu.Lock()
	up := c.up
	c.up = nil
	c.mu.Unlock()
	if up != nil {
		up.close()
	}
}

func (c *control) set(p *pipeline) {
	c.mu.Lock()
	old := c.pipe
	c.pipe = p
	c.mu.Unlock()
	if old != nil {
		old.shutdown()
	}
}

// epochRun is one epoch in progress.
type epochRun struct {
	epoch      int
	order      []int64 // seed ids in this epoch's order
	epochSeed  uint64
	numBatches int
	next       int // index of the next batch to hand out
	fetched    int // index of the next batch to take from pipe or produce
	pipe       *pipeline
	// With PinMemory: the batch after the current one, its upload queued,
	// or the error met fetching it (returned by the Next that hands it out).
	ahead    *batchResult
	aheadUp  pendingUpload
	aheadErr error
}

// batchResult is one produced minibatch.
type batchResult struct {
	index         int
	blocks        []*graph.Block
	input, lastIn *tensor.Tensor // source ids of the first and last block
	output        *tensor.Tensor // made from lastIn on first use
	pair, negPair *graph.Graph   // an edge DataLoader's pair graphs
	// staged is the gathered data Next uploads with PinMemory: the host
	// tensors and where each goes.
	staged []stagedData
	pin    bool
	// A HeteroDataLoader's batch: blocks and input and output node ids per
	// node type.
	hblocks         []*graph.HeteroBlock
	hinput, houtput map[string]*tensor.Tensor
	// pooled are the buffers of this batch's data drawn from source.pool,
	// returned to it when the batch is done with (DataLoader.recycle).
	pooled [][]float32
}

// stagedData is one gathered host tensor of a batch and the setter that
// stores its device copy in the batch.
type stagedData struct {
	t   *tensor.Tensor
	set func(*tensor.Tensor) error
}

// NewDataLoader returns a DataLoader over the seed nodes of g that samples
// with sampler, as dgl.dataloading.DataLoader(g, train_nids, sampler, ...).
// seeds is a 1-D int64 tensor of node ids (d.TrainIdx, copied;
// tensor.FromInt64(ids) wraps a slice without copying it) or a bool mask of
// shape (NumNodes) whose true entries are the seeds, in id order
// (g.NData("train_mask")); seeds on a GPU are copied to the CPU.
//
// It checks everything up front and returns an error that names the
// argument: a nil graph, sampler or seeds, seeds of another dtype or shape,
// a seed id outside [0, NumNodes) (naming the id), a negative BatchSize,
// NumWorkers or PrefetchFactor, node or edge data to prefetch that g lacks,
// a nil feature store or one whose node count is not g's, a name both in
// NodeFeatStores and PrefetchNodeFeats, a StoreGatherDType other than
// float32, float16 and bfloat16, and the sampler's own options (a sampler
// with a Validate(*graph.Graph) error method, such as NeighborSampler, is
// validated against g, weights included). Errors wrap ErrArgument.
func NewDataLoader(g *graph.Graph, seeds *tensor.Tensor, sampler Sampler, opts LoaderOptions) (*DataLoader, error) {
	const name = "sampling.NewDataLoader"
	if seeds == nil || g == nil {
		return nil, fmt.Errorf("%s: the graph or the seeds are nil: %w", name, ErrArgument)
	}
	if seeds.Device() != "cpu" {
		cpu, err := seeds.To("cpu")
		if err != nil {
			return nil, fmt.Errorf("%s: copying the seeds to the cpu: %w", name, err)
		}
		seeds = cpu
	}
	switch {
	case seeds.DType() == tensor.Int64 && seeds.Dim() == 1:
		return newDataLoader(name, g, seeds.Int64s(), sampler, opts, nil)
	case seeds.DType() == tensor.Bool && seeds.Dim() == 1 && g.IsHomogeneous() && seeds.Size(0) == g.NumNodes():
		var ids []int64
		for i, b := range seeds.Bools() {
			if b {
				ids = append(ids, int64(i))
			}
		}
		return newDataLoader(name, g, ids, sampler, opts, nil)
	}
	return nil, fmt.Errorf("%s: seeds must be 1-D int64 node ids or a bool mask of shape (%d), got %s %v: %w",
		name, g.NumNodes(), seeds.DType(), seeds.Shape(), ErrArgument)
}

// newDataLoader is NewDataLoader on seed ids (copied), or NewEdgeDataLoader
// on edge ids when edge is not nil; errors are named after name.
func newDataLoader(name string, g *graph.Graph, seeds []int64, sampler Sampler, opts LoaderOptions, edge *edgeSpec) (*DataLoader, error) {
	if g == nil {
		return nil, fmt.Errorf("%s: the graph is nil: %w", name, ErrArgument)
	}
	if sampler == nil {
		return nil, fmt.Errorf("%s: the sampler is nil: %w", name, ErrArgument)
	}
	if !g.IsHomogeneous() {
		use := "NewHeteroDataLoader"
		if edge != nil {
			use = "NewHeteroEdgeDataLoader"
		}
		return nil, fmt.Errorf("%s: %w; it takes a homogeneous graph (use %s for a heterograph)", name, graph.ErrHetero, use)
	}
	opts, err := checkLoaderOptions(name, opts)
	if err != nil {
		return nil, err
	}
	dev := opts.Device
	pin := opts.PinMemory && strings.HasPrefix(dev, "cuda")
	if edge != nil {
		if err := checkEIDs(name, seeds, g.NumEdges()); err != nil {
			return nil, err
		}
		if err := edge.validate(name, g); err != nil {
			return nil, err
		}
	} else if err := checkSeeds(name, seeds, g.NumNodes()); err != nil {
		return nil, err
	}
	if v, ok := sampler.(interface{ Validate(*graph.Graph) error }); ok {
		if err := v.Validate(g); err != nil {
			return nil, err
		}
	}
	s := &source{g: g, seeds: append([]int64(nil), seeds...), sampler: sampler, opts: opts, edge: edge, gatherDev: dev}
	if pin {
		s.gatherDev, s.pin = "cpu", true
	}
	hostData := func(what, n string, t *tensor.Tensor) error {
		if t.Device() == "cpu" || t.IsMeta() && isMetaDevice(dev) {
			return nil
		}
		hint := ""
		if t.IsMeta() {
			hint = ` (a meta tensor has no values to gather: set Device: "meta" for batches of shapes only)`
		}
		return fmt.Errorf("%s: %s %q is on %s; the loader gathers from host memory%s: %w", name, what, n, t.Device(), hint, ErrArgument)
	}
	for _, n := range opts.PrefetchNodeFeats {
		if !g.HasNData(n) {
			return nil, fmt.Errorf("%s: PrefetchNodeFeats: no node data %q (have %v): %w", name, n, g.NDataNames(), ErrArgument)
		}
		if err := hostData("PrefetchNodeFeats", n, g.NData(n)); err != nil {
			return nil, err
		}
		s.nodeFeats = append(s.nodeFeats, g.NData(n).Detach())
	}
	if len(opts.HeteroNodeFeatStores) > 0 {
		return nil, fmt.Errorf("%s: HeteroNodeFeatStores is for heterographs (NewHeteroDataLoader); use NodeFeatStores: %w", name, ErrArgument)
	}
	for n := range opts.NodeFeatStores {
		s.storeNames = append(s.storeNames, n)
	}
	slices.Sort(s.storeNames)
	for _, n := range s.storeNames {
		st := opts.NodeFeatStores[n]
		switch {
		case st == nil:
			return nil, fmt.Errorf("%s: NodeFeatStores[%q] is nil: %w", name, n, ErrArgument)
		case st.NumNodes() != g.NumNodes():
			return nil, fmt.Errorf("%s: NodeFeatStores[%q] has %d nodes, the graph %d: %w", name, n, st.NumNodes(), g.NumNodes(), ErrArgument)
		case slices.Contains(opts.PrefetchNodeFeats, n):
			return nil, fmt.Errorf("%s: %q is both in NodeFeatStores and in PrefetchNodeFeats; keep one: %w", name, n, ErrArgument)
		}
		s.stores = append(s.stores, st)
	}
	for _, n := range opts.PrefetchLabels {
		if !g.HasNData(n) {
			return nil, fmt.Errorf("%s: PrefetchLabels: no node data %q (have %v): %w", name, n, g.NDataNames(), ErrArgument)
		}
		if err := hostData("PrefetchLabels", n, g.NData(n)); err != nil {
			return nil, err
		}
		s.labels = append(s.labels, g.NData(n).Detach())
	}
	for _, n := range opts.PrefetchEdgeFeats {
		if !g.HasEData(n) {
			return nil, fmt.Errorf("%s: PrefetchEdgeFeats: no edge data %q (have %v): %w", name, n, g.EDataNames(), ErrArgument)
		}
		if err := hostData("PrefetchEdgeFeats", n, g.EData(n)); err != nil {
			return nil, err
		}
		s.edgeFeats = append(s.edgeFeats, g.EData(n).Detach())
	}
	dl := loaderOver(s)
	if pin {
		u, err := tensor.NewPinnedUploader(dev, 0)
		if err != nil {
			dl.Close()
			return nil, fmt.Errorf("%s: PinMemory on %s: %w", name, dev, err)
		}
		dl.ctl.up = pinnedUploader{u}
	}
	return dl, nil
}

// loaderOver returns the DataLoader over a checked source.
func loaderOver(s *source) *DataLoader {
	bytes := int64(len(s.seeds)) * 8
	tensor.CountBytes("cpu", bytes)
	if s.opts.ReuseBuffers && s.opts.Device == "cpu" {
		// At most the current batch and the prefetch window are in use at
		// once (plus one spare), per feature tensor of a batch.
		per := max(len(s.opts.PrefetchNodeFeats), 1)
		if s.het != nil {
			per *= len(s.het.ntypes)
		}
		s.pool = &bufPool{max: per * (2 + s.opts.NumWorkers*s.opts.PrefetchFactor)}
	}
	dl := &DataLoader{src: s, ctl: &control{}, seen: runctx.Interrupts()}
	runtime.AddCleanup(s, func(n int64) { tensor.CountBytes("cpu", -n) }, bytes)
	dl.cleanup = runtime.AddCleanup(dl, func(c *control) { c.release() }, dl.ctl)
	return dl
}

// checkLoaderOptions checks the options every DataLoader shares and
// returns them with the defaults filled in.
func checkLoaderOptions(name string, opts LoaderOptions) (LoaderOptions, error) {
	for _, o := range []struct {
		name string
		v    int
	}{{"BatchSize", opts.BatchSize}, {"NumWorkers", opts.NumWorkers}, {"PrefetchFactor", opts.PrefetchFactor}} {
		if o.v < 0 {
			return opts, fmt.Errorf("%s: LoaderOptions.%s (%d) must be >= 0 (0: the default): %w", name, o.name, o.v, ErrArgument)
		}
	}
	if opts.NumWorkers > MaxWorkers || opts.PrefetchFactor > MaxWorkers {
		return opts, fmt.Errorf("%s: NumWorkers (%d) and PrefetchFactor (%d) must be at most %d (each worker is a goroutine and each prefetched batch a batch in memory): %w",
			name, opts.NumWorkers, opts.PrefetchFactor, MaxWorkers, ErrArgument)
	}
	if opts.Device == "" {
		opts.Device = "cpu"
	}
	dev, err := tensor.ParseDevice(opts.Device)
	if err == nil && dev != "cpu" && !strings.HasPrefix(dev, "meta") {
		_, err = tensor.OpenBackend(dev)
	}
	if err != nil {
		return opts, fmt.Errorf("%s: Device %q: %w: %w", name, opts.Device, ErrArgument, err)
	}
	opts.Device = dev
	if opts.UseUVA {
		return opts, fmt.Errorf("%s: UseUVA (DGL's use_uva: sampling from pinned host memory with GPU kernels) is not implemented: gnnrepl has no GPU sampling kernels yet (issue 13); use Device: \"cuda\" with PinMemory: %w", name, tensor.ErrNotImplemented)
	}
	if opts.Shard.Size < 0 || opts.Shard.Rank < 0 || (opts.Shard.Size > 0 && opts.Shard.Rank >= opts.Shard.Size) || (opts.Shard.Size == 0 && opts.Shard.Rank != 0) {
		return opts, fmt.Errorf("%s: Shard{Rank: %d, Size: %d}: want 0 <= Rank < Size: %w", name, opts.Shard.Rank, opts.Shard.Size, ErrArgument)
	}
	if opts.Shard.Size == 0 {
		opts.Shard.Size = 1
	}
	switch opts.OnInterrupt {
	case "":
		opts.OnInterrupt = "restart"
	case "restart", "resume":
	default:
		return opts, fmt.Errorf("%s: OnInterrupt %q; want \"restart\" (the default) or \"resume\": %w", name, opts.OnInterrupt, ErrArgument)
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = 1
	}
	if opts.PrefetchFactor == 0 {
		opts.PrefetchFactor = 2
	}
	switch opts.StoreGatherDType {
	case tensor.Float32, tensor.Float16, tensor.BFloat16:
	default:
		return opts, fmt.Errorf("%s: StoreGatherDType %v; want float32, float16 or bfloat16: %w", name, opts.StoreGatherDType, ErrArgument)
	}
	return opts, nil
}

// Len returns the number of batches per epoch: ceil(seeds / BatchSize), or
// floor with DropLast, where seeds is this rank's share with a Shard.
func (dl *DataLoader) Len() int {
	n, b := dl.src.shardLen(), dl.src.opts.BatchSize
	if dl.src.opts.DropLast {
		return n / b
	}
	return (n + b - 1) / b
}

// NumSeeds returns the number of seed nodes (of edge ids for an edge
// DataLoader).
func (dl *DataLoader) NumSeeds() int { return len(dl.src.seeds) }

// Options returns the options in use, defaults filled in.
func (dl *DataLoader) Options() LoaderOptions { return dl.src.opts }

// Epoch returns the number of the epoch in progress, or of the one the next
// call to Next starts. Epochs are numbered from 0.
func (dl *DataLoader) Epoch() int {
	if dl.cur != nil {
		return dl.cur.epoch
	}
	return dl.nextEpoch
}

// SetEpoch abandons the epoch in progress, if any, and makes the next call
// to Next start epoch e (as DistributedSampler.set_epoch), which replays
// that epoch's shuffle and samples exactly.
func (dl *DataLoader) SetEpoch(e int) {
	dl.Reset()
	dl.nextEpoch, dl.nextBatch = e, 0
}

// StateDict returns the loader's position and what its batches depend on,
// as plain values (torchdata's StatefulDataLoader.state_dict()): "epoch"
// (Epoch()), "batch" (the number of batches of that epoch handed out so
// far, 0 between epochs), and "seed", "num_seeds", "batch_size",
// "shuffle", "drop_last" from the options. Every batch is a function of
// (Seed, epoch, batch index), so this is all a resumed run needs.
func (dl *DataLoader) StateDict() map[string]any {
	epoch, batch := dl.nextEpoch, dl.nextBatch
	if dl.cur != nil {
		epoch, batch = dl.cur.epoch, dl.cur.next
	}
	o := dl.src.opts
	return map[string]any{"epoch": epoch, "batch": batch, "seed": o.Seed, "num_seeds": len(dl.src.seeds),
		"batch_size": o.BatchSize, "shuffle": o.Shuffle, "drop_last": o.DropLast}
}

// LoadStateDict abandons the epoch in progress and makes the next call to
// Next hand out batch "batch" of epoch "epoch" of sd, which a StateDict
// saved: the batches that follow are those the saving loader would have
// handed out next. Numbers may come back as float64 (a JSON round trip).
// It returns an error wrapping ErrArgument, and changes nothing, when a
// key is missing or unknown, the position is out of range, or the seed,
// the number of seeds, the batch size, shuffle or drop_last differ from
// this loader's (the batches would then differ).
func (dl *DataLoader) LoadStateDict(sd map[string]any) error {
	const name = "sampling.DataLoader.LoadStateDict"
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s: %w", name, fmt.Sprintf(format, args...), ErrArgument)
	}
	num := func(key string) (int64, error) {
		switch v := sd[key].(type) {
		case int:
			return int64(v), nil
		case int64:
			return v, nil
		case float64:
			if v == float64(int64(v)) {
				return int64(v), nil
			}
		}
		return 0, bad("%s is %v (%T), want an integer", key, sd[key], sd[key])
	}
	o := dl.src.opts
	if len(sd) != 7 {
		return bad("%d entries, want the 7 of a DataLoader state (epoch, batch, seed, num_seeds, batch_size, shuffle, drop_last)", len(sd))
	}
	var v [5]int64
	for i, k := range []string{"epoch", "batch", "seed", "num_seeds", "batch_size"} {
		x, err := num(k)
		if err != nil {
			return err
		}
		v[i] = x
	}
	shuffle, ok1 := sd["shuffle"].(bool)
	dropLast, ok2 := sd["drop_last"].(bool)
	switch {
	case !ok1 || !ok2:
		return bad("shuffle and drop_last must be bools, got %v and %v", sd["shuffle"], sd["drop_last"])
	case v[2] != o.Seed || v[3] != int64(len(dl.src.seeds)) || v[4] != int64(o.BatchSize) || shuffle != o.Shuffle || dropLast != o.DropLast:
		return bad("saved from a loader with Seed %d, %d seeds, BatchSize %d, Shuffle %v, DropLast %v; this one has Seed %d, %d seeds, BatchSize %d, Shuffle %v, DropLast %v",
			v[2], v[3], v[4], shuffle, dropLast, o.Seed, len(dl.src.seeds), o.BatchSize, o.Shuffle, o.DropLast)
	case v[0] < 0 || v[0] > math.MaxInt32 || v[1] < 0 || v[1] > int64(dl.Len()):
		return bad("position epoch %d, batch %d is out of range (%d batches per epoch)", v[0], v[1], dl.Len())
	}
	dl.Reset()
	dl.nextEpoch, dl.nextBatch = int(v[0]), int(v[1])
	return nil
}

// Reset abandons the epoch in progress, stopping its workers; the next call
// to Next starts a new epoch.
func (dl *DataLoader) Reset() {
	if dl.cur != nil {
		dl.finish(nil)
	}
}

// Next advances to the next batch and reports whether there is one. At the
// end of an epoch, on an error and on cancellation it stops the workers
// (none is left running) and returns false; Err tells which. The next call
// after false starts a new epoch.
func (dl *DataLoader) Next() bool {
	if dl.closed {
		dl.err = ErrClosed
		return false
	}
	dl.recycle()
	if err := runctx.Err(); err != nil {
		dl.interrupted(err)
		return false
	}
	if n := runctx.Interrupts(); n != dl.seen {
		dl.seen = n
		if dl.cur != nil && dl.src.opts.OnInterrupt == "restart" {
			dl.finish(nil) // the epoch was interrupted between two calls
		}
	}
	if dl.cur == nil {
		dl.start()
	}
	r := dl.cur
	if r.next >= r.numBatches {
		dl.finish(nil)
		return false
	}
	if r.pipe == nil && dl.src.opts.NumWorkers > 0 {
		dl.startPipeline(r) // resuming an epoch interrupted inside Next
	}
	var b *batchResult
	var err error
	if up := dl.ctl.up; up != nil {
		b, err = dl.nextPinned(r, up)
	} else {
		b, err = dl.fetch(r)
	}
	if err != nil {
		if ctxErr := runctx.Err(); ctxErr != nil {
			dl.interrupted(ctxErr)
		} else {
			dl.finish(err)
		}
		return false
	}
	r.next++
	dl.batch = b
	return true
}

// fetch returns the next batch of r from its workers or, without workers,
// produces it here.
func (dl *DataLoader) fetch(r *epochRun) (b *batchResult, err error) {
	if r.pipe != nil {
		b, err = r.pipe.receive()
	} else {
		b, err = dl.src.produce(r, r.fetched)
	}
	r.fetched++
	return b, err
}

// nextPinned is Next's PinMemory path: it hands out the batch whose upload
// the previous call queued (the compute stream waits for its copy), then
// fetches the following batch and queues its upload, so that the copy runs
// while the caller computes on this one. An error fetching the following
// batch is kept for the call that would hand it out.
func (dl *DataLoader) nextPinned(r *epochRun, up uploader) (*batchResult, error) {
	if r.ahead == nil {
		if r.aheadErr != nil {
			return nil, r.aheadErr
		}
		if err := dl.fetchAhead(r, up); err != nil {
			return nil, err
		}
	}
	b, p := r.ahead, r.aheadUp
	r.ahead, r.aheadUp = nil, nil
	outs, err := p.ready()
	if err != nil {
		return nil, fmt.Errorf("sampling.DataLoader: batch %d: %w", b.index, err)
	}
	for i, st := range b.staged {
		if err := st.set(outs[i]); err != nil {
			return nil, err
		}
	}
	b.staged = nil
	if r.fetched < r.numBatches {
		r.aheadErr = dl.fetchAhead(r, up)
	}
	return b, nil
}

// fetchAhead fetches the next batch and queues its upload as r.ahead.
func (dl *DataLoader) fetchAhead(r *epochRun, up uploader) error {
	b, err := dl.fetch(r)
	if err != nil {
		return err
	}
	ts := make([]*tensor.Tensor, len(b.staged))
	for i, st := range b.staged {
		ts[i] = st.t
	}
	p, err := up.start(ts)
	if err != nil {
		return fmt.Errorf("sampling.DataLoader: batch %d: %w", b.index, err)
	}
	r.ahead, r.aheadUp = b, p
	return nil
}

// interrupted ends a call of Next that saw the running evaluation
// cancelled: the epoch is dropped ("restart"), or its workers are stopped
// and its position kept for the next call ("resume"). Err returns err.
func (dl *DataLoader) interrupted(err error) {
	dl.seen = runctx.Interrupts()
	if dl.cur == nil || dl.src.opts.OnInterrupt == "restart" {
		dl.finish(err)
		return
	}
	r := dl.cur
	if r.pipe != nil {
		dl.ctl.set(nil)
		r.pipe = nil
	}
	// Batches fetched but not handed out (the one cut short, PinMemory's
	// batch ahead) are fetched again from the next one handed out.
	if r.aheadUp != nil {
		r.aheadUp.ready()
	}
	r.ahead, r.aheadUp, r.aheadErr = nil, nil, nil
	r.fetched = r.next
	dl.batch, dl.err = nil, err
}

// shardLen is the number of seeds of this rank per epoch (all of them
// without a Shard).
func (s *source) shardLen() int {
	n, k := len(s.seeds), s.opts.Shard.Size
	if k <= 1 {
		return n
	}
	if s.opts.DropLast {
		return n / k
	}
	return (n + k - 1) / k
}

// shard is this rank's chunk of an epoch's seed order (LoaderOptions.Shard).
func (s *source) shard(order []int64) []int64 {
	k := s.opts.Shard.Size
	if k <= 1 || len(order) == 0 {
		return order
	}
	per := s.shardLen()
	out := make([]int64, per)
	for i := range out {
		out[i] = order[(s.opts.Shard.Rank*per+i)%len(order)]
	}
	return out
}

// start begins epoch dl.nextEpoch.
func (dl *DataLoader) start() {
	s := dl.src
	r := &epochRun{epoch: dl.nextEpoch, epochSeed: EpochSeed(s.opts.Seed, dl.nextEpoch), numBatches: dl.Len(), next: dl.nextBatch, fetched: dl.nextBatch}
	dl.nextEpoch++
	dl.nextBatch = 0
	dl.err, dl.batch = nil, nil
	r.order = s.seeds
	if s.opts.Shuffle {
		r.order = append([]int64(nil), s.seeds...)
		rng := rand.New(rand.NewPCG(uint64(s.opts.Seed), mix64(uint64(r.epoch)+golden)))
		rng.Shuffle(len(r.order), func(i, j int) { r.order[i], r.order[j] = r.order[j], r.order[i] })
	}
	r.order = s.shard(r.order)
	if s.opts.NumWorkers > 0 && r.numBatches > r.next {
		dl.startPipeline(r)
	}
	dl.cur = r
}

// startPipeline starts the workers of r from its next batch.
func (dl *DataLoader) startPipeline(r *epochRun) {
	s := dl.src
	// No more workers or queued batches than the epoch has batches left.
	left := r.numBatches - r.next
	workers := min(s.opts.NumWorkers, left)
	r.pipe = startPipeline(s, r, workers, min(workers*s.opts.PrefetchFactor, left))
	dl.ctl.set(r.pipe)
}

// finish ends the epoch in progress with err, stopping and joining its
// workers.
func (dl *DataLoader) finish(err error) {
	if dl.cur != nil && dl.cur.aheadUp != nil {
		// The compute stream waits for the abandoned copy, so that its
		// device blocks are reused only after it.
		dl.cur.aheadUp.ready()
	}
	if dl.cur != nil && dl.cur.pipe != nil {
		dl.ctl.set(nil)
	}
	dl.recycle()
	dl.cur, dl.batch, dl.err = nil, nil, err
}

// recycle hands the current batch's pooled buffers back to the pool
// (ReuseBuffers) and drops the batch: its data is no longer valid.
func (dl *DataLoader) recycle() {
	if b := dl.batch; b != nil && dl.src.pool != nil {
		dl.src.pool.put(b.pooled)
		b.pooled = nil
		dl.batch = nil
	}
}

// Err returns the error that ended the last epoch early: a sampling error,
// the context's error (context.Canceled) after an interrupt, or ErrClosed;
// nil after a complete epoch.
func (dl *DataLoader) Err() error { return dl.err }

// Close stops the workers and ends the DataLoader: Next returns false from
// then on and Err returns ErrClosed. Closing twice is harmless.
func (dl *DataLoader) Close() error {
	dl.Reset()
	dl.closed = true
	if dl.src.pool != nil {
		dl.src.pool.reset()
	}
	dl.cleanup.Stop()
	dl.ctl.mu.Lock()
	up := dl.ctl.up
	dl.ctl.up = nil
	dl.ctl.mu.Unlock()
	if up != nil {
		return up.close()
	}
	return nil
}

// Blocks returns the current batch's blocks, input layer first (nil before
// the first Next and after it returns false).
func (dl *DataLoader) Blocks() []*graph.Block {
	if dl.batch == nil {
		return nil
	}
	return dl.batch.blocks
}

// InputNodes returns the parent ids of the current batch's input nodes
// (blocks[0]'s source nodes), (N_in) int64.
func (dl *DataLoader) InputNodes() *tensor.Tensor {
	if dl.batch == nil {
		return nil
	}
	return dl.batch.input
}

// OutputNodes returns the parent ids of the current batch's seed nodes (the
// last block's destination nodes), (N_out) int64.
func (dl *DataLoader) OutputNodes() *tensor.Tensor {
	b := dl.batch
	if b == nil {
		return nil
	}
	if b.output == nil {
		// Narrow here rather than in a worker, so that op hooks (the
		// profiler) only see the consumer's goroutine.
		b.output = tensor.Narrow(b.lastIn, 0, b.blocks[len(b.blocks)-1].NumDstNodes())
	}
	return b.output
}

// BatchIndex returns the index of the current batch within its epoch, or -1
// when there is none.
func (dl *DataLoader) BatchIndex() int {
	if dl.batch == nil {
		return -1
	}
	return dl.batch.index
}

// String describes the loader in one line.
func (dl *DataLoader) String() string {
	o := dl.src.opts
	if e := dl.src.edge; e != nil {
		return fmt.Sprintf("EdgeDataLoader(num_edges=%d, batch_size=%d, num_batches=%d, shuffle=%v, drop_last=%v, num_workers=%d, exclude=%q, negative_sampler=%v)",
			len(dl.src.seeds), o.BatchSize, dl.Len(), o.Shuffle, o.DropLast, o.NumWorkers, e.exclude, e.neg)
	}
	return fmt.Sprintf("DataLoader(num_seeds=%d, batch_size=%d, num_batches=%d, shuffle=%v, drop_last=%v, num_workers=%d)",
		len(dl.src.seeds), o.BatchSize, dl.Len(), o.Shuffle, o.DropLast, o.NumWorkers)
}

// produce samples batch i of run r and gathers its features. It recovers a
// panic (from a user-written Sampler) into an error, since it may run in a
// worker goroutine that no front end can recover: an engine error is
// wrapped (errors.Is(err, tensor.ErrShape) holds), and any other panic, a
// bug, carries the stack where it happened.
func (s *source) produce(r *epochRun, i int) (b *batchResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			if engerr.IsEngine(p) {
				b, err = nil, fmt.Errorf("sampling.DataLoader: batch %d of epoch %d: panic: %w", i, r.epoch, p.(error))
				return
			}
			b, err = nil, fmt.Errorf("sampling.DataLoader: batch %d of epoch %d: panic: %v\n%s", i, r.epoch, p, debug.Stack())
		}
	}()
	bs := s.opts.BatchSize
	lo, hi := i*bs, min((i+1)*bs, len(r.order))
	seeds := r.order[lo:hi:hi]
	if s.het != nil {
		return s.het.produce(s, i, seeds, r.epochSeed)
	}
	var blocks []*graph.Block
	var pair, negPair *graph.Graph
	if s.edge != nil {
		blocks, pair, negPair, err = s.edge.sample(s.g, s.sampler, seeds, r.epochSeed)
	} else {
		blocks, err = s.sampler.SampleBlocks(s.g, seeds, r.epochSeed)
	}
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("sampling.DataLoader: the sampler returned no blocks")
	}
	first, last := blocks[0], blocks[len(blocks)-1]
	input := parentIDs(first)
	lastIn := input
	if len(blocks) > 1 {
		lastIn = parentIDs(last)
	}
	b = &batchResult{index: i, blocks: blocks, input: input, lastIn: lastIn, pair: pair, negPair: negPair,
		pin: s.pin}
	for k, t := range s.nodeFeats {
		x, buf := gatherPooled(s.pool, s.gatherDev, t, first.SrcNodeIDs())
		if buf != nil {
			b.pooled = append(b.pooled, buf)
		}
		if err := b.put(s.opts.PrefetchNodeFeats[k], first.SetSrcData, x); err != nil {
			return nil, err
		}
	}
	for k, st := range s.stores {
		if err := b.put(s.storeNames[k], first.SetSrcData, gatherStore(s.gatherDev, st, input, s.opts.StoreGatherDType)); err != nil {
			return nil, err
		}
	}
	for k, t := range s.labels {
		if err := b.put(s.opts.PrefetchLabels[k], last.SetDstData, gatherOn(s.gatherDev, t, last.DstNodeIDs())); err != nil {
			return nil, err
		}
	}
	if len(s.edgeFeats) > 0 {
		for _, blk := range blocks {
			e := blk.EIDs()
			if e == nil {
				return nil, fmt.Errorf("sampling.DataLoader: PrefetchEdgeFeats needs parent edge ids, but the sampler recorded none")
			}
			for k, t := range s.edgeFeats {
				if err := b.put(s.opts.PrefetchEdgeFeats[k], blk.SetEData, gatherOn(s.gatherDev, t, e.Int64s())); err != nil {
					return nil, err
				}
			}
		}
	}
	return b, nil
}

// put stores gathered data t under name with set (a block's SetSrcData,
// SetDstData or SetEData) and, when the loader pins memory (the data was
// gathered on the host for a GPU), stages it for Next's upload, which
// replaces it by its device copy before the batch is handed out.
func (b *batchResult) put(name string, set func(string, *tensor.Tensor) error, t *tensor.Tensor) error {
	if err := set(name, t); err != nil {
		return err
	}
	if b.pin {
		b.staged = append(b.staged, stagedData{t: t, set: func(d *tensor.Tensor) error { return set(name, d) }})
	}
	return nil
}

// parentIDs returns a block's source node ids as a tensor: its
// SrcData(graph.NID) when the sampler stored it, else a new wrapper.
func parentIDs(b *graph.Block) *tensor.Tensor {
	if b.HasSrcData(graph.NID) {
		if t := b.SrcData(graph.NID); t != nil {
			return t
		}
	}
	return b.SrcNodes()
}
