package optim

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"weak"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

// This file holds the learning-rate schedulers of torch.optim.lr_scheduler
// (PyTorch 1.13): StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR,
// LinearLR, OneCycleLR, ReduceLROnPlateau and SequentialLR.
//
// Step semantics are torch's: constructing a scheduler performs its first
// step (last_epoch becomes 0 and the group learning rates take their epoch-0
// values), and Step is called once per epoch (or per batch for OneCycleLR)
// after the optimizer's Step. The epoch schedulers use torch's chainable
// ("recursive") formulas, which update each group's current LR, so a
// learning rate changed by hand between steps is scheduled from, as in
// torch; the values agree with torch 1.13's to float64 rounding (tested
// against sequences produced by torch in testdata/schedulers.json).

// LRScheduler is what every scheduler but ReduceLROnPlateau (whose Step
// takes the metric) implements (torch.optim.lr_scheduler._LRScheduler).
type LRScheduler interface {
	// Step advances the schedule by one epoch (one batch for OneCycleLR)
	// and sets every parameter group's LR; call it after the optimizer's
	// Step.
	Step()
	// LastLR returns the learning rate of each parameter group set by the
	// last Step (get_last_lr()).
	LastLR() []float64
	// LastEpoch returns the number of Steps since construction (last_epoch;
	// 0 right after construction).
	LastEpoch() int
	// StateDict returns the scheduler's state as plain values (int,
	// float64, string, bool, []int, []float64) under torch's state_dict
	// names, plus "kind", the scheduler's type name.
	StateDict() map[string]any
	// LoadStateDict restores what StateDict saved, for an optimizer with the
	// same number of parameter groups. Numbers may come back as float64 and
	// lists as []any (a JSON round trip). On an error (kind ErrState) the
	// scheduler is unchanged. It does not change the groups' learning
	// rates: the optimizer's own state dict restores those.
	LoadStateDict(sd map[string]any) error
}

// initialLRs remembers each group's "initial_lr" (torch stores it in the
// param group): the LR the group had when the first scheduler was attached
// to it, which later schedulers on the same optimizer take as their base
// learning rate. Keys are weak, so the map does not keep groups alive.
var initialLRs = struct {
	sync.Mutex
	m map[weak.Pointer[ParamGroup]]float64
}{m: map[weak.Pointer[ParamGroup]]float64{}}

// initialLR returns g's initial_lr, recording g.LR as it on first use
// (group.setdefault('initial_lr', group['lr'])).
func initialLR(g *ParamGroup) float64 {
	k := weak.Make(g)
	initialLRs.Lock()
	defer initialLRs.Unlock()
	if v, ok := initialLRs.m[k]; ok {
		return v
	}
	initialLRs.m[k] = g.LR
	runtime.AddCleanup(g, func(k weak.Pointer[ParamGroup]) {
		initialLRs.Lock()
		delete(initialLRs.m, k)
		initialLRs.Unlock()
	}, k)
	return g.LR
}

// setInitialLR overwrites g's initial_lr (OneCycleLR does).
func setInitialLR(g *ParamGroup, v float64) {
	initialLR(g)
	initialLRs.Lock()
	initialLRs.m[weak.Make(g)] = v
	initialLRs.Unlock()
}

// sdField is one state-dict entry of a scheduler: its key and a pointer to
// the value (*int, *float64, *string, *bool, *[]int, *[]float64).
type sdField struct {
	key string
	ptr any
}

// sched is the state every scheduler shares.
type sched struct {
	kind      string
	opt       Optimizer
	baseLRs   []float64
	lastLR    []float64
	lastEpoch int
}

// String describes the scheduler: its kind, the number of steps taken
// (torch's last_epoch) and the learning rates the last step set.
func (s *sched) String() string {
	return fmt.Sprintf("%s(last_epoch=%d, last_lr=%v)", s.kind, s.lastEpoch, s.lastLR)
}

// String describes the scheduler as sched.String does.
func (s *SequentialLR) String() string {
	return fmt.Sprintf("SequentialLR(milestones=%v, last_epoch=%d, last_lr=%v)", s.milestones, s.lastEpoch, s.lastLR)
}

