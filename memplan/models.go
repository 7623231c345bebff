package memplan

// Symbolic forward passes of nn's GraphSAGE, GCN and GAT, op for op as
// nn/sageconv.go, nn/graphconv.go, nn/gatconv.go and nn/features.go run
// them, with the program's references dropped where the Go code's
// variables die.

// lgraph is the graph one layer runs on: ns source nodes, nd destination
// nodes, e edges (ns == nd for a full graph); id tells graphs apart (the
// full graph is 0, each sampled block has its own).
type lgraph struct {
	ns, nd, e int64
	id        int
}

// feats is nn's features: a layer's input after feature dropout, dense or
// as the nonzeros of a sparse matrix.
type feats struct {
	x          *tn // dense values (materialised on demand when sparse)
	vals       *tn // sparse: nonzero values after dropout
	rows, cols int64
	nnz        int64
	sparse     bool
}

// Thresholds of nn/features.go.
const (
	sparseMinElems      = 1 << 15
	sparseMaxDensity    = 0.25
	sparseMaxDensityDet = 0.02
)

// sparseCache is a layer's nn sparseCache: the last input matrix it saw
// and, when that was sparse, its nonzeros.
type sparseCache struct {
	x    *tn  // the cached input (held by the cache)
	adj  *blk // row pointers and column ids (Go slices, uncounted)
	vals *tn  // nonzero values (a tensor)
	rev  *blk // adj.Reverse(), built by the first backward (uncounted)
}

// model holds the symbolic parameters and the caches that outlive a step.
type model struct {
	c      *Config
	layers []*layerParams
	caches []*sparseCache
	norms  []*tn // GraphConv: cached edge normalisation per layer
	normOf []int // the lgraph id each norm was computed for
}

type layerParams struct {
	in, out int64
	// SAGEConv
	fcSelf, fcNeigh, fcPool, fcPoolBias, bias *tn
	// GraphConv: weight and bias; GATConv: fc, attention vectors, bias.
	weight, attnL, attnR *tn
}

// newModel allocates the parameters of c's model in nn's order.
func (s *sim) newModel(c *Config) *model {
	m := &model{c: c}
	f, h, k := int64(c.NumFeatures), int64(c.HiddenFeats), int64(c.NumClasses)
	heads := int64(c.NumHeads)
	for l := 0; l < c.NumLayers; l++ {
		lp := &layerParams{}
		switch c.Model {
		case "sage":
			lp.in, lp.out = h, h
			if l == 0 {
				lp.in = f
			}
			if l == c.NumLayers-1 {
				lp.out = k
			}
			if c.Aggregator == "pool" {
				lp.fcPool = s.param(lp.in, lp.in)
				lp.fcPoolBias = s.param(lp.in)
			}
			if c.Aggregator != "gcn" {
				lp.fcSelf = s.param(lp.in, lp.out)
			}
			lp.fcNeigh = s.param(lp.in, lp.out)
			lp.bias = s.param(lp.out)
		case "gcn":
			lp.in, lp.out = h, h
			if l == 0 {
				lp.in = f
			}
			if l == c.NumLayers-1 {
				lp.out = k
			}
			lp.weight = s.param(lp.in, lp.out)
			lp.bias = s.param(lp.out)
		case "gat":
			lp.in = h * heads
			if l == 0 {
				lp.in = f
			}
			nh, of := heads, h
			if l == c.NumLayers-1 {
				nh, of = int64(c.NumOutHeads), k
			}
			lp.out = of
			lp.weight = s.param(lp.in, nh*of)
			lp.attnL = s.param(1, nh, of)
			lp.attnR = s.param(1, nh, of)
			lp.bias = s.param(nh * of)
		}
		m.layers = append(m.layers, lp)
		m.caches = append(m.caches, &sparseCache{})
		m.norms = append(m.norms, nil)
		m.normOf = append(m.normOf, -1)
	}
	return m
}

