package memplan

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gnnrepl/gnnrepl/amp"
	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/nn"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Measurement is the measured memory of a few training steps.
type Measurement struct {
	// TensorPeak is the measured peak of the engine's accounting, in bytes:
	// tensor.MaxMemoryAllocated("cpu") above its value before the model was
	// built, plus the dataset's tensors the Config keeps (all of them, less
	// "feat" when features live in a compressed store). It is the quantity
	// Plan.TensorPeak predicts.
	TensorPeak int64
	// Resident is the part of TensorPeak live before the first step: the
	// dataset's tensors the Config keeps, the feature store and the model's
	// parameters (Plan.Resident predicts it).
	Resident int64
	// Steps is the number of training steps run; Loss the last one's loss.
	Steps int
	Loss  float64
}

// String prints the measurement in one line.
func (m Measurement) String() string {
	if m.Steps == 0 {
		return "measurement: none (the zero Measurement; Measure returned an error)"
	}
	return fmt.Sprintf("measured peak %s (resident %s + step %s) over %d steps, last loss %.4f",
		tensor.FormatBytes(m.TensorPeak), tensor.FormatBytes(m.Resident), tensor.FormatBytes(m.TensorPeak-m.Resident), m.Steps, m.Loss)
}

// Measure builds c's model and optimizer on c.Dataset, runs steps training
// steps (the loop shown in Config's doc; 3 when steps <= 0) and returns
// the peak of the engine's memory accounting. Garbage is collected, and
// finalizers waited for, at the start and end of every op (through
// tensor.SetOpHook, chained to any hook installed) and after ZeroGrad and
// DataLoader.Next, so that the peak counts exactly the tensors that are
// reachable, as PyTorch's reference counting would free them. A collection
// per op makes the steps much slower (about 20 s for three products-scale
// minibatches): measure a few steps, not an epoch, and time elsewhere.
// Measure is not safe to run concurrently with other tensor work: the op
// hook and the accounting are process-wide.
//
// It returns an error wrapping ErrConfig when c is invalid or has no
// Dataset (with "feat", "label" and TrainIdx), the feature store's and the
// DataLoader's errors; a panic of the engine (a misuse)
// propagates after the op hook is restored.
func Measure(c Config, steps int) (Measurement, error) {
	n, err := c.normalized()
	if err != nil {
		return Measurement{}, err
	}
	if n.Dataset == nil {
		return Measurement{}, fmt.Errorf("%w: Measure needs a Dataset to train on", ErrConfig)
	}
	if !n.Dataset.Graph.HasNData("feat") || !n.Dataset.Graph.HasNData("label") || n.Dataset.TrainIdx == nil {
		return Measurement{}, fmt.Errorf("%w: Measure needs node data \"feat\" and \"label\" and TrainIdx in the Dataset (have %v)",
			ErrConfig, n.Dataset.Graph.NDataNames())
	}
	if steps <= 0 {
		steps = 3
	}
	d := n.Dataset
	g := d.Graph
	settleQuiet()
	base := tensor.MemoryAllocated("cpu")
	tensor.ResetPeakMemoryStats("cpu")
	var prevHook atomic.Pointer[tensor.OpHook] // the hook installed before, chained
	prev := tensor.SetOpHook(func(op string) func() {
		settle()
		var end func()
		if p := prevHook.Load(); p != nil && *p != nil {
			end = (*p)(op)
		}
		return func() {
			if end != nil {
				end()
			}
			settle()
		}
	})
	prevHook.Store(&prev)
	defer tensor.SetOpHook(prev)

	m := newModule(&n)
	opt := newOptimizer(&n, m.Parameters())
	res := Measurement{Steps: steps}
	if !n.Sampling {
		settle()
		res.Resident = tensor.MemoryAllocated("cpu") - base + keptDatasetBytes(&n)
		feat, labels := g.NData("feat"), g.NData("label")
		for i := 0; i < steps; i++ {
			opt.ZeroGrad()
			settle()
			var loss *tensor.Tensor
			autocast(n.DType, func() {
				loss = nn.MaskedCrossEntropy(m.(nn.GraphModel).Forward(g, feat), labels, d.TrainIdx)
			})
			loss.Backward()
			opt.Step()
			res.Loss = loss.Item()
		}
	} else {
		opts := sampling.LoaderOptions{BatchSize: n.BatchSize, Shuffle: true, Seed: n.Seed,
			NumWorkers: n.NumWorkers, PrefetchFactor: n.PrefetchFactor, PrefetchLabels: []string{"label"},
			StoreGatherDType: n.StoreGatherDType}
		if n.FeatureStore == "float32" && n.StoreGatherDType == tensor.Float32 {
			opts.PrefetchNodeFeats = []string{"feat"}
		} else {
			st, err := featstore.New(g.NData("feat"), storeDTypes[n.FeatureStore])
			if err != nil {
				return Measurement{}, fmt.Errorf("memplan.Measure: FeatureStore %q: %w", n.FeatureStore, err)
			}
			defer runtime.KeepAlive(st)
			opts.NodeFeatStores = map[string]featstore.Store{"feat": st}
		}
		settleQuiet()
		res.Resident = tensor.MemoryAllocated("cpu") - base + keptDatasetBytes(&n)
		dl, err := sampling.NewDataLoader(g, d.TrainIdx, sampling.NeighborSampler{Fanouts: n.Fanouts}, opts)
		if err != nil {
			return Measurement{}, err
		}
		defer dl.Close()
		for i := 0; i < steps; i++ {
			opt.ZeroGrad()
			settle()
			if !dl.Next() {
				if err := dl.Err(); err != nil {
					return Measurement{}, err
				}
				if !dl.Next() { // a new epoch
					return Measurement{}, fmt.Errorf("memplan.Measure: the DataLoader gave no batch: %v", dl.Err())
				}
			}
			settle()
			blocks := dl.Blocks()
			var loss *tensor.Tensor
			autocast(n.DType, func() {
				logits := m.(nn.BlockModel).ForwardBlocks(blocks, blocks[0].SrcData("feat"))
				loss = tensor.CrossEntropy(logits, blocks[len(blocks)-1].DstData("label"))
			})
			loss.Backward()
			opt.Step()
			res.Loss = loss.Item()
		}
		runtime.KeepAlive(dl)
	}
	settle()
	res.TensorPeak = tensor.MaxMemoryAllocated("cpu") - base + keptDatasetBytes(&n)
	runtime.KeepAlive(m)
	runtime.KeepAlive(opt)
	return res, nil
}

