package optim

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// schedFixture is testdata/schedulers.json, written by schedulers.py with
// torch 1.13.
type schedFixture struct {
	Torch   string
	Configs []schedConfig
}

type schedConfig struct {
	Name, Kind, Optimizer string
	Opts                  map[string]any
	GroupLRs              []float64 `json:"group_lrs"`
	Steps                 int
	LRs                   [][]float64 `json:"lrs"`
	Momentum              [][]float64
	Metrics               []float64
	OverstepError         bool `json:"overstep_error"`
	LastEpoch             int  `json:"last_epoch"`
}

func loadSchedFixture(t *testing.T) schedFixture {
	t.Helper()
	b, err := os.ReadFile("testdata/schedulers.json")
	if err != nil {
		t.Fatal(err)
	}
	var f schedFixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Configs) == 0 {
		t.Fatal("no configurations in testdata/schedulers.json")
	}
	return f
}

// schedOptimizer builds the fixture's optimizer: two groups with the
// fixture's learning rates (SGD with momentum 0.9, or Adam).
func schedOptimizer(c schedConfig) Optimizer {
	w := tensor.FromFloat32([]float32{0, 0}, 2).SetRequiresGrad(true)
	b := tensor.FromFloat32([]float32{0}, 1).SetRequiresGrad(true)
	if c.Optimizer == "Adam" {
		a := NewAdam([]*tensor.Tensor{w}, AdamOptions{LR: c.GroupLRs[0]})
		a.AddParamGroup(ParamGroup{Params: []*tensor.Tensor{b}, LR: c.GroupLRs[1]})
		return a
	}
	s := NewSGD([]*tensor.Tensor{w}, SGDOptions{LR: c.GroupLRs[0], Momentum: 0.9})
	s.AddParamGroup(ParamGroup{Params: []*tensor.Tensor{b}, LR: c.GroupLRs[1]})
	return s
}

func optInt(o map[string]any, k string, def int) int {
	if v, ok := o[k]; ok {
		return int(v.(float64))
	}
	return def
}

func optFloat(o map[string]any, k string, def float64) float64 {
	if v, ok := o[k]; ok {
		return v.(float64)
	}
	return def
}

func optString(o map[string]any, k string) string {
	s, _ := o[k].(string)
	return s
}

// schedStepper is the part of a scheduler the fixture test drives.
type schedStepper interface {
	LastLR() []float64
	LastEpoch() int
	StateDict() map[string]any
	LoadStateDict(map[string]any) error
}