// params returns every parameter.
func (m *model) params() []*tn {
	var out []*tn
	for _, lp := range m.layers {
		for _, p := range []*tn{lp.fcPool, lp.fcPoolBias, lp.fcSelf, lp.fcNeigh, lp.weight, lp.attnL, lp.attnR, lp.bias} {
			if p != nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// input is nn's core.input: the layer's input after feature dropout p, kept
// sparse when x is a large float32 matrix without grad and at most
// sparseMaxDensity (with dropout) or sparseMaxDensityDet (without) of it is
// nonzero. density is x's fraction of nonzeros. The sparse form is cached
// in cache (a full graph's input is the same tensor every step).
func (s *sim) input(m *model, l int, x *tn, p float32, density float64) *feats {
	cache := m.caches[l]
	rows, cols := x.shape[0], x.shape[1]
	f := &feats{rows: rows, cols: cols}
	maxDensity := sparseMaxDensityDet
	if p > 0 {
		maxDensity = sparseMaxDensity
	}
	eligible := !x.rg && x.elem == 4 && rows*cols >= sparseMinElems
	if eligible && cache.x != x {
		// A new matrix: sparsify it (nn's sparsify scans it, building the
		// nonzeros when at most a quarter are nonzero), then replace the
		// cache.
		var adj *blk
		var vals *tn
		if density <= sparseMaxDensity {
			nnz := int64(density * float64(rows*cols))
			s.begin("sparsify input features")
			parts := s.alloc(catWorkspace, nnz*12+rows*8, false) // per-worker indices, values, counts
			adj = s.alloc(catFeatures, (rows+1+nnz)*8, false)
			vals = &tn{shape: []int64{nnz}, elem: 4, b: s.alloc(catFeatures, nnz*4, true)}
			s.unref(parts)
		}
		s.ref(x.b)
		s.dropCache(cache)
		cache.x, cache.adj, cache.vals = x, adj, vals
	}
	if eligible && cache.vals != nil && density <= maxDensity {
		f.sparse = true
		f.nnz = cache.vals.shape[0]
		v := s.lowOf(cache.vals)
		f.vals = s.dropout(v, p)
		s.drop(v)
		return f
	}
	v := s.lowOf(x)
	f.x = s.dropout(v, p)
	s.drop(v)
	return f
}

// lowOf is nn's cast of a layer's float32 input to the autocast dtype,
// once, before dropout (x itself outside autocast).
func (s *sim) lowOf(x *tn) *tn {
	if s.ac != 0 && x.elem == f32 {
		return s.cast(x, s.ac)
	}
	return s.keep(x)
}

func (s *sim) dropCache(c *sparseCache) {
	if c.x != nil {
		s.drop(c.x, c.vals)
		s.unref(c.adj)
		s.unref(c.rev)
	}
	c.x, c.adj, c.vals, c.rev = nil, nil, nil, nil
}

// release drops the program's hold on f's tensors.
func (s *sim) release(f *feats) {
	if f == nil {
		return
	}
	s.drop(f.x, f.vals)
	f.x, f.vals = nil, nil
}

// mm is features.mm: x W, a sparse-dense SpMM when sparse (whose backward
// builds the cached reverse adjacency once).
func (s *sim) mm(cache *sparseCache, f *feats, w *tn) *tn {
	if !f.sparse {
		return s.matmul(f.x, w)
	}
	out := s.spmm(f.rows, w, f.vals, "sum")
	if out.node != nil && cache != nil {
		back := out.node.back
		out.node.back = func(g *tn) []*tn {
			if cache.rev == nil && cache.adj != nil {
				cache.rev = s.alloc(catWorkspace, (f.cols+1+2*f.nnz)*8, false)
			}
			return back(g)
		}
	}
	return out
}

// linear is features.linear: mm plus the bias when there is one (nn's
// affine, one AddMM, for dense features).
func (s *sim) linear(cache *sparseCache, f *feats, w, b *tn) *tn {
	if !f.sparse {
		return s.affine(f.x, w, b)
	}
	y := s.mm(cache, f, w)
	if b == nil {
		return y
	}
	z := s.addBias(y, b)
	s.drop(y)
	return z
}

// affine is nn's affine: x w + b as one AddMM.
func (s *sim) affine(x, w, b *tn) *tn {
	if b == nil {
		return s.matmul(x, w)
	}
	return s.addmm(false, b, x, w)
}

// rows is features.rows(n): the first n rows (a block's destinations).
func (s *sim) rows(f *feats, n int64) *feats {
	if n == f.rows {
		r := *f
		s.ref(f.x.bOrNil())
		s.ref(f.vals.bOrNil())
		return &r
	}
	if f.sparse {
		end := int64(float64(f.nnz) * float64(n) / float64(f.rows))
		r := &feats{rows: n, cols: f.cols, nnz: end, sparse: true}
		r.vals = s.view(f.vals, end) // Narrow of a tensor without grad: a view
		return r
	}
	return &feats{x: s.narrow(f.x, n), rows: n, cols: f.cols}
}

func (t *tn) bOrNil() *blk {
	if t == nil {
		return nil
	}
	return t.b
}

// dense is features.dense: the sparse matrix materialised (no grad), in
// the values' dtype: a float32 matrix filled from the values (widened to
// float32 first when low), then cast.
func (s *sim) dense(f *feats) *tn {
	if f.x == nil {
		s.begin("materialise sparse features")
		x := s.f32T(catWorkspace, f.rows, f.cols)
		if f.vals.elem != f32 {
			v := s.cast(f.vals, f32)
			f.x = s.cast(x, f.vals.elem)
			s.drop(v)
		} else {
			f.x = s.keep(x)
		}
		s.drop(x)
	}
	return f.x
}

// forward runs m on the layer graphs gs (one per layer, input layer first)
// with input x (gs[0].ns, NumFeatures) and returns the logits.
func (s *sim) forward(m *model, gs []lgraph, x *tn) *tn {
	c := m.c
	h := s.keep(x)
	for l := range m.layers {
		s.layer = l
		last := l == len(m.layers)-1
		layer := func(h *tn) *tn {
			switch c.Model {
			case "gcn":
				return s.gcnLayer(m, l, gs[l], h)
			case "gat":
				return s.gatLayer(m, l, gs[l], h)
			}
			out := s.sageLayer(m, l, gs[l], h, !last)
			if !last {
				r := s.dropout(out, c.Dropout)
				s.drop(out)
				out = r
			}
			return out
		}
		var next *tn
		if c.Checkpoint && !last {
			next = s.checkpoint(l, h, layer)
		} else {
			next = layer(h)
		}
		s.drop(h)
		h = next
	}
	s.layer = -1
	return h
}

// checkpoint is tensor.Checkpoint(f, x) with one output (nn's
// checkpointed): f runs without recording, so its intermediates die as
// they are used; the output (a view of f's result) and x are kept. When
// Backward reaches the output its gradient is stashed; when it reaches the
// token node f runs again on x (detached when it requires grad) with
// recording on and the forward's autocast state, and the stashed gradient
// is back-propagated through the recomputed graph (an inner Backward),
// which is then released; x's gradient is the detached copy's .Grad.
func (s *sim) checkpoint(l int, x *tn, f func(*tn) *tn) *tn {
	s.begin("Checkpoint")
	ac := s.ac
	s.noGrad++
	var masks []*tn
	outerTape := s.maskTape
	s.maskTape = &masks
	o := f(x)
	s.maskTape = outerTape
	s.noGrad--
	s.layer = l
	token := &tn{shape: []int64{1}, elem: f32, b: s.alloc(catWorkspace, 0, true), rg: true}
	var stash *tn
	s.ref(x.b)
	token.node = &snode{op: s.at, inputs: []*tn{x}, back: func(*tn) []*tn {
		s.begin("Checkpoint.recompute")
		saved := s.ac
		s.ac = ac
		det := x
		if x.rg {
			det = &tn{shape: x.shape, elem: x.elem, b: x.b, rg: true}
		}
		s.ref(det.b)
		s.layer = l
		s.maskReplay = masks
		r := f(det)
		s.maskReplay = nil
		s.drop(masks...) // now held by the recomputed Dropout nodes
		masks = nil
		s.ac = saved
		root := &tn{shape: []int64{1}, elem: f32, b: s.alloc(catWorkspace, 0, true)}
		g := stash
		stash = nil
		s.record(root, "Checkpoint.outputs", []*tn{r}, func(*tn) []*tn {
			h := g
			g = nil
			return []*tn{h}
		})
		s.drop(r)
		s.backward(root)
		s.layer = -1
		s.drop(root)
		var gx *tn
		if det != x && det.grad != nil {
			gx = det.grad
			det.grad = nil
		}
		s.drop(det)
		return []*tn{gx}
	}}
	out := &tn{shape: o.shape, elem: o.elem, b: o.b}
	s.record(out, "Checkpoint.output", []*tn{token}, func(g *tn) []*tn {
		stash = s.share(g)
		s.begin("Checkpoint.output")
		return []*tn{s.gradE(f32, token.shape)}
	})
	s.unref(token.b) // the token is held by the output's node only
	return out
}

// inputDensity is the fraction of nonzeros of layer l's input.
func (m *model) inputDensity(l int) float64 {
	if l == 0 {
		return m.c.FeatureDensity
	}
	return 1
}

// sageLayer is SAGEConv.forward (nn/sageconv.go), followed by ReLU when
// relu is set (fused into the output's AddMM when the layer fuses).
func (s *sim) sageLayer(m *model, l int, g lgraph, x *tn, relu bool) *tn {
	c, lp, cache := m.c, m.layers[l], m.caches[l]
	var drop float32
	if l == 0 {
		drop = c.InputDropout
	}
	in := s.input(m, l, x, drop, m.inputDensity(l))
	linFirst := lp.in > lp.out
	// neighIn: the aggregate still to be multiplied by fc_neigh's weight.
	var neigh, neighIn *tn
	switch c.Aggregator {
	case "mean", "gcn":
		var src *tn
		if linFirst {
			src = s.linear(cache, in, lp.fcNeigh, nil)
		} else {
			src = s.dense(in)
			s.ref(src.b)
		}
		if c.Aggregator == "mean" {
			neigh = s.spmm(g.nd, src, nil, "mean")
		} else {
			sum := s.spmm(g.nd, src, nil, "sum")
			dst := s.narrow(src, g.nd)
			a := s.add(sum, dst)
			s.drop(sum, dst)
			s.begin("degrees")
			div := s.f32T(catWorkspace, g.nd, 1)
			neigh = s.div(a, div)
			s.drop(a, div)
		}
		s.drop(src)
		if !linFirst {
			neigh, neighIn = nil, neigh
		}
	case "pool":
		y := s.linear(cache, in, lp.fcPool, lp.fcPoolBias)
		src := s.unary("ReLU", y)
		s.drop(y)
		neighIn = s.spmm(g.nd, src, nil, "max")
		s.drop(src)
	}
	bias := lp.bias
	var rst *tn
	switch {
	case lp.fcSelf != nil:
		self := s.rows(in, g.nd)
		s.release(in)
		in = nil
		if neighIn != nil && !self.sparse {
			if bias != nil {
				rst = s.addmm(relu, bias, self.x, lp.fcSelf, neighIn, lp.fcNeigh)
			} else {
				ms := s.matmul(self.x, lp.fcSelf)
				rst = s.addmm(relu, ms, neighIn, lp.fcNeigh)
				s.drop(ms)
			}
			s.release(self)
			s.drop(neighIn)
			return rst
		}
		if neigh == nil {
			neigh = s.matmul(neighIn, lp.fcNeigh)
			s.drop(neighIn)
		}
		sl := s.linear(cache, self, lp.fcSelf, nil)
		s.release(self)
		rst = s.add(sl, neigh)
		s.drop(sl, neigh)
	case neigh == nil:
		rst = s.affine(neighIn, lp.fcNeigh, bias)
		s.drop(neighIn)
		bias = nil
	default:
		rst = neigh
	}
	s.release(in)
	if bias != nil {
		out := s.addBias(rst, bias)
		s.drop(rst)
		rst = out
	}
	if relu {
		rst = s.relu(rst)
	}
	return rst
}

// addBias is nn's addBias: under autocast a low y keeps its dtype, the bias
// being cast to it (Linear and SAGEConv); otherwise y + b promotes.
func (s *sim) addBias(y, b *tn) *tn {
	if s.ac != 0 && y.elem != b.elem {
		bc := s.cast(b, y.elem)
		out := s.add(y, bc)
		s.drop(bc)
		return out
	}
	return s.add(y, b)
}

// edgeNorm is GraphConv.edgeNorm: the per-edge weights (E) float32, cached
// per layer for the last graph seen; computing them reads the out-degrees
// (an (Ns) int64 tensor).
func (s *sim) edgeNorm(m *model, l int, g lgraph) *tn {
	if w := m.norms[l]; w != nil && m.normOf[l] == g.id {
		return s.keep(w)
	}
	s.begin("GraphConv edge norm")
	tmp := s.alloc(catWorkspace, (g.ns+g.nd)*8, false) // left and right ([]float64)
	deg := s.newT(catWorkspace, 8, true, g.ns)
	w := s.f32T(catWorkspace, g.e)
	s.drop(deg)
	s.unref(tmp)
	if old := m.norms[l]; old != nil {
		s.drop(old)
	}
	m.norms[l], m.normOf[l] = w, g.id
	return s.keep(w)
}

// gcnLayer is GraphConv.Forward (nn/graphconv.go) with GCN's activation.
func (s *sim) gcnLayer(m *model, l int, g lgraph, x *tn) *tn {
	c, lp, cache := m.c, m.layers[l], m.caches[l]
	drop := c.Dropout
	if l == 0 {
		drop = c.InputDropout
	}
	in := s.input(m, l, x, drop, m.inputDensity(l))
	w := s.edgeNorm(m, l, g)
	var rst *tn
	if lp.in > lp.out {
		xw := s.mm(cache, in, lp.weight)
		s.release(in)
		rst = s.spmm(g.nd, xw, w, "sum")
		s.drop(xw)
	} else {
		d := s.dense(in)
		agg := s.spmm(g.nd, d, w, "sum")
		s.release(in)
		rst = s.matmul(agg, lp.weight)
		s.drop(agg)
	}
	s.drop(w)
	out := s.add(rst, lp.bias)
	s.drop(rst)
	if l != len(m.layers)-1 {
		out = s.relu(out)
	}
	return out
}

// gatLayer is GATConv.Forward (nn/gatconv.go) with GAT's activation (ELU)
// and the output layer's mean over heads.
func (s *sim) gatLayer(m *model, l int, g lgraph, x *tn) *tn {
	c, lp, cache := m.c, m.layers[l], m.caches[l]
	last := l == len(m.layers)-1
	h, f := lp.attnL.shape[1], lp.attnL.shape[2]
	in := s.input(m, l, x, c.FeatDrop, m.inputDensity(l))
	fsrc := s.linear(cache, in, lp.weight, nil) // (Ns, H*F)
	s.release(in)
	fdst := s.narrow(fsrc, g.nd)
	score := func(z *tn, n int64, a *tn) *tn {
		r := s.reshape(z, n, h, f)
		p := s.mul(r, a)
		s.drop(r)
		e := s.sumDimLast(p)
		s.drop(p)
		return e
	}
	el := score(fsrc, g.ns, lp.attnL)
	er := score(fdst, g.nd, lp.attnR)
	s.drop(fdst)
	sd := s.sddmm(g.e, el, er)
	s.drop(el, er)
	e := s.unary("LeakyReLU", sd)
	s.drop(sd)
	sm := s.edgeSoftmax(e)
	s.drop(e)
	a := s.dropout(sm, c.AttnDrop)
	s.drop(sm)
	rst := s.spmm(g.nd, fsrc, a, "sum")
	s.drop(fsrc, a)
	out := s.add(rst, lp.bias)
	s.drop(rst)
	if !last {
		r := s.unary("ELU", out)
		s.drop(out)
		return r
	}
	if h > 1 {
		r := s.reshape(out, g.nd, h, f)
		s.drop(out)
		out = s.meanDim1(r)
		s.drop(r)
	}
	return out
}
