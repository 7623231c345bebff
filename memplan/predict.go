package memplan

import (
	"github.com/gnnrepl/gnnrepl/tensor"
)

// fullSteps is the number of full-graph steps simulated: the first builds
// the caches and the optimizer state, the second is the steady state.
const fullSteps = 2

// Predict returns the predicted peak memory of training c, in bytes, with
// its breakdown at the peak, before anything runs. It replays the training
// step symbolically (see Plan): every buffer the engine would allocate, in
// order, with the lifetimes autograd gives them, over two full-graph steps
// or the first DryRunBatches sampled batches. Sampled blocks are sized by a
// dry run of the NeighborSampler on c.Dataset (the same batches a
// DataLoader with c.Seed gives first), or in closed form without a Dataset
// (see Config.Fanouts).
//
// It returns an error wrapping ErrConfig naming the first invalid field, or
// the sampler's error from the dry run.
func Predict(c Config) (Plan, error) {
	n, err := c.normalized()
	if err != nil {
		return Plan{}, err
	}
	var batches [][]BlockSize
	if n.Sampling {
		if batches, err = batchBlocks(&n); err != nil {
			return Plan{}, err
		}
	}
	return predict(n, batches), nil
}

// predict simulates the normalized config c on the given batches.
func predict(c Config, batches [][]BlockSize) Plan {
	s := &sim{layer: -1}
	N, E, F := int64(c.NumNodes), int64(c.NumEdges), int64(c.NumFeatures)

	// The dataset: structure (Go slices: edge lists and the in-edge
	// adjacency the layers and the sampler read) and node data (tensors).
	s.begin("dataset")
	s.alloc(catGraph, graphBytes(&c), false)
	s.alloc(catFeatures, featureStoreBytes(&c), true)
	s.alloc(catFeatures, nodeDataBytes(&c), true)
	feat := &tn{shape: []int64{N, F}, elem: 4}
	feat.b = s.alloc(catFeatures, 0, true) // the feature matrix, counted above

	// The model, the optimizer (whose state is plain slices, allocated by
	// the first Step).
	s.begin("model")
	m := s.newModel(&c)
	var paramBytes int64
	for _, p := range m.params() {
		paramBytes += p.b.bytes
	}
	resident := s.liveCounted

	if !c.Sampling {
		s.begin("graph adjacency's reverse")
		s.alloc(catGraph, adjBytes(N, E), false) // Adj.Reverse, built by the first backward and cached
		if c.Model == "gcn" {
			s.begin("graph out-adjacency (CSR)")
			s.alloc(catGraph, adjBytes(N, E), false)
		}
		gs := make([]lgraph, c.NumLayers)
		for i := range gs {
			gs[i] = lgraph{ns: N, nd: N, e: E}
		}
		for step := 0; step < fullSteps; step++ {
			s.step(m, gs, feat, int64(c.NumTrain), true)
			if step == 0 {
				s.optimizerState(&c, paramBytes)
			}
		}
	} else {
		s.begin("DataLoader seeds")
		s.alloc(catWorkspace, int64(c.NumTrain)*8, true)
		if len(batches) == 1 { // a second step reaches the steady state
			batches = append(batches, batches[0])
		}
		if c.NumWorkers > 0 {
			// Batches sampled ahead wait in the loader's queue: at most
			// NumWorkers*PrefetchFactor of them, counted in full.
			big := largestBlocks(batches)
			for w := 0; w < c.NumWorkers*c.PrefetchFactor; w++ {
				s.sampleAhead(&c, big)
			}
		}
		var prev *batch
		for i, bs := range batches {
			s.zeroGrad(m)
			b := s.sample(&c, bs, prev)
			prev = b
			gs := make([]lgraph, len(bs))
			for l, x := range bs {
				gs[l] = lgraph{ns: int64(x.NumSrcNodes), nd: int64(x.NumDstNodes), e: int64(x.NumEdges), id: 1 + i*len(bs) + l}
			}
			s.step(m, gs, b.x, int64(bs[len(bs)-1].NumDstNodes), false)
			if i == 0 {
				s.optimizerState(&c, paramBytes)
			}
		}
	}
	p := Plan{Config: c, Peak: s.peak, TensorPeak: s.peakCounted, Resident: resident, PeakAt: s.peakAt}
	p.GraphStructure, p.Features, p.Parameters = s.peakBy[catGraph], s.peakBy[catFeatures], s.peakBy[catParams]
	p.Gradients, p.OptimizerState = s.peakBy[catGrads], s.peakBy[catOptimizer]
	p.Activations, p.Workspace = s.peakBy[catActivations], s.peakBy[catWorkspace]
	if c.Sampling {
		p.Blocks = largestBlocks(batches)
	}
	return p
}

// step simulates one training step on the layer graphs gs: zero_grad,
// forward (under autocast when c.DType is low), the loss (full graph:
// nn.MaskedCrossEntropy over the rows training rows; blocks:
// tensor.CrossEntropy over the seeds) and backward. The optimizer's step
// updates in place.
func (s *sim) step(m *model, gs []lgraph, x *tn, rows int64, full bool) {
	s.zeroGrad(m)
	if m.c.DType != tensor.Float32 {
		s.ac = low // amp.Autocast around the forward pass and the loss
	}
	logits := s.forward(m, gs, x)
	var loss *tn
	if full {
		// nn.MaskedCrossEntropy: the training rows of the logits and of the
		// labels, then cross-entropy.
		sel := s.indexSelect(logits, rows)
		s.begin("IndexSelect labels")
		y := s.newT(catWorkspace, 8, true, rows)
		loss = s.crossEntropy(sel)
		s.drop(sel, y)
	} else {
		loss = s.crossEntropy(logits)
	}
	s.ac = 0
	s.backward(loss)
	s.drop(loss, logits)
}

