package optim

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// SGDOptions are torch.optim.SGD's hyperparameters.
type SGDOptions struct {
	// LR is the learning rate (required, > 0).
	LR float64
	// Momentum is the momentum factor (0: plain SGD).
	Momentum float64
	// Dampening scales the new gradient in the momentum buffer by
	// (1 - Dampening).
	Dampening float64
	// WeightDecay adds WeightDecay * param to the gradient (L2 penalty).
	WeightDecay float64
	// Nesterov uses Nesterov momentum (Sutskever et al. 2013); it needs
	// Momentum > 0 and Dampening 0.
	Nesterov bool
	// Maximize ascends the objective instead of descending.
	Maximize bool
}

// SGD is stochastic gradient descent with momentum, as torch.optim.SGD.
// For each parameter p with gradient g, per step:
//
//	g = g + weight_decay * p
//	b = g on the first step, else momentum * b + (1 - dampening) * g
//	g = g + momentum * b (Nesterov) or g = b (momentum > 0)
//	p = p - lr * g
//
// State: "momentum_buffer" per parameter when Momentum > 0.
type SGD struct {
	base
	Options SGDOptions
}

// NewSGD returns an SGD optimizer over params as one group. It panics with
// ErrOption naming the hyperparameter when one is invalid, and when params
// is empty.
func NewSGD(params []*tensor.Tensor, o SGDOptions) *SGD {
	const op = "SGD"
	if !(o.LR > 0) {
		panicf(ErrOption, op, "LR must be positive, got %g", o.LR)
	}
	if o.Momentum < 0 || o.Momentum != o.Momentum {
		panicf(ErrOption, op, "invalid Momentum %g", o.Momentum)
	}
	if o.Nesterov && (o.Momentum <= 0 || o.Dampening != 0) {
		panicf(ErrOption, op, "Nesterov momentum requires Momentum > 0 and Dampening 0 (got %g and %g)", o.Momentum, o.Dampening)
	}
	s := &SGD{Options: o}
	s.init(op, []string{"momentum_buffer"})
	s.addGroup(ParamGroup{Params: params, LR: o.LR, WeightDecay: o.WeightDecay})
	return s
}

// AddParamGroup adds a group of parameters with its own learning rate (0
// means Options.LR) and weight decay (optimizer.add_param_group).
func (s *SGD) AddParamGroup(g ParamGroup) {
	if g.LR == 0 {
		g.LR = s.Options.LR
	}
	s.addGroup(g)
}

// Step applies one SGD update to every parameter with a gradient.
func (s *SGD) Step() {
	o := s.Options
	mom, damp := float32(o.Momentum), float32(1-o.Dampening)
	for _, g := range s.groups {
		lr, wd := float32(-g.LR), float32(g.WeightDecay)
		for _, p := range g.Params {
			if !onHost(p) {
				s.sgdDevice(g, p)
				continue
			}
			gd := s.grad(p)
			if gd == nil {
				continue
			}
			pd := p.Float32s()
			var buf []float32
			first := false
			if o.Momentum != 0 {
				st := s.stateOf(p, 0)
				st.step++
				if st.buf[0] == nil {
					st.buf[0] = stateBuf(len(pd))
					first = true
				}
				buf = st.buf[0]
			}
			parallel(len(pd), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					d := gd[i]
					if o.Maximize {
						d = -d
					}
					if wd != 0 {
						d += wd * pd[i]
					}
					if buf != nil {
						if first {
							buf[i] = d
						} else {
							buf[i] = mom*buf[i] + damp*d
						}
						if o.Nesterov {
							d += mom * buf[i]
						} else {
							d = buf[i]
						}
					}
					pd[i] += lr * d
				}
			})
		}
	}
}

// String describes the SGD in the manner of DGL's and PyTorch's repr.
func (s *SGD) String() string {
	o := s.Options
	return fmt.Sprintf("SGD(lr=%s, momentum=%g, dampening=%g, weight_decay=%g, nesterov=%t, groups=%d)",
		s.lrString(o.LR), o.Momentum, o.Dampening, o.WeightDecay, o.Nesterov, len(s.groups))
}