// buildSched makes the scheduler a fixture configuration describes; step
// advances it by epoch i (ReduceLROnPlateau takes metric i).
func buildSched(t *testing.T, c schedConfig, opt Optimizer) (s schedStepper, step func(i int)) {
	t.Helper()
	o := c.Opts
	switch c.Kind {
	case "StepLR":
		l := NewStepLR(opt, optInt(o, "step_size", 0), optFloat(o, "gamma", 0.1))
		return l, func(int) { l.Step() }
	case "MultiStepLR":
		var ms []int
		for _, m := range o["milestones"].([]any) {
			ms = append(ms, int(m.(float64)))
		}
		l := NewMultiStepLR(opt, ms, optFloat(o, "gamma", 0.1))
		return l, func(int) { l.Step() }
	case "ExponentialLR":
		l := NewExponentialLR(opt, optFloat(o, "gamma", 0))
		return l, func(int) { l.Step() }
	case "CosineAnnealingLR":
		l := NewCosineAnnealingLR(opt, optInt(o, "T_max", 0), optFloat(o, "eta_min", 0))
		return l, func(int) { l.Step() }
	case "LinearLR":
		l := NewLinearLR(opt, optFloat(o, "start_factor", 1.0/3), optFloat(o, "end_factor", 1), optInt(o, "total_iters", 5))
		return l, func(int) { l.Step() }
	case "ReduceLROnPlateau":
		po := ReduceLROnPlateauOptions{Mode: optString(o, "mode"), Factor: optFloat(o, "factor", 0),
			Patience: optInt(o, "patience", 0), Threshold: optFloat(o, "threshold", 0),
			ThresholdMode: optString(o, "threshold_mode"), Cooldown: optInt(o, "cooldown", 0),
			MinLR: optFloat(o, "min_lr", 0), Eps: optFloat(o, "eps", 0)}
		if v, ok := o["patience"]; ok && v.(float64) == 0 {
			po.Patience = -1
		}
		l := NewReduceLROnPlateau(opt, po)
		return l, func(i int) { l.Step(c.Metrics[i]) }
	case "OneCycleLR":
		oo := OneCycleOptions{TotalSteps: optInt(o, "total_steps", 0), Epochs: optInt(o, "epochs", 0),
			StepsPerEpoch: optInt(o, "steps_per_epoch", 0), PctStart: optFloat(o, "pct_start", 0),
			AnnealStrategy: optString(o, "anneal_strategy"), BaseMomentum: optFloat(o, "base_momentum", 0),
			MaxMomentum: optFloat(o, "max_momentum", 0), DivFactor: optFloat(o, "div_factor", 0),
			FinalDivFactor: optFloat(o, "final_div_factor", 0)}
		switch m := o["max_lr"].(type) {
		case float64:
			oo.MaxLR = m
		case []any:
			for _, v := range m {
				oo.MaxLRs = append(oo.MaxLRs, v.(float64))
			}
		}
		if v, ok := o["cycle_momentum"]; ok && !v.(bool) {
			oo.FixedMomentum = true
		}
		oo.ThreePhase, _ = o["three_phase"].(bool)
		l := NewOneCycleLR(opt, oo)
		return l, func(int) { l.Step() }
	case "SequentialLR":
		var subs []LRScheduler
		for _, e := range o["schedulers"].([]any) {
			pair := e.([]any)
			sub, _ := buildSched(t, schedConfig{Kind: pair[0].(string), Opts: pair[1].(map[string]any)}, opt)
			subs = append(subs, sub.(LRScheduler))
		}
		var ms []int
		for _, m := range o["milestones"].([]any) {
			ms = append(ms, int(m.(float64)))
		}
		l := NewSequentialLR(opt, subs, ms)
		return l, func(int) { l.Step() }
	}
	t.Fatalf("unknown scheduler %s", c.Kind)
	return nil, nil
}

// momentumNow is the optimizer's momentum (SGD) or beta1 (Adam).
func momentumNow(opt Optimizer) float64 {
	switch o := opt.(type) {
	case *SGD:
		return o.Options.Momentum
	case *Adam:
		return o.Options.Betas[0]
	}
	return math.NaN()
}

func closeTo(got, want float64) bool {
	return got == want || math.Abs(got-want) <= 1e-12*math.Max(math.Abs(want), 1e-300)
}

func checkLRs(t *testing.T, what string, opt Optimizer, s schedStepper, want []float64) {
	t.Helper()
	last := s.LastLR()
	for g, w := range want {
		if got := opt.ParamGroups()[g].LR; !closeTo(got, w) {
			t.Fatalf("%s: group %d lr = %.17g, torch %.17g", what, g, got, w)
		}
		if !closeTo(last[g], w) {
			t.Fatalf("%s: LastLR()[%d] = %.17g, torch %.17g", what, g, last[g], w)
		}
	}
}

