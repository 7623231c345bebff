package optim

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Error is the engine's error type, tensor.Error (the same type): optim
// panics with it on misuse, and LoadStateDict returns it. Its Pkg is
// "optim", Op names the optimizer and method ("Adam.Step"); Error() reads
// "optim.Adam.Step: ...".
type Error = engerr.Error

// Kinds of Error, for errors.Is.
var (
	// ErrOption: an invalid hyperparameter or parameter list. It is
	// tensor.ErrArgument under optim's older name.
	ErrOption = engerr.ErrArgument
	// ErrState: a state dict that does not match the optimizer.
	ErrState = engerr.NewKind("state dict mismatch", nil)
)

func panicf(kind error, op, format string, args ...any) {
	engerr.Panicf(kind, "optim", op, format, args...)
}

// Optimizer updates parameters from their gradients (torch.optim.Optimizer).
type Optimizer interface {
	// Step applies one update to every parameter that has a gradient.
	Step()
	// ZeroGrad clears the gradient of every parameter (set to none).
	ZeroGrad()
	// ParamGroups returns the parameter groups; changing a group's LR or
	// WeightDecay takes effect at the next Step.
	ParamGroups() []*ParamGroup
	// StateDict returns the hyperparameters and per-parameter state, keyed
	// as torch's state_dict flattened: "param_groups.<g>.lr",
	// "state.<i>.exp_avg", ...; i counts parameters over the groups in
	// order. The state tensors are copies.
	StateDict() map[string]*tensor.Tensor
	// LoadStateDict restores what StateDict saved, for the same parameter
	// shapes in the same order; it returns an error of kind ErrState and
	// changes nothing when they do not match.
	LoadStateDict(sd map[string]*tensor.Tensor) error
}

// ParamGroup is a list of parameters that share a learning rate and a
// weight decay (one entry of torch's param_groups).
type ParamGroup struct {
	Params []*tensor.Tensor
	// LR is the learning rate; 0 in AddParamGroup means the optimizer's.
	LR float64
	// WeightDecay is the group's weight decay (L2 penalty for SGD and Adam,
	// decoupled decay for AdamW).
	WeightDecay float64
}

// paramState is the per-parameter state: a step count and up to three
// buffers, named by the optimizer (bufNames).
type paramState struct {
	step int64
	buf  [3][]float32
	dev  [3]*tensor.Tensor // the buffers of a parameter off the CPU (device.go)
}

// base holds the groups and state every optimizer shares.
type base struct {
	name     string
	groups   []*ParamGroup
	state    map[*tensor.Tensor]*paramState
	bufNames []string // state keys of buf[0..]
}

func (b *base) init(name string, bufNames []string) {
	b.name, b.bufNames = name, bufNames
	b.state = map[*tensor.Tensor]*paramState{}
}

// addGroup validates and appends a group.
func (b *base) addGroup(g ParamGroup) {
	op := b.name + ".AddParamGroup"
	if g.LR < 0 || g.LR != g.LR {
		panicf(ErrOption, op, "invalid learning rate %g", g.LR)
	}
	if g.WeightDecay < 0 || g.WeightDecay != g.WeightDecay {
		panicf(ErrOption, op, "invalid weight_decay %g", g.WeightDecay)
	}
	if len(g.Params) == 0 {
		panicf(ErrOption, op, "the parameter list is empty (pass model.Parameters())")
	}
	seen := map[*tensor.Tensor]bool{}
	for _, og := range b.groups {
		for _, p := range og.Params {
			seen[p] = true
		}
	}
	for i, p := range g.Params {
		switch {
		case p == nil:
			panicf(ErrOption, op, "parameter %d is nil", i)
		case p.DType() != tensor.Float32:
			panicf(ErrOption, op, "parameter %d is %s; only float32 tensors can be optimized", i, p.DType())
		case !p.IsLeaf():
			panicf(ErrOption, op, "parameter %d (shape %v) is not a leaf tensor; optimize the tensors you created, not results of ops", i, p.Shape())
		case seen[p]:
			panicf(ErrOption, op, "parameter %d (shape %v) appears in more than one parameter group", i, p.Shape())
		}
		seen[p] = true
	}
	g.Params = append([]*tensor.Tensor(nil), g.Params...)
	b.groups = append(b.groups, &g)
}

