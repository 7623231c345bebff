package tensor

import (
	le "encoding/binary"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
)

// RandomKernels are the primitive kernels of dropout: masks drawn from the
// counter-based Philox4x32-10 stream of (seed, base), element i kept when
// word i%4 of the block at counter (i/4, base), shifted right by 8 and
// scaled by 2^-24, is >= p, and kept elements scaled by 1/(1-p). Every
// Backend implements them: cpu_random.go (the mask kept as bits),
// cuda_random.go (kernels.DropoutForward / DropoutBackward, the mask
// regenerated), meta.go. Rand and Randn draw on the host from a
// generator's sequential stream and need no kernel.
type RandomKernels interface {
	// DropoutMaskWords returns how many int64 words of mask the backend
	// keeps from the forward pass of a dropout of n elements for its
	// backward pass (0 when it regenerates the mask from (seed, base)).
	// The op allocates them.
	DropoutMaskWords(n int) int
	// DropoutForward writes out = x/(1-p) where the mask of (seed, base, p)
	// keeps the element, else 0; out and x have one shape and float dtype.
	// mask, of DropoutMaskWords(x.n) int64 words (nil when that is 0),
	// receives the mask, or holds it already when reuse is set (the mask
	// of an earlier call with the same seed, base, p and size).
	DropoutForward(out, x, mask *Tensor, reuse bool, p float32, seed, base uint64)
	// DropoutBackward writes gx = g/(1-p) where the forward pass kept the
	// element, else 0, from mask (as DropoutForward left it) or, where the
	// backend keeps none, from (seed, base, p).
	DropoutBackward(gx, g, mask *Tensor, p float32, seed, base uint64)
}

// Generator is a seed with a running Philox offset, plus a sequential
// stream for initialisation and shuffles. Dropout masks are a pure function
// of the seed and the offset an op reserved (counter-based Philox4x32, as
// PyTorch's CUDA generator), so a mask can be regenerated exactly (gradient
// checkpointing), any worker can draw its slice independently, and the CPU
// and a GPU draw the same mask. It is safe for concurrent use.
type Generator struct {
	seed    uint64
	counter atomic.Uint64
	mu      sync.Mutex
	pcg     *rand.Rand // for parameter initialisation and shuffles
	src     *rand.PCG  // pcg's source, whose state GetState saves
}

// NewGenerator returns a generator seeded with seed.
func NewGenerator(seed int64) *Generator {
	g := &Generator{}
	g.Seed(seed)
	return g
}

// Seed resets g to the start of the stream of seed.
func (g *Generator) Seed(seed int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seed = uint64(seed)
	g.counter.Store(0)
	g.src = rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)
	g.pcg = rand.New(g.src)
}

// generatorStateMagic starts a GetState result; then come the seed and the Philox offset (little-endian uint64 each), then the
// PCG stream's MarshalBinary form.
const generatorStateMagic = "gnnrepl-gen1"

// GetState returns g's whole state as bytes (torch.Generator.get_state):
// the seed, the Philox offset of the dropout masks drawn so far and the
// position of the sequential stream. SetState on any generator makes it
// draw exactly what g draws next.
func (g *Generator) GetState() []byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	b := append([]byte(nil), generatorStateMagic...)
	b = le.LittleEndian.AppendUint64(b, g.seed)
	b = le.LittleEndian.AppendUint64(b, g.counter.Load())
	pcg, err := g.src.MarshalBinary()
	if err != nil { // PCG.MarshalBinary cannot fail
		panic(err)
	}
	return append(b, pcg...)
}

// SetState restores a state GetState returned (torch.Generator.set_state).
// It returns an error of kind ErrArgument, and changes nothing, when state
// is not such a state.
func (g *Generator) SetState(state []byte) error {
	const op = "Generator.SetState"
	n := len(generatorStateMagic)
	if len(state) < n+16 || string(state[:n]) != generatorStateMagic {
		return engerr.New(ErrArgument, "tensor", op, "state (%d bytes) is not a generator state from GetState", len(state))
	}
	src := &rand.PCG{}
	if err := src.UnmarshalBinary(state[n+16:]); err != nil {
		return engerr.New(ErrArgument, "tensor", op, "state (%d bytes): its PCG stream: %v", len(state), err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seed = le.LittleEndian.Uint64(state[n:])
	g.counter.Store(le.LittleEndian.Uint64(state[n+8:]))
	g.src, g.pcg = src, rand.New(src)
	return nil
}

// reserve claims n consecutive counter values and returns the first.
func (g *Generator) reserve(n int) uint64 { return g.counter.Add(uint64(n)) - uint64(n) }

// Float64 returns a uniform value in [0, 1) from g's sequential stream.
func (g *Generator) Float64() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pcg.Float64()
}

// NormFloat64 returns a standard normal value from g's sequential stream.
func (g *Generator) NormFloat64() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pcg.NormFloat64()
}

// Perm returns a random permutation of [0, n) as int64 (torch.randperm).
func (g *Generator) Perm(n int) []int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := make([]int64, n)
	for i := range p {
		p[i] = int64(i)
	}
	g.pcg.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

var defaultGen = NewGenerator(0)

// ManualSeed reseeds the default generator (torch.manual_seed).
func ManualSeed(seed int64) { defaultGen.Seed(seed) }

// DefaultGenerator returns the generator ops use when none is given.
func DefaultGenerator() *Generator { return defaultGen }

