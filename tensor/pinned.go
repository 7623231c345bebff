package tensor

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/kernels"
)

// PinnedUploader copies batches of CPU tensors to a CUDA device through
// page-locked (pinned) host memory on a copy stream of its own, so that the
// copy of the next batch overlaps the computation of the current one (DGL's
// pin_prefetcher; in PyTorch, Tensor.pin_memory() then
// to("cuda", non_blocking=True) on a side stream). sampling.DataLoader uses
// it for LoaderOptions.PinMemory.
//
// Start stages the tensors' bytes in one of a small ring of reused pinned
// buffers (a host copy), allocates the device tensors and queues their
// copies on the copy stream (cuMemcpyHtoDAsync from pinned memory: DMA, the
// host does not wait), then records an event after them. The copies are
// ordered after the work queued on the compute stream before Start (the
// device blocks they write may have just been freed by queued ops: the
// caching allocator does not track streams). Ready makes the compute stream
// wait for that event (cuStreamWaitEvent: the host does not wait), so ops
// queued after Ready see the data. Before a ring buffer is refilled the host
// waits for its previous copy.
//
// A PinnedUploader is safe for concurrent use. Call Ready on every pending
// upload (or Close the uploader) before its tensors are dropped. Close
// releases the stream and the pinned memory.
type PinnedUploader struct {
	mu     sync.Mutex
	dev    *cudaDevice
	copy   *kernels.Stream
	order  *kernels.Event // compute-stream point each copy waits for
	slots  []pinnedSlot
	next   int
	closed bool
}

type pinnedSlot struct {
	buf  *kernels.PinnedBuffer
	done *kernels.Event // recorded on the copy stream after the slot's copies
	used bool
}

// PendingUpload is the result of PinnedUploader.Start: device tensors whose
// copies are queued.
type PendingUpload struct {
	u     *PinnedUploader
	outs  []*Tensor
	done  *kernels.Event
	ready bool
}

// DefaultPinnedSlots is the ring size NewPinnedUploader uses for slots <= 0:
// one batch being filled, one being copied and one being computed on.
const DefaultPinnedSlots = 3

