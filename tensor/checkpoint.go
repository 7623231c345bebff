package tensor

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrCheckpoint classifies misuse of Checkpoint: a nil function, or a
// function whose recomputation differs from its forward pass (another
// number, shape or dtype of outputs, or other dropout draws).
var ErrCheckpoint = errors.New("checkpoint recomputation differs from the forward pass")

// Checkpoint runs f on inputs without keeping its intermediate activations
// and recomputes them during Backward (gradient checkpointing,
// torch.utils.checkpoint.checkpoint with use_reentrant=False). It returns
// f's outputs, which carry one autograd node for the whole of f.
//
// Forward: f runs with grad recording switched off, so the tensors it
// creates are garbage as soon as f returns; only inputs and outputs stay
// alive. Backward: when the gradient reaches the outputs, f runs again with
// grad recording on, on detached copies of the inputs that require grad
// (leaves, so the recomputed graph ends there), under the autocast state
// (AutocastState) of the forward call and with every Dropout drawing the
// mask it drew in the forward pass; the output gradients are then
// back-propagated through the recomputed graph, which is released
// afterwards. The inputs receive their gradients through the node
// Checkpoint recorded; tensors that f reads without taking them as inputs —
// parameters, typically a layer's weights — are reached by the recomputed
// graph directly and their Grad accumulates once, as without checkpointing.
// Gradients equal those of f run plainly, up to float32 rounding where a
// kernel's summation order is not fixed.
//
// Memory and time: a chain of n layers checkpointed per segment keeps the
// segment boundaries plus one segment's activations instead of every
// layer's, for one extra forward pass of each checkpointed segment (Chen,
// Xu, Zhang & Guestrin, "Training Deep Nets with Sublinear Memory Cost",
// 2016: segments of sqrt(n) layers give O(sqrt(n)) memory). Checkpointing
// the last segment before the loss saves nothing, since its recomputation
// starts at once.
//
// Outputs: every floating-point output (float32, float16, bfloat16)
// requires grad when grad recording is on at the call (f runs without
// recording, so Checkpoint cannot tell which outputs depend on a
// parameter); an output whose recomputed value does not require grad
// passes no gradient on, and when none does, Backward through Checkpoint
// only costs the recomputation. Outputs of other dtypes, and nil
// outputs, are returned as they are. When grad recording is off at the call
// (NoGrad, evaluation), Checkpoint simply returns f(inputs).
//
// Rules for f, as torch's: it must compute the same thing when run again —
// the same number, shapes and dtypes of outputs and the same sequence of
// Dropout calls (Rand and Randn streams are not replayed). A tensor with
// autograd history that f uses must be passed in inputs, not captured: the
// recomputed graph stops only at leaves, so a captured non-leaf would be
// back-propagated through early. Checkpoints nest: a Checkpoint called
// inside f runs f's inner function plainly during the outer forward and
// checkpoints it during the outer recomputation, with the same dropout
// masks. Like autocast, the dropout replay is process-wide: no other
// goroutine may call Dropout while a checkpointed function runs.
//
// Checkpoint panics with ErrCheckpoint when f is nil, and during Backward
// when the recomputation differs from the forward pass. A panic inside f
// propagates after the grad mode, the autocast state and the dropout replay
// state are restored. Each call records a new node; call it once per
// forward pass.
func Checkpoint(f func(inputs []*Tensor) []*Tensor, inputs ...*Tensor) []*Tensor {
	defer hookOp("Checkpoint")()
	if f == nil {
		panicf(ErrCheckpoint, "Checkpoint", "function is nil")
	}
	inputs = append([]*Tensor(nil), inputs...)
	if !GradEnabled() {
		return f(inputs)
	}
	c := &checkpointed{f: f, inputs: inputs}
	c.autocast, c.autocastDT = AutocastState()
	tape := &rngTape{}
	outs := func() []*Tensor {
		depth := noGradDepth.Add(1) - 1
		defer noGradDepth.Store(depth)
		defer popTapes(pushTape(tape))
		return f(append([]*Tensor(nil), inputs...))
	}()
	c.draws = tape.draws

	// One node (on the token) holds the inputs and recomputes f; each
	// floating-point output's node stores its gradient and passes an empty
	// gradient on to the token, which Backward processes after every output
	// that leads to it (topological order).
	token := Zeros(1)
	token.requiresGrad = true
	token.node = &node{op: "Checkpoint", inputs: inputs, backward: func(*Tensor) []*Tensor { return c.backward() }}
	c.grads = make([]*Tensor, len(outs))
	c.shapes = make([][]int, len(outs))
	c.dtypes = make([]DType, len(outs))
	res := make([]*Tensor, len(outs))
	for i, o := range outs {
		if o == nil {
			continue
		}
		c.shapes[i], c.dtypes[i] = o.Shape(), o.dtype
		if o.dtype != Float32 && o.dtype != Float16 && o.dtype != BFloat16 {
			res[i] = o
			continue
		}
		r := o.Detach()
		r.requiresGrad = true
		r.node = &node{op: "Checkpoint.output", inputs: []*Tensor{token}, backward: func(g *Tensor) []*Tensor {
			c.grads[i] = g
			return []*Tensor{Zeros(1)}
		}}
		res[i] = r
	}
	return res
}

