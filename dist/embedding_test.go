package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// refTable is a dense, single-process DistEmbedding with the same
// initialization and the sparse optimizers' update, written out plainly.
type refTable struct {
	w, m, v []float64
	step    []int64
	dim     int
}

func newRefTable(num, dim int, seed int64) *refTable {
	r := &refTable{w: make([]float64, num*dim), m: make([]float64, num*dim), v: make([]float64, num*dim), step: make([]int64, num), dim: dim}
	scale := 1 / math.Sqrt(float64(dim))
	for i := 0; i < num; i++ {
		g := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
		for j := 0; j < dim; j++ {
			r.w[i*dim+j] = float64(float32((2*g.Float64() - 1) * scale))
		}
	}
	return r
}

// update applies one step of the loss mean((w[ids] - target)^2) over the
// whole batch.
func (r *refTable) update(kind string, ids []int64, target []float32, lr float64) {
	d := r.dim
	grad := map[int64][]float64{}
	var order []int64
	for i, v := range ids {
		g, ok := grad[v]
		if !ok {
			g = make([]float64, d)
			grad[v] = g
			order = append(order, v)
		}
		for q := 0; q < d; q++ {
			g[q] += 2 * (r.w[int(v)*d+q] - float64(target[i*d+q])) / float64(len(ids)*d)
		}
	}
	for _, v := range order {
		g := grad[v]
		r.step[v]++
		t := float64(r.step[v])
		for q := 0; q < d; q++ {
			k := int(v)*d + q
			switch kind {
			case "adagrad":
				r.v[k] += g[q] * g[q]
				r.w[k] -= lr * g[q] / (math.Sqrt(r.v[k]) + 1e-10)
			case "adam":
				r.m[k] = 0.9*r.m[k] + 0.1*g[q]
				r.v[k] = 0.999*r.v[k] + 0.001*g[q]*g[q]
				r.w[k] -= lr * (r.m[k] / (1 - math.Pow(0.9, t))) / (math.Sqrt(r.v[k]/(1-math.Pow(0.999, t))) + 1e-8)
			}
		}
	}
}

// TestDistChildEmbedding trains DistEmbeddings (sharded by the graph's
// partition and by contiguous ranges) with SparseAdam and SparseAdagrad
// on 2 ranks, each with half of every global batch, and compares them
// with the dense single-process reference trained on the whole batches.
func TestDistChildEmbedding(t *testing.T) {
	c, d, _ := distChild(t)
	const num, dim, batch, steps = 2708, 8, 64, 6
	for _, kind := range []string{"adam", "adagrad"} {
		for _, byGraph := range []bool{true, false} {
			opts := EmbeddingOptions{Seed: 3}
			if byGraph {
				opts.Graph = d
			}
			e, err := NewDistEmbedding(num, dim, "emb", c, opts)
			if err != nil {
				t.Fatal(err)
			}
			var opt *SparseOptimizer
			if kind == "adam" {
				opt, err = NewSparseAdam([]*DistEmbedding{e}, SparseOptions{LR: 0.05})
			} else {
				opt, err = NewSparseAdagrad([]*DistEmbedding{e}, SparseOptions{LR: 0.05})
			}
			if err != nil {
				t.Fatal(err)
			}
			ref := newRefTable(num, dim, 3)
			rng := rand.New(rand.NewPCG(9, 9))
			per := batch / c.Size()
			for s := 0; s < steps; s++ {
				ids := make([]int64, batch)
				for i := range ids {
					ids[i] = int64(rng.IntN(200)) * 13 % num // repeats, both parts
				}
				target := make([]float32, batch*dim)
				for i := range target {
					target[i] = float32(rng.NormFloat64())
				}
				lo := c.Rank() * per
				mine := tensor.FromInt64(append([]int64(nil), ids[lo:lo+per]...), per)
				out, err := e.Forward(mine)
				if err != nil {
					t.Fatal(err)
				}
				diff := tensor.Sub(out, tensor.FromFloat32(append([]float32(nil), target[lo*dim:(lo+per)*dim]...), per, dim))
				tensor.Mean(tensor.Mul(diff, diff)).Backward()
				if err := opt.Step(); err != nil {
					t.Fatal(err)
				}
				ref.update(kind, ids, target, 0.05)
			}
			w, err := e.Weight()
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i, x := range w.Float32s() {
				worst = math.Max(worst, math.Abs(float64(x)-ref.w[i]))
			}
			if worst > 1e-5 {
				t.Fatalf("%s (by graph %v): largest difference from the single-process table %g", kind, byGraph, worst)
			}
			t.Logf("%v %s by graph %v: %d steps, largest difference from the single-process table %.2g, %d rows updated last step here",
				e, kind, byGraph, steps, worst, opt.UpdatedRows())
		}
	}
	if _, err := NewDistEmbedding(0, 4, "bad", c, EmbeddingOptions{}); err == nil {
		t.Fatal("0 rows: no error")
	}
	e, _ := NewDistEmbedding(10, 2, "small", c, EmbeddingOptions{})
	if _, err := e.Forward(tensor.FromInt64([]int64{10}, 1)); err == nil {
		t.Fatal("row 10 of 10: no error")
	}
}
