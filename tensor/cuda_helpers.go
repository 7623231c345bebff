package tensor

import (
	"github.com/gnnrepl/gnnrepl/kernels"
)

// Helpers of the CUDA backend's kernels (cuda_*.go): each family's
// primitives are cudaDevice methods over the kernels package's typed
// launchers, queued on the device's stream; they never read device memory
// except where a comment says so (Accuracy, index checks of tensors whose
// bounds are not known).

// ptr is devPtr for op-internal use.
func ptr(t *Tensor) kernels.DevicePtr { return devPtr("op", t) }

// optPtr is ptr of an optional tensor: 0 for nil (SpMM's arg-max of
// reducers other than max).
func optPtr(t *Tensor) kernels.DevicePtr {
	if t == nil {
		return 0
	}
	return ptr(t)
}

// freeNow returns a temporary storage's block to the cache at once (later
// kernels on the stream reuse it only after the queued ones that read it).
func freeNow(st *storage) {
	if st == nil || cudaBufOf(st) == nil {
		return
	}
	releaseStorage(st)
}

// padTo4 left-pads shape (and strides) to four dimensions.
func padTo4(shape []int, fill int) [4]int64 {
	var r [4]int64
	off := 4 - len(shape)
	for i := 0; i < 4; i++ {
		if i < off {
			r[i] = int64(fill)
		} else {
			r[i] = int64(shape[i-off])
		}
	}
	return r
}

// floatKernelDType is kernelDType for a dtype the op needs a float kernel
// for: other dtypes panic with ErrNotImplemented naming op and the device.
func (d *cudaDevice) floatKernelDType(op string, dt DType) kernels.DType {
	k, ok := kernelDType(dt)
	if !ok {
		panicf(ErrNotImplemented, op, "no CUDA kernel for %s on %s", dt, d.name)
	}
	return k
}