// Rand returns a float32 tensor of uniform values in [lo, hi) drawn from
// gen's sequential stream (the default generator when nil), in element
// order, on the CPU (move it with To).
func Rand(gen *Generator, lo, hi float32, shape ...int) *Tensor {
	defer hookOp("Rand")()
	if gen == nil {
		gen = defaultGen
	}
	t := emptyOn("Rand", cpu, Float32, false, shape...)
	cpu.uniform(t, gen, lo, hi)
	return t
}

// Randn returns a float32 tensor of standard normal values from gen's
// sequential stream (the default generator when nil), on the CPU.
func Randn(gen *Generator, shape ...int) *Tensor {
	defer hookOp("Randn")()
	if gen == nil {
		gen = defaultGen
	}
	t := emptyOn("Randn", cpu, Float32, false, shape...)
	cpu.normal(t, gen)
	return t
}

// Dropout zeroes each element with probability p and scales the rest by
// 1/(1-p) when training is set (inverted dropout, Srivastava et al. 2014);
// otherwise it returns x. The mask comes from gen's counter stream (the
// default generator when gen is nil). On the CPU the mask is kept as bits
// (one bit per element, counted in the memory accounting) for the backward
// pass; on a GPU it is regenerated. Inside a Checkpoint the draw is
// recorded and replayed when the function is recomputed, reusing the
// forward pass's mask bits. Float32, float16 or bfloat16 (the result has
// x's dtype; kept low-precision values are scaled in float32 and rounded
// once; a GPU has float32 kernels only), any shape, on x's device. Panics
// with ErrShape unless 0 <= p <= 1, and with ErrDType for a
// non-floating-point x. Kernels: cpu_random.go, cuda_random.go
// (kernels.DropoutForward / DropoutBackward).
func Dropout(x *Tensor, p float32, training bool, gen *Generator) *Tensor {
	defer hookOp("Dropout")()
	if p < 0 || p > 1 || p != p {
		panicf(ErrArgument, "Dropout", "p must be in [0, 1], got %g", p)
	}
	if !training || p == 0 {
		return x
	}
	checkFloats("Dropout", x)
	if gen == nil {
		gen = defaultGen
	}
	if p == 1 {
		return MulScalar(x, 0)
	}
	// One Philox offset per element quadruple, as PyTorch advances its
	// Philox offset: masks of successive calls never share counters.
	// Inside a checkpointed function the draw is recorded, or replayed
	// during recomputation (checkpoint.go).
	if !tapeOn.Load() {
		return DropoutAt(x, p, gen.seed, gen.reserve((x.n+3)/4))
	}
	seed, base, mask, rec := checkpointCounters(gen, (x.n+3)/4, p)
	defer hookOp("DropoutAt")()
	out, m := dropoutAt(x, p, seed, base, mask)
	if rec != nil && rec.mask == nil {
		rec.mask = m
	}
	return out
}

// DropoutAt applies the dropout mask of (seed, base): element i is kept
// when word i%4 of Philox4x32-10 at counter (i/4, base) under key seed,
// shifted right by 8 and scaled by 2^-24, is >= p (Salmon et al., SC'11;
// the RNG of PyTorch's CUDA dropout). The CPU and a GPU (kernels.DropoutForward)
// draw the identical mask for the same (seed, base, p). Dropout draws base
// from a generator, and checkpoint recomputation replays the same (seed,
// base).
func DropoutAt(x *Tensor, p float32, seed, base uint64) *Tensor {
	defer hookOp("DropoutAt")()
	out, _ := dropoutAt(x, p, seed, base, nil)
	return out
}

// dropoutAt is DropoutAt. Where the backend keeps the mask for backward
// (the CPU: bits, an int64 word per 64 elements, bit i%64 of word i/64 set
// when element i is kept) it also returns the mask, and given the mask of
// an earlier call with the same (seed, base, p) and size, it uses it
// instead of drawing (checkpoint recomputation). A GPU regenerates the
// mask from (seed, base) in backward and returns none.
func dropoutAt(x *Tensor, p float32, seed, base uint64, given *Tensor) (*Tensor, *Tensor) {
	const op = "DropoutAt"
	be := backendOf(op, x)
	checkFloats(op, x)
	out := emptyOn(op, be, x.dtype, false, x.shape...) // every element is written under the mask
	var mask *Tensor
	reuse := false
	if words := be.DropoutMaskWords(x.n); words > 0 {
		if given != nil && given.dtype == Int64 && given.n == words {
			mask, reuse = given, true
		} else {
			mask = emptyOn(op, be, Int64, false, words) // every word is drawn
		}
	}
	be.DropoutForward(out, x, mask, reuse, p, seed, base)
	return record(out, "Dropout", []*Tensor{x, mask}, func(g *Tensor) []*Tensor {
		return gradDropout(g, mask, p, seed, base)
	}), mask
}

// dropoutBackward returns g scaled by 1/(1-p) where dropout (p, seed,
// base) kept the element and 0 elsewhere, in g's dtype, from the mask the
// backend kept (nil where it regenerates it).
func dropoutBackward(g, mask *Tensor, p float32, seed, base uint64) *Tensor {
	be := backendOf("Dropout", g, mask)
	gx := emptyOn("Dropout", be, g.dtype, false, g.shape...) // every element is written under the mask
	be.DropoutBackward(gx, g, mask, p, seed, base)
	return gx
}
