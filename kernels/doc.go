// Package kernels is gnnrepl's CUDA backend: bindings to the CUDA driver API
// (libcuda.so.1) and to cuBLAS (libcublas.so.13, .12 or .11), both opened at
// run time with github.com/ebitengine/purego, and the gnnrepl GPU kernels,
// written in CUDA C (kernels/*.cu), compiled to PTX by `go generate` and
// embedded in the binary.
//
// The package needs neither cgo nor a CUDA toolkit to build: with
// CGO_ENABLED=0 the same binary runs on a laptop, where Available reports
// why CUDA is absent, and on a GPU server, where the driver JIT-compiles the
// embedded PTX (target compute_80) for the installed GPU.
//
// # Layers
//
//   - Driver: Open returns a *Device bound to the device's primary context
//     (cuDevicePrimaryCtxRetain, the context the CUDA runtime and PyTorch use);
//     memory (Alloc, Free, Copy*, Memset*), streams, events, pinned host
//     memory (HostAlloc, with a device pointer for UVA access), module load
//     and launch.
//   - cuBLAS: NewBLAS, GemmEx and GemmStridedBatchedEx with fp32, tf32, fp16
//     and bf16 inputs and float32 accumulation, and the row-major helper
//     MatMul.
//   - Kernels: package-level launchers (AddF32, ReLUForward, SpMM,
//     EdgeSoftmaxForward, AdamStep, ...). Each takes a *Stream (which names
//     the device), device pointers and sizes, and enqueues one or two
//     kernels; none is generic, so the yaegi interpreter can call them.
//
// Every CUDA entry point is called with the device's context current on a
// locked OS thread, so goroutines may use a Device freely; the launches on
// one Stream run in order, as in CUDA.
//
// # Conventions
//
// Matrices are row-major and contiguous: (N, F) means N rows of F elements,
// row i starting at element i*F. Graphs are CSR over destination nodes, as
// DGL's in-edge CSR (a CSC of the adjacency): indptr (int64, N_dst+1
// entries), indices (int32 or int64 source node ids, one per edge), edge e of
// destination v lying in indptr[v] <= e < indptr[v+1]. Low-precision storage
// (DTypeFloat16, DTypeBFloat16) is accumulated in float32, following
// PyTorch's autocast rules.
//
// # Errors
//
// Misuse (a nil stream, a negative size, an unsupported dtype) panics with a
// *ArgError. Failures reported by the driver or cuBLAS are returned as a
// *DriverError or *BLASError, naming the entry point and the CUresult's or
// cublasStatus_t's name and description; the absence of the driver or
// library is returned as an error wrapping ErrNoCUDA. Front ends recover the
// panics.
package kernels