// TestSchedulersAgainstTorch steps every fixture configuration 40 times
// (optimizer step, then scheduler step, as torch requires) and compares
// each group's learning rate, and OneCycleLR's momentum, with torch's.
func TestSchedulersAgainstTorch(t *testing.T) {
	f := loadSchedFixture(t)
	for _, c := range f.Configs {
		t.Run(c.Name, func(t *testing.T) {
			opt := schedOptimizer(c)
			s, step := buildSched(t, c, opt)
			checkLRs(t, "after construction", opt, s, c.LRs[0])
			for i := 0; i < c.Steps; i++ {
				opt.ZeroGrad()
				opt.Step()
				step(i)
				checkLRs(t, fmt.Sprintf("step %d", i+1), opt, s, c.LRs[i+1])
				if c.Momentum != nil {
					if got, want := momentumNow(opt), c.Momentum[i+1][0]; !closeTo(got, want) {
						t.Fatalf("step %d: momentum %.17g, torch %.17g", i+1, got, want)
					}
				}
			}
			if s.LastEpoch() != c.LastEpoch {
				t.Errorf("LastEpoch() = %d, torch's last_epoch %d", s.LastEpoch(), c.LastEpoch)
			}
			if c.OverstepError {
				err := tensor.Catch(func() { step(c.Steps) })
				if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), "TotalSteps") {
					t.Errorf("a step past the cycle: %v, want an ErrOption naming TotalSteps", err)
				}
				checkLRs(t, "after the refused step", opt, s, c.LRs[c.Steps])
			}
		})
	}
}

// TestSchedulerStateDictResume saves a scheduler's state after 13 steps,
// sends it through JSON, loads it into a fresh scheduler on a fresh
// optimizer (whose group LRs are restored, as the optimizer's state dict
// does) and checks that the rest of the sequence is torch's.
func TestSchedulerStateDictResume(t *testing.T) {
	f := loadSchedFixture(t)
	const k = 13
	for _, c := range f.Configs {
		t.Run(c.Name, func(t *testing.T) {
			opt := schedOptimizer(c)
			s, step := buildSched(t, c, opt)
			for i := 0; i < k; i++ {
				step(i)
			}
			b, err := json.Marshal(s.StateDict())
			if err != nil {
				t.Fatal(err)
			}
			var sd map[string]any
			if err := json.Unmarshal(b, &sd); err != nil {
				t.Fatal(err)
			}
			opt2 := schedOptimizer(c)
			s2, step2 := buildSched(t, c, opt2)
			step2(0) // a different position, overwritten by the load
			if err := s2.LoadStateDict(sd); err != nil {
				t.Fatal(err)
			}
			for g, lr := range s.LastLR() {
				opt2.ParamGroups()[g].LR = lr
			}
			if c.Momentum != nil {
				momentumOf(opt2)(momentumNow(opt))
			}
			if s2.LastEpoch() != k {
				t.Fatalf("LastEpoch() after load = %d, want %d", s2.LastEpoch(), k)
			}
			for i := k; i < c.Steps; i++ {
				step2(i)
				checkLRs(t, fmt.Sprintf("resumed step %d", i+1), opt2, s2, c.LRs[i+1])
			}
		})
	}
}

// TestSchedulerStateDictErrors checks that a state dict that does not fit
// is refused with ErrState and changes nothing.
func TestSchedulerStateDictErrors(t *testing.T) {
	c := schedConfig{GroupLRs: []float64{0.1, 0.01}}
	opt := schedOptimizer(c)
	s := NewStepLR(opt, 3, 0.5)
	s.Step()
	good := s.StateDict()
	cases := map[string]func(sd map[string]any){
		"kind":        func(sd map[string]any) { sd["kind"] = "ExponentialLR" },
		"missing":     func(sd map[string]any) { delete(sd, "gamma") },
		"extra":       func(sd map[string]any) { sd["momentum"] = 0.9 },
		"type":        func(sd map[string]any) { sd["step_size"] = "3" },
		"fraction":    func(sd map[string]any) { sd["step_size"] = 2.5 },
		"groups":      func(sd map[string]any) { sd["base_lrs"] = []any{0.1} },
		"invalid":     func(sd map[string]any) { sd["step_size"] = 0 },
		"list values": func(sd map[string]any) { sd["last_lr"] = []any{0.1, "x"} },
	}
	for name, mutate := range cases {
		sd := s.StateDict()
		mutate(sd)
		err := s.LoadStateDict(sd)
		if !errors.Is(err, ErrState) {
			t.Errorf("%s: err = %v, want ErrState", name, err)
		}
		if got := s.StateDict(); fmt.Sprint(got) != fmt.Sprint(good) {
			t.Errorf("%s: a refused load changed the state to %v", name, got)
		}
	}
	if err := s.LoadStateDict(nil); !errors.Is(err, ErrState) {
		t.Errorf("nil state dict: %v", err)
	}
	pl := NewReduceLROnPlateau(opt, ReduceLROnPlateauOptions{})
	sd := pl.StateDict()
	sd["mode"] = "sideways"
	if err := pl.LoadStateDict(sd); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "mode") {
		t.Errorf("bad mode: %v", err)
	}
}