// zeroGrad is opt.ZeroGrad(): the gradients are set to none.
func (s *sim) zeroGrad(m *model) {
	for _, p := range m.params() {
		if p.grad != nil {
			s.unref(p.grad.b)
			p.grad = nil
		}
	}
}

// optimizerState allocates the optimizer's per-parameter buffers (counted
// by the engine's accounting), made by the first Step.
func (s *sim) optimizerState(c *Config, paramBytes int64) {
	s.begin("optimizer state")
	switch c.Optimizer {
	case "adam", "adamw":
		s.alloc(catOptimizer, 2*paramBytes, true)
	case "sgd-momentum":
		s.alloc(catOptimizer, paramBytes, true)
	}
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

// featureStoreBytes is the size of the stored node features.
func featureStoreBytes(c *Config) int64 {
	n, f := int64(c.NumNodes), int64(c.NumFeatures)
	if !c.Sampling {
		return n * f * 4
	}
	switch c.FeatureStore {
	case "float16", "bfloat16":
		return n * f * 2
	case "int8":
		return n*f + n*8 // values and a float32 scale and zero point per row
	}
	return n * f * 4
}

// nodeDataBytes is the size of the dataset's other tensors: labels, the
// three masks and the split ids.
func nodeDataBytes(c *Config) int64 {
	if d := c.Dataset; d != nil {
		var b int64
		for _, name := range d.Graph.NDataNames() {
			if name != "feat" {
				b += d.Graph.NData(name).Nbytes()
			}
		}
		for _, t := range []*tensor.Tensor{d.TrainIdx, d.ValIdx, d.TestIdx} {
			if t != nil {
				b += t.Nbytes()
			}
		}
		return b
	}
	n := int64(c.NumNodes)
	return n*8 + 3*n + n*8
}

// largestBlocks returns, per layer, the largest block of the batches.
func largestBlocks(batches [][]BlockSize) []BlockSize {
	out := append([]BlockSize(nil), batches[0]...)
	for _, bs := range batches[1:] {
		for l, b := range bs {
			if b.NumEdges > out[l].NumEdges || b.NumEdges == out[l].NumEdges && b.NumSrcNodes > out[l].NumSrcNodes {
				out[l] = b
			}
		}
	}
	return out
}

// batch is a sampled minibatch as the DataLoader holds it: its blocks'
// arrays, the gathered input features and labels.
type batch struct {
	bufs []*blk
	x, y *tn
}

func (s *sim) dropBatch(b *batch) {
	if b == nil {
		return
	}
	for _, x := range b.bufs {
		s.unref(x)
	}
	s.drop(b.x, b.y)
}

// sampleAhead allocates a batch that a loader worker sampled ahead (held
// until the end).
func (s *sim) sampleAhead(c *Config, bs []BlockSize) {
	s.begin("batches sampled ahead (DataLoader workers)")
	for l := range bs {
		ns, nd, e := int64(bs[l].NumSrcNodes), int64(bs[l].NumDstNodes), int64(bs[l].NumEdges)
		s.alloc(catGraph, (nd+1+2*e+ns)*8, true)
	}
	s.newT(catFeatures, gatherElem(c), true, int64(bs[0].NumSrcNodes), int64(c.NumFeatures))
	s.newT(catFeatures, 8, true, int64(bs[len(bs)-1].NumDstNodes))
}

// sample simulates DataLoader.Next: the sampler's workspace (a relabelling
// marker per graph node and the source-node buffer), each block's arrays,
// then the input features and the labels gathered for the batch. The
// previous batch stays referenced by the loader until Next returns.
func (s *sim) sample(c *Config, bs []BlockSize, prev *batch) *batch {
	s.begin("sampling (DataLoader.Next)")
	ns0 := int64(bs[0].NumSrcNodes)
	ws := s.alloc(catWorkspace, int64(c.NumNodes)*4+ns0*8, true)
	b := &batch{}
	for l := len(bs) - 1; l >= 0; l-- {
		ns, nd, e := int64(bs[l].NumSrcNodes), int64(bs[l].NumDstNodes), int64(bs[l].NumEdges)
		// indptr, indices, edge ids and source ids (the last two as the
		// block's tensors). Backward adds the block's reversed adjacency
		// (Adj.Reverse, plain slices), cached with the block; it is counted
		// here, with the block.
		b.bufs = append(b.bufs, s.alloc(catGraph, (nd+1+2*e+ns)*8, true),
			s.alloc(catGraph, adjBytes(ns, e), false))
	}
	f := int64(c.NumFeatures)
	s.begin("gather batch features")
	b.x = s.newT(catFeatures, gatherElem(c), true, ns0, f) // a store decodes its rows straight into the gather dtype
	b.y = s.newT(catFeatures, 8, true, int64(bs[len(bs)-1].NumDstNodes))
	s.dropBatch(prev)
	s.unref(ws)
	return b
}

// gatherElem is the element size of a batch's gathered input features:
// float32, or 2 bytes with a low StoreGatherDType.
func gatherElem(c *Config) int64 {
	if c.StoreGatherDType != tensor.Float32 {
		return 2
	}
	return f32
}