// checkpointed is what a Checkpoint node keeps: the function, its inputs,
// the forward's autocast state and dropout draws, and the output gradients
// gathered during Backward.
type checkpointed struct {
	f          func([]*Tensor) []*Tensor
	inputs     []*Tensor
	autocast   bool
	autocastDT DType
	draws      []*rngDraw
	shapes     [][]int
	dtypes     []DType
	grads      []*Tensor
}

// backward recomputes f with grad recording on and back-propagates the
// gathered output gradients through the recomputed graph; it returns the
// gradients of the inputs.
func (c *checkpointed) backward() []*Tensor {
	defer hookOp("Checkpoint.recompute")()
	grads := c.grads
	c.grads = nil
	det := make([]*Tensor, len(c.inputs))
	for i, in := range c.inputs {
		det[i] = in
		if in != nil && in.requiresGrad {
			det[i] = in.Detach()
			det[i].requiresGrad = true
		}
	}
	tape := &rngTape{replay: true, draws: c.draws}
	outs := func() []*Tensor {
		depth := noGradDepth.Swap(0)
		defer noGradDepth.Store(depth)
		prevAC, prevDT := SetAutocast(c.autocast, c.autocastDT)
		defer SetAutocast(prevAC, prevDT)
		defer popTapes(pushTape(tape))
		return c.f(append([]*Tensor(nil), det...))
	}()
	if tape.pos != len(tape.draws) {
		panicf(ErrCheckpoint, "Checkpoint", "the recomputation drew %d dropout masks, the forward pass %d: the checkpointed function must call Dropout the same way each time", tape.pos, len(tape.draws))
	}
	c.draws = nil // the masks now live in the recomputed graph's Dropout nodes
	if len(outs) != len(c.shapes) {
		panicf(ErrCheckpoint, "Checkpoint", "the recomputation returned %d outputs, the forward pass %d", len(outs), len(c.shapes))
	}
	var roots, rootGrads []*Tensor
	for i, o := range outs {
		if (o == nil) != (c.shapes[i] == nil) || o != nil && (o.dtype != c.dtypes[i] || !sameShape(o.shape, c.shapes[i])) {
			panicf(ErrCheckpoint, "Checkpoint", "output %d is %s on recomputation, %s in the forward pass", i, describe(o), describeShape(c.dtypes[i], c.shapes[i]))
		}
		if o != nil && o.requiresGrad && grads[i] != nil {
			roots = append(roots, o)
			rootGrads = append(rootGrads, grads[i])
		}
	}
	if len(roots) > 0 {
		// A one-element root whose node hands each output its gradient:
		// one Backward over the recomputed graph for all outputs.
		root := Zeros(1)
		root.requiresGrad = true
		// The gradients are handed over, not kept: each is released as
		// soon as Backward has consumed it.
		grads = nil
		root.node = &node{op: "Checkpoint.outputs", inputs: roots, backward: func(*Tensor) []*Tensor {
			g := rootGrads
			rootGrads = nil
			return g
		}}
		roots = nil
		root.BackwardWith(Ones(1))
	}
	out := make([]*Tensor, len(c.inputs))
	for i, d := range det {
		if d != c.inputs[i] {
			out[i] = d.grad
		}
	}
	return out
}

