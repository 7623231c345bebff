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
// would not fit this machine's memory.
func Empty(dt DType, shape ...int) *Tensor {
	if dt.Size() == 0 {
		panicf(ErrDType, "Empty", "unknown dtype %d (want tensor.Float32, Float16, BFloat16, Int8, Int64 or Bool)", int(dt))
	}
	n := numel(shape)
	return &Tensor{shape: append([]int(nil), shape...), dtype: dt, st: newStorageUninit(dt, n), n: n}
}

// newStorageUninit is newStorage without the clearing, for buffers of at
// least minEmptyBytes.
func newStorageUninit(dt DType, n int) *storage {
	bytes := int64(n) * int64(dt.Size())
	if bytes < minEmptyBytes {
		return newStorage(dt, n)
	}
	checkHostMemory("Empty", dt, n, bytes)
	st := &storage{device: "cpu", bytes: bytes}
	// typ nil: memory without pointers, which the collector does not scan.
	p := mallocgc(uintptr(bytes), nil, false)
	switch dt {
	case Float32:
		st.f32 = unsafe.Slice((*float32)(p), n)
	case Int64:
		st.i64 = unsafe.Slice((*int64)(p), n)
	case Bool:
		st.b = unsafe.Slice((*bool)(p), n)
	case Float16, BFloat16:
		st.u16 = unsafe.Slice((*uint16)(p), n)
	case Int8:
		st.i8 = unsafe.Slice((*int8)(p), n)
	}
	track(st)
	return st
}
