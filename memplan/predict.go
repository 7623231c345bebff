package memplan

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"weak"

	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/memwatch"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// fullSteps is the number of full-graph steps run: the first builds the
// caches and the optimizer state, the second is the steady state.
const fullSteps = 2

// Predict returns the predicted peak memory of training c, in bytes, with
// its breakdown at the peak, before anything is trained: it runs the real
// model, optimizer, autocast and DataLoader of c on the meta device
// (tensor's "meta", PyTorch's meta tensors), where every op makes the
// allocations it makes on the CPU and computes nothing, and reads the
// engine's accounting. Full-graph training runs two steps (the first
// builds the caches and the optimizer state); with Sampling the
// DataLoader samples the real graph for DryRunBatches steps (the batches
// a DataLoader with c.Seed gives first, so the blocks are those Measure
// trains on) and gathers meta features in their place.
//
// Without a Dataset the graph is a uniform random one of NumNodes nodes
// and NumEdges edges (each node NumEdges/NumNodes in-edges), built once
// and kept while memory allows; its features are meta tensors of
// FeatureDensity. With Device "cuda" the accounting is a CUDA device's
// (tensor's "meta:cuda": blocks of the caching allocator), counting what
// lives on the GPU: the model, its optimizer state, the batches (or the
// full graph's features) and the activations.
//
// It returns an error wrapping ErrConfig naming the first invalid field,
// or the DataLoader's error. Predict is not safe to run concurrently with
// Measure or another Predict (they share the op hook).
func Predict(c Config) (Plan, error) {
	n, err := c.normalized()
	if err != nil {
		return Plan{}, err
	}
	p, err := predict(&n)
	if err != nil {
		return Plan{}, fmt.Errorf("memplan.Predict: %w", err)
	}
	return p, nil
}

// predict runs the normalized c on the meta device.
func predict(c *Config) (Plan, error) {
	dev, watched := "meta", []string{"cpu", "meta"}
	if c.Device == "cuda" {
		dev, watched = "meta:cuda", []string{"meta:cuda"}
	}
	g, seeds, err := plannedGraph(c)
	if err != nil {
		return Plan{}, err
	}
	r := &runner{c: c, dev: dev, g: g, seeds: seeds}
	var storeFeat *tensor.Tensor
	if usesStore(c) {
		// The store lives in host memory: a meta store on "meta" (counted
		// for a CPU plan, not for a GPU one).
		storeFeat = tensor.EmptyOn("meta", tensor.Float32, c.NumNodes, c.NumFeatures)
	}
	// The dataset's tensors exist before training: they are counted apart
	// (keptBytes), as Measure counts the dataset it is given, unless they
	// are copied to the GPU.
	inputs := func() {
		if c.Sampling {
			return
		}
		r.feat = tensor.EmptyOn(dev, tensor.Float32, c.NumNodes, c.NumFeatures)
		if c.FeatureDensity > 0 {
			r.feat.SetMetaDensity(c.FeatureDensity)
		}
		r.labels = tensor.EmptyOn(dev, tensor.Int64, c.NumNodes)
		r.trainIdx = tensor.EmptyOn(dev, tensor.Int64, c.NumTrain)
	}
	if dev == "meta" {
		inputs()
	}
	warmGraph(g)
	settleQuiet()
	w := memwatch.Start(watched...)
	defer w.Stop()
	r.w = w
	w.SetPhase(phData)
	if dev != "meta" {
		inputs()
	}
	if storeFeat != nil {
		st, err := featstore.NewMeta(storeFeat, storeDTypes[c.FeatureStore])
		if err != nil {
			return Plan{}, err
		}
		defer st.Close()
		r.store = st
	}
	steps := fullSteps
	if c.Sampling && c.Dataset != nil {
		steps = c.DryRunBatches
	} else if c.Sampling {
		steps = min(c.DryRunBatches, 2) // the random graph's batches are alike
	}
	if err := r.run(steps); err != nil {
		return Plan{}, err
	}
	return r.plan(), nil
}

