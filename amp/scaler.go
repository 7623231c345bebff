package amp

import (
	"fmt"
	"math"
	"reflect"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/optim"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// GradScalerOptions configures a GradScaler; the fields are
// torch.amp.GradScaler's arguments, and zero values take its defaults.
type GradScalerOptions struct {
	// InitScale is the first scale factor (init_scale; 2^16 when 0).
	InitScale float64
	// GrowthFactor multiplies the scale after GrowthInterval steps in a
	// row without Inf or NaN gradients (growth_factor; 2 when 0; must be
	// above 1).
	GrowthFactor float64
	// BackoffFactor multiplies the scale after a step with Inf or NaN
	// gradients (backoff_factor; 0.5 when 0; must be in (0, 1)).
	BackoffFactor float64
	// GrowthInterval is the number of clean steps before the scale grows
	// (growth_interval; 2000 when 0).
	GrowthInterval int
	// Disabled makes every method a pass-through (enabled=False): Scale
	// returns the loss, Step calls the optimizer's Step.
	Disabled bool
}

// stage of one optimizer within an iteration (torch's OptState).
type stage int

const (
	ready stage = iota
	unscaled
	stepped
)

type optState struct {
	key      any
	stage    stage
	foundInf bool
}

// GradScaler is dynamic loss scaling, as torch.amp.GradScaler (Micikevicius
// et al., "Mixed Precision Training", ICLR 2018, section 3.2): Scale
// multiplies the loss by the scale S so that small float16 gradients do
// not flush to zero; Unscale divides the optimizer's gradients by S and
// records whether any is Inf or NaN; Step skips the optimizer's step when
// one was, and Update then multiplies S by BackoffFactor, or by
// GrowthFactor after GrowthInterval clean steps in a row. Gradients must be
// float32 (the parameters' dtype; autocast keeps parameters in float32).
// One scaler serves any number of optimizers; call Update once per
// iteration after every optimizer's Step.
type GradScaler struct {
	scale          float64
	growthFactor   float64
	backoffFactor  float64
	growthInterval int
	growthTracker  int
	enabled        bool
	opts           []*optState // optimizers seen since the last Update
}

// NewGradScaler returns a GradScaler (torch.amp.GradScaler()). It panics
// with ErrOption naming the field when InitScale is negative or not finite,
// GrowthFactor is not above 1, BackoffFactor is not in (0, 1) or
// GrowthInterval is negative.
func NewGradScaler(o GradScalerOptions) *GradScaler {
	const op = "NewGradScaler"
	if o.InitScale == 0 {
		o.InitScale = 65536
	}
	if o.GrowthFactor == 0 {
		o.GrowthFactor = 2
	}
	if o.BackoffFactor == 0 {
		o.BackoffFactor = 0.5
	}
	if o.GrowthInterval == 0 {
		o.GrowthInterval = 2000
	}
	switch {
	case !(o.InitScale > 0) || math.IsInf(o.InitScale, 0):
		panicf(ErrOption, op, "InitScale must be positive and finite, got %g", o.InitScale)
	case !(o.GrowthFactor > 1) || math.IsInf(o.GrowthFactor, 0):
		panicf(ErrOption, op, "GrowthFactor must be above 1, got %g", o.GrowthFactor)
	case !(o.BackoffFactor > 0 && o.BackoffFactor < 1):
		panicf(ErrOption, op, "BackoffFactor must be in (0, 1), got %g", o.BackoffFactor)
	case o.GrowthInterval < 0:
		panicf(ErrOption, op, "GrowthInterval must be positive, got %d", o.GrowthInterval)
	}
	return &GradScaler{scale: o.InitScale, growthFactor: o.GrowthFactor, backoffFactor: o.BackoffFactor,
		growthInterval: o.GrowthInterval, enabled: !o.Disabled}
}

// IsEnabled reports whether the scaler scales (is_enabled).
func (s *GradScaler) IsEnabled() bool { return s.enabled }

// GetScale returns the current scale factor S (get_scale); 1 when the
// scaler is disabled.
func (s *GradScaler) GetScale() float64 {
	if !s.enabled {
		return 1
	}
	return s.scale
}

// Scale returns loss * S, any float dtype and shape (scale(outputs)); call
// Backward on the result. A disabled scaler returns loss.
func (s *GradScaler) Scale(loss *tensor.Tensor) *tensor.Tensor {
	if !s.enabled {
		return loss
	}
	if loss == nil {
		panicf(ErrOption, "GradScaler.Scale", "loss is nil")
	}
	return tensor.MulScalar(loss, float32(s.scale))
}

// Unscale divides the gradients of opt's parameters by S in place and
// records whether any of them is Inf or NaN (unscale_), so that the
// gradients can be clipped or inspected before Step. Step does not divide
// them again. It panics with ErrState when called twice for opt, or after
// Step, before Update (torch raises RuntimeError), and with
// tensor.ErrDType when a gradient is not float32.
func (s *GradScaler) Unscale(opt optim.Optimizer) {
	if !s.enabled {
		return
	}
	st := s.stateOf("GradScaler.Unscale", opt)
	switch st.stage {
	case unscaled:
		panicf(ErrState, "GradScaler.Unscale", "Unscale has already been called on this optimizer since the last Update")
	case stepped:
		panicf(ErrState, "GradScaler.Unscale", "Unscale is being called after Step; call Update first")
	}
	inv := float32(1 / s.scale) // torch: scale.double().reciprocal().float()
	for _, g := range opt.ParamGroups() {
		for _, p := range g.Params {
			if grad := p.Grad(); grad != nil && unscaleGrad(grad, inv) {
				st.foundInf = true
			}
		}
	}
	st.stage = unscaled
}

// unscaleGrad multiplies grad by inv in place and reports whether it held
// an Inf or NaN (torch._amp_foreach_non_finite_check_and_unscale_).
func unscaleGrad(grad *tensor.Tensor, inv float32) (nonFinite bool) {
	if grad.DType() != tensor.Float32 {
		panicf(engerr.ErrDType, "GradScaler.Unscale", "gradients must be float32, got %s%v (keep parameters in float32; autocast casts them per op)",
			grad.DType(), grad.Shape())
	}
	host := grad
	if grad.Device() != "cpu" {
		host = grad.ToCPU()
	}
	d := host.Float32s()
	for i, v := range d {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			nonFinite = true
		}
		d[i] = v * inv
	}
	if host != grad {
		grad.CopyFrom(host)
	}
	return nonFinite
}

