package featstore

import (
	"fmt"
	"github.com/gnnrepl/gnnrepl/internal/workers"
	"math"
	"runtime"
	"sync/atomic"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// PropagateOptions configures PropagateStore.
type PropagateOptions struct {
	// K is the number of propagation hops (SGC's K, SIGN's r); >= 0.
	K int
	// Norm is the normalisation of Â: "both" (the default, also "sym"),
	// "right" (also "rw") or "none"; see Propagate.
	Norm string
	// DType is the storage dtype of every hop: tensor.Float32 (the
	// default), Float16, BFloat16 or Int8 (each hop with its own per-row
	// scales).
	DType tensor.DType
	// LastOnly stores Â^K X alone (SGC) instead of [X, ÂX, ..., Â^K X]
	// (SIGN).
	LastOnly bool
}

// Propagate returns the hop features [X, ÂX, Â²X, ..., Â^k X] of SGC (Wu et
// al., "Simplifying Graph Convolutional Networks", ICML 2019) and SIGN
// (Frasca et al., "SIGN: Scalable Inception Graph Neural Networks", 2020),
// computed once, offline, in compiled parallel loops: x is (N, F) float32
// on cpu, and the result is k+1 tensors of shape (N, F), the first being x
// itself.
//
// Â is built from g's in-edges (u -> v puts x_u into row v) with a self
// loop added to every node that has none (existing self loops and parallel
// edges are kept, as PyG's gcn_norm with add_remaining_self_loops); with
// d̃_v the in-degree of v counting that loop:
//
//	"both" (or "sym", "", the SGC/GCN default): (ÂX)_v = Σ_{u->v} x_u / sqrt(d̃_u d̃_v)   (D̃^-1/2 Ã D̃^-1/2)
//	"right" (or "rw"):                          (ÂX)_v = Σ_{u->v} x_u / d̃_v             (D̃^-1 Ã, the mean)
//	"none":                                     (ÂX)_v = Σ_{u->v} x_u                   (Ã)
//
// Each hop costs one pass over the E + N edges with F multiply-adds each,
// split over GOMAXPROCS goroutines by ranges of destination nodes of equal
// work; results do not depend on the number of goroutines. Sums are in
// float32. It stops between ranges, returning the context's error, when
// the running evaluation is cancelled (runctx).
//
// It returns an error wrapping ErrArgument when g is nil or heterogeneous,
// k is negative or norm is unknown, and one wrapping ErrShape when x is
// not (g.NumNodes(), F) float32 on cpu.
func Propagate(g *graph.Graph, x *tensor.Tensor, k int, norm string) ([]*tensor.Tensor, error) {
	const op = "Propagate"
	p, err := newPropagator(op, g, x, k, norm)
	if err != nil {
		return nil, err
	}
	hops := []*tensor.Tensor{x}
	for h := 1; h <= k; h++ {
		next := tensor.New(tensor.Float32, p.n, p.f)
		if err := p.step(next.Float32s(), hops[h-1].Float32s()); err != nil {
			return nil, fmt.Errorf("featstore.%s: hop %d: %w", op, h, err)
		}
		hops = append(hops, next)
	}
	return hops, nil
}

// PropagateStore computes the hops of Propagate one at a time and stores
// each in opts.DType as soon as it is computed, so that at most two float32
// hops are alive besides the stored ones (at products scale, F = 100 and
// K = 3, int8 storage needs about 2 GB of scratch instead of 4 GB of
// float32 hops). The result is a Concat of the hop stores [X, ÂX, ...,
// Â^K X], (N, (K+1)*F), or the one store of Â^K X with LastOnly; with
// DType float32, X is shared, not copied. It returns Propagate's errors,
// one wrapping ErrArgument for an unknown DType, and the dtype's
// constructor's errors (ErrData) naming the hop.
func PropagateStore(g *graph.Graph, x *tensor.Tensor, opts PropagateOptions) (Store, error) {
	const op = "PropagateStore"
	switch opts.DType {
	case tensor.Float32, tensor.Float16, tensor.BFloat16, tensor.Int8:
	default:
		return nil, newError(ErrArgument, op, "DType %v; want float32, float16, bfloat16 or int8", opts.DType)
	}
	p, err := newPropagator(op, g, x, opts.K, opts.Norm)
	if err != nil {
		return nil, err
	}
	var parts []Store
	keep := func(h int, t *tensor.Tensor) error {
		if opts.LastOnly && h != opts.K {
			return nil
		}
		s, err := New(t, opts.DType)
		if err != nil {
			return fmt.Errorf("featstore.%s: hop %d: %w", op, h, err)
		}
		parts = append(parts, s)
		return nil
	}
	if err := keep(0, x); err != nil {
		return nil, err
	}
	cur := x
	var spare *tensor.Tensor // a float32 hop no store refers to, reused
	for h := 1; h <= opts.K; h++ {
		next := spare
		if next == nil || opts.DType == tensor.Float32 {
			next = tensor.New(tensor.Float32, p.n, p.f)
		}
		if err := p.step(next.Float32s(), cur.Float32s()); err != nil {
			return nil, fmt.Errorf("featstore.%s: hop %d: %w", op, h, err)
		}
		if err := keep(h, next); err != nil {
			return nil, err
		}
		if h > 1 {
			spare = cur // hop h-1 is stored (copied) or kept as a tensor
		}
		cur = next
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return NewConcat(parts...)
}

// propagator holds g's in-edge CSC and the normalisation of Â.
type propagator struct {
	n, f    int
	indptr  []int64
	indices []int64
	srcW    []float32 // (N) weight of x_u as a source: d̃_u^-1/2 for "both", else 1
	dstW    []float32 // (N) factor of row v: d̃_v^-1/2, 1/d̃_v or 1
	noLoop  []bool    // (N) v had no self loop, one is added
	chunks  []int     // destination ranges of about equal work
}

func newPropagator(op string, g *graph.Graph, x *tensor.Tensor, k int, norm string) (*propagator, error) {
	if g == nil {
		return nil, newError(ErrArgument, op, "the graph is nil")
	}
	if !g.IsHomogeneous() {
		return nil, newError(ErrArgument, op, "the graph is heterogeneous; propagation takes one node and edge type")
	}
	if k < 0 {
		return nil, newError(ErrArgument, op, "k (hops) = %d is negative", k)
	}
	switch norm {
	case "", "sym":
		norm = "both"
	case "rw":
		norm = "right"
	case "both", "right", "none":
	default:
		return nil, newError(ErrArgument, op, "norm %q; want \"both\" (or \"sym\"), \"right\" (or \"rw\") or \"none\"", norm)
	}
	_, n, f, err := checkFeatures(op, x)
	if err != nil {
		return nil, err
	}
	if n != g.NumNodes() {
		return nil, newError(ErrShape, op, "features have %d rows, the graph %d nodes", n, g.NumNodes())
	}
	adj := g.Adj()
	p := &propagator{n: n, f: f, indptr: adj.Indptr, indices: adj.Indices,
		srcW: make([]float32, n), dstW: make([]float32, n), noLoop: make([]bool, n)}
	for v := 0; v < n; v++ {
		loop := false
		for _, u := range p.indices[p.indptr[v]:p.indptr[v+1]] {
			if u == int64(v) {
				loop = true
				break
			}
		}
		p.noLoop[v] = !loop
		d := float64(p.indptr[v+1] - p.indptr[v])
		if !loop {
			d++
		}
		switch norm {
		case "both":
			p.srcW[v] = float32(1 / math.Sqrt(d))
			p.dstW[v] = p.srcW[v]
		case "right":
			p.srcW[v], p.dstW[v] = 1, float32(1/d)
		default:
			p.srcW[v], p.dstW[v] = 1, 1
		}
	}
	// Destination ranges of about (E+N)/(8*GOMAXPROCS) edges each.
	work := int64(len(p.indices) + n)
	target := work/int64(8*runtime.GOMAXPROCS(0)) + 1
	p.chunks = append(p.chunks, 0)
	var acc int64
	for v := 0; v < n; v++ {
		acc += p.indptr[v+1] - p.indptr[v] + 1
		if acc >= target {
			p.chunks = append(p.chunks, v+1)
			acc = 0
		}
	}
	if p.chunks[len(p.chunks)-1] != n {
		p.chunks = append(p.chunks, n)
	}
	return p, nil
}

// step computes out = Â in for (N, F) row-major in and out.
func (p *propagator) step(out, in []float32) error {
	var next atomic.Int64
	var wg workers.Group
	var cancelled atomic.Bool
	nw := min(runtime.GOMAXPROCS(0), len(p.chunks)-1)
	f := p.f
	for w := 0; w < nw; w++ {
		wg.Go(func() {
			for {
				c := int(next.Add(1)) - 1
				if c >= len(p.chunks)-1 || cancelled.Load() {
					return
				}
				if runctx.Err() != nil {
					cancelled.Store(true)
					return
				}
				for v := p.chunks[c]; v < p.chunks[c+1]; v++ {
					o := out[v*f : v*f+f]
					clear(o)
					for _, u := range p.indices[p.indptr[v]:p.indptr[v+1]] {
						axpy(o, p.srcW[u], in[int(u)*f:int(u)*f+f])
					}
					if p.noLoop[v] {
						axpy(o, p.srcW[v], in[v*f:v*f+f])
					}
					if s := p.dstW[v]; s != 1 {
						for j := range o {
							o[j] *= s
						}
					}
				}
			}
		})
	}
	wg.Wait()
	if cancelled.Load() {
		return runctx.Err()
	}
	return nil
}

// axpy adds a*x to o (len(x) >= len(o)), unrolled by four.
func axpy(o []float32, a float32, x []float32) {
	x = x[:len(o)]
	i := 0
	for ; i+4 <= len(o); i += 4 {
		o[i] += a * x[i]
		o[i+1] += a * x[i+1]
		o[i+2] += a * x[i+2]
		o[i+3] += a * x[i+3]
	}
	for ; i < len(o); i++ {
		o[i] += a * x[i]
	}
}