// ParamGroups returns the parameter groups.
func (b *base) ParamGroups() []*ParamGroup { return b.groups }

// lrString formats the groups' current learning rates for String, as
// torch's repr shows each group's lr (a scheduler changes them): one
// value when they agree, else the list; def when there is no group.
func (b *base) lrString(def float64) string {
	if len(b.groups) == 0 {
		return fmt.Sprintf("%g", def)
	}
	lrs := make([]string, len(b.groups))
	same := true
	for i, g := range b.groups {
		lrs[i] = fmt.Sprintf("%g", g.LR)
		same = same && lrs[i] == lrs[0]
	}
	if same {
		return lrs[0]
	}
	return "[" + strings.Join(lrs, ", ") + "]"
}

// ZeroGrad clears every parameter's gradient (optimizer.zero_grad() with
// set_to_none, PyTorch's default).
func (b *base) ZeroGrad() {
	for _, g := range b.groups {
		for _, p := range g.Params {
			p.ZeroGrad()
		}
	}
}

// Params returns every parameter of every group, in order.
func (b *base) Params() []*tensor.Tensor {
	var out []*tensor.Tensor
	for _, g := range b.groups {
		out = append(out, g.Params...)
	}
	return out
}

// grad returns p's gradient elements, or nil when it has none; it panics
// when the gradient's size differs from the parameter's.
func (b *base) grad(p *tensor.Tensor) []float32 {
	g := p.Grad()
	if g == nil {
		return nil
	}
	if g.Numel() != p.Numel() || g.DType() != tensor.Float32 {
		panicf(engerr.ErrShape, b.name+".Step", "gradient %s%v does not fit parameter %v", g.DType(), g.Shape(), p.Shape())
	}
	return g.Float32s()
}

// stateOf returns p's state, allocating the first nbuf buffers (zeroed)
// where they are missing.
func (b *base) stateOf(p *tensor.Tensor, nbuf int) *paramState {
	s := b.state[p]
	if s == nil {
		s = &paramState{}
		b.state[p] = s
	}
	for i := 0; i < nbuf; i++ {
		if s.buf[i] == nil {
			s.buf[i] = stateBuf(p.Numel())
		}
	}
	return s
}

// StateDict implements Optimizer.
func (b *base) StateDict() map[string]*tensor.Tensor {
	sd := map[string]*tensor.Tensor{}
	i := 0
	for gi, g := range b.groups {
		sd[fmt.Sprintf("param_groups.%d.lr", gi)] = scalar64(g.LR)
		sd[fmt.Sprintf("param_groups.%d.weight_decay", gi)] = scalar64(g.WeightDecay)
		for _, p := range g.Params {
			if s := b.state[p]; s != nil {
				sd[fmt.Sprintf("state.%d.step", i)] = tensor.FromInt64([]int64{s.step})
				for k, name := range b.bufNames {
					if s.dev[k] != nil {
						sd[fmt.Sprintf("state.%d.%s", i, name)] = s.dev[k].Clone()
					}
					if s.buf[k] != nil {
						sd[fmt.Sprintf("state.%d.%s", i, name)] = tensor.FromFloat32(append([]float32(nil), s.buf[k]...), p.Shape()...)
					}
				}
			}
			i++
		}
	}
	return sd
}

// scalar64 stores a hyperparameter as a one-element float32 tensor.
func scalar64(v float64) *tensor.Tensor { return tensor.FromFloat32([]float32{float32(v)}) }

