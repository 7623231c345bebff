package optim

import (
	"fmt"
	"math"
)

// OneCycleOptions are torch.optim.lr_scheduler.OneCycleLR's arguments.
// Zero fields take torch's defaults.
type OneCycleOptions struct {
	// MaxLR is the peak learning rate of every group (required unless
	// MaxLRs is set).
	MaxLR float64
	// MaxLRs, when not nil, gives each parameter group its own peak.
	MaxLRs []float64
	// TotalSteps is the number of steps of the cycle; when 0 it is
	// Epochs * StepsPerEpoch, which must then both be positive.
	TotalSteps            int
	Epochs, StepsPerEpoch int
	// PctStart is the fraction of the cycle spent increasing the LR (0.3
	// when 0).
	PctStart float64
	// AnnealStrategy is "cos" (the default, when "") or "linear".
	AnnealStrategy string
	// FixedMomentum leaves the optimizer's momentum alone (torch's
	// cycle_momentum=False); by default the momentum (SGD's Momentum,
	// Adam's and AdamW's Betas[0]) cycles inversely to the LR between
	// MaxMomentum and BaseMomentum.
	FixedMomentum bool
	// BaseMomentum and MaxMomentum bound the momentum cycle (0.85 and 0.95
	// when 0).
	BaseMomentum, MaxMomentum float64
	// DivFactor sets the starting LR, max_lr / div_factor (25 when 0).
	DivFactor float64
	// FinalDivFactor sets the final LR, initial_lr / final_div_factor
	// (1e4 when 0).
	FinalDivFactor float64
	// ThreePhase goes up, back down to the starting LR, then down to the
	// final LR (fast.ai's schedule) instead of up then down.
	ThreePhase bool
}

// OneCycleLR is the 1cycle policy of Smith & Topin, "Super-Convergence:
// Very Fast Training of Neural Networks Using Large Learning Rates" (2018),
// as torch.optim.lr_scheduler.OneCycleLR: the LR rises from
// max_lr/div_factor to max_lr over the first PctStart of the steps, then
// anneals to max_lr/(div_factor*final_div_factor), by cosine or linearly,
// while the momentum moves the opposite way. Step is called after every
// batch; stepping more than TotalSteps times panics (torch raises
// ValueError).
type OneCycleLR struct {
	sched
	totalSteps     int
	anneal         string
	cycleMomentum  bool
	threePhase     bool
	pctStart       float64
	initialLRs     []float64
	maxLRs         []float64
	minLRs         []float64
	baseMomentum   float64
	maxMomentum    float64
	momentumTarget momentumSetter
}

// momentumSetter sets an optimizer's momentum (or beta1), nil when it has
// none.
type momentumSetter func(m float64)

func momentumOf(opt Optimizer) momentumSetter {
	switch o := opt.(type) {
	case *SGD:
		return func(m float64) { o.Options.Momentum = m }
	case *Adam:
		return func(m float64) { o.Options.Betas[0] = m }
	case *AdamW:
		return func(m float64) { o.Options.Betas[0] = m }
	}
	return nil
}

