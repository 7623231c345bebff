package memplan

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/gnnrepl/gnnrepl/amp"
	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/memwatch"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// One training loop serves Measure and Predict: Measure runs it on the
// CPU with the dataset's tensors; Predict runs the same model, optimizer,
// autocast and DataLoader on the meta device (tensor's "meta", or
// "meta:cuda" for a GPU plan), where every op allocates what it would
// allocate and computes nothing. The sampler still samples the real graph
// (the blocks' sizes are data), so Predict's blocks are the ones Measure
// trains on for the same Seed.

// Phases of the run, for the breakdown of the peak (memwatch).
const (
	phData = iota
	phModel
	phSample
	phForward
	phBackward
	phStep
)

var phaseNames = [...]string{"dataset", "model", "sampling (DataLoader.Next)", "forward", "backward", "optimizer step"}

// runner is one training run of a normalized Config on a device.
type runner struct {
	c   *Config
	dev string // "cpu", "meta" or "meta:cuda"

	g                      *graph.Graph
	feat, labels, trainIdx *tensor.Tensor // full-graph inputs on dev
	seeds                  *tensor.Tensor // sampling seeds (host)
	store                  featstore.Store
	loader                 *sampling.DataLoader

	w *memwatch.Watcher // Predict's accounting; nil for Measure

	// Set by the op hook when the watcher's peak rises.
	peaks       int64
	peakGrads   int64 // bytes of the parameters' gradients then
	peakBatchX  int64 // bytes of the current batch's gathered features and labels then
	peakBatch   int64 // bytes the current batch's Next allocated then
	peakAt      string
	peakPhase   int
	batchX      int64 // bytes of the current batch's features and labels
	batch       int64 // bytes the current batch's Next allocated (its tensors and buffers)
	maxBatch    int64 // the largest bytes one batch took on Next (sampling phase)
	model       nn.Module
	largest     []BlockSize
	resident    int64 // accounting after the model and the store are made
	lastLoss    float64
	stepsRun    int
	residentSet bool
}

// trainModel is what the loop calls on a model.
type trainModel interface {
	nn.Module
	To(device string) error
}

// setPhase moves the watcher to phase p.
func (r *runner) setPhase(p int) {
	if r.w != nil {
		r.w.SetPhase(p)
	}
}

// hook is the op hook of a run: garbage is collected before and after
// every op, so that the accounting holds exactly the reachable tensors,
// and, when Predict watches, the breakdown is read when the peak rises.
func (r *runner) hook(prev *atomic.Pointer[tensor.OpHook]) tensor.OpHook {
	return func(op string) func() {
		settle()
		var end func()
		if p := prev.Load(); p != nil && *p != nil {
			end = (*p)(op)
		}
		if r.w != nil {
			r.w.SetOp(op)
		}
		return func() {
			if end != nil {
				end()
			}
			r.notePeak()
			settle()
		}
	}
}

// notePeak records what the breakdown needs when the peak rose since the
// last call.
func (r *runner) notePeak() {
	if r.w == nil {
		return
	}
	snap, n := r.w.Peak()
	if n == r.peaks {
		return
	}
	r.peaks = n
	r.peakAt, r.peakPhase = snap.Op, snap.Phase
	r.peakBatchX, r.peakBatch = r.batchX, r.batch
	r.peakGrads = 0
	if r.model != nil {
		for _, p := range r.model.Parameters() {
			if g := p.Grad(); g != nil {
				r.peakGrads += g.Nbytes()
			}
		}
	}
}

// run builds the model and the optimizer, runs steps training steps (the
// loop of Config's doc) and returns the loss of the last (0 on a meta
// device).
func (r *runner) run(steps int) error {
	c := r.c
	var prevHook atomic.Pointer[tensor.OpHook] // the hook installed before, chained
	prev := tensor.SetOpHook(r.hook(&prevHook))
	prevHook.Store(&prev)
	defer tensor.SetOpHook(prev)

	r.setPhase(phModel)
	m := newModule(c)
	if r.dev != "cpu" {
		if err := m.To(r.dev); err != nil {
			return err
		}
	}
	r.model = m
	opt := newOptimizer(c, m.Parameters())
	settleQuiet()
	r.resident = r.live()
	if !c.Sampling {
		for i := 0; i < steps; i++ {
			if err := runctx.Err(); err != nil {
				return err
			}
			opt.ZeroGrad()
			settle()
			r.setPhase(phForward)
			var loss *tensor.Tensor
			autocast(c.DType, func() {
				loss = nn.MaskedCrossEntropy(m.(nn.GraphModel).Forward(r.g, r.feat), r.labels, r.trainIdx)
			})
			r.step(opt, loss)
		}
		runtime.KeepAlive(m)
		return nil
	}
	opts := sampling.LoaderOptions{BatchSize: c.BatchSize, Shuffle: true, Seed: c.Seed, Device: r.dev,
		StoreGatherDType: c.StoreGatherDType}
	if r.dev == "cpu" {
		opts.NumWorkers, opts.PrefetchFactor = c.NumWorkers, c.PrefetchFactor
	}
	if r.g.HasNData("label") {
		opts.PrefetchLabels = []string{"label"}
	}
	if r.store != nil {
		opts.NodeFeatStores = map[string]featstore.Store{"feat": r.store}
	} else {
		opts.PrefetchNodeFeats = []string{"feat"}
	}
	r.setPhase(phSample) // the loader may start sampling as soon as it is made
	dl, err := sampling.NewDataLoader(r.g, r.seeds, sampling.NeighborSampler{Fanouts: c.Fanouts}, opts)
	if err != nil {
		return err
	}
	defer dl.Close()
	for i := 0; i < steps; i++ {
		if err := runctx.Err(); err != nil {
			return err
		}
		opt.ZeroGrad()
		settle()
		r.setPhase(phSample)
		if r.w != nil {
			r.w.SetOp("DataLoader.Next")
		}
		before := r.live()
		if !dl.Next() {
			if err := dl.Err(); err != nil {
				return err
			}
			if !dl.Next() { // a new epoch
				return fmt.Errorf("memplan: the DataLoader gave no batch: %v", dl.Err())
			}
		}
		blocks := dl.Blocks()
		x := blocks[0].SrcData("feat")
		last := blocks[len(blocks)-1]
		var y *tensor.Tensor
		if last.HasDstData("label") {
			y = last.DstData("label")
		} else {
			y = tensor.EmptyOn(x.Device(), tensor.Int64, last.NumDstNodes())
		}
		r.batchX = x.Nbytes() + y.Nbytes()
		r.notePeak()
		settle()
		r.batch = r.live() - before
		r.maxBatch = max(r.maxBatch, r.batch)
		r.noteBlocks(blocks)
		r.setPhase(phForward)
		var loss *tensor.Tensor
		autocast(c.DType, func() {
			loss = tensor.CrossEntropy(m.(nn.BlockModel).ForwardBlocks(blocks, x), y)
		})
		r.step(opt, loss)
	}
	runtime.KeepAlive(dl)
	runtime.KeepAlive(m)
	return nil
}

