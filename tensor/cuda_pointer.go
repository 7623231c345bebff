package tensor

import (
	"runtime"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

// CUDAPointer returns the device address of t's first element and the
// CUDA stream that the ops of t's device queue on (0: the legacy default
// stream, which every op of this package uses), for handing a CUDA tensor
// to a library that takes raw device pointers, such as NCCL (torch's
// tensor.data_ptr() and torch.cuda.current_stream()). The elements are
// contiguous, t.Nbytes() bytes. Work queued on that stream after the ops
// that wrote t sees their results. The address is valid while t (and its
// storage) lives: keep t reachable until the library's work is done. It
// returns an ErrDevice error for a tensor that is not on a CUDA device or
// was freed.
func (t *Tensor) CUDAPointer() (ptr, stream uintptr, err error) {
	const op = "CUDAPointer"
	if t == nil {
		return 0, 0, engerr.New(ErrArgument, "tensor", op, "the tensor is nil")
	}
	ds := cudaBufOf(t.st)
	if ds == nil || ds.cuda == nil {
		return 0, 0, engerr.New(ErrDevice, "tensor", op, "tensor of shape %v is on %s, not on a CUDA device", t.shape, t.st.device)
	}
	if ds.freed {
		return 0, 0, engerr.New(ErrDevice, "tensor", op, "tensor of shape %v on %s was freed (Tensor.Free)", t.shape, t.st.device)
	}
	return uintptr(ds.ptr.Add(t.off * t.dtype.Size())), ds.cuda.s.Handle(), nil
}

// WithCUDAContext runs f on a locked OS thread with the primary CUDA
// context of device ("cuda:N") current, the context this package's ops,
// cuBLAS and the CUDA runtime share, so that f may call a CUDA library
// that works on the current device (NCCL's ncclCommInitRank, for
// instance) and have it use that GPU. It returns f's error, or an
// ErrDevice error when device cannot be opened.
func WithCUDAContext(device string, f func() error) error {
	const op = "WithCUDAContext"
	d, err := openCUDA(device)
	if err != nil {
		return engerr.New(ErrDevice, "tensor", op, "%v", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := d.dev.MakeCurrent(); err != nil {
		return engerr.New(ErrDevice, "tensor", op, "%s: %v", device, err)
	}
	return f()
}