// init attaches the scheduler to opt's groups; base learning rates are the
// groups' initial_lr.
// start checks a new scheduler's options (panicking with ErrOption),
// binds it to opt and takes its first step, as torch's constructors do.
func (s *sched) start(kind string, opt Optimizer, check func() error, step func()) {
	if err := check(); err != nil {
		panicf(ErrOption, kind, "%v", err)
	}
	s.init(kind, opt)
	step()
}

func (s *sched) init(kind string, opt Optimizer) {
	s.kind = kind
	if opt == nil || reflect.ValueOf(opt).Kind() == reflect.Pointer && reflect.ValueOf(opt).IsNil() {
		panicf(ErrOption, kind, "optimizer is nil")
	}
	groups := opt.ParamGroups()
	if len(groups) == 0 {
		panicf(ErrOption, kind, "optimizer has no parameter groups")
	}
	s.opt = opt
	s.baseLRs = make([]float64, len(groups))
	for i, g := range groups {
		s.baseLRs[i] = initialLR(g)
	}
	s.lastEpoch = -1
}

// step advances last_epoch and sets each group's LR to next(i, lr, base).
func (s *sched) step(next func(i int, lr, base float64) float64) {
	s.lastEpoch++
	groups := s.opt.ParamGroups()
	s.lastLR = make([]float64, len(s.baseLRs))
	for i := range s.baseLRs {
		g := groups[i]
		g.LR = next(i, g.LR, s.baseLRs[i])
		s.lastLR[i] = g.LR
	}
}

// LastLR returns each group's learning rate after the last Step.
func (s *sched) LastLR() []float64 { return append([]float64(nil), s.lastLR...) }

// LastEpoch returns the number of Steps since construction.
func (s *sched) LastEpoch() int { return s.lastEpoch }

func (s *sched) fields() []sdField {
	return []sdField{{"last_epoch", &s.lastEpoch}, {"base_lrs", &s.baseLRs}, {"last_lr", &s.lastLR}}
}

// stateDict builds the state dict of fields.
func stateDict(kind string, fields []sdField) map[string]any {
	sd := map[string]any{"kind": kind}
	for _, f := range fields {
		switch p := f.ptr.(type) {
		case *int:
			sd[f.key] = *p
		case *float64:
			sd[f.key] = *p
		case *string:
			sd[f.key] = *p
		case *bool:
			sd[f.key] = *p
		case *[]int:
			sd[f.key] = append([]int{}, *p...)
		case *[]float64:
			sd[f.key] = append([]float64{}, *p...)
		default:
			panic(fmt.Sprintf("optim: state field %s of type %T", f.key, f.ptr))
		}
	}
	return sd
}

// loadStateDict decodes sd into fields, all or nothing: per-group lists
// (perGroup keys) must have ngroups entries, and check, when not nil,
// validates the decoded values (the fields hold them when it runs; they
// are restored when it fails).
func loadStateDict(kind string, sd map[string]any, fields []sdField, ngroups int, perGroup map[string]bool, check func() error) error {
	op := kind + ".LoadStateDict"
	bad := func(format string, args ...any) error {
		return engerr.New(ErrState, "optim", op, format, args...)
	}
	if sd == nil {
		return bad("state dict is nil")
	}
	if k, ok := sd["kind"]; ok && k != kind {
		return bad("state dict is of a %v, not a %s", k, kind)
	}
	known := map[string]bool{"kind": true}
	vals := make([]any, len(fields))
	for i, f := range fields {
		known[f.key] = true
		v, ok := sd[f.key]
		if !ok {
			return bad("missing key %s", f.key)
		}
		var err error
		switch f.ptr.(type) {
		case *int:
			vals[i], err = sdInt(v)
		case *float64:
			vals[i], err = sdFloat(v)
		case *string:
			s, ok := v.(string)
			if !ok {
				err = fmt.Errorf("want a string, got %T", v)
			}
			vals[i] = s
		case *bool:
			b, ok := v.(bool)
			if !ok {
				err = fmt.Errorf("want a bool, got %T", v)
			}
			vals[i] = b
		case *[]int:
			vals[i], err = sdList(v, sdInt)
		case *[]float64:
			var l []float64
			l, err = sdList(v, sdFloat)
			if err == nil && perGroup[f.key] && len(l) != ngroups {
				err = fmt.Errorf("has %d entries for an optimizer with %d parameter groups", len(l), ngroups)
			}
			vals[i] = l
		}
		if err != nil {
			return bad("%s: %v", f.key, err)
		}
	}
	for k := range sd {
		if !known[k] {
			return bad("unknown key %s", k)
		}
	}
	old := stateDict(kind, fields)
	set := func(vals func(i int) any) {
		for i, f := range fields {
			switch p := f.ptr.(type) {
			case *int:
				*p = vals(i).(int)
			case *float64:
				*p = vals(i).(float64)
			case *string:
				*p = vals(i).(string)
			case *bool:
				*p = vals(i).(bool)
			case *[]int:
				*p = vals(i).([]int)
			case *[]float64:
				*p = vals(i).([]float64)
			}
		}
	}
	set(func(i int) any { return vals[i] })
	if check != nil {
		if err := check(); err != nil {
			set(func(i int) any { return old[fields[i].key] })
			return bad("%v", err)
		}
	}
	return nil
}

func sdFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case int32:
		return float64(x), nil
	}
	return 0, fmt.Errorf("want a number, got %T", v)
}

func sdInt(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case int32:
		return int(x), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), nil
		}
		return 0, fmt.Errorf("want an integer, got %g", x)
	}
	return 0, fmt.Errorf("want an integer, got %T", v)
}

func sdList[T any](v any, elem func(any) (T, error)) ([]T, error) {
	switch x := v.(type) {
	case []T:
		return append([]T{}, x...), nil
	case []any:
		out := make([]T, len(x))
		for i, e := range x {
			var err error
			if out[i], err = elem(e); err != nil {
				return nil, fmt.Errorf("entry %d: %v", i, err)
			}
		}
		return out, nil
	case []float64:
		out := make([]T, len(x))
		for i, e := range x {
			var err error
			if out[i], err = elem(e); err != nil {
				return nil, fmt.Errorf("entry %d: %v", i, err)
			}
		}
		return out, nil
	case []int:
		out := make([]T, len(x))
		for i, e := range x {
			var err error
			if out[i], err = elem(e); err != nil {
				return nil, fmt.Errorf("entry %d: %v", i, err)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list, got %T", v)
}

var baseGroupKeys = map[string]bool{"base_lrs": true, "last_lr": true}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// StepLR multiplies each group's learning rate by Gamma every StepSize
// epochs (torch.optim.lr_scheduler.StepLR): at epoch e,
//
//	lr = base_lr * gamma^(e / step_size)   (integer division)
type StepLR struct {
	sched
	StepSize int
	Gamma    float64
}

// NewStepLR returns a StepLR over opt's parameter groups and performs its
// first step (torch's default gamma is 0.1). It panics with ErrOption when
// opt is nil, stepSize is not positive or gamma is not finite.
func NewStepLR(opt Optimizer, stepSize int, gamma float64) *StepLR {
	s := &StepLR{StepSize: stepSize, Gamma: gamma}
	s.start("StepLR", opt, s.check, s.Step)
	return s
}

func (s *StepLR) check() error {
	if s.StepSize <= 0 {
		return fmt.Errorf("step_size must be positive, got %d", s.StepSize)
	}
	if !finite(s.Gamma) {
		return fmt.Errorf("gamma must be finite, got %g", s.Gamma)
	}
	return nil
}

// Step advances one epoch.
func (s *StepLR) Step() {
	s.step(func(_ int, lr, _ float64) float64 {
		if s.lastEpoch == 0 || s.lastEpoch%s.StepSize != 0 {
			return lr
		}
		return lr * s.Gamma
	})
}

func (s *StepLR) fields() []sdField {
	return append(s.sched.fields(), sdField{"step_size", &s.StepSize}, sdField{"gamma", &s.Gamma})
}

// StateDict returns last_epoch, base_lrs, last_lr, step_size and gamma.
func (s *StepLR) StateDict() map[string]any { return stateDict(s.kind, s.fields()) }

// LoadStateDict restores what StateDict saved.
func (s *StepLR) LoadStateDict(sd map[string]any) error {
	return loadStateDict(s.kind, sd, s.fields(), len(s.opt.ParamGroups()), baseGroupKeys, s.check)
}

// MultiStepLR multiplies each group's learning rate by Gamma at each of
// the epochs in Milestones (torch.optim.lr_scheduler.MultiStepLR); a
// milestone listed k times multiplies by gamma^k.
type MultiStepLR struct {
	sched
	// Milestones are the epochs, sorted (repeats kept).
	Milestones []int
	Gamma      float64
}

// NewMultiStepLR returns a MultiStepLR over opt's parameter groups and
// performs its first step (torch's default gamma is 0.1). It panics with
// ErrOption when opt is nil, a milestone is negative or gamma is not
// finite.
func NewMultiStepLR(opt Optimizer, milestones []int, gamma float64) *MultiStepLR {
	s := &MultiStepLR{Milestones: append([]int{}, milestones...), Gamma: gamma}
	sort.Ints(s.Milestones)
	s.start("MultiStepLR", opt, s.check, s.Step)
	return s
}

func (s *MultiStepLR) check() error {
	for i, m := range s.Milestones {
		if m < 0 {
			return fmt.Errorf("milestones[%d] is negative (%d)", i, m)
		}
	}
	if !finite(s.Gamma) {
		return fmt.Errorf("gamma must be finite, got %g", s.Gamma)
	}
	return nil
}

// Step advances one epoch.
func (s *MultiStepLR) Step() {
	n := 0
	for _, m := range s.Milestones {
		if m == s.lastEpoch+1 {
			n++
		}
	}
	s.step(func(_ int, lr, _ float64) float64 {
		if n == 0 {
			return lr
		}
		return lr * math.Pow(s.Gamma, float64(n))
	})
}

func (s *MultiStepLR) fields() []sdField {
	return append(s.sched.fields(), sdField{"milestones", &s.Milestones}, sdField{"gamma", &s.Gamma})
}

// StateDict returns last_epoch, base_lrs, last_lr, milestones and gamma.
func (s *MultiStepLR) StateDict() map[string]any { return stateDict(s.kind, s.fields()) }

// LoadStateDict restores what StateDict saved.
func (s *MultiStepLR) LoadStateDict(sd map[string]any) error {
	return loadStateDict(s.kind, sd, s.fields(), len(s.opt.ParamGroups()), baseGroupKeys, func() error {
		sort.Ints(s.Milestones)
		return s.check()
	})
}

// ExponentialLR multiplies each group's learning rate by Gamma every epoch
// (torch.optim.lr_scheduler.ExponentialLR): lr = base_lr * gamma^epoch.
type ExponentialLR struct {
	sched
	Gamma float64
}

// NewExponentialLR returns an ExponentialLR over opt's parameter groups
// and performs its first step. It panics with ErrOption when opt is nil or
// gamma is not finite.
func NewExponentialLR(opt Optimizer, gamma float64) *ExponentialLR {
	s := &ExponentialLR{Gamma: gamma}
	s.start("ExponentialLR", opt, s.check, s.Step)
	return s
}

func (s *ExponentialLR) check() error {
	if !finite(s.Gamma) {
		return fmt.Errorf("gamma must be finite, got %g", s.Gamma)
	}
	return nil
}

// Step advances one epoch.
func (s *ExponentialLR) Step() {
	s.step(func(_ int, lr, _ float64) float64 {
		if s.lastEpoch == 0 {
			return lr
		}
		return lr * s.Gamma
	})
}

func (s *ExponentialLR) fields() []sdField {
	return append(s.sched.fields(), sdField{"gamma", &s.Gamma})
}

// StateDict returns last_epoch, base_lrs, last_lr and gamma.
func (s *ExponentialLR) StateDict() map[string]any { return stateDict(s.kind, s.fields()) }

// LoadStateDict restores what StateDict saved.
func (s *ExponentialLR) LoadStateDict(sd map[string]any) error {
	return loadStateDict(s.kind, sd, s.fields(), len(s.opt.ParamGroups()), baseGroupKeys, s.check)
}

// CosineAnnealingLR anneals each group's learning rate from its base LR to
// EtaMin along half a cosine over TMax epochs, then back up over the next
// TMax, and so on (torch.optim.lr_scheduler.CosineAnnealingLR; SGDR of
// Loshchilov & Hutter, ICLR 2017, without restarts):
//
//	lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2
//
// computed, as torch does, recursively from the current LR.
type CosineAnnealingLR struct {
	sched
	TMax   int
	EtaMin float64
}

// NewCosineAnnealingLR returns a CosineAnnealingLR over opt's parameter
// groups and performs its first step (torch's default etaMin is 0). It
// panics with ErrOption when opt is nil, tMax is not positive or etaMin is
// not finite.
func NewCosineAnnealingLR(opt Optimizer, tMax int, etaMin float64) *CosineAnnealingLR {
	s := &CosineAnnealingLR{TMax: tMax, EtaMin: etaMin}
	s.start("CosineAnnealingLR", opt, s.check, s.Step)
	return s
}

func (s *CosineAnnealingLR) check() error {
	if s.TMax <= 0 {
		return fmt.Errorf("T_max must be positive, got %d", s.TMax)
	}
	if !finite(s.EtaMin) {
		return fmt.Errorf("eta_min must be finite, got %g", s.EtaMin)
	}
	return nil
}

// Step advances one epoch.
func (s *CosineAnnealingLR) Step() {
	s.step(func(_ int, lr, base float64) float64 {
		e, t := s.lastEpoch, s.TMax
		switch {
		case e == 0:
			return lr
		case ((e-1-t)%(2*t)+2*t)%(2*t) == 0: // Python's modulo
			return lr + float64((base-s.EtaMin)*(1-math.Cos(math.Pi/float64(t))))/2
		}
		f := (1 + math.Cos(math.Pi*float64(e)/float64(t))) / (1 + math.Cos(math.Pi*float64(e-1)/float64(t)))
		return float64(f*(lr-s.EtaMin)) + s.EtaMin
	})
}

func (s *CosineAnnealingLR) fields() []sdField {
	return append(s.sched.fields(), sdField{"T_max", &s.TMax}, sdField{"eta_min", &s.EtaMin})
}

// StateDict returns last_epoch, base_lrs, last_lr, T_max and eta_min.
func (s *CosineAnnealingLR) StateDict() map[string]any { return stateDict(s.kind, s.fields()) }

// LoadStateDict restores what StateDict saved.
func (s *CosineAnnealingLR) LoadStateDict(sd map[string]any) error {
	return loadStateDict(s.kind, sd, s.fields(), len(s.opt.ParamGroups()), baseGroupKeys, s.check)
}

// LinearLR scales each group's learning rate by a factor that changes
// linearly from StartFactor to EndFactor over TotalIters epochs, then stays
// at EndFactor (torch.optim.lr_scheduler.LinearLR); with StartFactor < 1
// and EndFactor 1 it is the usual linear warmup:
//
//	lr = base_lr * (start + (end - start) * min(epoch, total_iters) / total_iters)
//
// computed, as torch does, recursively from the current LR.
type LinearLR struct {
	sched
	StartFactor, EndFactor float64
	TotalIters             int
}

// NewLinearLR returns a LinearLR over opt's parameter groups and performs
// its first step, which multiplies each group's LR by startFactor (torch's
// defaults are 1/3, 1 and 5). It panics with ErrOption when opt is nil,
// startFactor is not in (0, 1], endFactor not in [0, 1] or totalIters is
// not positive.
func NewLinearLR(opt Optimizer, startFactor, endFactor float64, totalIters int) *LinearLR {
	s := &LinearLR{StartFactor: startFactor, EndFactor: endFactor, TotalIters: totalIters}
	s.start("LinearLR", opt, s.check, s.Step)
	return s
}

func (s *LinearLR) check() error {
	if !(s.StartFactor > 0 && s.StartFactor <= 1) {
		return fmt.Errorf("start_factor must be in (0, 1], got %g", s.StartFactor)
	}
	if !(s.EndFactor >= 0 && s.EndFactor <= 1) {
		return fmt.Errorf("end_factor must be in [0, 1], got %g", s.EndFactor)
	}
	if s.TotalIters <= 0 {
		return fmt.Errorf("total_iters must be positive, got %d", s.TotalIters)
	}
	return nil
}

// Step advances one epoch.
func (s *LinearLR) Step() {
	s.step(func(_ int, lr, _ float64) float64 {
		e := s.lastEpoch
		switch {
		case e == 0:
			return lr * s.StartFactor
		case e > s.TotalIters:
			return lr
		}
		d := s.EndFactor - s.StartFactor
		return lr * (1 + d/(float64(float64(s.TotalIters)*s.StartFactor)+float64(float64(e-1)*d)))
	})
}

func (s *LinearLR) fields() []sdField {
	return append(s.sched.fields(), sdField{"start_factor", &s.StartFactor}, sdField{"end_factor", &s.EndFactor},
		sdField{"total_iters", &s.TotalIters})
}

// StateDict returns last_epoch, base_lrs, last_lr, start_factor,
// end_factor and total_iters.
func (s *LinearLR) StateDict() map[string]any { return stateDict(s.kind, s.fields()) }

// LoadStateDict restores what StateDict saved.
func (s *LinearLR) LoadStateDict(sd map[string]any) error {
	return loadStateDict(s.kind, sd, s.fields(), len(s.opt.ParamGroups()), baseGroupKeys, s.check)
}

// base gives SequentialLR access to a scheduler's shared state.
func (s *sched) base() *sched { return s }

// restartTo sets last_epoch to 0 and each group's LR to at0(i, base), the
// scheduler's closed-form epoch-0 value (torch's step(0)).
func (s *sched) restartTo(at0 func(i int, base float64) float64) {
	s.lastEpoch = -1
	s.step(func(i int, _, base float64) float64 { return at0(i, base) })
}

// sequenced is what SequentialLR needs of a scheduler.
type sequenced interface {
	LRScheduler
	base() *sched
	// restart is torch's step(0): last_epoch 0, LRs at their closed-form
	// epoch-0 values computed from the base LRs.
	restart()
}

func (s *StepLR) restart() {
	s.restartTo(func(_ int, b float64) float64 { return b * math.Pow(s.Gamma, 0) })
}

func (s *MultiStepLR) restart() {
	n := 0
	for _, m := range s.Milestones {
		if m <= 0 {
			n++
		}
	}
	s.restartTo(func(_ int, b float64) float64 { return b * math.Pow(s.Gamma, float64(n)) })
}

func (s *ExponentialLR) restart() {
	s.restartTo(func(_ int, b float64) float64 { return b * math.Pow(s.Gamma, 0) })
}

func (s *CosineAnnealingLR) restart() {
	s.restartTo(func(_ int, b float64) float64 { return s.EtaMin + (b-s.EtaMin)*(1+math.Cos(0))/2 })
}

func (s *LinearLR) restart() {
	s.restartTo(func(_ int, b float64) float64 {
		return b * (s.StartFactor + (s.EndFactor-s.StartFactor)*0/float64(s.TotalIters))
	})
}

// SequentialLR runs schedulers one after the other, switching at the
// given milestone epochs (torch.optim.lr_scheduler.SequentialLR): the
// usual linear warmup then cosine decay is
//
//	warm := optim.NewLinearLR(opt, 0.1, 1, 5)
//	cos := optim.NewCosineAnnealingLR(opt, 95, 0)
//	sched := optim.NewSequentialLR(opt, []optim.LRScheduler{warm, cos}, []int{5})
//
// As in torch, construction resets each group's LR to its initial LR and
// takes the first scheduler's first step again; at milestone k the
// (k+1)-th scheduler restarts at its epoch 0, computed from its base LRs.
// The schedulers must not be stepped on their own afterwards.
type SequentialLR struct {
	opt        Optimizer
	schedulers []sequenced
	milestones []int
	lastEpoch  int
	lastLR     []float64
}

// NewSequentialLR returns a SequentialLR of schedulers (this package's,
// all made on opt, not ReduceLROnPlateau) with len(schedulers)-1
// milestones. It panics with ErrOption when opt or a scheduler is nil or
// of another optimizer, the milestone count is wrong, or the milestones
// are not positive and increasing.
func NewSequentialLR(opt Optimizer, schedulers []LRScheduler, milestones []int) *SequentialLR {
	const op = "SequentialLR"
	if opt == nil {
		panicf(ErrOption, op, "optimizer is nil")
	}
	if len(schedulers) == 0 {
		panicf(ErrOption, op, "no schedulers")
	}
	if len(milestones) != len(schedulers)-1 {
		panicf(ErrOption, op, "%d schedulers need %d milestones, got %d", len(schedulers), len(schedulers)-1, len(milestones))
	}
	for i, m := range milestones {
		if m <= 0 || (i > 0 && m <= milestones[i-1]) {
			panicf(ErrOption, op, "milestones must be positive and increasing, got %v", milestones)
		}
	}
	s := &SequentialLR{opt: opt, milestones: append([]int{}, milestones...)}
	for i, sc := range schedulers {
		q, ok := sc.(sequenced)
		switch {
		case sc == nil:
			panicf(ErrOption, op, "scheduler %d is nil", i)
		case !ok:
			panicf(ErrOption, op, "scheduler %d (%T) is not one of package optim's", i, sc)
		case q.base().opt != opt:
			panicf(ErrOption, op, "scheduler %d belongs to another optimizer", i)
		}
		s.schedulers = append(s.schedulers, q)
	}
	for _, g := range opt.ParamGroups() {
		g.LR = initialLR(g)
	}
	for _, q := range s.schedulers {
		q.base().lastEpoch--
	}
	s.schedulers[0].Step()
	s.lastLR = s.schedulers[0].LastLR()
	return s
}

// Step advances one epoch: the current scheduler steps, or the next one
// restarts at a milestone.
func (s *SequentialLR) Step() {
	s.lastEpoch++
	idx := sort.Search(len(s.milestones), func(i int) bool { return s.milestones[i] > s.lastEpoch })
	q := s.schedulers[idx]
	if idx > 0 && s.milestones[idx-1] == s.lastEpoch {
		q.restart()
	} else {
		q.Step()
	}
	s.lastLR = q.LastLR()
}

// LastLR returns each group's learning rate after the last Step.
func (s *SequentialLR) LastLR() []float64 { return append([]float64(nil), s.lastLR...) }

// LastEpoch returns the number of Steps since construction.
func (s *SequentialLR) LastEpoch() int { return s.lastEpoch }

// StateDict returns last_epoch, milestones, last_lr and each scheduler's
// state under "scheduler.<i>.<key>".
func (s *SequentialLR) StateDict() map[string]any {
	sd := map[string]any{"kind": "SequentialLR", "last_epoch": s.lastEpoch,
		"milestones": append([]int{}, s.milestones...), "last_lr": append([]float64{}, s.lastLR...)}
	for i, q := range s.schedulers {
		for k, v := range q.StateDict() {
			sd[fmt.Sprintf("scheduler.%d.%s", i, k)] = v
		}
	}
	return sd
}

// LoadStateDict restores what StateDict saved, into a SequentialLR of the
// same kinds of schedulers; on an error nothing changes.
func (s *SequentialLR) LoadStateDict(sd map[string]any) error {
	const op = "SequentialLR.LoadStateDict"
	bad := func(format string, args ...any) error {
		return engerr.New(ErrState, "optim", op, format, args...)
	}
	if sd == nil {
		return bad("state dict is nil")
	}
	own := map[string]any{}
	subs := make([]map[string]any, len(s.schedulers))
	for i := range subs {
		subs[i] = map[string]any{}
	}
	for k, v := range sd {
		rest, ok := strings.CutPrefix(k, "scheduler.")
		if !ok {
			own[k] = v
			continue
		}
		is, key, _ := strings.Cut(rest, ".")
		i, err := strconv.Atoi(is)
		if err != nil || i < 0 || i >= len(subs) {
			return bad("key %s does not name one of the %d schedulers", k, len(subs))
		}
		subs[i][key] = v
	}
	var lastEpoch int
	var ms []int
	var lastLR []float64
	fields := []sdField{{"last_epoch", &lastEpoch}, {"milestones", &ms}, {"last_lr", &lastLR}}
	if err := loadStateDict("SequentialLR", own, fields, len(s.opt.ParamGroups()), baseGroupKeys, func() error {
		if len(ms) != len(s.milestones) {
			return fmt.Errorf("%d milestones for %d schedulers", len(ms), len(s.schedulers))
		}
		return nil
	}); err != nil {
		return err
	}
	old := make([]map[string]any, len(s.schedulers))
	for i, q := range s.schedulers {
		old[i] = q.StateDict()
	}
	for i, q := range s.schedulers {
		if err := q.LoadStateDict(subs[i]); err != nil {
			for j := 0; j < i; j++ {
				s.schedulers[j].LoadStateDict(old[j])
			}
			return bad("scheduler %d: %v", i, err)
		}
	}
	s.lastEpoch, s.milestones, s.lastLR = lastEpoch, ms, lastLR
	return nil
}