// step runs backward and the optimizer's step on loss.
func (r *runner) step(opt optim.Optimizer, loss *tensor.Tensor) {
	r.setPhase(phBackward)
	loss.Backward()
	r.setPhase(phStep)
	opt.Step()
	r.stepsRun++
	if !loss.IsMeta() {
		r.lastLoss = loss.Item()
	}
	r.notePeak()
}

// noteBlocks keeps the largest block of each layer.
func (r *runner) noteBlocks(blocks []*graph.Block) {
	if r.largest == nil {
		r.largest = make([]BlockSize, len(blocks))
	}
	for l, b := range blocks {
		x := BlockSize{b.NumSrcNodes(), b.NumDstNodes(), b.NumEdges()}
		if o := r.largest[l]; x.NumEdges > o.NumEdges || x.NumEdges == o.NumEdges && x.NumSrcNodes > o.NumSrcNodes {
			r.largest[l] = x
		}
	}
}

// live returns the accounting now: the watcher's when Predict watches,
// else the CPU's.
func (r *runner) live() int64 {
	if r.w != nil {
		return r.w.Current().Live
	}
	return tensor.MemoryAllocated("cpu")
}

// autocast runs f inside amp.Autocast(dt) unless dt is Float32.
func autocast(dt tensor.DType, f func()) {
	if dt == tensor.Float32 {
		f()
		return
	}
	amp.Autocast(dt, f)
}

// newModule builds c's model as nn does (nn.GraphSAGE, nn.GCN or nn.GAT).
func newModule(c *Config) trainModel {
	switch c.Model {
	case "gcn":
		return nn.NewGCN(nn.GCNOptions{InFeats: c.NumFeatures, OutFeats: c.NumClasses, HiddenFeats: c.HiddenFeats,
			NumLayers: c.NumLayers, Dropout: c.Dropout, InputDropout: c.InputDropout, AllowZeroInDegree: true, Seed: c.Seed,
			Checkpoint: c.Checkpoint})
	case "gat":
		return nn.NewGAT(nn.GATOptions{InFeats: c.NumFeatures, OutFeats: c.NumClasses, HiddenFeats: c.HiddenFeats,
			NumLayers: c.NumLayers, NumHeads: c.NumHeads, NumOutHeads: c.NumOutHeads, FeatDrop: c.FeatDrop,
			AttnDrop: c.AttnDrop, AllowZeroInDegree: true, Seed: c.Seed, Checkpoint: c.Checkpoint})
	}
	return nn.NewGraphSAGE(nn.SAGEOptions{InFeats: c.NumFeatures, OutFeats: c.NumClasses, HiddenFeats: c.HiddenFeats,
		NumLayers: c.NumLayers, Aggregator: c.Aggregator, Dropout: c.Dropout, InputDropout: c.InputDropout, Seed: c.Seed,
		Checkpoint: c.Checkpoint})
}

// newOptimizer builds c's optimizer over params.
func newOptimizer(c *Config, params []*tensor.Tensor) optim.Optimizer {
	switch c.Optimizer {
	case "adamw":
		return optim.NewAdamW(params, optim.AdamOptions{LR: 0.01})
	case "sgd":
		return optim.NewSGD(params, optim.SGDOptions{LR: 0.1})
	case "sgd-momentum":
		return optim.NewSGD(params, optim.SGDOptions{LR: 0.1, Momentum: 0.9})
	}
	return optim.NewAdam(params, optim.AdamOptions{LR: 0.01})
}

// storeDTypes maps Config.FeatureStore to featstore's dtypes.
var storeDTypes = map[string]tensor.DType{"float32": tensor.Float32, "float16": tensor.Float16,
	"bfloat16": tensor.BFloat16, "int8": tensor.Int8}

// usesStore reports whether c's features are read through a feature store
// (a compressed one, or a float32 one gathered in a low dtype) rather than
// gathered from the dataset's tensor.
func usesStore(c *Config) bool {
	return c.Sampling && (c.FeatureStore != "float32" || c.StoreGatherDType != tensor.Float32)
}
