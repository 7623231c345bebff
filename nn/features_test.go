package nn

import (
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// sparseFeatures returns an (n, f) matrix with about density*n*f nonzeros
// (bag-of-words like) and the same values in a tensor that requires grad,
// which forces the dense path.
func sparseFeatures(n, f int, density float64, seed int64) (sparse, dense *tensor.Tensor) {
	gen := tensor.NewGenerator(seed)
	d := make([]float32, n*f)
	for i := range d {
		if gen.Float64() < density {
			d[i] = float32(gen.Float64())
		}
	}
	sparse = tensor.FromFloat32(d, n, f)
	return sparse, sparse.Clone().SetRequiresGrad(true)
}

func TestSparsify(t *testing.T) {
	x, _ := sparseFeatures(300, 200, 0.05, 1)
	adj, vals := sparsify(x)
	if adj == nil {
		t.Fatal("a 5% dense 300x200 matrix was not kept sparse")
	}
	if err := adj.Validate(); err != nil {
		t.Fatal(err)
	}
	f := &features{sp: adj, vals: vals, nrows: 300, ncols: 200}
	closeTo(t, "dense(sparsify(x))", f.dense().Float32s(), x.Float32s(), 0)
	r := f.rows(17)
	closeTo(t, "rows(17)", r.dense().Float32s(), x.Float32s()[:17*200], 0)
	if a, _ := sparsify(tensor.Ones(300, 200)); a != nil {
		t.Error("a dense matrix was made sparse")
	}
	if a, _ := sparsify(tensor.Zeros(10, 10)); a != nil {
		t.Error("a small matrix was made sparse")
	}
	odd, _ := sparseFeatures(301, 131, 0.05, 2) // odd row length: unpaired last column
	a, v := sparsify(odd)
	closeTo(t, "odd width", (&features{sp: a, vals: v, nrows: 301, ncols: 131}).dense().Float32s(), odd.Float32s(), 0)
}

// TestSparseInputPath checks that every layer gives the same output and the
// same parameter gradients on sparse input features (sparse path) as on the
// same values requiring grad (dense path), on a graph and on a block.
func TestSparseInputPath(t *testing.T) {
	const n, f = 400, 120
	xs0, xd0 := sparseFeatures(n, f, 0.015, 3)
	g := randomGraph(t, n, 3, true, 4)
	seeds := []int64{3, 7, 100, 399}
	var blk graph.MessageGraph
	var xs, xd *tensor.Tensor
	{
		src, dst := g.Edges()
		var bs, bd []int64
		for i, d := range dst.Int64s() {
			for k, s := range seeds {
				if d == s {
					bs, bd = append(bs, src.Int64s()[i]), append(bd, int64(k))
				}
			}
		}
		// Block over all n nodes as sources: seeds' rows are not first here,
		// so relabel: sources are the seeds followed by every node.
		order := append(append([]int64(nil), seeds...), tensor.Arange(n).Int64s()...)
		for i := range bs {
			bs[i] += int64(len(seeds))
		}
		blk = edgeGraph(t, len(order), len(seeds), bs, bd)
		xs = tensor.IndexSelect(xs0, tensor.FromInt64(order))
		xd = tensor.IndexSelect(xd0.Detach(), tensor.FromInt64(order)).SetRequiresGrad(true)
	}
	build := func() []Module {
		gen := tensor.NewGenerator(5)
		return []Module{
			NewGraphConv(GraphConvOptions{InFeats: f, OutFeats: 8, Gen: gen}),
			NewGraphConv(GraphConvOptions{InFeats: f, OutFeats: 8, Norm: "left", AllowZeroInDegree: true, Gen: gen}),
			NewSAGEConv(SAGEConvOptions{InFeats: f, OutFeats: 8, Gen: gen}),
			NewSAGEConv(SAGEConvOptions{InFeats: f, OutFeats: 8, Aggregator: "gcn", Gen: gen}),
			NewSAGEConv(SAGEConvOptions{InFeats: f, OutFeats: 8, Aggregator: "pool", Gen: gen}),
			NewGATConv(GATConvOptions{InFeats: f, OutFeats: 4, NumHeads: 2, Residual: true, Gen: gen}),
		}
	}
	for gi, mg := range []graph.MessageGraph{g, blk} {
		xs, xd := xs, xd
		if gi == 0 {
			xs, xd = xs0, xd0
		}
		if (&core{}).input(xs, 0, nil).sp == nil || (&core{}).input(xd, 0, nil).sp != nil {
			t.Fatal("the inputs do not take the sparse and the dense path")
		}
		a, b := build(), build()
		for i := range a {
			fa := a[i].(interface {
				Forward(graph.MessageGraph, *tensor.Tensor) *tensor.Tensor
			})
			fb := b[i].(interface {
				Forward(graph.MessageGraph, *tensor.Tensor) *tensor.Tensor
			})
			ya, yb := fa.Forward(mg, xs), fb.Forward(mg, xd)
			closeTo(t, "sparse vs dense output", ya.Float32s(), yb.Float32s(), 1e-5)
			w := randT(6, -1, 1, ya.Shape()...)
			tensor.Sum(tensor.Mul(ya, w)).Backward()
			tensor.Sum(tensor.Mul(yb, w)).Backward()
			pa, pb := a[i].NamedParameters(), b[i].NamedParameters()
			for k := range pa {
				closeTo(t, "grad "+pa[k].Name, pa[k].Param.Grad().Float32s(), pb[k].Param.Grad().Float32s(), 1e-4)
			}
		}
	}
}

// TestSparseInputDropout checks the sparse path's feature dropout: zeros
// stay zero and each kept value is scaled by 1/(1-p), about p of them are
// dropped, and eval mode drops nothing.
func TestSparseInputDropout(t *testing.T) {
	x, _ := sparseFeatures(500, 100, 0.05, 7)
	c := &core{}
	in := c.input(x, 0.5, tensor.NewGenerator(1))
	if in.sp == nil {
		t.Fatal("sparse path not taken")
	}
	d, xv := in.dense().Float32s(), x.Float32s()
	kept, nz := 0, 0
	for i, v := range xv {
		switch {
		case v == 0 && d[i] != 0:
			t.Fatalf("a zero became %v", d[i])
		case v != 0 && d[i] != 0:
			if d[i] != 2*v {
				t.Fatalf("kept value %v, want %v", d[i], 2*v)
			}
			kept++
			nz++
		case v != 0:
			nz++
		}
	}
	if frac := float64(kept) / float64(nz); frac < 0.45 || frac > 0.55 {
		t.Errorf("kept %.3f of the nonzeros, want about 0.5", frac)
	}
	c.Eval()
	closeTo(t, "eval input", c.input(x, 0.5, nil).dense().Float32s(), xv, 0)
	// Without dropout a 5% dense matrix takes the dense path, which the
	// cache answers without a new scan; very sparse ones stay sparse.
	if c.input(x, 0.5, nil).sp != nil {
		t.Error("a 5% dense matrix took the sparse path without dropout")
	}
	c.Train()
	if in := c.input(x, 0.5, nil); in.sp == nil || in.sp != c.sparse.adj {
		t.Error("the cached sparse form was not reused")
	}
	xv[0] += 1 // changed in place: the cache must notice
	if c.input(x, 0.5, nil).sp == nil {
		t.Error("no sparse form after an in-place change")
	}
	closeTo(t, "after an in-place change", (&features{sp: c.sparse.adj, vals: c.sparse.vals, nrows: 500, ncols: 100}).dense().Float32s(), xv, 0)
}
