package kernels

import (
	"sync"
	"unsafe"
)

// Stream is a CUDA stream: work queued on it runs in order, and work on
// different streams may overlap (a copy stream beside a compute stream).
// The zero handle is the legacy default stream (Device.DefaultStream).
type Stream struct {
	dev *Device
	h   uintptr

	scratchMu  sync.Mutex
	scratch    DevicePtr // work space of multi-pass launchers (Sum)
	scratchLen int
}

// Flags of cuStreamCreate.
const (
	streamDefault     = 0x0
	streamNonBlocking = 0x1
)

// NewStream creates a blocking stream (CU_STREAM_DEFAULT): its work is
// ordered after earlier work of the legacy default stream, which runs the
// Device methods (Alloc-side memsets, CopyHtoD, Upload*), so data uploaded
// with them is ready for kernels queued on it. Streams made by NewStream
// still overlap with each other (a copy stream beside a compute stream).
// Release it with Destroy.
func (d *Device) NewStream() (*Stream, error) { return d.newStream(streamDefault) }

// NewStreamNonBlocking creates a stream that does not synchronize with the
// legacy default stream (CU_STREAM_NON_BLOCKING): order it against
// Device-method copies with events or Synchronize.
func (d *Device) NewStreamNonBlocking() (*Stream, error) { return d.newStream(streamNonBlocking) }

func (d *Device) newStream(flags uintptr) (*Stream, error) {
	unlock, err := d.bind()
	if err != nil {
		return nil, err
	}
	defer unlock()
	s := &Stream{dev: d}
	if err := check("cuStreamCreate", call(drv.cuStreamCreate, uintptr(unsafe.Pointer(&s.h)), flags)); err != nil {
		return nil, err
	}
	return s, nil
}

// DefaultStream returns the device's legacy default stream (handle 0),
// which synchronizes with all blocking streams. It is the same *Stream on
// every call.
func (d *Device) DefaultStream() *Stream {
	d.modMu.Lock()
	defer d.modMu.Unlock()
	if d.def == nil {
		d.def = &Stream{dev: d}
	}
	return d.def
}

// scratchBuf returns at least bytes of device memory owned by s, reused by
// every launcher on s (work on one stream runs in order).
func (s *Stream) scratchBuf(bytes int) (DevicePtr, error) {
	s.scratchMu.Lock()
	defer s.scratchMu.Unlock()
	if s.scratchLen >= bytes {
		return s.scratch, nil
	}
	if s.scratch != 0 {
		if err := s.Synchronize(); err != nil {
			return 0, err
		}
		if err := s.dev.Free(s.scratch); err != nil {
			return 0, err
		}
		s.scratch, s.scratchLen = 0, 0
	}
	p, err := s.dev.Alloc(bytes)
	if err != nil {
		return 0, err
	}
	s.scratch, s.scratchLen = p, bytes
	return p, nil
}

// Device returns the stream's device.
func (s *Stream) Device() *Device { return s.dev }

// Handle returns the CUstream handle (0 for the default stream).
func (s *Stream) Handle() uintptr { return s.h }

// Synchronize blocks until the work queued on s has finished
// (cuStreamSynchronize), returning the first asynchronous error if any, for
// example a kernel's illegal address.
func (s *Stream) Synchronize() error {
	unlock, err := s.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuStreamSynchronize", call(drv.cuStreamSynchronize, s.h))
}

// Done reports whether all work queued on s has finished (cuStreamQuery),
// without blocking.
func (s *Stream) Done() (bool, error) {
	unlock, err := s.dev.bind()
	if err != nil {
		return false, err
	}
	defer unlock()
	const notReady = 600 // CUDA_ERROR_NOT_READY
	res := call(drv.cuStreamQuery, s.h)
	if res == notReady {
		return false, nil
	}
	return res == 0, check("cuStreamQuery", res)
}

// Wait makes later work on s wait for e's recorded work (cuStreamWaitEvent),
// without blocking the host.
func (s *Stream) Wait(e *Event) error {
	unlock, err := s.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuStreamWaitEvent", call(drv.cuStreamWaitEvent, s.h, e.h, 0))
}

// Destroy releases the stream (cuStreamDestroy_v2) after its queued work
// finishes. Destroying the default stream does nothing.
func (s *Stream) Destroy() error {
	if s.h == 0 {
		return nil
	}
	if s.scratch != 0 {
		if err := s.Synchronize(); err != nil {
			return err
		}
		if err := s.dev.Free(s.scratch); err != nil {
			return err
		}
		s.scratch, s.scratchLen = 0, 0
	}
	unlock, err := s.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	err = check("cuStreamDestroy_v2", call(drv.cuStreamDestroy, s.h))
	s.h = 0
	return err
}

