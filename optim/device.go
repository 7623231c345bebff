package optim

import (
	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Parameters off the CPU (a model moved with To("cuda"), or to "meta" by
// memplan) keep their optimizer state as tensors on the parameter's device
// and are updated there by tensor's in-place kernels (tensor.AdamStep, one
// fused kernel per tensor; AddScaledInPlace and ScaleInPlace for SGD), so a
// step never copies a parameter or a gradient to the host. The state
// dict's tensors stay on that device too.

// onHost reports whether p's update runs on the host slices.
var onHost = func(p *tensor.Tensor) bool { return p.Device() == "cpu" }

// deviceGrad returns p's gradient, or nil when it has none; it panics when
// the gradient does not fit the parameter.
func (b *base) deviceGrad(p *tensor.Tensor) *tensor.Tensor {
	g := p.Grad()
	if g == nil {
		return nil
	}
	if g.Numel() != p.Numel() || g.DType() != tensor.Float32 || g.Device() != p.Device() {
		panicf(engerr.ErrShape, b.name+".Step", "gradient %s%v on %s does not fit parameter %v on %s",
			g.DType(), g.Shape(), g.Device(), p.Shape(), p.Device())
	}
	return g
}

// deviceState returns p's state with its first nbuf buffers as zeroed
// tensors on p's device (allocated where missing); fresh reports whether
// buffer 0 was just made.
func (b *base) deviceState(p *tensor.Tensor, nbuf int) (s *paramState, fresh bool) {
	s = b.state[p]
	if s == nil {
		s = &paramState{}
		b.state[p] = s
	}
	for i := 0; i < nbuf; i++ {
		if s.dev[i] == nil {
			s.dev[i] = tensor.ZerosOn(p.Device(), tensor.Float32, p.Shape()...)
			fresh = fresh || i == 0
		}
	}
	return s, fresh
}

// adamDevice is one Adam / AdamW update of p on its device.
func (a *Adam) adamDevice(g *ParamGroup, p *tensor.Tensor) {
	grad := a.deviceGrad(p)
	if grad == nil {
		return
	}
	o := a.Options
	if o.AMSGrad || o.Maximize {
		panicf(engerr.ErrNotImplemented, a.name+".Step", "AMSGrad and Maximize run on the CPU only; parameter on %s", p.Device())
	}
	s, _ := a.deviceState(p, 2)
	s.step++
	tensor.AdamStep(p, grad, s.dev[0], s.dev[1], tensor.AdamConfig{LR: g.LR, Beta1: o.Betas[0], Beta2: o.Betas[1],
		Eps: o.Eps, WeightDecay: g.WeightDecay, Step: int(s.step), Decoupled: a.decoupled})
}

// sgdDevice is one SGD update of p on its device, torch's arithmetic
// rearranged into in-place scalings and axpys:
//
//	d = ±grad + wd p;  buf = d (first step) or momentum buf + (1-dampening) d
//	p -= lr (d + momentum buf) (Nesterov) or lr buf (momentum) or lr d
func (s *SGD) sgdDevice(g *ParamGroup, p *tensor.Tensor) {
	grad := s.deviceGrad(p)
	if grad == nil {
		return
	}
	o := s.Options
	lr, wd, mom, damp := float32(-g.LR), float32(g.WeightDecay), float32(o.Momentum), float32(1-o.Dampening)
	sign := float32(1)
	if o.Maximize {
		sign = -1
	}
	if o.Momentum == 0 {
		if wd != 0 {
			p.ScaleInPlace(1 + lr*wd)
		}
		p.AddScaledInPlace(grad, lr*sign)
		return
	}
	st, first := s.deviceState(p, 1)
	st.step++
	buf := st.dev[0]
	c := damp
	if first {
		c = 1
	} else {
		buf.ScaleInPlace(mom)
	}
	buf.AddScaledInPlace(grad, c*sign)
	if wd != 0 {
		buf.AddScaledInPlace(p, c*wd)
	}
	if !o.Nesterov {
		p.AddScaledInPlace(buf, lr)
		return
	}
	// p + lr (±grad + wd p + mom buf)
	if wd != 0 {
		p.ScaleInPlace(1 + lr*wd)
	}
	p.AddScaledInPlace(grad, lr*sign)
	p.AddScaledInPlace(buf, lr*mom)
}
