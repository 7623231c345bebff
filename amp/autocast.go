package amp

import "github.com/gnnrepl/gnnrepl/tensor"

// State is an autocast setting: on or off, and the low-precision dtype
// (torch.is_autocast_enabled, torch.get_autocast_dtype).
type State struct {
	Enabled bool
	DType   tensor.DType
}

// Autocast runs f with autocast on in dtype dt (tensor.Float16 or
// tensor.BFloat16), as `with torch.autocast(device_type, dtype=dt):`, and
// restores the previous state when f returns or panics. Regions nest: an
// inner region's dtype applies inside it. It panics with ErrOption when dt
// is not Float16 or BFloat16 or f is nil.
func Autocast(dt tensor.DType, f func()) {
	if f == nil {
		panicf(ErrOption, "Autocast", "f, the function to run with autocast on, is nil")
	}
	prev := Enable(dt)
	defer Restore(prev)
	f()
}

// Enable turns autocast on in dtype dt (tensor.Float16 or
// tensor.BFloat16) and returns the previous state for Restore: the pair is
// Autocast for code that cannot use a closure. It panics with ErrOption
// when dt is not Float16 or BFloat16.
func Enable(dt tensor.DType) (prev State) {
	if dt != tensor.Float16 && dt != tensor.BFloat16 {
		panicf(ErrOption, "Enable", "autocast dtype must be tensor.Float16 or tensor.BFloat16, got %s", dt)
	}
	on, pdt := tensor.SetAutocast(true, dt)
	return State{on, pdt}
}

// Disable turns autocast off (a float32 section inside a region, as
// torch.autocast(enabled=False)) and returns the previous state for
// Restore.
func Disable() (prev State) {
	_, dt := tensor.AutocastState()
	on, pdt := tensor.SetAutocast(false, dt)
	return State{on, pdt}
}

// Restore sets the autocast state to s, the value Enable or Disable
// returned.
func Restore(s State) {
	if s.Enabled && s.DType != tensor.Float16 && s.DType != tensor.BFloat16 {
		panicf(ErrOption, "Restore", "autocast dtype must be tensor.Float16 or tensor.BFloat16, got %s", s.DType)
	}
	tensor.SetAutocast(s.Enabled, s.DType)
}

// IsEnabled reports whether an autocast region is open
// (torch.is_autocast_enabled).
func IsEnabled() bool {
	on, _ := tensor.AutocastState()
	return on
}

// Current returns the autocast state: whether a region is open and its
// dtype (torch.get_autocast_dtype).
func Current() State {
	on, dt := tensor.AutocastState()
	return State{on, dt}
}
