package optim

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/tensor"
)

type reference struct {
	X, Y, W0, B0 []float32
	Configs      []struct {
		Name   string
		Kind   string
		Opts   map[string]any
		Groups []map[string]float64
		Steps  []struct{ W, B []float32 }
	}
}

func loadReference(t *testing.T) reference {
	t.Helper()
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var r reference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func num(o map[string]any, k string) float64 {
	if v, ok := o[k]; ok {
		return v.(float64)
	}
	return 0
}

func flag(o map[string]any, k string) bool {
	v, ok := o[k]
	return ok && v.(bool)
}

// build makes the optimizer a reference configuration describes.
func build(t *testing.T, kind string, o map[string]any, groups []map[string]float64, W, b *tensor.Tensor) Optimizer {
	params := []*tensor.Tensor{W, b}
	if groups != nil {
		params = []*tensor.Tensor{W}
	}
	var opt Optimizer
	switch kind {
	case "SGD":
		opt = NewSGD(params, SGDOptions{LR: num(o, "lr"), Momentum: num(o, "momentum"), Dampening: num(o, "dampening"),
			WeightDecay: num(o, "weight_decay"), Nesterov: flag(o, "nesterov"), Maximize: flag(o, "maximize")})
	case "Adam", "AdamW":
		ao := AdamOptions{LR: num(o, "lr"), Eps: num(o, "eps"), WeightDecay: num(o, "weight_decay"), AMSGrad: flag(o, "amsgrad")}
		if bs, ok := o["betas"]; ok {
			ao.Betas = [2]float64{bs.([]any)[0].(float64), bs.([]any)[1].(float64)}
		}
		if kind == "Adam" {
			opt = NewAdam(params, ao)
		} else {
			opt = NewAdamW(params, ao)
		}
	default:
		t.Fatalf("unknown optimizer %s", kind)
	}
	if groups != nil {
		g0 := opt.ParamGroups()[0]
		g0.WeightDecay = groups[0]["weight_decay"]
		opt.(interface{ AddParamGroup(ParamGroup) }).AddParamGroup(ParamGroup{Params: []*tensor.Tensor{b}, LR: groups[1]["lr"]})
	}
	return opt
}

// lossStep computes loss = mean((x W + b - y)^2) and its gradients.
func lossStep(x, y, W, b *tensor.Tensor) {
	r := tensor.Sub(tensor.Add(tensor.MatMul(x, W), b), y)
	tensor.Mean(tensor.Mul(r, r)).Backward()
}

func within(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); !(d <= tol*math.Max(1, math.Abs(float64(want[i])))) {
			t.Errorf("%s[%d] = %.8g, torch %.8g", what, i, got[i], want[i])
			return
		}
	}
}

// TestAgainstTorch runs five steps of every configuration and compares the
// parameters after each step with torch.optim's.
func TestAgainstTorch(t *testing.T) {
	r := loadReference(t)
	x := tensor.FromFloat32(r.X, 4, 3)
	y := tensor.FromFloat32(r.Y, 4, 2)
	for _, c := range r.Configs {
		t.Run(c.Name, func(t *testing.T) {
			W := tensor.FromFloat32(append([]float32(nil), r.W0...), 3, 2).SetRequiresGrad(true)
			b := tensor.FromFloat32(append([]float32(nil), r.B0...), 2).SetRequiresGrad(true)
			opt := build(t, c.Kind, c.Opts, c.Groups, W, b)
			for s, want := range c.Steps {
				opt.ZeroGrad()
				lossStep(x, y, W, b)
				opt.Step()
				within(t, fmt.Sprintf("step %d W", s+1), W.Float32s(), want.W, 2e-6)
				within(t, fmt.Sprintf("step %d b", s+1), b.Float32s(), want.B, 2e-6)
			}
		})
	}
}