// autocast runs f inside amp.Autocast(dt) unless dt is Float32.
func autocast(dt tensor.DType, f func()) {
	if dt == tensor.Float32 {
		f()
		return
	}
	amp.Autocast(dt, f)
}

// storeDTypes maps Config.FeatureStore to featstore's dtypes.
var storeDTypes = map[string]tensor.DType{"float32": tensor.Float32, "float16": tensor.Float16,
	"bfloat16": tensor.BFloat16, "int8": tensor.Int8}

// keptDatasetBytes is the bytes of the dataset's tensors that the
// configuration keeps: all node data and split ids, less "feat" when the
// features live in a compressed store.
func keptDatasetBytes(c *Config) int64 {
	b := nodeDataBytes(c)
	if !c.Sampling || c.FeatureStore == "float32" {
		b += c.Dataset.Graph.NData("feat").Nbytes()
	}
	return b
}

// newModule builds c's model as nn does (nn.GraphSAGE, nn.GCN or nn.GAT).
func newModule(c *Config) nn.Module {
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

// settle collects garbage until the accounting stops changing: a
// collection queues the finalizers and cleanups that release tensors'
// bytes, and a sentinel of each kind, made unreachable before the
// collection, tells when those queued with it have run; sync.Pool contents
// need two collections to go.
func settle() {
	settleN(1, 0)
}

// settleQuiet is settle for the readings that must not include garbage
// left by earlier work (a closed DataLoader's worker goroutines exit and
// drop their buffers asynchronously, and cleanups may run in parallel):
// the accounting must stay put over three collections a millisecond apart.
func settleQuiet() {
	settleN(3, time.Millisecond)
}

// settleN collects garbage until the accounting has not changed for
// stable consecutive collections, pausing between them.
func settleN(stable int, pause time.Duration) {
	last, same := int64(-1), 0
	for i := 0; i < 8+4*stable; i++ {
		if pause > 0 {
			time.Sleep(pause)
		}
		fin, clean := make(chan struct{}), make(chan struct{})
		a, b := new([8]*int), new([8]*int)
		runtime.SetFinalizer(a, func(*[8]*int) { close(fin) })
		runtime.AddCleanup(b, func(c chan struct{}) { close(c) }, clean)
		a, b = nil, nil
		runtime.GC()
		<-fin
		<-clean
		cur := tensor.MemoryAllocated("cpu")
		if cur == last {
			if same++; same >= stable {
				return
			}
		} else {
			same = 0
		}
		last = cur
	}
}
