package optim

import (
	"fmt"
	"math"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// AdamOptions are torch.optim.Adam's (and AdamW's) hyperparameters. Zero
// fields take torch's defaults.
type AdamOptions struct {
	// LR is the learning rate (1e-3 when 0).
	LR float64
	// Betas are the decay rates of the first and second moment estimates
	// ({0.9, 0.999} when both are 0).
	Betas [2]float64
	// Eps is added to the denominator (1e-8 when 0).
	Eps float64
	// WeightDecay: for Adam, added to the gradient as WeightDecay * param
	// (L2 penalty; 0 by default); for AdamW, the decoupled decay rate (0.01
	// when 0, torch's AdamW default; use Adam for no decay).
	WeightDecay float64
	// AMSGrad uses the maximum of past second moments (Reddi et al. 2018).
	AMSGrad bool
	// Maximize ascends the objective instead of descending.
	Maximize bool
}

func (o *AdamOptions) defaults(op string, adamw bool) {
	if o.LR == 0 {
		o.LR = 1e-3
	}
	if o.Betas == [2]float64{} {
		o.Betas = [2]float64{0.9, 0.999}
	}
	if o.Eps == 0 {
		o.Eps = 1e-8
	}
	if adamw && o.WeightDecay == 0 {
		o.WeightDecay = 1e-2
	}
	if !(o.LR > 0) {
		panicf(ErrOption, op, "LR must be positive, got %g", o.LR)
	}
	for i, b := range o.Betas {
		if !(b >= 0 && b < 1) {
			panicf(ErrOption, op, "Betas[%d] must be in [0, 1), got %g", i, b)
		}
	}
	if !(o.Eps >= 0) {
		panicf(ErrOption, op, "Eps must be non-negative, got %g", o.Eps)
	}
}

// Adam is the optimizer of Kingma & Ba, "Adam: A Method for Stochastic
// Optimization" (ICLR 2015), as torch.optim.Adam. For each parameter p with
// gradient g, at step t:
//
//	g = g + weight_decay * p
//	m = beta1 * m + (1 - beta1) * g
//	v = beta2 * v + (1 - beta2) * g^2         (AMSGrad: vmax = max(vmax, v))
//	p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
//
// State per parameter: "step", "exp_avg", "exp_avg_sq" and, with AMSGrad,
// "max_exp_avg_sq".
type Adam struct {
	base
	Options AdamOptions
	// decoupled selects AdamW's weight decay.
	decoupled bool
}

// NewAdam returns an Adam optimizer over params as one group. It panics
// with ErrOption naming the hyperparameter when one is invalid, and when
// params is empty.
func NewAdam(params []*tensor.Tensor, o AdamOptions) *Adam {
	o.defaults("Adam", false)
	a := &Adam{Options: o}
	a.init("Adam", []string{"exp_avg", "exp_avg_sq", "max_exp_avg_sq"})
	a.addGroup(ParamGroup{Params: params, LR: o.LR, WeightDecay: o.WeightDecay})
	return a
}

// AdamW is Adam with decoupled weight decay (Loshchilov & Hutter,
// "Decoupled Weight Decay Regularization", ICLR 2019), as
// torch.optim.AdamW: each step first shrinks p by (1 - lr * weight_decay),
// then applies Adam's update without the L2 term.
type AdamW struct {
	Adam
}

// NewAdamW returns an AdamW optimizer over params as one group
// (WeightDecay 0.01 when 0). It panics with ErrOption naming the
// hyperparameter when one is invalid, and when params is empty.
func NewAdamW(params []*tensor.Tensor, o AdamOptions) *AdamW {
	o.defaults("AdamW", true)
	a := &AdamW{Adam{Options: o, decoupled: true}}
	a.init("AdamW", []string{"exp_avg", "exp_avg_sq", "max_exp_avg_sq"})
	a.addGroup(ParamGroup{Params: params, LR: o.LR, WeightDecay: o.WeightDecay})
	return a
}

// AddParamGroup adds a group of parameters with its own learning rate (0
// means Options.LR) and weight decay (optimizer.add_param_group).
func (a *Adam) AddParamGroup(g ParamGroup) {
	if g.LR == 0 {
		g.LR = a.Options.LR
	}
	a.addGroup(g)
}

// Step applies one Adam (or AdamW) update to every parameter with a
// gradient.
func (a *Adam) Step() {
	o := a.Options
	b1, b2 := o.Betas[0], o.Betas[1]
	fb1, fb2 := float32(b1), float32(b2)
	omb1, omb2 := float32(1-b1), float32(1-b2)
	eps := float32(o.Eps)
	nbuf := 2
	if o.AMSGrad {
		nbuf = 3
	}
	for _, g := range a.groups {
		for _, p := range g.Params {
			if !onHost(p) {
				a.adamDevice(g, p)
				continue
			}
			gd := a.grad(p)
			if gd == nil {
				continue
			}
			pd := p.Float32s()
			st := a.stateOf(p, nbuf)
			st.step++
			m, v, vmax := st.buf[0], st.buf[1], st.buf[2]
			t := float64(st.step)
			// Scalars in float64 as torch computes them in Python.
			bc1 := 1 - math.Pow(b1, t)
			bc2 := 1 - math.Pow(b2, t)
			stepSize := float32(-g.LR / bc1)
			bc2Sqrt := float32(math.Sqrt(bc2))
			var l2, shrink float32 = 0, 1
			if g.WeightDecay != 0 {
				if a.decoupled {
					shrink = float32(1 - g.LR*g.WeightDecay)
				} else {
					l2 = float32(g.WeightDecay)
				}
			}
			parallel(len(pd), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					if shrink != 1 {
						pd[i] *= shrink
					}
					d := gd[i]
					if o.Maximize {
						d = -d
					}
					if l2 != 0 {
						d += l2 * pd[i]
					}
					m[i] = m[i]*fb1 + omb1*d
					v[i] = v[i]*fb2 + omb2*(d*d)
					s := v[i]
					if vmax != nil {
						if s > vmax[i] {
							vmax[i] = s
						}
						s = vmax[i]
					}
					denom := float32(math.Sqrt(float64(s)))/bc2Sqrt + eps
					pd[i] += stepSize * (m[i] / denom)
				}
			})
		}
	}
}

// String describes the Adam in the manner of DGL's and PyTorch's repr.
func (a *Adam) String() string {
	o := a.Options
	return fmt.Sprintf("%s(lr=%s, betas=(%g, %g), eps=%g, weight_decay=%g, amsgrad=%t, groups=%d)",
		a.name, a.lrString(o.LR), o.Betas[0], o.Betas[1], o.Eps, o.WeightDecay, o.AMSGrad, len(a.groups))
}

var (
	_ Optimizer = (*SGD)(nil)
	_ Optimizer = (*Adam)(nil)
	_ Optimizer = (*AdamW)(nil)
)