// TestStateDictResume checks that saving the state after two steps and
// loading it into a fresh optimizer continues the same trajectory.
func TestStateDictResume(t *testing.T) {
	r := loadReference(t)
	x := tensor.FromFloat32(r.X, 4, 3)
	y := tensor.FromFloat32(r.Y, 4, 2)
	for _, c := range r.Configs {
		t.Run(c.Name, func(t *testing.T) {
			W := tensor.FromFloat32(append([]float32(nil), r.W0...), 3, 2).SetRequiresGrad(true)
			b := tensor.FromFloat32(append([]float32(nil), r.B0...), 2).SetRequiresGrad(true)
			opt := build(t, c.Kind, c.Opts, c.Groups, W, b)
			for s := 0; s < 2; s++ {
				opt.ZeroGrad()
				lossStep(x, y, W, b)
				opt.Step()
			}
			sd := opt.StateDict()
			// A fresh optimizer with other hyperparameters in its groups.
			fresh := build(t, c.Kind, c.Opts, c.Groups, W, b)
			fresh.ParamGroups()[0].LR = 123
			if err := fresh.LoadStateDict(sd); err != nil {
				t.Fatal(err)
			}
			for s := 2; s < 5; s++ {
				fresh.ZeroGrad()
				lossStep(x, y, W, b)
				fresh.Step()
			}
			within(t, "W", W.Float32s(), c.Steps[4].W, 2e-6)
			within(t, "b", b.Float32s(), c.Steps[4].B, 2e-6)
		})
	}
}

func TestStateDictErrors(t *testing.T) {
	W := tensor.Zeros(3, 2).SetRequiresGrad(true)
	opt := NewAdam([]*tensor.Tensor{W}, AdamOptions{})
	W.SetGrad(tensor.Ones(3, 2))
	opt.Step()
	sd := opt.StateDict()
	for _, k := range []string{"param_groups.0.lr", "param_groups.0.weight_decay", "state.0.step", "state.0.exp_avg", "state.0.exp_avg_sq"} {
		if sd[k] == nil {
			t.Errorf("state dict lacks %s (has %d keys)", k, len(sd))
		}
	}
	if len(sd) != 5 {
		t.Errorf("state dict has %d keys, want 5", len(sd))
	}
	other := NewAdam([]*tensor.Tensor{tensor.Zeros(2, 2).SetRequiresGrad(true)}, AdamOptions{})
	err := other.LoadStateDict(sd)
	if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "state.0.exp_avg") {
		t.Errorf("mismatched shapes: %v", err)
	}
	sd["state.7.exp_avg"] = tensor.Zeros(1)
	if err := opt.LoadStateDict(sd); !errors.Is(err, ErrState) {
		t.Errorf("extra key: %v", err)
	}
}

func catchPanic(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err, _ = r.(error)
			if err == nil {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	f()
	return nil
}

func TestOptionErrors(t *testing.T) {
	p := tensor.Zeros(2).SetRequiresGrad(true)
	ps := []*tensor.Tensor{p}
	cases := []struct {
		f    func()
		want string
	}{
		{func() { NewSGD(ps, SGDOptions{}) }, "LR must be positive"},
		{func() { NewSGD(ps, SGDOptions{LR: 0.1, Nesterov: true}) }, "Nesterov momentum requires Momentum > 0 and Dampening 0"},
		{func() { NewAdam(ps, AdamOptions{Betas: [2]float64{0.9, 1}}) }, "Betas[1] must be in [0, 1)"},
		{func() { NewAdam(ps, AdamOptions{LR: -1}) }, "LR must be positive"},
		{func() { NewAdam([]*tensor.Tensor{p, p}, AdamOptions{}) }, "appears in more than one parameter group"},
		{func() { NewAdam([]*tensor.Tensor{tensor.Add(p, p)}, AdamOptions{}) }, "not a leaf tensor"},
		{func() { NewSGD([]*tensor.Tensor{tensor.Arange(3)}, SGDOptions{LR: 1}) }, "only float32 tensors"},
		{func() { NewAdam(ps, AdamOptions{}).AddParamGroup(ParamGroup{Params: ps}) }, "appears in more than one parameter group"},
		{func() { NewSGD(ps, SGDOptions{LR: 1, WeightDecay: -1}) }, "invalid weight_decay"},
	}
	for _, c := range cases {
		err := catchPanic(c.f)
		if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want ErrOption with %q", err, c.want)
		}
	}
}

// TestSkipsParamsWithoutGrad checks that a parameter with no gradient is
// left alone, as torch does, and ZeroGrad clears gradients.
func TestSkipsParamsWithoutGrad(t *testing.T) {
	a := tensor.Ones(3).SetRequiresGrad(true)
	b := tensor.Ones(3).SetRequiresGrad(true)
	for _, opt := range []Optimizer{
		NewSGD([]*tensor.Tensor{a, b}, SGDOptions{LR: 0.1, Momentum: 0.9, WeightDecay: 0.1}),
		NewAdamW([]*tensor.Tensor{a, b}, AdamOptions{}),
	} {
		a.SetGrad(tensor.Ones(3))
		opt.Step()
		if b.Float32s()[0] != 1 {
			t.Errorf("%v changed a parameter without gradient", opt)
		}
		if a.Float32s()[0] == 1 {
			t.Errorf("%v did not change a parameter with a gradient", opt)
		}
		opt.ZeroGrad()
		if a.Grad() != nil {
			t.Error("ZeroGrad left a gradient")
		}
	}
}

