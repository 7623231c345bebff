// Package memplan predicts the peak memory of training a GNN before it
// runs, and suggests the cheapest setting that fits a memory budget.
//
// A Config names the data (a datasets.Dataset, or just its counts), full-
// graph training or neighbor sampling (fanouts, batch size, loader workers),
// the model (GraphSAGE, GCN or GAT: hidden width, layers, heads, dropouts),
// the autocast dtype, gradient checkpointing, the feature storage and the
// optimizer. Predict returns a Plan: the peak in bytes and what is live at
// that moment — graph structure, features, parameters, gradients,
// optimizer state, activations saved for backward, and workspace — printed
// as a table by Plan.String. Suggest walks the usual memory savings in order
// of their cost (neighbor sampling, bfloat16 autocast, checkpointing, int8
// features, smaller batches) and returns the first setting that fits.
// Measure runs a few training steps of a Config and returns the measured
// peak, for checking a plan.
//
// How the prediction works. The memory of training is not a formula of a
// few terms: it is whatever the engine allocates, held as long as autograd
// or the program references it. Predict therefore replays the training
// step symbolically: each tensor op of nn's layers (the same ops, in the
// same order, with the same inputs recorded) allocates symbolic buffers of
// the sizes the engine's op allocates, autograd nodes hold their inputs,
// and Backward is simulated with the engine's own algorithm (topological
// order, pending gradients, fresh sums where gradients meet). The peak of
// the live bytes over the steps is the prediction. The asymptotics are the
// familiar ones (full-graph activations O(N·hidden·layers); sampling
// O(batch·fanout^layers), Hamilton et al., "Inductive Representation
// Learning on Large Graphs", NeurIPS 2017; checkpointing keeps one layer's
// activations, Chen et al., "Training Deep Nets with Sublinear Memory Cost",
// 2016; and DGL's guide on minibatch training and its memory), but the
// constants are the engine's: the prediction matches Measure to a fraction
// of a percent on every configuration tested, from Cora to products scale
// (TestPredictMatchesMeasured, BenchmarkProductsPlan). The price is that
// the planner mirrors nn's layers and tensor's ops: when they change what
// they allocate, the planner must follow, and TestPredictMatchesMeasured
// says so. Sampled block sizes come from a dry run of the sampler on the
// first batches (or, without a Dataset, a closed form that is only rough on
// skewed degree distributions, within about 50% on power-law graphs).
//
// What is counted. Plan.Peak counts every buffer of the data: tensors, the
// sampler's buffers, and the plain Go slices that the engine's accounting
// (tensor.MemoryAllocated) does not see — graph adjacencies and cached
// reversed adjacencies (the optimizer's moments, the feature stores and the
// sampled blocks are counted by the engine). Plan.TensorPeak is the
// accounted part, the value Measure measures. Both are bytes of data, as
// torch.cuda.max_memory_allocated is; the Go runtime adds its own headroom
// (with GOGC=100 the heap may reach about twice the live bytes between
// collections), which a budget for a whole process must leave or bound with
// GOMEMLIMIT.
//
// Errors (the engine's rule, see package tensor: a function with an error
// result reports bad input through it). An invalid Config is reported by
// Predict, Suggest and Measure as an error wrapping ErrConfig, a kind of
// tensor.ErrArgument, that names the field; Suggest wraps ErrNoFit when
// nothing fits. Errors of the sampler's dry run are returned wrapped.
// Engine panics (misuse inside nn or tensor) propagate; the front ends
// recover them.
package memplan