// plan turns the run's accounting into a Plan.
func (r *runner) plan() Plan {
	c := r.c
	snap, _ := r.w.Peak()
	kept := int64(0)
	if r.dev == "meta" {
		kept = keptBytes(c)
	}
	var queued int64
	if c.Sampling && c.NumWorkers > 0 {
		// Batches sampled ahead wait in the loader's queue: at most
		// NumWorkers*PrefetchFactor of them, each counted as the largest.
		queued = int64(c.NumWorkers*c.PrefetchFactor) * r.maxBatch
	}
	p := Plan{Config: *c, TensorPeak: snap.Live + kept + queued, Resident: r.resident + kept, Blocks: r.largest}
	p.Parameters = snap.ByPhase[phModel]
	p.OptimizerState = snap.ByPhase[phStep]
	p.Activations = snap.ByPhase[phForward]
	p.Gradients = min(r.peakGrads, snap.ByPhase[phBackward])
	// The sampling phase's tensors are batches (the current one and any
	// the loader made ahead): their features and labels, by the share
	// they take in one batch, and the blocks' id arrays.
	batchX := snap.ByPhase[phSample]
	if r.peakBatch > 0 {
		batchX = int64(float64(batchX) * min(1, float64(r.peakBatchX)/float64(r.peakBatch)))
	}
	var storeBytes int64
	if r.store != nil && r.dev == "meta" {
		storeBytes = min(r.store.Bytes(), snap.Counted)
	}
	p.Features = kept + snap.ByPhase[phData] + batchX + storeBytes + queued
	structure := r.structureBytes()
	p.GraphStructure = structure + snap.ByPhase[phSample] - batchX + snap.Counted - storeBytes
	p.Peak = p.TensorPeak + structure
	p.Workspace = p.Peak - (p.GraphStructure + p.Features + p.Parameters + p.Gradients + p.OptimizerState + p.Activations)
	if p.Workspace < 0 { // counted buffers released that the watcher saw made elsewhere
		p.GraphStructure += p.Workspace
		p.Workspace = 0
	}
	p.PeakAt = phaseNames[min(r.peakPhase, len(phaseNames)-1)]
	if r.peakAt != "" && r.peakPhase != phSample {
		p.PeakAt += ": " + r.peakAt
	}
	return p
}

// structureBytes is the memory the accounting does not see: the graph's
// arrays (plain Go slices) and the reversed adjacencies the first backward
// builds and caches (tensor.Adj.Reverse), of the full graph or of each
// layer's largest block; for a GPU plan, the adjacencies copied to the
// device instead.
func (r *runner) structureBytes() int64 {
	c := r.c
	n, e := int64(c.NumNodes), int64(c.NumEdges)
	var b int64
	if r.dev == "meta" {
		b = graphBytes(c)
	}
	if !c.Sampling {
		b += adjBytes(n, e) // the reverse (CPU) or the device copy (GPU)
		if c.Model == "gcn" {
			b += adjBytes(n, e) // the out-adjacency (CSR) for the degree norm
		}
		return b
	}
	for _, x := range r.largest {
		b += adjBytes(int64(x.NumSrcNodes), int64(x.NumEdges))
	}
	return b
}

// adjBytes is the size of a compressed adjacency with edge ids (indptr,
// indices, eids: int64).
func adjBytes(n, e int64) int64 { return (n + 1 + 2*e) * 8 }

// graphBytes is the graph's structure: its edge lists and its in-edge
// adjacency (CSC). graph.New keeps the COO source and destination ids and
// builds a CSC with edge ids; a graph built from a CSC whose positions are
// the edge ids, as datasets.PowerLaw's, shares the CSC's indices as its
// sources and keeps only the destinations. Without a Dataset the graph is
// assumed built by graph.New.
func graphBytes(c *Config) int64 {
	n, e := int64(c.NumNodes), int64(c.NumEdges)
	if d := c.Dataset; d != nil {
		a := d.Graph.Adj()
		csc := int64(len(a.Indptr)+len(a.Indices)+len(a.EIDs)) * 8
		if a.EIDs == nil {
			return csc + e*8
		}
		return csc + 2*e*8
	}
	return adjBytes(n, e) + 2*e*8
}