// CopyHtoDAsync queues a copy of bytes from host memory at src to dst on s
// (cuMemcpyHtoDAsync_v2). It is asynchronous only when src is pinned
// (PinnedBuffer.Pointer); from pageable Go memory the driver stages the data
// before returning, so src may be reused at once.
func (s *Stream) CopyHtoDAsync(dst DevicePtr, src unsafe.Pointer, bytes int) error {
	checkBytes("CopyHtoDAsync", bytes)
	if bytes == 0 {
		return nil
	}
	unlock, err := s.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemcpyHtoDAsync_v2", call(drv.cuMemcpyHtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), s.h))
}

// CopyDtoHAsync queues a copy of bytes from src to host memory at dst on s
// (cuMemcpyDtoHAsync_v2). dst must be pinned for the copy to be asynchronous;
// to pageable Go memory it returns when the copy is done. Read dst only
// after s.Synchronize or an event recorded after the copy.
func (s *Stream) CopyDtoHAsync(dst unsafe.Pointer, src DevicePtr, bytes int) error {
	checkBytes("CopyDtoHAsync", bytes)
	if bytes == 0 {
		return nil
	}
	unlock, err := s.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemcpyDtoHAsync_v2", call(drv.cuMemcpyDtoHAsync, uintptr(dst), uintptr(src), uintptr(bytes), s.h))
}

// CopyDtoDAsync queues a device-to-device copy on s (cuMemcpyDtoDAsync_v2).
func (s *Stream) CopyDtoDAsync(dst, src DevicePtr, bytes int) error {
	checkBytes("CopyDtoDAsync", bytes)
	if bytes == 0 {
		return nil
	}
	unlock, err := s.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemcpyDtoDAsync_v2", call(drv.cuMemcpyDtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), s.h))
}

// Memset8Async queues setting n bytes at p to v on s (cuMemsetD8Async).
func (s *Stream) Memset8Async(p DevicePtr, v byte, n int) error {
	checkBytes("Memset8Async", n)
	unlock, err := s.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemsetD8Async", call(drv.cuMemsetD8Async, uintptr(p), uintptr(v), uintptr(n), s.h))
}

// Memset32Async queues setting n 32-bit words at p to v on s
// (cuMemsetD32Async).
func (s *Stream) Memset32Async(p DevicePtr, v uint32, n int) error {
	checkBytes("Memset32Async", n)
	unlock, err := s.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuMemsetD32Async", call(drv.cuMemsetD32Async, uintptr(p), uintptr(v), uintptr(n), s.h))
}

// Event is a CUDA event: a marker recorded on a stream, used to time device
// work (ElapsedMs) and to order streams (Stream.Wait).
type Event struct {
	dev *Device
	h   uintptr
}

// NewEvent creates an event with timing enabled (flags CU_EVENT_DEFAULT).
func (d *Device) NewEvent() (*Event, error) {
	unlock, err := d.bind()
	if err != nil {
		return nil, err
	}
	defer unlock()
	e := &Event{dev: d}
	if err := check("cuEventCreate", call(drv.cuEventCreate, uintptr(unsafe.Pointer(&e.h)), 0)); err != nil {
		return nil, err
	}
	return e, nil
}

// Record marks the point in s's queue that e stands for (cuEventRecord).
func (e *Event) Record(s *Stream) error {
	unlock, err := e.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuEventRecord", call(drv.cuEventRecord, e.h, s.h))
}

// Synchronize blocks until the work before e's record has finished.
func (e *Event) Synchronize() error {
	unlock, err := e.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuEventSynchronize", call(drv.cuEventSynchronize, e.h))
}

// ElapsedMs returns the device time in milliseconds between the records of
// start and end (cuEventElapsedTime), both of which must have completed
// (call end.Synchronize first). Resolution is about 0.5 µs.
func ElapsedMs(start, end *Event) (float32, error) {
	unlock, err := start.dev.bind()
	if err != nil {
		return 0, err
	}
	defer unlock()
	var ms float32
	err = check("cuEventElapsedTime", call(drv.cuEventElapsedTime, uintptr(unsafe.Pointer(&ms)), start.h, end.h))
	return ms, err
}

// Destroy releases the event (cuEventDestroy_v2).
func (e *Event) Destroy() error {
	if e.h == 0 {
		return nil
	}
	unlock, err := e.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	err = check("cuEventDestroy_v2", call(drv.cuEventDestroy, e.h))
	e.h = 0
	return err
}
