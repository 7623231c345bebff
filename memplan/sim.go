package memplan

import "fmt"

// The planner predicts a training step by replaying it symbolically: every
// tensor the engine would allocate is a buffer of known size, every op that
// autograd records is a node holding its inputs, and Backward is simulated
// with the engine's own algorithm (tensor.Tensor.BackwardWith: depth-first
// topological order over the inputs that require grad, one pending gradient
// per tensor, a fresh sum when two gradients meet). A buffer is live while
// something holds it: the program (a variable, a cache), a node, the
// backward pass's topological order, or the pending-gradient map. That is
// exactly what the engine's memory accounting reports when garbage is
// collected at every op boundary (see Measure), and what PyTorch's
// reference counting would report for the same program.

// category classifies a buffer for the breakdown of a Plan.
type category int

const (
	catGraph       category = iota // graph structure: CSC/CSR/COO arrays, sampled blocks
	catFeatures                    // dataset tensors: features, labels, masks, split ids; a batch's gathered features
	catParams                      // parameters
	catGrads                       // parameter gradients (.Grad)
	catOptimizer                   // optimizer state (Adam moments)
	catActivations                 // forward tensors kept for backward
	catWorkspace                   // gradients in flight, temporaries, caches, sampler buffers
	numCats
)

var catNames = [numCats]string{"graph structure", "features", "parameters", "gradients", "optimizer state", "activations", "workspace"}

// blk is one allocation. counted tells whether the engine's memory
// accounting (tensor.MemoryAllocated) sees it: tensors and the sampler's
// CountBytes buffers do; plain Go slices (graph arrays, optimizer state,
// cached adjacency reversals) do not.
type blk struct {
	bytes   int64
	cat     category
	counted bool
	phantom bool // counted by the accounting but sharing memory already counted (no real bytes)
	refs    int
}

// sim tracks live bytes and their peak.
type sim struct {
	live, liveCounted int64
	by, byCounted     [numCats]int64
	peak, peakCounted int64
	peakBy            [numCats]int64
	peakByCounted     [numCats]int64
	peakAt            string
	at                string // label of the op being simulated
	layer             int    // layer being simulated, -1 outside the model
	noGrad            int    // > 0 inside tensor.NoGrad / a checkpointed forward
	ac                int64  // autocast: the low dtype's element size while on, else 0
	tmps              []*blk // the current op's temporaries
	// Dropout masks of a checkpointed forward pass, kept for its
	// recomputation (tensor's rngDraw.mask): recorded while maskTape is
	// set, reused from maskReplay (in order) while it is.
	maskTape   *[]*tn
	maskReplay []*tn
}

// alloc returns a new buffer held once (by its creator).
func (s *sim) alloc(c category, bytes int64, counted bool) *blk {
	return s.allocBlk(&blk{bytes: bytes, cat: c, counted: counted, refs: 1})
}

// phantomAlloc returns bytes that the accounting counts a second time
// (a tensor wrapping a slice another tensor already counts).
func (s *sim) phantomAlloc(c category, bytes int64) *blk {
	return s.allocBlk(&blk{bytes: bytes, cat: c, counted: true, phantom: true, refs: 1})
}

func (s *sim) allocBlk(b *blk) *blk {
	bytes, c, counted := b.bytes, b.cat, b.counted
	if !b.phantom {
		s.live += bytes
		s.by[c] += bytes
	}
	if counted {
		s.liveCounted += bytes
		s.byCounted[c] += bytes
	}
	if s.live > s.peak {
		s.peak, s.peakBy, s.peakAt = s.live, s.by, s.at
	}
	if s.liveCounted > s.peakCounted {
		s.peakCounted, s.peakByCounted = s.liveCounted, s.byCounted
	}
	return b
}

func (s *sim) ref(b *blk) {
	if b != nil {
		b.refs++
	}
}

func (s *sim) unref(b *blk) {
	if b == nil {
		return
	}
	b.refs--
	switch {
	case b.refs == 0:
		if !b.phantom {
			s.live -= b.bytes
			s.by[b.cat] -= b.bytes
		}
		if b.counted {
			s.liveCounted -= b.bytes
			s.byCounted[b.cat] -= b.bytes
		}
	case b.refs < 0:
		panic(fmt.Sprintf("memplan: internal error: buffer of %d bytes released twice at %s", b.bytes, s.at))
	}
}

// tn is a symbolic tensor: a shape, an element size and the buffer holding
// its elements (shared by views).
type tn struct {
	shape []int64
	elem  int64
	b     *blk
	rg    bool   // requires grad
	leaf  bool   // a parameter
	grad  *tn    // a parameter's accumulated gradient
	node  *snode // the op that made it, nil for leaves and untracked tensors
}

// snode is a recorded op: its inputs (held until Backward processes it) and
// its gradient rule, which returns one gradient per input (nil where none
// is computed); each returned gradient holds one reference to its buffer.
type snode struct {
	op     string
	inputs []*tn
	back   func(g *tn) []*tn
}