func describe(t *Tensor) string {
	if t == nil {
		return "nil"
	}
	return describeShape(t.dtype, t.shape)
}

func describeShape(dt DType, shape []int) string {
	if shape == nil {
		return "nil"
	}
	return fmt.Sprintf("%s%v", dt, shape)
}

// Dropout replay. While a checkpointed function runs, Dropout takes its
// Philox (seed, offset) from checkpointCounters instead of its generator:
// a forward pass records each draw on a tape, a recomputation replays its
// tape in order. Tapes stack for nested checkpoints: a draw comes from the
// topmost replaying tape (or the generator when none replays) and is
// recorded on every recording tape above it.

// rngDraw is one Dropout call's counter reservation, and the mask bits the
// forward pass's DropoutAt kept where its backend keeps them (the CPU;
// Backend.DropoutMaskWords), which its recomputation reuses instead of
// drawing them again (n/8 bytes kept from the forward pass to the
// recomputation). A GPU keeps none and redraws the mask from (seed, base).
type rngDraw struct {
	gen        *Generator
	n          int // counter values reserved
	seed, base uint64
	p          float32
	mask       *Tensor // int64 words of keep bits, or nil where none is kept
}

type rngTape struct {
	replay bool
	draws  []*rngDraw
	pos    int // next draw to replay
}

var (
	tapeMu sync.Mutex
	tapes  []*rngTape
	tapeOn atomic.Bool // len(tapes) > 0: Dropout's one extra check
)

// pushTape puts t on top of the stack and returns its position.
func pushTape(t *rngTape) int {
	tapeMu.Lock()
	defer tapeMu.Unlock()
	tapes = append(tapes, t)
	tapeOn.Store(true)
	return len(tapes) - 1
}

// popTapes removes the tape at position i and every tape above it (left by
// a panic inside a nested checkpoint).
func popTapes(i int) {
	tapeMu.Lock()
	defer tapeMu.Unlock()
	if i < len(tapes) {
		clear(tapes[i:])
		tapes = tapes[:i]
	}
	tapeOn.Store(len(tapes) > 0)
}

// checkpointCounters returns the (seed, base) for a Dropout reserving n
// counter values of gen while a tape is active, the mask a replayed draw
// of the same p holds (nil when there is none), and the draw recorded on
// the recording tapes (nil when none records), whose mask the caller sets.
func checkpointCounters(gen *Generator, n int, p float32) (seed, base uint64, mask *Tensor, rec *rngDraw) {
	tapeMu.Lock()
	defer tapeMu.Unlock()
	r := len(tapes) - 1
	for r >= 0 && !tapes[r].replay {
		r--
	}
	if r < 0 {
		seed, base = gen.seed, gen.reserve(n)
	} else {
		t := tapes[r]
		if t.pos >= len(t.draws) {
			panicf(ErrCheckpoint, "Dropout", "the recomputation draws more dropout masks than the forward pass (%d): the checkpointed function must call Dropout the same way each time", len(t.draws))
		}
		d := t.draws[t.pos]
		if d.gen != gen || d.n != n {
			panicf(ErrCheckpoint, "Dropout", "dropout call %d of the recomputation covers %d elements (groups of 4), the forward pass's %d, or uses another generator", t.pos, n, d.n)
		}
		t.pos++
		seed, base = d.seed, d.base
		if d.p == p {
			mask = d.mask
		}
	}
	if r+1 < len(tapes) {
		rec = &rngDraw{gen: gen, n: n, seed: seed, base: base, p: p, mask: mask}
		for _, t := range tapes[r+1:] {
			t.draws = append(t.draws, rec)
		}
	}
	return seed, base, mask, rec
}
