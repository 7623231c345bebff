package memplan

import (
	"fmt"
	"strings"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Plan is a predicted peak of training memory, in bytes, and what is live
// at that moment.
//
// Peak counts every buffer of the training process's data: tensors, the
// sampler's buffers, and the plain Go slices the engine's accounting does
// not see (the graph's CSC/CSR/COO arrays, cached reverse adjacencies).
// TensorPeak is the part the engine's accounting
// sees (on the GPU with Config.Device "cuda"): the value
// tensor.MaxMemoryAllocated("cpu") reaches, above what was
// allocated before the dataset, when garbage is collected as soon as it
// appears (Measure measures exactly that). Neither includes the Go runtime's
// overhead: with the default GOGC=100 the heap may grow to about twice the
// live bytes between collections, so budget the process with GOMEMLIMIT or
// leave that headroom.
//
// The breakdown fields split Peak at the moment it is reached:
//
//	GraphStructure  edge lists and adjacencies of the graph, sampled blocks
//	Features        node features, labels, masks and split ids; a batch's gathered features
//	Parameters      the model's weights
//	Gradients       the parameters' gradients (.Grad)
//	OptimizerState  Adam's two moments per parameter (none for SGD)
//	Activations     forward tensors autograd keeps for backward
//	Workspace       activation gradients in flight, temporaries, caches, sampler buffers
type Plan struct {
	// Config is the configuration planned, defaults filled in.
	Config Config
	// Peak and TensorPeak are in bytes (see above).
	Peak, TensorPeak int64
	// Resident is the part of TensorPeak that is resident data, live
	// before the first step and for the whole run: the dataset's tensors
	// (or the feature store that replaces "feat") and the model's
	// parameters. TensorPeak - Resident is the step's own peak: a batch, its
	// activations and gradients, the optimizer's state, temporaries.
	Resident int64
	// The breakdown of Peak, in bytes.
	GraphStructure, Features, Parameters, Gradients, OptimizerState, Activations, Workspace int64
	// PeakAt names the phase and the op during which the peak is reached,
	// e.g. "backward: SpMM".
	PeakAt string
	// Blocks holds the largest sampled block of each layer, input layer
	// first (nil for full-graph training).
	Blocks []BlockSize
}

// String renders the plan as a table: the configuration, the peak, and the
// breakdown with each part's share.
func (p Plan) String() string {
	if p.Peak == 0 && p.Config.Dataset == nil && p.Config.NumNodes == 0 {
		return "memory plan: none (the zero Plan; Predict or Suggest returned an error)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "memory plan: %s\n", p.Config.Summary())
	if len(p.Blocks) > 0 {
		parts := make([]string, len(p.Blocks))
		for i, x := range p.Blocks {
			parts[i] = fmt.Sprintf("%d->%d (%d edges)", x.NumSrcNodes, x.NumDstNodes, x.NumEdges)
		}
		fmt.Fprintf(&b, "largest blocks: %s\n", strings.Join(parts, ", "))
	}
	rows := []struct {
		name string
		v    int64
	}{
		{"graph structure", p.GraphStructure}, {"features", p.Features}, {"parameters", p.Parameters},
		{"gradients", p.Gradients}, {"optimizer state", p.OptimizerState}, {"activations", p.Activations},
		{"workspace", p.Workspace},
	}
	for _, r := range rows {
		share := 0.0
		if p.Peak > 0 {
			share = 100 * float64(r.v) / float64(p.Peak)
		}
		fmt.Fprintf(&b, "  %-16s %12s %5.1f%%\n", r.name, tensor.FormatBytes(r.v), share)
	}
	fmt.Fprintf(&b, "  %-16s %12s  (tensor accounting: %s = %s resident + %s step)\n", "peak", tensor.FormatBytes(p.Peak),
		tensor.FormatBytes(p.TensorPeak), tensor.FormatBytes(p.Resident), tensor.FormatBytes(p.TensorPeak-p.Resident))
	fmt.Fprintf(&b, "  at %s", p.PeakAt)
	return b.String()
}

// String is Summary, so that printing a Config shows it in one line.
func (c Config) String() string { return c.Summary() }

// Summary describes the configuration in one line, e.g. "GraphSAGE 2x256
// (mean), neighbor sampling [10 25] batch 1024, float32, Adam".
func (c Config) Summary() string {
	n, err := c.normalized()
	if err != nil {
		return "invalid: " + err.Error()
	}
	var b strings.Builder
	switch n.Model {
	case "sage":
		fmt.Fprintf(&b, "GraphSAGE %dx%d (%s)", n.NumLayers, n.HiddenFeats, n.Aggregator)
	case "gcn":
		fmt.Fprintf(&b, "GCN %dx%d", n.NumLayers, n.HiddenFeats)
	case "gat":
		fmt.Fprintf(&b, "GAT %dx%dx%d heads", n.NumLayers, n.HiddenFeats, n.NumHeads)
	}
	fmt.Fprintf(&b, " on %d nodes, %d edges, %d features", n.NumNodes, n.NumEdges, n.NumFeatures)
	if n.Sampling {
		fmt.Fprintf(&b, ", neighbor sampling %v batch %d", n.Fanouts, n.BatchSize)
		if n.NumWorkers > 0 {
			fmt.Fprintf(&b, " (%d workers)", n.NumWorkers)
		}
	} else {
		b.WriteString(", full graph")
	}
	if n.DType == tensor.Float32 {
		b.WriteString(", float32")
	} else {
		fmt.Fprintf(&b, ", %s autocast", n.DType)
	}
	if n.Checkpoint {
		b.WriteString(", checkpointing")
	}
	if n.Sampling && n.StoreGatherDType != tensor.Float32 {
		fmt.Fprintf(&b, ", %s features gathered as %s", n.FeatureStore, n.StoreGatherDType)
	} else if n.Sampling && n.FeatureStore != "float32" {
		fmt.Fprintf(&b, ", %s features", n.FeatureStore)
	}
	fmt.Fprintf(&b, ", %s", map[string]string{"adam": "Adam", "adamw": "AdamW", "sgd": "SGD", "sgd-momentum": "SGD with momentum"}[n.Optimizer])
	return b.String()
}