// NewOneCycleLR returns a OneCycleLR over opt's parameter groups and
// performs its first step: each group's LR becomes its max LR / DivFactor
// and, unless FixedMomentum, the momentum becomes MaxMomentum. It panics
// with ErrOption when opt is nil, no step count or max LR is given, an
// option is out of range, MaxLRs does not have one entry per group, or the
// momentum should cycle but opt is not an SGD, Adam or AdamW.
func NewOneCycleLR(opt Optimizer, o OneCycleOptions) *OneCycleLR {
	const op = "OneCycleLR"
	s := &OneCycleLR{}
	s.init(op, opt)
	groups := opt.ParamGroups()
	switch {
	case o.TotalSteps < 0:
		panicf(ErrOption, op, "TotalSteps must be positive, got %d", o.TotalSteps)
	case o.TotalSteps > 0:
		s.totalSteps = o.TotalSteps
	case o.Epochs <= 0 || o.StepsPerEpoch <= 0:
		panicf(ErrOption, op, "set TotalSteps, or Epochs and StepsPerEpoch (got %d and %d)", o.Epochs, o.StepsPerEpoch)
	default:
		s.totalSteps = o.Epochs * o.StepsPerEpoch
	}
	if o.PctStart == 0 {
		o.PctStart = 0.3
	}
	if !(o.PctStart >= 0 && o.PctStart <= 1) {
		panicf(ErrOption, op, "PctStart must be in [0, 1], got %g", o.PctStart)
	}
	if o.AnnealStrategy == "" {
		o.AnnealStrategy = "cos"
	}
	if o.AnnealStrategy != "cos" && o.AnnealStrategy != "linear" {
		panicf(ErrOption, op, "AnnealStrategy must be \"cos\" or \"linear\", got %q", o.AnnealStrategy)
	}
	if o.DivFactor == 0 {
		o.DivFactor = 25
	}
	if o.FinalDivFactor == 0 {
		o.FinalDivFactor = 1e4
	}
	if !(o.DivFactor > 0) || !(o.FinalDivFactor > 0) || math.IsInf(o.DivFactor, 0) || math.IsInf(o.FinalDivFactor, 0) {
		panicf(ErrOption, op, "DivFactor and FinalDivFactor must be positive and finite, got %g and %g", o.DivFactor, o.FinalDivFactor)
	}
	if o.BaseMomentum == 0 {
		o.BaseMomentum = 0.85
	}
	if o.MaxMomentum == 0 {
		o.MaxMomentum = 0.95
	}
	s.maxLRs = make([]float64, len(groups))
	if o.MaxLRs != nil {
		if len(o.MaxLRs) != len(groups) {
			panicf(ErrOption, op, "MaxLRs has %d entries for %d parameter groups", len(o.MaxLRs), len(groups))
		}
		copy(s.maxLRs, o.MaxLRs)
	} else {
		for i := range s.maxLRs {
			s.maxLRs[i] = o.MaxLR
		}
	}
	for i, m := range s.maxLRs {
		if !(m > 0) || math.IsInf(m, 0) {
			panicf(ErrOption, op, "max LR of group %d must be positive, got %g", i, m)
		}
	}
	s.anneal, s.threePhase, s.pctStart = o.AnnealStrategy, o.ThreePhase, o.PctStart
	s.cycleMomentum = !o.FixedMomentum
	s.baseMomentum, s.maxMomentum = o.BaseMomentum, o.MaxMomentum
	if s.cycleMomentum {
		if s.momentumTarget = momentumOf(opt); s.momentumTarget == nil {
			panicf(ErrOption, op, "the momentum can only cycle for SGD, Adam and AdamW, not %T (set FixedMomentum)", opt)
		}
		s.momentumTarget(s.maxMomentum)
	}
	s.initialLRs = make([]float64, len(groups))
	s.minLRs = make([]float64, len(groups))
	for i, g := range groups {
		s.initialLRs[i] = s.maxLRs[i] / o.DivFactor
		s.minLRs[i] = s.initialLRs[i] / o.FinalDivFactor
		setInitialLR(g, s.initialLRs[i])
		s.baseLRs[i] = s.initialLRs[i]
	}
	s.Step()
	return s
}

// restart is torch's step(0): the cycle's first step again.
func (s *OneCycleLR) restart() {
	s.lastEpoch = -1
	s.Step()
}

// TotalSteps returns the number of steps of the cycle.
func (s *OneCycleLR) TotalSteps() int { return s.totalSteps }

type phase struct {
	end              float64
	startLR, endLR   []float64
	startMom, endMom float64
}

func (s *OneCycleLR) phases() []phase {
	n := float64(s.totalSteps)
	if s.threePhase {
		return []phase{
			{float64(s.pctStart*n) - 1, s.initialLRs, s.maxLRs, s.maxMomentum, s.baseMomentum},
			{float64(2*s.pctStart*n) - 2, s.maxLRs, s.initialLRs, s.baseMomentum, s.maxMomentum},
			{n - 1, s.initialLRs, s.minLRs, s.maxMomentum, s.maxMomentum},
		}
	}
	return []phase{
		{float64(s.pctStart*n) - 1, s.initialLRs, s.maxLRs, s.maxMomentum, s.baseMomentum},
		{n - 1, s.maxLRs, s.minLRs, s.baseMomentum, s.maxMomentum},
	}
}

