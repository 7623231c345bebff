package kernels

import (
	"fmt"
	"unsafe"
)

// DevicePtr is an address in device memory (a CUdeviceptr). With unified
// addressing it also names mapped pinned host memory (PinnedBuffer.DevicePtr).
type DevicePtr uintptr

// Add returns p advanced by bytes.
func (p DevicePtr) Add(bytes int) DevicePtr { return p + DevicePtr(bytes) }

func checkBytes(op string, n int) {
	if n < 0 {
		argPanic(op, "negative byte count %d", n)
	}
}

// Alloc allocates bytes of device memory (cuMemAlloc_v2); the memory is not
// cleared. Alloc(0) returns 0 and no error. Out of memory is returned as a
// *DriverError named CUDA_ERROR_OUT_OF_MEMORY. Panics if bytes < 0.
func (d *Device) Alloc(bytes int) (DevicePtr, error) {
	checkBytes("Alloc", bytes)
	if bytes == 0 {
		return 0, nil
	}
	unlock, err := d.bind()
	if err != nil {
		return 0, err
	}
	defer unlock()
	var p DevicePtr
	if err := check("cuMemAlloc_v2", call(drv.cuMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes))); err != nil {
		return 0, fmt.Errorf("%s: allocating %d bytes: %w", d, bytes, err)
	}
	return p, nil
}

// Free releases memory from Alloc (cuMemFree_v2). Free(0) does nothing.
func (d *Device) Free(p DevicePtr) error {
	if p == 0 {
		return nil
	}
	unlock, err := d.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemFree_v2", call(drv.cuMemFree, uintptr(p)))
}

// MemInfo returns the free and total device memory in bytes
// (cuMemGetInfo_v2), as torch.cuda.mem_get_info.
func (d *Device) MemInfo() (free, total uint64, err error) {
	unlock, err := d.bind()
	if err != nil {
		return 0, 0, err
	}
	defer unlock()
	err = check("cuMemGetInfo_v2", call(drv.cuMemGetInfo, uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total))))
	return free, total, err
}

// CopyHtoD copies bytes from host memory at src to dst (cuMemcpyHtoD_v2),
// on the legacy default stream: src may be reused when it returns, and
// kernels on the legacy stream or on a NewStream stream see the data; a
// NewStreamNonBlocking stream must be ordered explicitly (Synchronize).
func (d *Device) CopyHtoD(dst DevicePtr, src unsafe.Pointer, bytes int) error {
	checkBytes("CopyHtoD", bytes)
	if bytes == 0 {
		return nil
	}
	unlock, err := d.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemcpyHtoD_v2", call(drv.cuMemcpyHtoD, uintptr(dst), uintptr(src), uintptr(bytes)))
}

// CopyDtoH copies bytes from src to host memory at dst and returns when the
// copy is done (cuMemcpyDtoH_v2).
func (d *Device) CopyDtoH(dst unsafe.Pointer, src DevicePtr, bytes int) error {
	checkBytes("CopyDtoH", bytes)
	if bytes == 0 {
		return nil
	}
	unlock, err := d.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemcpyDtoH_v2", call(drv.cuMemcpyDtoH, uintptr(dst), uintptr(src), uintptr(bytes)))
}

// CopyDtoD copies bytes between two device buffers (cuMemcpyDtoD_v2); it is
// ordered after earlier work on the legacy default stream.
func (d *Device) CopyDtoD(dst, src DevicePtr, bytes int) error {
	checkBytes("CopyDtoD", bytes)
	if bytes == 0 {
		return nil
	}
	unlock, err := d.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemcpyDtoD_v2", call(drv.cuMemcpyDtoD, uintptr(dst), uintptr(src), uintptr(bytes)))
}

// Memset8 sets n bytes at p to v (cuMemsetD8_v2), queued on the legacy
// default stream (asynchronous with respect to the host).
func (d *Device) Memset8(p DevicePtr, v byte, n int) error {
	checkBytes("Memset8", n)
	unlock, err := d.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemsetD8_v2", call(drv.cuMemsetD8, uintptr(p), uintptr(v), uintptr(n)))
}

// Memset32 sets n 32-bit words at p to v (cuMemsetD32_v2); p must be 4-byte
// aligned. Memset32(p, math.Float32bits(x), n) fills a float32 buffer with x.
func (d *Device) Memset32(p DevicePtr, v uint32, n int) error {
	checkBytes("Memset32", n)
	unlock, err := d.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemsetD32_v2", call(drv.cuMemsetD32, uintptr(p), uintptr(v), uintptr(n)))
}

// UploadFloat32 copies src to the device buffer dst (len(src) elements).
func (d *Device) UploadFloat32(dst DevicePtr, src []float32) error {
	if len(src) == 0 {
		return nil
	}
	return d.CopyHtoD(dst, unsafe.Pointer(&src[0]), 4*len(src))
}

// DownloadFloat32 copies len(dst) elements from the device buffer src.
func (d *Device) DownloadFloat32(dst []float32, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.CopyDtoH(unsafe.Pointer(&dst[0]), src, 4*len(dst))
}

// UploadInt32 copies src to the device buffer dst.
func (d *Device) UploadInt32(dst DevicePtr, src []int32) error {
	if len(src) == 0 {
		return nil
	}
	return d.CopyHtoD(dst, unsafe.Pointer(&src[0]), 4*len(src))
}

