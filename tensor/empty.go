package tensor

import "unsafe"

// mallocgc is the runtime's allocator. It is reached by linkname (the
// runtime keeps this signature for the packages that do so, go.dev/issue/67401)
// because it is the only way to get heap memory the runtime does not clear:
// make always zeroes, and for a buffer that is overwritten at once
// (a gathered batch of feature rows, a copy) the clearing is a second pass
// over memory that costs as much as the copy.
//
//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// minEmptyBytes is the size from which Empty skips the clearing; below it
// make is as fast.
const minEmptyBytes = 32 << 10

// Empty returns a CPU tensor of dtype dt and the given shape whose elements
// are not initialized (torch.empty): they hold whatever the memory held, so
// every element must be written before it is read. It is for outputs that
// are filled completely (gathers, copies); New returns zeros. It panics
// with ErrDType for an unknown dtype and ErrOutOfMemory when the tensor
// would not fit the host memory budget (MemoryLimit).
func Empty(dt DType, shape ...int) *Tensor { return emptyOn("Empty", cpu, dt, false, shape...) }