// TestSchedulerOptionErrors checks the constructors' ErrOption panics.
func TestSchedulerOptionErrors(t *testing.T) {
	c := schedConfig{GroupLRs: []float64{0.1, 0.01}}
	opt := schedOptimizer(c)
	adam := NewAdam([]*tensor.Tensor{tensor.FromFloat32([]float32{0}, 1).SetRequiresGrad(true)}, AdamOptions{})
	cases := map[string]func(){
		"nil optimizer":    func() { NewStepLR(nil, 1, 0.1) },
		"step size":        func() { NewStepLR(opt, 0, 0.1) },
		"gamma":            func() { NewExponentialLR(opt, math.NaN()) },
		"milestone":        func() { NewMultiStepLR(opt, []int{3, -1}, 0.1) },
		"T_max":            func() { NewCosineAnnealingLR(opt, 0, 0) },
		"start factor":     func() { NewLinearLR(opt, 0, 1, 5) },
		"end factor":       func() { NewLinearLR(opt, 0.5, 1.5, 5) },
		"total iters":      func() { NewLinearLR(opt, 0.5, 1, 0) },
		"no steps":         func() { NewOneCycleLR(opt, OneCycleOptions{MaxLR: 1}) },
		"no max lr":        func() { NewOneCycleLR(opt, OneCycleOptions{TotalSteps: 10}) },
		"max lrs":          func() { NewOneCycleLR(opt, OneCycleOptions{MaxLRs: []float64{1}, TotalSteps: 10}) },
		"pct start":        func() { NewOneCycleLR(opt, OneCycleOptions{MaxLR: 1, TotalSteps: 10, PctStart: 1.5}) },
		"anneal":           func() { NewOneCycleLR(opt, OneCycleOptions{MaxLR: 1, TotalSteps: 10, AnnealStrategy: "exp"}) },
		"plateau mode":     func() { NewReduceLROnPlateau(opt, ReduceLROnPlateauOptions{Mode: "up"}) },
		"plateau factor":   func() { NewReduceLROnPlateau(opt, ReduceLROnPlateauOptions{Factor: 1}) },
		"plateau min lrs":  func() { NewReduceLROnPlateau(opt, ReduceLROnPlateauOptions{MinLRs: []float64{0}}) },
		"plateau cooldown": func() { NewReduceLROnPlateau(opt, ReduceLROnPlateauOptions{Cooldown: -1}) },
	}
	for name, f := range cases {
		if err := tensor.Catch(f); !errors.Is(err, ErrOption) {
			t.Errorf("%s: %v, want ErrOption", name, err)
		}
	}
	// Adam's beta1 cycles (checked against torch in the fixture); a custom
	// optimizer's momentum cannot.
	NewOneCycleLR(adam, OneCycleOptions{MaxLR: 0.1, TotalSteps: 4})
	if b := adam.Options.Betas[0]; b != 0.95 {
		t.Errorf("beta1 after OneCycleLR = %g, want max momentum 0.95", b)
	}
	custom := struct{ Optimizer }{opt}
	if err := tensor.Catch(func() { NewOneCycleLR(custom, OneCycleOptions{MaxLR: 0.1, TotalSteps: 4}) }); !errors.Is(err, ErrOption) {
		t.Errorf("momentum of a custom optimizer: %v", err)
	}
	NewOneCycleLR(custom, OneCycleOptions{MaxLR: 0.1, TotalSteps: 4, FixedMomentum: true})
}