// DownloadInt32 copies len(dst) elements from the device buffer src.
func (d *Device) DownloadInt32(dst []int32, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.CopyDtoH(unsafe.Pointer(&dst[0]), src, 4*len(dst))
}

// UploadInt64 copies src to the device buffer dst.
func (d *Device) UploadInt64(dst DevicePtr, src []int64) error {
	if len(src) == 0 {
		return nil
	}
	return d.CopyHtoD(dst, unsafe.Pointer(&src[0]), 8*len(src))
}

// DownloadInt64 copies len(dst) elements from the device buffer src.
func (d *Device) DownloadInt64(dst []int64, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.CopyDtoH(unsafe.Pointer(&dst[0]), src, 8*len(dst))
}

// UploadUint16 copies src (float16 or bfloat16 bits) to the device buffer dst.
func (d *Device) UploadUint16(dst DevicePtr, src []uint16) error {
	if len(src) == 0 {
		return nil
	}
	return d.CopyHtoD(dst, unsafe.Pointer(&src[0]), 2*len(src))
}

// DownloadUint16 copies len(dst) elements from the device buffer src.
func (d *Device) DownloadUint16(dst []uint16, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.CopyDtoH(unsafe.Pointer(&dst[0]), src, 2*len(dst))
}

// UploadBytes copies src to the device buffer dst.
func (d *Device) UploadBytes(dst DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return d.CopyHtoD(dst, unsafe.Pointer(&src[0]), len(src))
}

// DownloadBytes copies len(dst) bytes from the device buffer src.
func (d *Device) DownloadBytes(dst []byte, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.CopyDtoH(unsafe.Pointer(&dst[0]), src, len(dst))
}

// Flags of cuMemHostAlloc.
const (
	hostAllocPortable  = 0x01
	hostAllocDeviceMap = 0x02
)

// PinnedBuffer is page-locked host memory from cuMemHostAlloc: copies from
// and to it run asynchronously on a stream (DMA, no staging), and with
// Mapped it is also addressable from kernels through DevicePtr (UVA: graphs
// larger than the GPU are sampled in place). It lives outside the Go heap
// and must be released with Free.
type PinnedBuffer struct {
	dev  *Device
	p    unsafe.Pointer
	n    int
	dptr DevicePtr
}

// HostAlloc allocates bytes of pinned host memory, portable to all contexts
// (CU_MEMHOSTALLOC_PORTABLE); with mapped it is also mapped into the device
// address space (CU_MEMHOSTALLOC_DEVICEMAP) and DevicePtr returns its device
// address (cuMemHostGetDevicePointer_v2). Panics if bytes <= 0.
func (d *Device) HostAlloc(bytes int, mapped bool) (*PinnedBuffer, error) {
	if bytes <= 0 {
		argPanic("HostAlloc", "byte count %d, want > 0", bytes)
	}
	unlock, err := d.bind()
	if err != nil {
		return nil, err
	}
	defer unlock()
	flags := uintptr(hostAllocPortable)
	if mapped {
		flags |= hostAllocDeviceMap
	}
	b := &PinnedBuffer{dev: d, n: bytes}
	if err := check("cuMemHostAlloc", call(drv.cuMemHostAlloc, uintptr(unsafe.Pointer(&b.p)), uintptr(bytes), flags)); err != nil {
		return nil, fmt.Errorf("pinning %d bytes: %w", bytes, err)
	}
	if mapped {
		if err := check("cuMemHostGetDevicePointer_v2", call(drv.cuMemHostGetDevicePointer, uintptr(unsafe.Pointer(&b.dptr)), uintptr(b.p), 0)); err != nil {
			call(drv.cuMemFreeHost, uintptr(b.p))
			return nil, err
		}
	}
	return b, nil
}

// Len returns the buffer's size in bytes.
func (b *PinnedBuffer) Len() int { return b.n }

// Pointer returns the host address of the buffer.
func (b *PinnedBuffer) Pointer() unsafe.Pointer { return b.p }

// DevicePtr returns the device address of a mapped buffer, 0 if it was not
// allocated with mapped.
func (b *PinnedBuffer) DevicePtr() DevicePtr { return b.dptr }

// Bytes returns the buffer as a byte slice (valid until Free).
func (b *PinnedBuffer) Bytes() []byte { return unsafe.Slice((*byte)(b.p), b.n) }

// Float32s returns the buffer as a float32 slice of Len()/4 elements.
func (b *PinnedBuffer) Float32s() []float32 { return unsafe.Slice((*float32)(b.p), b.n/4) }

// Int32s returns the buffer as an int32 slice of Len()/4 elements.
func (b *PinnedBuffer) Int32s() []int32 { return unsafe.Slice((*int32)(b.p), b.n/4) }

// Int64s returns the buffer as an int64 slice of Len()/8 elements.
func (b *PinnedBuffer) Int64s() []int64 { return unsafe.Slice((*int64)(b.p), b.n/8) }

// Uint16s returns the buffer as a uint16 slice (float16 / bfloat16 bits).
func (b *PinnedBuffer) Uint16s() []uint16 { return unsafe.Slice((*uint16)(b.p), b.n/2) }

// Free releases the buffer (cuMemFreeHost); the slices from it become
// invalid. Free on a freed buffer does nothing.
func (b *PinnedBuffer) Free() error {
	if b.p == nil {
		return nil
	}
	unlock, err := b.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	err = check("cuMemFreeHost", call(drv.cuMemFreeHost, uintptr(b.p)))
	b.p, b.n, b.dptr = nil, 0, 0
	return err
}
