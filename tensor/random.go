package tensor

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// Generator is a counter-based random number generator (splitmix64 over a
// seed and a running counter). Dropout masks are a pure function of the
// seed and the counter value an op reserved, so a mask can be regenerated
// exactly (gradient checkpointing) and any worker can draw its slice of the
// stream independently. It is safe for concurrent use.
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

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// uniformAt returns the uniform value in [0, 1) at counter position i of
// the stream of seed.
func uniformAt(seed, i uint64) float32 {
	return float32(splitmix64(seed^splitmix64(i))>>40) * (1.0 / (1 << 24))
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
// the backward pass. Float32, any shape. Panics unless 0 <= p <= 1.
func Dropout(x *Tensor, p float32, training bool, gen *Generator) *Tensor {
	defer hookOp("Dropout")()
	if p < 0 || p > 1 || p != p {
		panicf(ErrShape, "Dropout", "p must be in [0, 1], got %g", p)
	}
	if !training || p == 0 {
		return x
	}
	checkFloat("Dropout", x)
	if gen == nil {
		gen = defaultGen
	}
	if p == 1 {
		return MulScalar(x, 0)
	}
	seed, base := gen.seed, gen.reserve(x.n)
	return DropoutAt(x, p, seed, base)
}

// DropoutAt applies the dropout mask at counter position base of the stream
// of seed; Dropout draws base from a generator, and checkpoint recomputation
// replays the same (seed, base).
func DropoutAt(x *Tensor, p float32, seed, base uint64) *Tensor {
	defer hookOp("DropoutAt")()
	scale := 1 / (1 - p)
	apply := func(src, dst []float32) {
		parallelFor(len(src), 1<<14, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if uniformAt(seed, base+uint64(i)) >= p {
					dst[i] = src[i] * scale
				} else {
					dst[i] = 0
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