func (s *OneCycleLR) annealf(start, end, pct float64) float64 {
	if s.anneal == "linear" {
		return float64((end-start)*pct) + start
	}
	return end + float64((start-end)/2*(math.Cos(math.Pi*pct)+1))
}

// Step advances one batch. It panics with ErrOption when the cycle's
// TotalSteps have all been taken.
func (s *OneCycleLR) Step() {
	t := s.lastEpoch + 1
	if t > s.totalSteps {
		panicf(ErrOption, "OneCycleLR.Step", "stepped %d times, more than the cycle's %d steps (TotalSteps)", t, s.totalSteps)
	}
	ph := s.phases()
	mom := 0.0
	s.step(func(i int, _, _ float64) float64 {
		start := 0.0
		for k, p := range ph {
			if float64(t) <= p.end || k == len(ph)-1 {
				pct := (float64(t) - start) / (p.end - start)
				mom = s.annealf(p.startMom, p.endMom, pct)
				return s.annealf(p.startLR[i], p.endLR[i], pct)
			}
			start = p.end
		}
		panic("unreachable")
	})
	if s.cycleMomentum && s.momentumTarget != nil {
		s.momentumTarget(mom)
	}
}

func (s *OneCycleLR) fields() []sdField {
	return append(s.sched.fields(),
		sdField{"total_steps", &s.totalSteps}, sdField{"anneal_strategy", &s.anneal},
		sdField{"cycle_momentum", &s.cycleMomentum}, sdField{"three_phase", &s.threePhase},
		sdField{"pct_start", &s.pctStart}, sdField{"initial_lrs", &s.initialLRs},
		sdField{"max_lrs", &s.maxLRs}, sdField{"min_lrs", &s.minLRs},
		sdField{"base_momentum", &s.baseMomentum}, sdField{"max_momentum", &s.maxMomentum})
}

// StateDict returns last_epoch, base_lrs, last_lr, total_steps,
// anneal_strategy, cycle_momentum, three_phase, pct_start, initial_lrs,
// max_lrs, min_lrs, base_momentum and max_momentum.
func (s *OneCycleLR) StateDict() map[string]any { return stateDict(s.kind, s.fields()) }

// LoadStateDict restores what StateDict saved. A state that cycles the
// momentum needs an SGD, Adam or AdamW.
func (s *OneCycleLR) LoadStateDict(sd map[string]any) error {
	perGroup := map[string]bool{"base_lrs": true, "last_lr": true, "initial_lrs": true, "max_lrs": true, "min_lrs": true}
	return loadStateDict(s.kind, sd, s.fields(), len(s.opt.ParamGroups()), perGroup, func() error {
		switch {
		case s.totalSteps <= 0:
			return fmt.Errorf("total_steps must be positive, got %d", s.totalSteps)
		case s.anneal != "cos" && s.anneal != "linear":
			return fmt.Errorf("anneal_strategy must be cos or linear, got %q", s.anneal)
		case !(s.pctStart >= 0 && s.pctStart <= 1):
			return fmt.Errorf("pct_start must be in [0, 1], got %g", s.pctStart)
		case s.lastEpoch < 0 || s.lastEpoch > s.totalSteps:
			return fmt.Errorf("last_epoch %d is outside [0, %d]", s.lastEpoch, s.totalSteps)
		}
		s.momentumTarget = momentumOf(s.opt)
		if s.cycleMomentum && s.momentumTarget == nil {
			return fmt.Errorf("the state cycles the momentum, which %T does not have", s.opt)
		}
		return nil
	})
}

