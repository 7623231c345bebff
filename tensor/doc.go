// Package tensor provides dense n-dimensional tensors on the CPU and on
// CUDA GPUs with reverse-mode automatic differentiation, the numeric core
// of gnnrepl.
//
// A Tensor is contiguous and row-major. Values are float32 (features,
// weights, activations), int64 (indices, labels), bool (masks), or the
// storage types float16 and bfloat16 (bits in a []uint16; Uint16s,
// FromUint16) and int8 (quantised values; Int8s, FromInt8). Cast converts
// between dtypes (differentiably between float dtypes; Half, BFloat16 and
// Float are shorthands), rounding to nearest even. Ops on float16 and
// bfloat16 compute in float32 on blocks of widened elements and round
// their results once; elementwise ops on mixed float dtypes promote as
// PyTorch does (PromoteTypes: bfloat16 + float32 -> float32).
//
// Autocast (torch.autocast; package amp is the user-facing API): while
// SetAutocast is on, ops consult AutocastState at entry and cast their
// inputs as PyTorch's autocast op lists say: MatMul, SpMM and SDDMM run on
// float16 or bfloat16 operands with float32 accumulation and return the
// low dtype; reductions (Sum, Mean, SumDim, MeanDim), LogSoftmax, Softmax,
// EdgeSoftmax, CrossEntropy, NLLLoss, Exp, Log and Pow run in float32;
// other ops run in their inputs' (promoted) dtype. The tensors an op keeps
// for its backward pass are the low-precision ones, which is what makes
// autocast save activation memory. Every gradient has its tensor's dtype.
// On a GPU, casts between float32 and float16 or bfloat16, MatMul/AddMM
// (cuBLAS tensor cores), the SpMM forward, gathers, copies and views run in
// the low-precision dtypes; an op without such a kernel yet panics with
// ErrNotImplemented naming the op, the dtype and the device.
//
// Views are made where they cost nothing (Reshape, Narrow along dimension
// 0); every other op allocates its result, and every allocation is counted
// per device (MemoryAllocated, MaxMemoryAllocated, ResetPeakMemoryStats),
// as torch.cuda.memory_allocated does, at its dtype's size (2 bytes per
// float16 or bfloat16 element, 1 per int8). Host tensors have a memory
// budget (MemoryLimit; by default 90% of the machine's memory or of the
// cgroup's limit, whichever is lower; SetMemoryLimit changes it): an
// allocation that would exceed it, even after garbage is collected,
// panics with ErrOutOfMemory naming the request, the budget and the use,
// which the session recovers, instead of the process growing until the
// operating system kills it.
//
// Autograd follows PyTorch: a tensor with RequiresGrad set is a leaf whose
// gradient is accumulated into Grad by Backward; each op records how to push
// its output gradient to its inputs, written beside its forward code.
// NoGrad and SetGradEnabled switch recording off.
//
// Graph ops (SpMM, SDDMM, EdgeSoftmax) take an Adj, a destination-major
// compressed adjacency, and implement DGL's generalised sparse kernels
// (update_all with copy_u / u_mul_e and sum / mean / max, apply_edges with
// u_add_v, edge_softmax).
//
// Backends: each op is written once (validation, autocast, allocation on
// its inputs' device, one call of the device's Backend, one backward rule
// in grad_rules.go written with tensor ops). A Backend (backend.go) is
// storage plus one kernel interface per op family, registered by device
// kind: "cpu" (cpu_*.go), "cuda" (cuda_*.go over package kernels) and
// "meta" (meta.go: PyTorch's meta device, shapes and dtypes with no data;
// allocations are counted as on the CPU, or as on a GPU for "meta:cuda").
// An unknown device names the registered ones. Package
// tensor/backendtest checks a backend against float64 references.
//
// Devices follow torch.cuda: "cpu", "cuda", "cuda:N". t.To("cuda") copies
// a tensor to a GPU (differentiably: the gradient flows back to t's
// device); every op then runs where its inputs are, on the kernels
// package's PTX kernels and cuBLAS (opened at run time, so the same binary
// runs without a GPU: CUDAAvailable), and returns its result there. GPU
// ops are queued on one stream and return at once; Synchronize waits for
// them. Device memory comes from a caching allocator per device (size-class
// free lists): a tensor's block returns to the cache when the garbage
// collector frees the tensor or at once with Free; EmptyCache gives cached
// blocks back to the driver; MemoryAllocated, MaxMemoryAllocated and
// MemoryReserved report, per device, the blocks of live (not yet collected)
// tensors, their peak, and what the cache holds. Dropout draws the same
// Philox mask on both devices for the same seed and offset. The host slices
// (Float32s, Int64s, Bools) of a GPU tensor are refused: call To("cpu") or
// ToCPU first. SetFloat32MatmulPrecision picks float32, TF32 or bfloat16
// tensor-core products for GPU MatMul; AdamStep and AddScaledInPlace update
// parameters on either device. PinnedUploader copies batches of CPU
// tensors to a GPU through reused pinned buffers on a copy stream of its
// own, overlapping the ops on the compute stream (the DataLoader's
// PinMemory); StartDeviceTiming charges the GPU time of every op, measured
// with CUDA events, to the op (the profiler's CUDA columns).
//
// Error policy, shared by every engine package: a function without an
// error result panics on misuse with a *tensor.Error, the engine's one
// error type, whose Kind is one of the shared sentinels (ErrShape, ErrDType,
// ErrIndex, ErrDevice, ErrArgument for a bad argument value that is not a
// shape, ...), so errors.Is(err, tensor.ErrShape) holds whichever package
// raised it; a function with an error result reports its bad input through
// it instead, wrapping the same kinds, and returns I/O, data and driver
// failures wrapped. The session and kernel front ends recover the panics
// and keep running.
//
// Here: misuse (mismatched shapes, wrong dtype, out-of-range indices, an
// unknown option value) panics with an Error that names the op and the
// shapes. An op given tensors on two devices panics with ErrDevice naming
// the op and both devices ("tensor.MatMul: tensors on cpu and cuda:0"),
// never a silent copy; an op with no GPU implementation for its arguments
// panics with ErrNotImplemented naming the op and the device; a failure
// reported by the CUDA driver or cuBLAS panics with ErrCUDA, and device
// memory exhaustion with ErrOutOfMemory, since ops have no error result. To,
// Synchronize and ParseDevice return errors instead. Catch converts an
// engine panic into an error at an API boundary and lets any other panic (a
// runtime error, a bug) go on with its stack.
package tensor
