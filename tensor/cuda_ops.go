package tensor

import (
	"github.com/gnnrepl/gnnrepl/kernels"
)

// GPU implementations of the dense ops. Each public op starts with a
// dispatch branch (deviceOf) that calls the cuda* function here when its
// inputs are on a GPU; the forward and the backward closure queue kernels
// on the device's stream and never read device memory, except where a
// comment says so (Accuracy, index checks of tensors whose bounds are not
// known). Shapes and dtypes are checked exactly as on the CPU, with the same
// messages.

// Op codes of gt_binary_f32 / gt_bcast_binary_f32 and gt_unary_f32 (cuda_ops.cu).
const (
	opAdd int32 = iota
	opSub
	opMul
	opDiv
	opCopyA
)

const (
	uExp int32 = iota
	uLog
	uSqrt
	uSigmoid
	uTanh
	uPow
	uAddScalar
)

// ptr is devPtr for op-internal use.
func ptr(t *Tensor) kernels.DevicePtr { return devPtr("op", t) }

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
