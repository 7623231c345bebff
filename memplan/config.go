package memplan

import (
	"fmt"
	"strings"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/sampling"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Config describes one training setup: the data, full-graph or
// neighbor-sampled minibatches, the model, the precision, checkpointing,
// the feature storage and the optimizer. Zero values take the defaults
// given per field. Field names follow nn's option structs and DGL's
// DataLoader (BatchSize, Fanouts, NumWorkers, PrefetchFactor).
//
// The training step it describes is the loop Measure runs:
//
//	opt.ZeroGrad()
//	logits := model.Forward(g, feat)                 // full graph
//	loss := nn.MaskedCrossEntropy(logits, labels, trainIdx)
//	// or, with Sampling, for each loader.Next():
//	// logits := model.ForwardBlocks(blocks, blocks[0].SrcData("feat"))
//	// loss := tensor.CrossEntropy(logits, blocks[L-1].DstData("label"))
//	loss.Backward()
//	opt.Step()
//
// (Calling ZeroGrad after the forward pass instead keeps the previous
// step's gradients alive through it: one more copy of the parameters' size.)
type Config struct {
	// Dataset, when set, supplies the graph, the features, the labels and
	// the training nodes: the counts below that are 0 are read from it, and
	// with Sampling the sampler is dry-run on its graph to size the blocks.
	Dataset *datasets.Dataset

	// NumNodes, NumEdges, NumFeatures and NumClasses describe the graph
	// when there is no Dataset (edges are directed, as graph.NumEdges).
	NumNodes, NumEdges, NumFeatures, NumClasses int
	// NumTrain is the number of training nodes: the rows of the loss in
	// full-graph training and the seeds of sampling (NumNodes/10 when 0
	// and there is no Dataset).
	NumTrain int
	// FeatureDensity is the fraction of nonzero input features (bag-of-words
	// features are sparse and the engine keeps them sparse, see nn's
	// package doc). 0 means measured on the Dataset's "feat", or 1 (dense)
	// without one.
	FeatureDensity float64

	// Model is "sage" (GraphSAGE, the default), "gcn" or "gat".
	Model string
	// Aggregator is GraphSAGE's: "mean" (default), "gcn" or "pool"; it must be
	// empty for GCN and GAT.
	Aggregator string
	// HiddenFeats is the hidden width (per head for GAT); 0 takes the
	// model's default (GraphSAGE 256, GCN 16, GAT 8).
	HiddenFeats int
	// NumLayers is the number of layers (2 when 0; with Sampling, the
	// number of Fanouts when they are given).
	NumLayers int
	// NumHeads and NumOutHeads are GAT's (8 and 1 when 0).
	NumHeads, NumOutHeads int
	// Dropout and InputDropout are GraphSAGE's and GCN's options; GAT uses
	// FeatDrop and AttnDrop. Only whether each is zero matters: a nonzero
	// rate allocates a masked copy.
	Dropout, InputDropout, FeatDrop, AttnDrop float32

	// Sampling trains on minibatches of neighbor-sampled blocks
	// (sampling.NeighborSampler and DataLoader) instead of the full graph.
	Sampling bool
	// Fanouts is the NeighborSampler's, input layer first ([10, 25] for two
	// layers when empty: GraphSAGE's S1 = 25 at the seeds and S2 = 10 a hop
	// further, as DGL's example; -1 takes all neighbors).
	Fanouts []int
	// BatchSize is the number of seed nodes per batch (1024 when 0).
	BatchSize int
	// NumWorkers and PrefetchFactor are the DataLoader's: with workers,
	// NumWorkers*PrefetchFactor batches may wait in the queue, and the
	// planner counts them all (an upper bound).
	NumWorkers, PrefetchFactor int
	// DryRunBatches is the number of sampled batches Predict trains on
	// (on the meta device) to find the peak (4 when 0; at most 2 without a
	// Dataset, whose uniform random graph gives batches alike).
	DryRunBatches int
	// Seed seeds the dry run's shuffle and sampling, as LoaderOptions.Seed
	// (Measure uses it for the model, the loader and the sampler too).
	Seed int64

	// DType is the autocast dtype: tensor.Float32 (no autocast, the zero
	// value), tensor.BFloat16 or tensor.Float16 (amp.Autocast around the
	// forward pass).
	DType tensor.DType
	// Checkpoint recomputes every layer but the last in backward instead of
	// keeping its activations (the Checkpoint option of nn.SAGEOptions,
	// GCNOptions and GATOptions).
	Checkpoint bool
	// FeatureStore is how node features are stored for Sampling: "float32"
	// (the default: the dataset's tensor), "float16", "bfloat16" or "int8"
	// (featstore; the float32 copy is assumed dropped). Full-graph training
	// reads the float32 matrix.
	FeatureStore string
	// StoreGatherDType is the dtype the DataLoader gathers the input
	// features in with Sampling (sampling.LoaderOptions.StoreGatherDType):
	// tensor.Float32 (the zero value), or tensor.Float16 / tensor.BFloat16,
	// which builds each batch's (N_in, F) input features in that dtype from
	// the feature store (a "float32" FeatureStore is then read through a
	// featstore.Float32 over the dataset's tensor). With a low DType it must
	// be float32 or DType. Together with DType and a "bfloat16" FeatureStore
	// it is the bfloat16 setup whose inputs to the first layer are the same
	// values bfloat16 autocast gives from float32 features (autocast
	// rounds them once, as the store does), in a quarter of the bytes
	// (store and gather). Full-graph training ignores it.
	StoreGatherDType tensor.DType
	// Optimizer is "adam" (default), "adamw", "sgd" or "sgd-momentum".
	Optimizer string
	// Device is where training runs: "cpu" (the default) or "cuda" (any
	// "cuda:N"). Predict then counts what lives on the GPU, as a CUDA
	// caching allocator rounds it (tensor's "meta:cuda"); Suggest works to
	// a GPU budget. Measure trains on the CPU only.
	Device string
}

// ErrConfig is wrapped by every error about an invalid Config. It is a kind
// of tensor.ErrArgument: errors.Is(err, tensor.ErrArgument) holds too.
var ErrConfig = engerr.NewKind("memplan: invalid config", engerr.ErrArgument)

// normalized returns a copy of c with every default and every count read
// from the Dataset filled in, or an error naming the first invalid field.
func (c Config) normalized() (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return c, fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	if d := c.Dataset; d != nil {
		if d.Graph == nil {
			return bad("Dataset %q has no graph", d.Name)
		}
		if c.NumNodes == 0 {
			c.NumNodes = d.Graph.NumNodes()
		}
		if c.NumEdges == 0 {
			c.NumEdges = d.Graph.NumEdges()
		}
		if c.NumFeatures == 0 {
			c.NumFeatures = d.NumFeatures
		}
		if c.NumClasses == 0 {
			c.NumClasses = d.NumClasses
		}
		if c.NumTrain == 0 && d.TrainIdx != nil {
			c.NumTrain = d.TrainIdx.Numel()
		}
		if c.FeatureDensity == 0 {
			c.FeatureDensity = density(d)
		}
	}
	if c.NumTrain == 0 {
		c.NumTrain = max(c.NumNodes/10, 1)
	}
	if c.FeatureDensity == 0 {
		c.FeatureDensity = 1
	}
	c.Model = strings.ToLower(c.Model)
	if c.Model == "" || c.Model == "graphsage" {
		c.Model = "sage"
	}
	if c.Aggregator != "" && c.Model != "sage" {
		return bad("Aggregator %q applies to GraphSAGE only, not Model %q", c.Aggregator, c.Model)
	}
	if c.Aggregator == "" && c.Model == "sage" {
		c.Aggregator = "mean"
	}
	if c.HiddenFeats == 0 {
		c.HiddenFeats = map[string]int{"sage": 256, "gcn": 16, "gat": 8}[c.Model]
	}
	if c.NumLayers == 0 {
		c.NumLayers = 2
		if c.Sampling && len(c.Fanouts) > 0 {
			c.NumLayers = len(c.Fanouts)
		}
	}
	if c.NumHeads == 0 {
		c.NumHeads = 8
	}
	if c.NumOutHeads == 0 {
		c.NumOutHeads = 1
	}
	if c.Sampling {
		if len(c.Fanouts) == 0 {
			c.Fanouts = defaultFanouts(c.NumLayers)
		}
		c.Fanouts = append([]int(nil), c.Fanouts...)
		if c.BatchSize == 0 {
			c.BatchSize = 1024
		}
		if c.PrefetchFactor == 0 {
			c.PrefetchFactor = 2
		}
		if c.DryRunBatches == 0 {
			c.DryRunBatches = 4
		}
	}
	if c.FeatureStore == "" {
		c.FeatureStore = "float32"
	}
	if c.Optimizer == "" {
		c.Optimizer = "adam"
	}
	switch dev := strings.ToLower(c.Device); {
	case dev == "" || dev == "cpu":
		c.Device = "cpu"
	case dev == "cuda" || strings.HasPrefix(dev, "cuda:"):
		c.Device = "cuda"
	default:
		return bad("Device must be \"cpu\" or \"cuda\", got %q", c.Device)
	}
	switch {
	case c.NumNodes <= 0 || c.NumEdges < 0 || c.NumFeatures <= 0 || c.NumClasses <= 0:
		return bad("NumNodes (%d), NumFeatures (%d) and NumClasses (%d) must be positive and NumEdges (%d) non-negative; give a Dataset or the counts",
			c.NumNodes, c.NumFeatures, c.NumClasses, c.NumEdges)
	case c.NumTrain < 0 || c.NumTrain > c.NumNodes:
		return bad("NumTrain %d outside [1, NumNodes = %d]", c.NumTrain, c.NumNodes)
	case c.FeatureDensity < 0 || c.FeatureDensity > 1:
		return bad("FeatureDensity %g outside [0, 1]", c.FeatureDensity)
	case c.Model != "sage" && c.Model != "gcn" && c.Model != "gat":
		return bad("Model must be \"sage\", \"gcn\" or \"gat\", got %q", c.Model)
	case c.Model == "sage" && c.Aggregator != "mean" && c.Aggregator != "gcn" && c.Aggregator != "pool":
		return bad("Aggregator must be \"mean\", \"gcn\" or \"pool\", got %q", c.Aggregator)
	case c.HiddenFeats <= 0 || c.NumLayers <= 0 || c.NumHeads <= 0 || c.NumOutHeads <= 0:
		return bad("HiddenFeats (%d), NumLayers (%d), NumHeads (%d) and NumOutHeads (%d) must be positive",
			c.HiddenFeats, c.NumLayers, c.NumHeads, c.NumOutHeads)
	case c.Sampling && len(c.Fanouts) != c.NumLayers:
		return bad("Fanouts %v has %d entries for %d layers (one fanout per layer)", c.Fanouts, len(c.Fanouts), c.NumLayers)
	case c.BatchSize < 0 || c.NumWorkers < 0 || c.PrefetchFactor < 0 || c.DryRunBatches < 0:
		return bad("BatchSize (%d), NumWorkers (%d), PrefetchFactor (%d) and DryRunBatches (%d) must be >= 0",
			c.BatchSize, c.NumWorkers, c.PrefetchFactor, c.DryRunBatches)
	case c.NumWorkers > sampling.MaxWorkers || c.PrefetchFactor > sampling.MaxWorkers:
		return bad("NumWorkers (%d) and PrefetchFactor (%d) must be at most %d, as the DataLoader's", c.NumWorkers, c.PrefetchFactor, sampling.MaxWorkers)
	case c.DType != tensor.Float32 && c.DType != tensor.BFloat16 && c.DType != tensor.Float16:
		return bad("DType must be float32, bfloat16 or float16, got %s", c.DType)
	case c.FeatureStore != "float32" && c.FeatureStore != "float16" && c.FeatureStore != "bfloat16" && c.FeatureStore != "int8":
		return bad("FeatureStore must be \"float32\", \"float16\", \"bfloat16\" or \"int8\", got %q", c.FeatureStore)
	case c.StoreGatherDType != tensor.Float32 && c.StoreGatherDType != tensor.BFloat16 && c.StoreGatherDType != tensor.Float16:
		return bad("StoreGatherDType must be float32, bfloat16 or float16, got %s", c.StoreGatherDType)
	case c.StoreGatherDType != tensor.Float32 && c.DType != tensor.Float32 && c.StoreGatherDType != c.DType:
		return bad("StoreGatherDType %s under %s autocast; gather in float32 or in the autocast dtype", c.StoreGatherDType, c.DType)
	case c.Optimizer != "adam" && c.Optimizer != "adamw" && c.Optimizer != "sgd" && c.Optimizer != "sgd-momentum":
		return bad("Optimizer must be \"adam\", \"adamw\", \"sgd\" or \"sgd-momentum\", got %q", c.Optimizer)
	}
	for _, p := range []struct {
		name string
		v    float32
	}{{"Dropout", c.Dropout}, {"InputDropout", c.InputDropout}, {"FeatDrop", c.FeatDrop}, {"AttnDrop", c.AttnDrop}} {
		if !(p.v >= 0 && p.v < 1) {
			return bad("%s must be in [0, 1), got %g", p.name, p.v)
		}
	}
	for _, f := range c.Fanouts {
		if f == 0 || f < -1 {
			return bad("Fanouts %v: each fanout must be positive or -1 (all neighbors)", c.Fanouts)
		}
	}
	// Byte counts are int64: refuse sizes whose largest products would
	// overflow it (far beyond any machine), naming the field.
	for _, f := range []struct {
		name  string
		v     int
		limit int
		text  string
	}{
		{"NumNodes", c.NumNodes, 1 << 40, "2^40"}, {"NumEdges", c.NumEdges, 1 << 40, "2^40"},
		{"NumFeatures", c.NumFeatures, 1 << 24, "2^24"}, {"NumClasses", c.NumClasses, 1 << 24, "2^24"},
		{"HiddenFeats", c.HiddenFeats, 1 << 24, "2^24"}, {"NumHeads", c.NumHeads, 1 << 12, "4096"},
		{"NumOutHeads", c.NumOutHeads, 1 << 12, "4096"}, {"NumLayers", c.NumLayers, 1 << 10, "1024"},
	} {
		if f.v > f.limit {
			return bad("%s %d is larger than %s", f.name, f.v, f.text)
		}
	}
	if float64(c.NumNodes)*float64(max(c.NumFeatures, c.HiddenFeats*c.NumHeads, c.NumClasses))*8 > 1<<62 {
		return bad("NumNodes (%d) x NumFeatures (%d) is too large to count in bytes", c.NumNodes, c.NumFeatures)
	}
	return c, nil
}

// defaultFanouts returns GraphSAGE's fanouts (Hamilton et al. 2017: S1 = 25
// at the seeds, S2 = 10 one hop further; DGL's train_sampling.py uses
// "10,25"), input layer first, with 10 for every further hop.
func defaultFanouts(layers int) []int {
	f := make([]int, layers)
	for i := range f {
		f[i] = 10
	}
	f[layers-1] = 25
	return f
}

// density returns the fraction of nonzero entries of d's "feat".
func density(d *datasets.Dataset) float64 {
	if !d.Graph.HasNData("feat") {
		return 1
	}
	x := d.Graph.NData("feat")
	if x.DType() != tensor.Float32 || x.Numel() == 0 {
		return 1
	}
	nz := 0
	for _, v := range x.Float32s() {
		if v != 0 {
			nz++
		}
	}
	return float64(nz) / float64(x.Numel())
}