// TestSchedulersShareInitialLR checks torch's initial_lr rule: a second
// scheduler on the same optimizer takes the groups' original learning
// rates as its base, not the ones the first has already changed.
func TestSchedulersShareInitialLR(t *testing.T) {
	opt := schedOptimizer(schedConfig{GroupLRs: []float64{0.1, 0.01}})
	NewLinearLR(opt, 0.5, 1, 4)
	c := NewCosineAnnealingLR(opt, 10, 0)
	if got := c.StateDict()["base_lrs"].([]float64); got[0] != 0.1 || got[1] != 0.01 {
		t.Errorf("base_lrs of the second scheduler = %v, want the initial [0.1 0.01]", got)
	}
	if got := opt.ParamGroups()[0].LR; got != 0.05 {
		t.Errorf("lr = %g, want 0.05 (LinearLR's start factor)", got)
	}
}

// Example: a linear warmup of the learning rate over 3 epochs, stepped
// after each epoch's optimizer step.
func ExampleNewLinearLR() {
	w := tensor.FromFloat32([]float32{0}, 1).SetRequiresGrad(true)
	opt := NewSGD([]*tensor.Tensor{w}, SGDOptions{LR: 0.1})
	sched := NewLinearLR(opt, 0.25, 1, 3)
	for epoch := 0; epoch < 5; epoch++ {
		fmt.Printf("epoch %d lr %.4f\n", epoch, sched.LastLR()[0])
		// ... forward, loss.Backward() ...
		opt.Step()
		sched.Step()
	}
	// Output:
	// epoch 0 lr 0.0250
	// epoch 1 lr 0.0500
	// epoch 2 lr 0.0750
	// epoch 3 lr 0.1000
	// epoch 4 lr 0.1000
}

// Example: ReduceLROnPlateau lowers the learning rate when the validation
// loss stops improving.
func ExampleNewReduceLROnPlateau() {
	w := tensor.FromFloat32([]float32{0}, 1).SetRequiresGrad(true)
	opt := NewAdam([]*tensor.Tensor{w}, AdamOptions{LR: 0.01})
	sched := NewReduceLROnPlateau(opt, ReduceLROnPlateauOptions{Patience: 2, Factor: 0.5})
	for _, valLoss := range []float64{0.9, 0.8, 0.8, 0.8, 0.8, 0.7} {
		sched.Step(valLoss)
		fmt.Printf("loss %.1f lr %g\n", valLoss, opt.ParamGroups()[0].LR)
	}
	// Output:
	// loss 0.9 lr 0.01
	// loss 0.8 lr 0.01
	// loss 0.8 lr 0.01
	// loss 0.8 lr 0.01
	// loss 0.8 lr 0.005
	// loss 0.7 lr 0.005
}