// keptBytes is the bytes of the dataset's tensors a configuration keeps
// (keptDatasetBytes with a Dataset; without one, the float32 features and
// the node data a Planetoid-style dataset has: int64 labels, three bool
// masks and the int64 training ids).
func keptBytes(c *Config) int64 {
	if c.Dataset != nil {
		return keptDatasetBytes(c)
	}
	n := int64(c.NumNodes)
	b := n*8 + 3*n + int64(c.NumTrain)*8
	if !usesStore(c) || c.FeatureStore == "float32" {
		b += n * int64(c.NumFeatures) * 4
	}
	return b
}

// storeBytes is what the feature store of c takes beyond the dataset's
// tensor (featstore's own count, through a Meta store).
func storeBytes(c *Config) int64 {
	if !usesStore(c) {
		return 0
	}
	st, err := featstore.NewMeta(tensor.EmptyOn("meta", tensor.Float32, c.NumNodes, c.NumFeatures), storeDTypes[c.FeatureStore])
	if err != nil {
		return 0
	}
	defer st.Close()
	return st.Bytes()
}

// plannedGraph returns the graph and the sampling seeds of c: the
// Dataset's, or a uniform random graph of c's counts with meta node data.
func plannedGraph(c *Config) (*graph.Graph, *tensor.Tensor, error) {
	if d := c.Dataset; d != nil {
		seeds := d.TrainIdx
		if seeds == nil || seeds.Numel() != c.NumTrain {
			seeds = spreadIDs(c.NumTrain, c.NumNodes)
		}
		return d.Graph, seeds, nil
	}
	g, err := syntheticGraph(c.NumNodes, c.NumEdges)
	if err != nil {
		return nil, nil, err
	}
	if c.Sampling {
		// The features and labels the loader gathers: meta, shapes only
		// (set anew on the shared graph each time; Predict runs alone).
		feat := tensor.EmptyOn("meta", tensor.Float32, c.NumNodes, c.NumFeatures)
		if c.FeatureDensity > 0 {
			feat.SetMetaDensity(c.FeatureDensity)
		}
		if err := g.SetNData("feat", feat); err != nil {
			return nil, nil, err
		}
		if err := g.SetNData("label", tensor.EmptyOn("meta", tensor.Int64, c.NumNodes)); err != nil {
			return nil, nil, err
		}
	}
	return g, spreadIDs(c.NumTrain, c.NumNodes), nil
}

// spreadIDs returns k node ids spread evenly over [0, n).
func spreadIDs(k, n int) *tensor.Tensor {
	ids := make([]int64, k)
	for i := range ids {
		ids[i] = int64(i) * int64(n) / int64(k)
	}
	return tensor.FromInt64(ids, k)
}

// synthetic keeps the last uniform random graph (weakly: the collector
// may reclaim it), since Suggest plans the same counts many times.
var synthetic struct {
	sync.Mutex
	n, e int
	g    weak.Pointer[graph.Graph]
}

// syntheticGraph returns a graph of n nodes and e edges, each node with
// e/n in-edges (the first e%n one more) from uniformly random sources
// (a fixed seed).
func syntheticGraph(n, e int) (*graph.Graph, error) {
	synthetic.Lock()
	defer synthetic.Unlock()
	if synthetic.n == n && synthetic.e == e {
		if g := synthetic.g.Value(); g != nil {
			return g, nil
		}
	}
	indptr := make([]int64, n+1)
	per, extra := e/n, e%n
	for v := 0; v < n; v++ {
		d := per
		if v < extra {
			d++
		}
		indptr[v+1] = indptr[v] + int64(d)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	indices := make([]int64, e)
	for i := range indices {
		indices[i] = int64(rng.Uint64N(uint64(n)))
	}
	g, err := graph.NewFromCSC(n, indptr, indices, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	synthetic.n, synthetic.e, synthetic.g = n, e, weak.Make(g)
	return g, nil
}

// warmGraph builds what a graph makes once on first use (its adjacency, and
// the edge-list tensors the sampler reads), so that a run counts its own
// memory, not the graph's: Predict and Measure call it before they start
// counting.
func warmGraph(g *graph.Graph) {
	g.Adj()
	g.Edges()
}
