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
// or the program references it. Predict therefore runs the training itself
// on the meta device (tensor's "meta", PyTorch's meta tensors): the real
// model, optimizer, autocast, checkpointing and DataLoader, whose ops
// check, allocate and record autograd exactly as on the CPU and compute
// nothing, and reads the engine's accounting of the run, with a collection
// before and after every op as Measure does. The sampler samples the real
// graph (block sizes are data), the features and labels it gathers are
// meta tensors (carrying the density of the rows they stand for, so that
// nn's sparse bag-of-words path is taken where it would be), and a
// compressed feature store is a featstore.Meta that counts its bytes. So
// there is nothing to keep in step with nn and tensor: what they allocate
// is what is predicted, within 2% of Measure on every configuration tested
// (TestPredictMatchesMeasured; exact on all but PubMed's sparse batches,
// where the nonzeros are spread evenly over the rows) and in the time of a
// few steps without arithmetic. Without a Dataset the graph is a uniform
// random graph of the given counts. The asymptotics are the familiar ones
// (full-graph activations O(N·hidden·layers); sampling
// O(batch·fanout^layers), Hamilton et al., "Inductive Representation
// Learning on Large Graphs", NeurIPS 2017; checkpointing keeps one layer's
// activations, Chen et al., "Training Deep Nets with Sublinear Memory Cost",
// 2016). With Config.Device "cuda" the run is on "meta:cuda", which rounds
// each allocation as a CUDA caching allocator does, and counts what lives
// on the GPU.
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
// nothing fits. Errors of the DataLoader are returned wrapped.
// Engine panics (misuse inside nn or tensor) propagate; the front ends
// recover them.
package memplan
