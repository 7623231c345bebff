package tensor

import "sync/atomic"

// OpHook is called when a public op starts, with the op's name ("MatMul",
// "SpMM", and "SpMM.backward" for the gradient closure that op recorded, run
// by Backward), and returns the function to call when that op returns. Ops
// nest: CrossEntropy's hook brackets the hooks of the LogSoftmax and NLLLoss
// it calls. A hook is called from whichever goroutine runs the op, so it
// must be safe for concurrent use. The profile package installs one.
type OpHook func(op string) (end func())

var opHook atomic.Pointer[OpHook]

// SetOpHook installs h as the op hook and returns the previous one; nil
// removes it. With no hook installed an op pays one atomic load.
func SetOpHook(h OpHook) (prev OpHook) {
	var p *OpHook
	if h != nil {
		p = &h
	}
	if old := opHook.Swap(p); old != nil {
		return *old
	}
	return nil
}

func nopEnd() {}

// hookOp brackets a public op: ops start with `defer hookOp("Name")()`.
// It inlines to one atomic load and a branch when no hook is installed.
func hookOp(op string) func() {
	if opHook.Load() == nil {
		return nopEnd
	}
	return callHook(op)
}

func callHook(op string) func() {
	h := opHook.Load()
	if h == nil {
		return nopEnd
	}
	if t := devTimer.Load(); t != nil {
		f := t.begin(op)
		end := (*h)(op)
		return func() { end(); t.end(f) }
	}
	return (*h)(op)
}

// runBackward runs n's gradient closure, bracketed by the hook as
// "<op>.backward" when one is installed.
func runBackward(n *node, g *Tensor) []*Tensor {
	if opHook.Load() != nil {
		defer callHook(n.op + ".backward")()
	}
	return n.backward(g)
}

// TotalAllocatedBytes returns the cumulative bytes ever allocated for
// tensors (and CountBytes buffers) on device; unlike MemoryAllocated it
// never decreases, so the difference of two readings is what was allocated
// in between (by every goroutine).
func TotalAllocatedBytes(device string) int64 {
	if device == "cpu" {
		return cpuStats.total.Load()
	}
	return statsFor(device).total.Load()
}