// Step unscales opt's gradients unless Unscale already did, then calls
// opt.Step() unless a gradient was Inf or NaN (step(optimizer)). It
// returns whether the step was skipped. A disabled scaler calls opt.Step()
// and returns false. It panics with ErrState when called twice for opt
// before Update.
func (s *GradScaler) Step(opt optim.Optimizer) (skipped bool) {
	if !s.enabled {
		opt.Step()
		return false
	}
	st := s.stateOf("GradScaler.Step", opt)
	if st.stage == stepped {
		panicf(ErrState, "GradScaler.Step", "Step has already been called on this optimizer since the last Update")
	}
	if st.stage == ready {
		s.Unscale(opt)
	}
	if !st.foundInf {
		opt.Step()
	}
	st.stage = stepped
	return st.foundInf
}

// Update adjusts the scale after the iteration's Steps (update()): S is
// multiplied by BackoffFactor if any optimizer's gradients held an Inf or
// NaN, otherwise a count of clean steps grows and S is multiplied by
// GrowthFactor (when the product is finite) every GrowthInterval of them;
// a skipped step resets the count. It panics with ErrState when no
// optimizer was unscaled or stepped since the last Update.
func (s *GradScaler) Update() {
	if !s.enabled {
		return
	}
	if len(s.opts) == 0 {
		panicf(ErrState, "GradScaler.Update", "no Unscale or Step was recorded since the last Update")
	}
	found := false
	for _, st := range s.opts {
		found = found || st.foundInf
	}
	s.opts = nil
	if found {
		s.scale *= s.backoffFactor
		s.growthTracker = 0
		return
	}
	s.growthTracker++
	if s.growthTracker == s.growthInterval {
		if g := s.scale * s.growthFactor; !math.IsInf(g, 0) {
			s.scale = g
		}
		s.growthTracker = 0
	}
}

// stateOf returns the state of opt within this iteration, creating it.
func (s *GradScaler) stateOf(op string, opt optim.Optimizer) *optState {
	if opt == nil {
		panicf(ErrOption, op, "optimizer is nil")
	}
	key := optKey(opt)
	for _, st := range s.opts {
		if st.key == key {
			return st
		}
	}
	st := &optState{key: key}
	s.opts = append(s.opts, st)
	return st
}

