package tensor

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

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
	g.pcg = rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
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
// gen (the default generator when nil).
func Rand(gen *Generator, lo, hi float32, shape ...int) *Tensor {
	defer hookOp("Rand")()
	if gen == nil {
		gen = defaultGen
	}
	t := Zeros(shape...)
	gen.mu.Lock()
	for i, d := 0, t.Float32s(); i < len(d); i++ {
		d[i] = lo + (hi-lo)*float32(gen.pcg.Float64())
	}
	gen.mu.Unlock()
	return t
}

// Randn returns a float32 tensor of standard normal values from gen.
func Randn(gen *Generator, shape ...int) *Tensor {
	defer hookOp("Randn")()
	if gen == nil {
		gen = defaultGen
	}
	t := Zeros(shape...)
	gen.mu.Lock()
	for i, d := 0, t.Float32s(); i < len(d); i++ {
		d[i] = float32(gen.pcg.NormFloat64())
	}
	gen.mu.Unlock()
	return t
}

// XavierUniform returns a (fanIn, fanOut) float32 weight drawn uniformly
// from ±gain*sqrt(6/(fanIn+fanOut)) (Glorot & Bengio 2010; DGL's and PyG's
// default for GNN layer weights; gain sqrt(2) for ReLU as in DGL's GATConv).
func XavierUniform(gen *Generator, fanIn, fanOut int, gain float64) *Tensor {
	a := float32(gain * math.Sqrt(6/float64(fanIn+fanOut)))
	return Rand(gen, -a, a, fanIn, fanOut)
}

// Dropout zeroes each element with probability p and scales the rest by
// 1/(1-p) when training is set (inverted dropout, Srivastava et al. 2014);
// otherwise it returns x. The mask comes from gen's counter stream (the
// default generator when gen is nil) and is regenerated, not stored, for
// the backward pass; inside a Checkpoint the draw is recorded and replayed
// when the function is recomputed. Float32, float16 or bfloat16 (the
// result has x's dtype; kept low-precision values are scaled in float32
// and rounded once), any shape. Panics with ErrShape unless 0 <= p <= 1,
// and with ErrDType for a non-floating-point x.
func Dropout(x *Tensor, p float32, training bool, gen *Generator) *Tensor {
	defer hookOp("Dropout")()
	if p < 0 || p > 1 || p != p {
		panicf(ErrShape, "Dropout", "p must be in [0, 1], got %g", p)
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
	seed, base := gen.seed, uint64(0)
	if tapeOn.Load() {
		seed, base = checkpointCounters(gen, (x.n+3)/4)
	} else {
		base = gen.reserve((x.n + 3) / 4)
	}
	return DropoutAt(x, p, seed, base)
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
	if d := deviceOf("DropoutAt", x); d != "cpu" {
		return cudaDropoutAt(x, p, seed, base)
	}
	if isLow(x.dtype) {
		return dropoutLowAt(x, p, seed, base)
	}
	scale := 1 / (1 - p)
	// Philox4x32-10 of counter (i/4, base) under key seed, word i%4: the
	// mask kernels.DropoutForward draws on a GPU (kernels.DropoutKeep).
	k0, k1 := uint32(seed), uint32(seed>>32)
	o0, o1 := uint32(base), uint32(base>>32)
	apply := func(src, dst []float32) {
		groups := (len(src) + 3) / 4
		n := len(src)
		keep := func(x float32, w uint32) float32 { // x*scale if kept, else 0
			if float32(w>>8)*(1.0/16777216.0) >= p {
				return x * scale
			}
			return 0
		}
		parallelFor(groups, 1<<12, func(lo, hi int) {
			for g := lo; g < hi; g++ {
				w0, w1, w2, w3 := philox4x32(uint32(uint64(g)), uint32(uint64(g)>>32), o0, o1, k0, k1)
				i := 4 * g
				if i+4 <= n {
					s, d := src[i:i+4:i+4], dst[i:i+4:i+4]
					d[0], d[1], d[2], d[3] = keep(s[0], w0), keep(s[1], w1), keep(s[2], w2), keep(s[3], w3)
					continue
				}
				for j, w := range [4]uint32{w0, w1, w2, w3} {
					if i+j < n {
						dst[i+j] = keep(src[i+j], w)
					}
				}
			}
		})
	}
	out := Zeros(x.shape...)
	apply(x.Float32s(), out.Float32s())
	return record(out, "Dropout", []*Tensor{x}, func(g *Tensor) []*Tensor {
		gx := Zeros(x.shape...)
		apply(g.Float32s(), gx.Float32s())
		return []*Tensor{gx}
	})
}

// philox4x32 is Philox4x32-10 of counter (c0, c1, c2, c3) under key (k0,
// k1): kernels.Philox4x32 (the CPU twin of the GPU dropout RNG) written
// with scalar words, several times faster in the dropout loop.
func philox4x32(c0, c1, c2, c3, k0, k1 uint32) (uint32, uint32, uint32, uint32) {
	for r := 0; r < 10; r++ {
		hi0, lo0 := bits.Mul32(0xD2511F53, c0)
		hi1, lo1 := bits.Mul32(0xCD9E8D57, c2)
		c0, c1, c2, c3 = hi1^c1^k0, lo1, hi0^c3^k1, lo0
		k0 += 0x9E3779B9
		k1 += 0xBB67AE85
	}
	return c0, c1, c2, c3
}