// TestLargeParameterParallel checks that the parallel update of a large
// parameter equals the serial update of the same values in small pieces.
func TestLargeParameterParallel(t *testing.T) {
	const n = 200003
	big := tensor.Rand(tensor.NewGenerator(1), -1, 1, n).SetRequiresGrad(true)
	grad := tensor.Rand(tensor.NewGenerator(2), -1, 1, n)
	small := make([]*tensor.Tensor, 0)
	for lo := 0; lo < n; lo += 1000 {
		hi := min(lo+1000, n)
		small = append(small, tensor.FromFloat32(append([]float32(nil), big.Float32s()[lo:hi]...)).SetRequiresGrad(true))
	}
	o1 := NewAdam([]*tensor.Tensor{big}, AdamOptions{LR: 0.01, WeightDecay: 0.01, AMSGrad: true})
	o2 := NewAdam(small, AdamOptions{LR: 0.01, WeightDecay: 0.01, AMSGrad: true})
	for s := 0; s < 3; s++ {
		big.SetGrad(grad)
		for i, p := range small {
			p.SetGrad(tensor.FromFloat32(append([]float32(nil), grad.Float32s()[i*1000:i*1000+p.Numel()]...)))
		}
		o1.Step()
		o2.Step()
	}
	for i, p := range small {
		for j, v := range p.Float32s() {
			if big.Float32s()[i*1000+j] != v {
				t.Fatalf("element %d differs: %v vs %v", i*1000+j, big.Float32s()[i*1000+j], v)
			}
		}
	}
}

// TestStateCounted checks that the optimizers' state buffers are counted
// in the engine's memory accounting: Adam's two moments and SGD's momentum
// buffer, allocated by the first Step, released when the optimizer is
// garbage.
func TestStateCounted(t *testing.T) {
	for _, c := range []struct {
		name string
		bufs int64
		mk   func([]*tensor.Tensor) Optimizer
	}{
		{"Adam", 2, func(p []*tensor.Tensor) Optimizer { return NewAdam(p, AdamOptions{LR: 0.01}) }},
		{"SGD momentum", 1, func(p []*tensor.Tensor) Optimizer { return NewSGD(p, SGDOptions{LR: 0.1, Momentum: 0.9}) }},
	} {
		w := tensor.Ones(300, 7).SetRequiresGrad(true)
		w.SetGrad(tensor.Ones(300, 7))
		opt := c.mk([]*tensor.Tensor{w})
		// collect collects garbage until the count reaches want (or, with
		// want < 0, stops changing); cleanups run on their own goroutine.
		collect := func(want int64) {
			last := int64(-1)
			for range 200 {
				runtime.GC()
				time.Sleep(time.Millisecond)
				cur := tensor.MemoryAllocated("cpu")
				if cur == want || want < 0 && cur == last {
					return
				}
				last = cur
			}
		}
		collect(-1) // earlier tests' garbage
		before := tensor.MemoryAllocated("cpu")
		opt.Step()
		if got := tensor.MemoryAllocated("cpu") - before; got != c.bufs*300*7*4 {
			t.Errorf("%s: the first Step counted %d bytes, want %d", c.name, got, c.bufs*300*7*4)
		}
		opt.Step()
		if got := tensor.MemoryAllocated("cpu") - before; got != c.bufs*300*7*4 {
			t.Errorf("%s: the second Step changed the count to %d bytes", c.name, got)
		}
		opt = nil
		collect(before)
		runtime.KeepAlive(w)
		if got := tensor.MemoryAllocated("cpu") - before; got != 0 {
			t.Errorf("%s: %d bytes still counted after the optimizer is garbage", c.name, got)
		}
	}
}

// TestEmptyParams: an optimizer over no parameters is an error, as in
// torch ("optimizer got an empty parameter list").
func TestEmptyParams(t *testing.T) {
	for name, f := range map[string]func(){
		"Adam":  func() { NewAdam(nil, AdamOptions{}) },
		"AdamW": func() { NewAdamW(nil, AdamOptions{}) },
		"SGD":   func() { NewSGD(nil, SGDOptions{LR: 0.1}) },
	} {
		if err := catchPanic(f); !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), "empty") {
			t.Errorf("%s(nil): %v", name, err)
		}
	}
}