func numel(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

func (t *tn) numel() int64 { return numel(t.shape) }

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// newT allocates a tensor of the given shape and element size.
func (s *sim) newT(c category, elem int64, counted bool, shape ...int64) *tn {
	sh := append([]int64(nil), shape...)
	return &tn{shape: sh, elem: elem, b: s.alloc(c, numel(sh)*elem, counted)}
}

// f32T allocates a counted float32 tensor.
func (s *sim) f32T(c category, shape ...int64) *tn { return s.newT(c, f32, true, shape...) }

// view returns a tensor sharing t's buffer (Narrow, Reshape, Detach),
// holding one more reference to it.
func (s *sim) view(t *tn, shape ...int64) *tn {
	s.ref(t.b)
	return &tn{shape: append([]int64(nil), shape...), elem: t.elem, b: t.b}
}

// drop releases the program's reference to each tensor (a variable going
// out of use).
func (s *sim) drop(ts ...*tn) {
	for _, t := range ts {
		if t != nil {
			s.unref(t.b)
		}
	}
}

// param allocates a parameter (a leaf that requires grad).
func (s *sim) param(shape ...int64) *tn {
	t := s.f32T(catParams, shape...)
	t.rg, t.leaf = true, true
	return t
}

// record attaches a node to out when grad recording is on and an input
// requires grad, as tensor's record; the node holds its inputs.
func (s *sim) record(out *tn, op string, inputs []*tn, back func(g *tn) []*tn) *tn {
	if s.noGrad > 0 {
		return out
	}
	need := false
	for _, in := range inputs {
		if in != nil && in.rg {
			need = true
		}
	}
	if !need {
		return out
	}
	for _, in := range inputs {
		if in != nil {
			s.ref(in.b)
		}
	}
	out.rg = true
	out.node = &snode{op: s.at, inputs: inputs, back: back}
	return out
}

// share returns g as a gradient (an alias holding one more reference).
func (s *sim) share(g *tn) *tn {
	s.ref(g.b)
	return &tn{shape: g.shape, elem: g.elem, b: g.b}
}

// backward simulates t.Backward() as tensor.Tensor.BackwardWith does it.
func (s *sim) backward(t *tn) {
	s.at = "Backward"
	var order []*tn
	seen := map[*tn]bool{t: true}
	type frame struct {
		t    *tn
		next int
	}
	stack := []frame{{t, 0}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.t.node != nil && f.next < len(f.t.node.inputs) {
			in := f.t.node.inputs[f.next]
			f.next++
			if in != nil && in.rg && !seen[in] {
				seen[in] = true
				stack = append(stack, frame{in, 0})
			}
			continue
		}
		order = append(order, f.t)
		stack = stack[:len(stack)-1]
	}
	for _, o := range order {
		s.ref(o.b) // the order slice keeps every tensor that requires grad
	}
	// Garbage made between two ops (a consumed gradient, the operands of a
	// sum, a released node's inputs) is only collected at the next op's
	// start, so it is released lazily (pending) until then.
	var pending []*blk
	flush := func() {
		for _, b := range pending {
			s.unref(b)
		}
		pending = pending[:0]
	}
	grads := map[*tn]*tn{t: s.gradE(t.elem, t.shape)}
	for i := len(order) - 1; i >= 0; i-- {
		cur := order[i]
		g := grads[cur]
		delete(grads, cur)
		if g == nil {
			continue
		}
		if cur.node == nil {
			if cur.grad == nil {
				s.at = "Backward: accumulate parameter gradient"
				c := catGrads
				if !cur.leaf {
					c = catWorkspace // a detached input's gradient (checkpointing)
				}
				cur.grad = &tn{shape: cur.shape, elem: g.elem, b: s.alloc(c, numel(cur.shape)*g.elem, true)}
			}
			pending = append(pending, g.b)
			continue
		}
		flush() // the op's start
		s.at = "backward of " + cur.node.op
		ins := cur.node.back(g)
		s.endOp()
		s.unref(g.b) // the op's end: the gradient of cur is garbage
		for j, in := range cur.node.inputs {
			if j >= len(ins) || ins[j] == nil {
				continue
			}
			gi := ins[j]
			if in == nil || !in.rg {
				s.unref(gi.b)
				continue
			}
			if gi.elem != in.elem { // a gradient has its tensor's dtype
				c := s.gradE(in.elem, in.shape)
				pending = append(pending, gi.b)
				gi = c
			}
			if old := grads[in]; old != nil {
				s.at = "Backward: sum of gradients (" + cur.node.op + ")"
				sum := s.gradE(old.elem, in.shape)
				pending = append(pending, old.b, gi.b)
				grads[in] = sum
			} else {
				grads[in] = gi
			}
		}
		for _, in := range cur.node.inputs {
			if in != nil {
				pending = append(pending, in.b)
			}
		}
		cur.node = nil
	}
	flush()
	for _, o := range order {
		s.unref(o.b)
	}
}
