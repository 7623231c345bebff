package tensor

import "sync/atomic"

// node records how an op's output gradient flows to its inputs. backward
// receives the output gradient (same shape as the output) and returns one
// gradient per input, nil where an input needs none.
type node struct {
	op       string
	inputs   []*Tensor
	backward func(grad *Tensor) []*Tensor
}

var noGradDepth atomic.Int32

// GradEnabled reports whether ops record autograd history.
func GradEnabled() bool { return noGradDepth.Load() == 0 }

// NoGrad runs f with autograd recording switched off (torch.no_grad), for
// evaluation and parameter updates. It nests.
func NoGrad(f func()) {
	noGradDepth.Add(1)
	defer noGradDepth.Add(-1)
	f()
}

// SetGradEnabled switches autograd recording on or off for code that cannot
// use a closure and returns the previous setting (torch.set_grad_enabled).
func SetGradEnabled(on bool) (prev bool) {
	prev = GradEnabled()
	if on && !prev {
		noGradDepth.Store(0)
	} else if !on && prev {
		noGradDepth.Store(1)
	}
	return prev
}

// needsGrad reports whether an op over inputs must record history.
func needsGrad(inputs ...*Tensor) bool {
	if noGradDepth.Load() != 0 {
		return false
	}
	for _, in := range inputs {
		if in != nil && in.requiresGrad {
			return true
		}
	}
	return false
}

// record attaches history to out when any input requires grad.
func record(out *Tensor, op string, inputs []*Tensor, bw func(g *Tensor) []*Tensor) *Tensor {
	if !needsGrad(inputs...) {
		return out
	}
	out.requiresGrad = true
	out.node = &node{op: op, inputs: inputs, backward: bw}
	return out
}

// Backward computes the gradient of t with respect to every leaf that
// requires grad and adds it to that leaf's Grad (loss.backward()). t must
// hold one element; use BackwardWith for a non-scalar output. The recorded
// history is released afterwards, as PyTorch does without retain_graph.
func (t *Tensor) Backward() {
	if t.n != 1 {
		panicf(ErrShape, "Backward", "backward needs a one-element tensor, got shape %v; use BackwardWith", t.shape)
	}
	t.BackwardWith(fullOn("Backward", t.st.be, t.dtype, 1, t.shape...)) // the seed, on t's device
}

// BackwardWith back-propagates the gradient grad (same shape as t; a float
// grad of another dtype is cast to t's). Every gradient has the dtype of
// its tensor, as in PyTorch: a bfloat16 activation receives a bfloat16
// gradient, a float32 parameter a float32 one. Autocast is off while the
// backward pass runs (each op's backward computes in the dtypes its
// forward chose).
func (t *Tensor) BackwardWith(grad *Tensor) {
	defer hookOp("Backward")()
	if !t.requiresGrad {
		panicf(ErrShape, "Backward", "tensor does not require grad and has no grad_fn")
	}
	if !sameShape(grad.shape, t.shape) {
		panicf(ErrShape, "Backward", "gradient shape %v does not match tensor shape %v", grad.shape, t.shape)
	}
	backendOf("Backward", t, grad)
	if grad.dtype != t.dtype && grad.dtype.IsFloatingPoint() && t.dtype.IsFloatingPoint() {
		grad = castRaw(grad, t.dtype)
	}
	// Topological order by iterative depth-first search.
	var order []*Tensor
	seen := map[*Tensor]bool{}
	type frame struct {
		t    *Tensor
		next int
	}
	stack := []frame{{t, 0}}
	seen[t] = true
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.t.node != nil && f.next < len(f.t.node.inputs) {
			in := f.t.node.inputs[f.next]
			f.next++
			if in != nil && in.requiresGrad && !seen[in] {
				seen[in] = true
				stack = append(stack, frame{in, 0})
			}
			continue
		}
		order = append(order, f.t)
		stack = stack[:len(stack)-1]
	}
	prev := SetGradEnabled(false)
	defer SetGradEnabled(prev)
	if on, dt := AutocastState(); on {
		SetAutocast(false, dt)
		defer SetAutocast(true, dt)
	}
	grads := map[*Tensor]*Tensor{t: grad}
	for i := len(order) - 1; i >= 0; i-- {
		cur := order[i]
		g := grads[cur]
		delete(grads, cur)
		if g == nil {
			continue
		}
		if cur.node == nil {
			if cur.grad == nil {
				cur.grad = g.Clone()
			} else {
				addInPlace(cur.grad, g)
			}
			continue
		}
		if cur.node.backward == nil {
			panicf(ErrShape, "Backward", "the history of this tensor was already released by an earlier Backward (%s)", cur.node.op)
		}
		ins := runBackward(cur.node, g)
		for j, in := range cur.node.inputs {
			if in == nil || !in.requiresGrad || j >= len(ins) || ins[j] == nil {
				continue
			}
			gi := ins[j]
			if !sameShape(gi.shape, in.shape) {
				panicf(ErrShape, "Backward", "%s produced gradient %v for input %v", cur.node.op, gi.shape, in.shape)
			}
			if gi.dtype != in.dtype {
				gi = castRaw(gi, in.dtype) // a gradient has its tensor's dtype
			}
			if old := grads[in]; old != nil {
				// A fresh sum: gi or old may be aliased by other entries.
				grads[in] = sumFresh(old, gi)
			} else {
				grads[in] = gi
			}
		}
		cur.node.backward = nil
		cur.node.inputs = nil
	}
}

// sumFresh returns a + b in a new tensor of a's dtype on a's device
// (same-shaped float tensors): one pass of the backend's Binary when the
// dtypes agree, else a copy of a with b accumulated into it.
func sumFresh(a, b *Tensor) *Tensor {
	if a.dtype == b.dtype {
		be := backendOf("Backward", a, b)
		out := emptyOn("Backward", be, a.dtype, false, a.shape...)
		be.Binary(BinaryAdd, out, a, b)
		return out
	}
	sum := a.Clone()
	addInPlace(sum, b)
	return sum
}

// addInPlace does dst += src for same-shaped float tensors on one device
// (the backend's Accumulate: a low-precision dst is widened, added to in
// float32 and rounded once per element).
func addInPlace(dst, src *Tensor) {
	backendOf("Backward", dst, src).Accumulate(dst, src)
}