// ReduceLROnPlateauOptions are torch.optim.lr_scheduler.ReduceLROnPlateau's
// arguments. Zero fields take torch's defaults; for Patience, Threshold and
// Eps, whose defaults are not zero, a negative value means zero.
type ReduceLROnPlateauOptions struct {
	// Mode is "min" (the default, when ""): the metric should decrease; or
	// "max": it should increase.
	Mode string
	// Factor multiplies the LR at a reduction (0.1 when 0; must be < 1).
	Factor float64
	// Patience is the number of epochs without improvement tolerated
	// before a reduction (10 when 0; negative for 0).
	Patience int
	// Threshold is the least improvement that counts (1e-4 when 0;
	// negative for 0), relative to the best metric or absolute, as
	// ThresholdMode says.
	Threshold float64
	// ThresholdMode is "rel" (the default, when "") or "abs".
	ThresholdMode string
	// Cooldown is the number of epochs after a reduction during which bad
	// epochs are not counted.
	Cooldown int
	// MinLR is every group's lower bound; MinLRs, when not nil, one per
	// group.
	MinLR  float64
	MinLRs []float64
	// Eps: a reduction smaller than Eps is not made (1e-8 when 0; negative
	// for 0).
	Eps float64
}

// ReduceLROnPlateau multiplies the learning rates by Factor when a metric
// has stopped improving for more than Patience epochs
// (torch.optim.lr_scheduler.ReduceLROnPlateau). Its Step takes the epoch's
// metric (a validation loss in "min" mode, an accuracy in "max" mode), so
// it is not an LRScheduler; it has the same other methods.
type ReduceLROnPlateau struct {
	sched
	mode, thresholdMode string
	factor, threshold   float64
	eps                 float64
	patience, cooldown  int
	minLRs              []float64

	best            float64
	numBadEpochs    int
	cooldownCounter int
}

// NewReduceLROnPlateau returns a ReduceLROnPlateau over opt's parameter
// groups; unlike the other schedulers it takes no step at construction
// (LastEpoch is 0, LastLR the current rates). It panics with ErrOption
// when opt is nil, a mode is unknown, Factor is not below 1, Cooldown or
// a minimum LR is negative, or MinLRs does not have one entry per group.
func NewReduceLROnPlateau(opt Optimizer, o ReduceLROnPlateauOptions) *ReduceLROnPlateau {
	const op = "ReduceLROnPlateau"
	s := &ReduceLROnPlateau{}
	s.init(op, opt)
	groups := opt.ParamGroups()
	if o.Mode == "" {
		o.Mode = "min"
	}
	if o.ThresholdMode == "" {
		o.ThresholdMode = "rel"
	}
	if o.Factor == 0 {
		o.Factor = 0.1
	}
	switch {
	case o.Patience == 0:
		o.Patience = 10
	case o.Patience < 0:
		o.Patience = 0
	}
	switch {
	case o.Threshold == 0:
		o.Threshold = 1e-4
	case o.Threshold < 0:
		o.Threshold = 0
	}
	switch {
	case o.Eps == 0:
		o.Eps = 1e-8
	case o.Eps < 0:
		o.Eps = 0
	}
	s.mode, s.thresholdMode, s.factor, s.threshold = o.Mode, o.ThresholdMode, o.Factor, o.Threshold
	s.eps, s.patience, s.cooldown = o.Eps, o.Patience, o.Cooldown
	s.minLRs = make([]float64, len(groups))
	if o.MinLRs != nil {
		if len(o.MinLRs) != len(groups) {
			panicf(ErrOption, op, "MinLRs has %d entries for %d parameter groups", len(o.MinLRs), len(groups))
		}
		copy(s.minLRs, o.MinLRs)
	} else {
		for i := range s.minLRs {
			s.minLRs[i] = o.MinLR
		}
	}
	if err := s.check(); err != nil {
		panicf(ErrOption, op, "%v", err)
	}
	s.lastEpoch = 0
	s.best = s.worse()
	s.lastLR = make([]float64, len(groups))
	for i, g := range groups {
		s.lastLR[i] = g.LR
	}
	return s
}