// TestSequentialLRErrors checks NewSequentialLR's ErrOption panics and
// that a state dict of other schedulers is refused without a change.
func TestSequentialLRErrors(t *testing.T) {
	opt := schedOptimizer(schedConfig{GroupLRs: []float64{0.1, 0.01}})
	other := schedOptimizer(schedConfig{GroupLRs: []float64{0.1, 0.01}})
	a, b := NewLinearLR(opt, 0.5, 1, 3), NewExponentialLR(opt, 0.9)
	cases := map[string]func(){
		"nil optimizer":     func() { NewSequentialLR(nil, []LRScheduler{a}, nil) },
		"no schedulers":     func() { NewSequentialLR(opt, nil, nil) },
		"milestone count":   func() { NewSequentialLR(opt, []LRScheduler{a, b}, nil) },
		"milestone order":   func() { NewSequentialLR(opt, []LRScheduler{a, b, a}, []int{4, 2}) },
		"milestone zero":    func() { NewSequentialLR(opt, []LRScheduler{a, b}, []int{0}) },
		"nil scheduler":     func() { NewSequentialLR(opt, []LRScheduler{a, nil}, []int{2}) },
		"other optimizer":   func() { NewSequentialLR(opt, []LRScheduler{a, NewStepLR(other, 2, 0.5)}, []int{2}) },
		"foreign scheduler": func() { NewSequentialLR(opt, []LRScheduler{a, struct{ LRScheduler }{b}}, []int{2}) },
	}
	for name, f := range cases {
		if err := tensor.Catch(f); !errors.Is(err, ErrOption) {
			t.Errorf("%s: %v, want ErrOption", name, err)
		}
	}
	s := NewSequentialLR(opt, []LRScheduler{a, b}, []int{2})
	s.Step()
	good := fmt.Sprint(s.StateDict())
	for name, mutate := range map[string]func(map[string]any){
		"sub kind":      func(sd map[string]any) { sd["scheduler.1.kind"] = "StepLR" },
		"sub index":     func(sd map[string]any) { sd["scheduler.7.gamma"] = 0.5 },
		"sub missing":   func(sd map[string]any) { delete(sd, "scheduler.1.gamma") },
		"milestones":    func(sd map[string]any) { sd["milestones"] = []int{2, 3} },
		"own missing":   func(sd map[string]any) { delete(sd, "last_epoch") },
		"sub bad value": func(sd map[string]any) { sd["scheduler.0.total_iters"] = -1 },
	} {
		sd := s.StateDict()
		mutate(sd)
		if err := s.LoadStateDict(sd); !errors.Is(err, ErrState) {
			t.Errorf("%s: %v, want ErrState", name, err)
		}
		if got := fmt.Sprint(s.StateDict()); got != good {
			t.Errorf("%s: a refused load changed the state", name)
		}
	}
}

// Example: the common GNN recipe, a linear warmup over 3 epochs, then a
// cosine decay over the remaining 5.
func ExampleNewSequentialLR() {
	w := tensor.FromFloat32([]float32{0}, 1).SetRequiresGrad(true)
	opt := NewAdam([]*tensor.Tensor{w}, AdamOptions{LR: 0.01})
	warm := NewLinearLR(opt, 0.1, 1, 3)
	cos := NewCosineAnnealingLR(opt, 5, 0)
	sched := NewSequentialLR(opt, []LRScheduler{warm, cos}, []int{3})
	for epoch := 0; epoch < 8; epoch++ {
		fmt.Printf("epoch %d lr %.5f\n", epoch, sched.LastLR()[0])
		opt.Step()
		sched.Step()
	}
	// Output:
	// epoch 0 lr 0.00100
	// epoch 1 lr 0.00400
	// epoch 2 lr 0.00700
	// epoch 3 lr 0.01000
	// epoch 4 lr 0.00905
	// epoch 5 lr 0.00655
	// epoch 6 lr 0.00345
	// epoch 7 lr 0.00095
}

// TestPrintCurrentLR: an optimizer prints its groups' current learning
// rates, as torch's repr does, and a scheduler prints its kind, step and
// last rates (found by a new user: the optimizer printed the initial lr
// after a StepLR had halved it, the scheduler a raw struct).
func TestPrintCurrentLR(t *testing.T) {
	w := tensor.Zeros(2)
	opt := NewAdam([]*tensor.Tensor{w}, AdamOptions{LR: 0.01})
	sch := NewStepLR(opt, 5, 0.5)
	for i := 0; i < 7; i++ {
		opt.Step()
		sch.Step()
	}
	if got := fmt.Sprint(opt); !strings.HasPrefix(got, "Adam(lr=0.005,") {
		t.Errorf("opt prints %q, want lr=0.005", got)
	}
	if got, want := fmt.Sprint(sch), "StepLR(last_epoch=7, last_lr=[0.005])"; got != want {
		t.Errorf("scheduler prints %q, want %q", got, want)
	}
	opt.AddParamGroup(ParamGroup{Params: []*tensor.Tensor{tensor.Zeros(1)}, LR: 0.1})
	if got := fmt.Sprint(opt); !strings.HasPrefix(got, "Adam(lr=[0.005, 0.1],") {
		t.Errorf("two groups print %q", got)
	}
}
