package tensor

import "sync/atomic"

// autocastState packs (enabled, dtype) so that readers see a consistent
// pair: bit 8 is enabled, the low byte the DType.
var autocastState atomic.Uint32

// AutocastState reports whether autocast is on and the low-precision dtype
// it uses (Float16 or BFloat16), as torch.is_autocast_enabled and
// torch.get_autocast_dtype. The state is process-wide (one per session):
// Go has no goroutine-local storage, so a region applies to every
// goroutine while it is open. Package amp is the user-facing API.
func AutocastState() (enabled bool, dt DType) {
	v := autocastState.Load()
	return v&0x100 != 0, DType(v & 0xff)
}

// SetAutocast turns autocast on with low-precision dtype dt (Float16 or
// BFloat16) or off, and returns the previous state so that callers can
// restore it (regions nest). It panics with ErrDType when enabled and dt is
// not Float16 or BFloat16.
func SetAutocast(enabled bool, dt DType) (prevEnabled bool, prevDT DType) {
	if enabled && dt != Float16 && dt != BFloat16 {
		panicf(ErrDType, "SetAutocast", "autocast dtype must be float16 or bfloat16, got %s", dt)
	}
	var v uint32
	if enabled {
		v = 0x100
	}
	v |= uint32(dt) & 0xff
	old := autocastState.Swap(v)
	return old&0x100 != 0, DType(old & 0xff)
}
