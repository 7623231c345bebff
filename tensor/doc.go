// Package tensor provides dense n-dimensional tensors on the CPU with
// reverse-mode automatic differentiation, the numeric core of gnnrepl.
//
// A Tensor is contiguous and row-major. Values are float32 (features,
// weights, activations), int64 (indices, labels) or bool (masks). Views are
// made where they cost nothing (Reshape, Narrow along dimension 0); every
// other op allocates its result, and every allocation is counted per device
// (MemoryAllocated, MaxMemoryAllocated, ResetPeakMemoryStats), as
// torch.cuda.memory_allocated does.
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
// Error policy: misuse (mismatched shapes, wrong dtype, out-of-range
// indices) panics with a *tensor.Error that names the op and the shapes; the
// session and kernel front ends recover it and keep running. Catch converts
// such a panic into an error at an API boundary.
package tensor