// NewPinnedUploader returns an uploader to device ("cuda" or "cuda:N") with
// a ring of slots pinned staging buffers (DefaultPinnedSlots for slots <= 0;
// at most 16), which grow to the largest batch. It returns an error
// wrapping ErrDevice for a device that is not a CUDA GPU, or the driver's
// error (naming the missing libcuda or device) when the GPU cannot be
// opened.
func NewPinnedUploader(device string, slots int) (*PinnedUploader, error) {
	const op = "tensor.NewPinnedUploader"
	if slots <= 0 {
		slots = DefaultPinnedSlots
	}
	if slots > 16 {
		return nil, fmt.Errorf("%s: %d slots; want at most 16 (each is a pinned buffer of a whole batch): %w", op, slots, ErrArgument)
	}
	ord, name, err := parseDevice(device)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if kindOf(name) != "cuda" || ord < 0 {
		return nil, fmt.Errorf("%s: device %q: pinned-memory uploads go to a CUDA GPU (\"cuda\" or \"cuda:N\"): %w", op, device, ErrDevice)
	}
	d, err := openCUDA(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	// Non-blocking: a CU_STREAM_DEFAULT stream would serialize with the
	// legacy default stream the ops run on, and the copies would not
	// overlap them.
	s, err := d.dev.NewStreamNonBlocking()
	if err != nil {
		return nil, fmt.Errorf("%s: copy stream on %s: %w: %w", op, name, ErrCUDA, err)
	}
	u := &PinnedUploader{dev: d, copy: s, slots: make([]pinnedSlot, slots)}
	if u.order, err = d.dev.NewEvent(); err != nil {
		s.Destroy()
		return nil, fmt.Errorf("%s: event on %s: %w: %w", op, name, ErrCUDA, err)
	}
	return u, nil
}

// Device returns the uploader's device, "cuda:N".
func (u *PinnedUploader) Device() string { return u.dev.name }

const pinnedAlign = 256

// Start queues the upload of ts (CPU tensors, any dtype) and returns it
// pending; the device tensors have ts' shapes and dtypes and are not
// autograd-tracked. It returns an error naming the argument for a tensor
// that is nil or not on the CPU or after Close, the device's
// ErrOutOfMemory, and the driver's error (wrapping ErrCUDA) when pinning or queueing fails.
func (u *PinnedUploader) Start(ts []*Tensor) (*PendingUpload, error) {
	const op = "PinnedUploader.Start"
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return nil, fmt.Errorf("tensor.%s: the uploader is closed: %w", op, ErrArgument)
	}
	total := 0
	for i, t := range ts {
		if t == nil {
			return nil, fmt.Errorf("tensor.%s: tensor %d is nil: %w", op, i, ErrArgument)
		}
		if t.st.device != "cpu" || t.st.host == nil && t.n > 0 {
			return nil, fmt.Errorf("tensor.%s: tensor %d is on %s; uploads take CPU tensors: %w", op, i, t.st.device, ErrDevice)
		}
		total += (t.n*t.dtype.Size() + pinnedAlign - 1) &^ (pinnedAlign - 1)
	}
	sl := &u.slots[u.next]
	u.next = (u.next + 1) % len(u.slots)
	if sl.used {
		// The previous copy out of this buffer must be done before the
		// host overwrites it.
		if err := sl.done.Synchronize(); err != nil {
			return nil, u.cudaErr(op, err)
		}
	}
	if total > 0 && (sl.buf == nil || sl.buf.Len() < total) {
		if sl.buf != nil {
			if err := sl.buf.Free(); err != nil {
				return nil, u.cudaErr(op, err)
			}
			sl.buf = nil
		}
		n := (total + (1<<20 - 1)) &^ (1<<20 - 1)
		b, err := u.dev.dev.HostAlloc(n, false)
		if err != nil {
			return nil, u.cudaErr(op, err)
		}
		sl.buf = b
	}
	if sl.done == nil {
		e, err := u.dev.dev.NewEvent()
		if err != nil {
			return nil, u.cudaErr(op, err)
		}
		sl.done = e
	}
	outs := make([]*Tensor, len(ts))
	off := 0
	var host []byte
	if sl.buf != nil {
		host = sl.buf.Bytes()
	}
	type cp struct {
		dst  kernels.DevicePtr
		src  unsafe.Pointer
		size int
	}
	copies := make([]cp, 0, len(ts))
	for i, t := range ts {
		var out *Tensor
		if err := Catch(func() { out = u.dev.empty(op, t.dtype, t.shape) }); err != nil {
			return nil, fmt.Errorf("tensor.%s: tensor %d: %w", op, i, err) // out of memory
		}
		outs[i] = out
		size := t.n * t.dtype.Size()
		if size == 0 {
			continue
		}
		src := unsafe.Slice((*byte)(t.st.host), t.st.n*t.dtype.Size())[t.off*t.dtype.Size():][:size]
		copy(host[off:off+size], src)
		copies = append(copies, cp{cudaBufOf(out.st).ptr, unsafe.Pointer(&host[off]), size})
		if t.dtype == Int64 {
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			for _, x := range unsafe.Slice((*int64)(unsafe.Pointer(&src[0])), t.n) {
				lo, hi = min(lo, x), max(hi, x)
			}
			ds := cudaBufOf(out.st)
			ds.bounded, ds.lo, ds.hi = true, lo, hi
		}
		off += (size + pinnedAlign - 1) &^ (pinnedAlign - 1)
	}
	// Order the copies after the compute stream's queued work, then queue
	// them and mark their end.
	if err := u.order.Record(u.dev.s); err != nil {
		return nil, u.cudaErr(op, err)
	}
	if err := u.copy.Wait(u.order); err != nil {
		return nil, u.cudaErr(op, err)
	}
	for _, c := range copies {
		if err := u.copy.CopyHtoDAsync(c.dst, c.src, c.size); err != nil {
			return nil, u.cudaErr(op, err)
		}
	}
	if err := sl.done.Record(u.copy); err != nil {
		return nil, u.cudaErr(op, err)
	}
	sl.used = true
	return &PendingUpload{u: u, outs: outs, done: sl.done}, nil
}

func (u *PinnedUploader) cudaErr(op string, err error) error {
	return fmt.Errorf("tensor.%s on %s: %w: %w", op, u.dev.name, ErrCUDA, err)
}

// Ready makes the device's compute stream wait for the upload's copies
// (the host does not wait) and returns the device tensors, in the order
// given to Start. Calling it again returns the same tensors.
func (p *PendingUpload) Ready() ([]*Tensor, error) {
	p.u.mu.Lock()
	defer p.u.mu.Unlock()
	if !p.ready && !p.u.closed {
		// The slot's event may have been recorded again by a later Start
		// (the ring wrapped): waiting for that later copy also covers ours.
		if err := p.u.dev.s.Wait(p.done); err != nil {
			return nil, p.u.cudaErr("PendingUpload.Ready", err)
		}
	}
	p.ready = true
	return p.outs, nil
}

// Close waits for the queued copies and releases the copy stream, the
// events and the pinned buffers. Pending uploads' tensors stay valid.
// Closing twice is harmless.
func (u *PinnedUploader) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return nil
	}
	u.closed = true
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = u.cudaErr("PinnedUploader.Close", err)
		}
	}
	keep(u.copy.Synchronize())
	// The copies are done, but the compute stream may still wait on their
	// events: the driver defers destroying an event until then.
	for i := range u.slots {
		sl := &u.slots[i]
		if sl.buf != nil {
			keep(sl.buf.Free())
		}
		if sl.done != nil {
			keep(sl.done.Destroy())
		}
	}
	keep(u.order.Destroy())
	keep(u.copy.Destroy())
	return first
}