// LoadStateDict implements Optimizer. Hyperparameters are restored to
// float32 precision.
func (b *base) LoadStateDict(sd map[string]*tensor.Tensor) error {
	op := b.name + ".LoadStateDict"
	bad := func(format string, args ...any) error {
		return engerr.New(ErrState, "optim", op, format, args...)
	}
	used := 0
	type upd struct {
		p *tensor.Tensor
		s *paramState
	}
	var ups []upd
	lrs := make([]float64, len(b.groups))
	wds := make([]float64, len(b.groups))
	i := 0
	for gi, g := range b.groups {
		for k, dst := range []*float64{&lrs[gi], &wds[gi]} {
			key := fmt.Sprintf("param_groups.%d.%s", gi, []string{"lr", "weight_decay"}[k])
			t, ok := sd[key]
			if !ok {
				return bad("missing key %s", key)
			}
			if t.DType() != tensor.Float32 || t.Numel() != 1 {
				return bad("%s must be a one-element float32 tensor, got %s%v", key, t.DType(), t.Shape())
			}
			*dst = t.Item()
			used++
		}
		for _, p := range g.Params {
			key := fmt.Sprintf("state.%d.step", i)
			st, ok := sd[key]
			if !ok {
				ups = append(ups, upd{p, nil})
				i++
				continue
			}
			if st.DType() != tensor.Int64 || st.Numel() != 1 {
				return bad("%s must be a one-element int64 tensor, got %s%v", key, st.DType(), st.Shape())
			}
			used++
			s := &paramState{step: st.Int64s()[0]}
			for k, name := range b.bufNames {
				key := fmt.Sprintf("state.%d.%s", i, name)
				t, ok := sd[key]
				if !ok {
					continue
				}
				if t.DType() != tensor.Float32 || t.Numel() != p.Numel() {
					return bad("%s is %s%v but parameter %d has shape %v", key, t.DType(), t.Shape(), i, p.Shape())
				}
				if !onHost(p) {
					s.dev[k] = tensor.EmptyOn(p.Device(), tensor.Float32, p.Shape()...)
					if err := tensor.Catch(func() { s.dev[k].CopyFrom(t) }); err != nil {
						return bad("%s: %v", key, err)
					}
					used++
					continue
				}
				s.buf[k] = stateBuf(t.Numel())
				copy(s.buf[k], t.ToCPU().Float32s())
				used++
			}
			ups = append(ups, upd{p, s})
			i++
		}
	}
	if used != len(sd) {
		return bad("%d entries do not belong to an optimizer with %d groups and %d parameters", len(sd)-used, len(b.groups), i)
	}
	for gi, g := range b.groups {
		g.LR, g.WeightDecay = lrs[gi], wds[gi]
	}
	b.state = map[*tensor.Tensor]*paramState{}
	for _, u := range ups {
		if u.s != nil {
			b.state[u.p] = u.s
		}
	}
	return nil
}

// stateBuf returns a zeroed optimizer state buffer of n float32 values,
// whose 4n bytes are counted on the "cpu" device (tensor.CountBytes, so
// tensor.MemoryAllocated and the peaks include the optimizer's state, as
// PyTorch's allocator counts exp_avg and exp_avg_sq) until the buffer is
// garbage.
func stateBuf(n int) []float32 {
	buf := make([]float32, n)
	if n > 0 {
		bytes := int64(n) * 4
		tensor.CountBytes("cpu", bytes)
		runtime.AddCleanup(&buf[0], func(b int64) { tensor.CountBytes("cpu", -b) }, bytes)
	}
	return buf
}

// parallel runs body over [0, n) in chunks on up to GOMAXPROCS goroutines
// when n is large enough to pay for them.
func parallel(n int, body func(lo, hi int)) {
	const grain = 1 << 15
	w := runtime.GOMAXPROCS(0)
	if m := n / grain; m < w {
		w = m
	}
	if w <= 1 {
		body(0, n)
		return
	}
	chunk := (n + w - 1) / w
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(lo, hi)
		}()
	}
	wg.Wait()
}
