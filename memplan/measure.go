package memplan

import (
	"fmt"
	"runtime"
	"time"

	"github.com/gnnrepl/gnnrepl/featstore"
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
// DataLoader's errors, and, when the running evaluation is cancelled
// (runctx), the context's error at the next step (no Measurement); a panic of the engine (a misuse)
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
	if n.Device != "cpu" {
		return Measurement{}, fmt.Errorf("%w: Measure trains on the CPU; Device %q is planned by Predict only", ErrConfig, n.Device)
	}
	d := n.Dataset
	g := d.Graph
	r := &runner{c: &n, dev: "cpu", g: g, feat: g.NData("feat"), labels: g.NData("label"), trainIdx: d.TrainIdx, seeds: d.TrainIdx}
	warmGraph(g)
	settleQuiet()
	base := tensor.MemoryAllocated("cpu")
	tensor.ResetPeakMemoryStats("cpu")
	if usesStore(&n) {
		// The store (a float32 one over the dataset's tensor when only
		// the gather dtype is low).
		st, err := featstore.New(g.NData("feat"), storeDTypes[n.FeatureStore])
		if err != nil {
			return Measurement{}, fmt.Errorf("memplan.Measure: FeatureStore %q: %w", n.FeatureStore, err)
		}
		defer runtime.KeepAlive(st)
		r.store = st
	}
	if err := r.run(steps); err != nil {
		return Measurement{}, err
	}
	settle()
	kept := keptDatasetBytes(&n)
	return Measurement{Steps: steps, Loss: r.lastLoss, Resident: r.resident - base + kept,
		TensorPeak: tensor.MaxMemoryAllocated("cpu") - base + kept}, nil
}

// keptDatasetBytes is the bytes of the dataset's tensors that the
// configuration keeps: all node data and split ids, less "feat" when the
// features live in a compressed store.
func keptDatasetBytes(c *Config) int64 {
	d := c.Dataset
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
	if !c.Sampling || c.FeatureStore == "float32" {
		b += c.Dataset.Graph.NData("feat").Nbytes()
	}
	return b
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
		cur := accounted()
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

// accounted is the engine's accounting on the devices a run uses: the CPU
// and the meta devices Predict runs on.
func accounted() int64 {
	return tensor.MemoryAllocated("cpu") + tensor.MemoryAllocated("meta") + tensor.MemoryAllocated("meta:cuda")
}