// optKey identifies an optimizer: itself when its dynamic type is
// comparable (a pointer, as every optim optimizer), else its first
// parameter group (a value the optimizer keeps, e.g. for an optimizer
// written in the interpreter, whose wrapper is not comparable).
func optKey(opt optim.Optimizer) any {
	if reflect.TypeOf(opt).Comparable() {
		return opt
	}
	if gs := opt.ParamGroups(); len(gs) > 0 {
		return gs[0]
	}
	return nil
}

// StateDict returns the scaler's state under torch's keys (state_dict()):
// "scale", "growth_factor", "backoff_factor" (one-element float64 values
// stored as float32 tensors, exact for powers of two), "growth_interval"
// and "_growth_tracker" (one-element int64 tensors). A disabled scaler
// returns an empty map.
func (s *GradScaler) StateDict() map[string]*tensor.Tensor {
	if !s.enabled {
		return map[string]*tensor.Tensor{}
	}
	f := func(v float64) *tensor.Tensor { return tensor.FromFloat32([]float32{float32(v)}) }
	i := func(v int) *tensor.Tensor { return tensor.FromInt64([]int64{int64(v)}) }
	return map[string]*tensor.Tensor{
		"scale":           f(s.scale),
		"growth_factor":   f(s.growthFactor),
		"backoff_factor":  f(s.backoffFactor),
		"growth_interval": i(s.growthInterval),
		"_growth_tracker": i(s.growthTracker),
	}
}

// LoadStateDict restores what StateDict saved (load_state_dict). It returns
// an *Error of kind ErrState, and changes nothing, when sd is empty (saved
// from a disabled scaler), misses a key, has an unknown key or a value of
// the wrong dtype, size or range. A disabled scaler ignores it and returns
// nil.
func (s *GradScaler) LoadStateDict(sd map[string]*tensor.Tensor) error {
	const op = "GradScaler.LoadStateDict"
	if !s.enabled {
		return nil
	}
	bad := func(format string, args ...any) error {
		return engerr.New(ErrState, "amp", op, format, args...)
	}
	if len(sd) == 0 {
		return bad("the state dict is empty, possibly because it was saved from a disabled GradScaler")
	}
	get := func(key string, dt tensor.DType) (float64, error) {
		t, ok := sd[key]
		if !ok {
			return 0, bad("missing key %q", key)
		}
		if t == nil || t.DType() != dt || t.Numel() != 1 {
			return 0, bad("%s must be a one-element %s tensor", key, dt)
		}
		return t.Item(), nil
	}
	var v [5]float64
	for k, kd := range []struct {
		key string
		dt  tensor.DType
	}{{"scale", tensor.Float32}, {"growth_factor", tensor.Float32}, {"backoff_factor", tensor.Float32},
		{"growth_interval", tensor.Int64}, {"_growth_tracker", tensor.Int64}} {
		x, err := get(kd.key, kd.dt)
		if err != nil {
			return err
		}
		v[k] = x
	}
	if len(sd) != 5 {
		return bad("%d entries, want the 5 of a GradScaler", len(sd))
	}
	switch {
	case !(v[0] > 0) || math.IsInf(v[0], 0):
		return bad("scale %g is not positive and finite", v[0])
	case !(v[1] > 1):
		return bad("growth_factor %g is not above 1", v[1])
	case !(v[2] > 0 && v[2] < 1):
		return bad("backoff_factor %g is not in (0, 1)", v[2])
	case v[3] < 1 || v[4] < 0 || v[4] >= v[3]:
		return bad("growth_interval %g and _growth_tracker %g are inconsistent", v[3], v[4])
	}
	s.scale, s.growthFactor, s.backoffFactor = v[0], v[1], v[2]
	s.growthInterval, s.growthTracker = int(v[3]), int(v[4])
	return nil
}

// String describes the scaler.
func (s *GradScaler) String() string {
	if !s.enabled {
		return "GradScaler(enabled=false)"
	}
	return fmt.Sprintf("GradScaler(scale=%g, growth_factor=%g, backoff_factor=%g, growth_interval=%d, growth_tracker=%d)",
		s.scale, s.growthFactor, s.backoffFactor, s.growthInterval, s.growthTracker)
}