func (s *ReduceLROnPlateau) check() error {
	switch {
	case s.mode != "min" && s.mode != "max":
		return fmt.Errorf("mode must be \"min\" or \"max\", got %q", s.mode)
	case s.thresholdMode != "rel" && s.thresholdMode != "abs":
		return fmt.Errorf("threshold mode must be \"rel\" or \"abs\", got %q", s.thresholdMode)
	case !(s.factor < 1) || math.IsInf(s.factor, 0):
		return fmt.Errorf("factor must be below 1, got %g", s.factor)
	case s.cooldown < 0 || s.patience < 0 || s.cooldownCounter < 0 || s.numBadEpochs < 0:
		return fmt.Errorf("patience, cooldown and the counters must not be negative (%d, %d, %d, %d)", s.patience, s.cooldown, s.cooldownCounter, s.numBadEpochs)
	case !finite(s.threshold) || !finite(s.eps):
		return fmt.Errorf("threshold and eps must be finite, got %g and %g", s.threshold, s.eps)
	}
	for i, m := range s.minLRs {
		if !(m >= 0) {
			return fmt.Errorf("minimum LR of group %d must not be negative, got %g", i, m)
		}
	}
	return nil
}

func (s *ReduceLROnPlateau) worse() float64 {
	if s.mode == "min" {
		return math.Inf(1)
	}
	return math.Inf(-1)
}

func (s *ReduceLROnPlateau) isBetter(a float64) bool {
	switch {
	case s.mode == "min" && s.thresholdMode == "rel":
		return a < s.best*(1-s.threshold)
	case s.mode == "min":
		return a < s.best-s.threshold
	case s.thresholdMode == "rel":
		return a > s.best*(s.threshold+1)
	}
	return a > s.best+s.threshold
}

// Step records the epoch's metric and reduces the learning rates, each to
// at least its minimum, when the metric has not improved for more than
// Patience epochs (outside a cooldown). A NaN metric never improves.
func (s *ReduceLROnPlateau) Step(metric float64) {
	s.lastEpoch++
	if s.isBetter(metric) {
		s.best = metric
		s.numBadEpochs = 0
	} else {
		s.numBadEpochs++
	}
	if s.cooldownCounter > 0 {
		s.cooldownCounter--
		s.numBadEpochs = 0
	}
	groups := s.opt.ParamGroups()
	if s.numBadEpochs > s.patience {
		for i := range s.minLRs {
			g := groups[i]
			nl := math.Max(g.LR*s.factor, s.minLRs[i])
			if g.LR-nl > s.eps {
				g.LR = nl
			}
		}
		s.cooldownCounter = s.cooldown
		s.numBadEpochs = 0
	}
	for i := range s.lastLR {
		s.lastLR[i] = groups[i].LR
	}
}

// Best returns the best metric seen (+Inf in "min" mode, -Inf in "max"
// mode before the first Step).
func (s *ReduceLROnPlateau) Best() float64 { return s.best }

func (s *ReduceLROnPlateau) fields() []sdField {
	return append(s.sched.fields(),
		sdField{"mode", &s.mode}, sdField{"threshold_mode", &s.thresholdMode},
		sdField{"factor", &s.factor}, sdField{"threshold", &s.threshold}, sdField{"eps", &s.eps},
		sdField{"patience", &s.patience}, sdField{"cooldown", &s.cooldown}, sdField{"min_lrs", &s.minLRs},
		sdField{"best", &s.best}, sdField{"num_bad_epochs", &s.numBadEpochs},
		sdField{"cooldown_counter", &s.cooldownCounter})
}

// StateDict returns last_epoch, base_lrs, last_lr, mode, threshold_mode,
// factor, threshold, eps, patience, cooldown, min_lrs, best (±Inf before
// the first Step, which JSON cannot hold: a checkpoint must encode it),
// num_bad_epochs and cooldown_counter.
func (s *ReduceLROnPlateau) StateDict() map[string]any { return stateDict(s.kind, s.fields()) }

// LoadStateDict restores what StateDict saved.
func (s *ReduceLROnPlateau) LoadStateDict(sd map[string]any) error {
	perGroup := map[string]bool{"base_lrs": true, "last_lr": true, "min_lrs": true}
	return loadStateDict(s.kind, sd, s.fields(), len(s.opt.ParamGroups()), perGroup, s.check)
}
