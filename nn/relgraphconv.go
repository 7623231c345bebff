package nn

import (
	"fmt"
	"math"
	"sync"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// RelGraphConvOptions configures a RelGraphConv; the fields are DGL's
// RelGraphConv arguments. Zero values take DGL's defaults.
type RelGraphConvOptions struct {
	InFeats, OutFeats int
	// NumRels is the number of relations (edge types).
	NumRels int
	// Regularizer is "" (one full weight per relation), "basis" (basis
	// decomposition W_r = sum_b a_rb V_b) or "bdd" (block-diagonal W_r of
	// NumBases blocks).
	Regularizer string
	// NumBases is the number of bases ("basis"; 0, negative or more than
	// NumRels means NumRels, as DGL) or of diagonal blocks ("bdd": it must
	// divide InFeats and OutFeats).
	NumBases int
	// NoBias drops the bias (DGL's bias=False).
	NoBias bool
	// Activation, when set, is applied before dropout.
	Activation func(*tensor.Tensor) *tensor.Tensor
	// NoSelfLoop drops the self-loop term x_i W_0 (DGL's self_loop=False).
	NoSelfLoop bool
	// Dropout is applied to the output in training mode.
	Dropout float32
	// LayerNorm normalises the aggregated messages (nn.LayerNorm with
	// affine weight and bias) before bias and self loop, as DGL.
	LayerNorm bool
	// Gen draws the initial weights and the dropout masks.
	Gen *tensor.Generator
}

// RelGraphConv is the relational graph convolution of Schlichtkrull, Kipf
// et al., "Modeling Relational Data with Graph Convolutional Networks"
// (ESWC 2018), as DGL's dgl.nn.RelGraphConv:
//
//	h_i = act( LN( sum_r sum_{j in N_r(i)} e_ji x_j W_r ) + b + x_i W_0 ), then dropout
//
// where e_ji is the edge's norm (1/c_{i,r}, or 1 without one). W_r is a
// full (InFeats, OutFeats) matrix, sum_b a_rb V_b ("basis") or a
// block-diagonal matrix of NumBases blocks ("bdd"). All relations are
// computed in one pass: the layer builds a relational adjacency once per
// graph and edge-type tensor, then does one SpMM and one GEMM (it
// aggregates x per (node, relation) first when InFeats <= OutFeats,
// otherwise it multiplies x by every W_r first), so the work is one
// batched call whatever NumRels is. Parameters (DGL's names): "weight"
// (NumRels or NumBases, InFeats, OutFeats) and "w_comp" (NumRels,
// NumBases) for basis; "weight" (NumRels, NumBases*sIn*sOut) for bdd;
// "h_bias" (OutFeats), zeros; "loop_weight" (InFeats, OutFeats); with
// LayerNorm "layer_norm_weight.weight" and ".bias". Weights are Xavier
// uniform with the ReLU gain, as DGL.
type RelGraphConv struct {
	core
	InFeats, OutFeats, NumRels, NumBases int
	Regularizer                          string
	Dropout                              float32
	Activation                           func(*tensor.Tensor) *tensor.Tensor
	Weight                               *tensor.Tensor // see the type's doc
	WComp                                *tensor.Tensor // (NumRels, NumBases) for "basis", else nil
	HBias                                *tensor.Tensor // (OutFeats), or nil
	LoopWeight                           *tensor.Tensor // (InFeats, OutFeats), or nil
	LNWeight, LNBias                     *tensor.Tensor // (OutFeats) each, or nil
	gen                                  *tensor.Generator

	mu       sync.Mutex
	cacheAdj *tensor.Adj
	cacheET  *tensor.Tensor
	relAdj   *tensor.Adj // see relationalAdj
	adjMode  int
	// compIdxHost, compIdx and pairAdj belong to the adjBasisPair relAdj:
	// pairAdj takes basis rows to (source, relation) pairs, compIdx[Host]
	// gives the w_comp entry of each of its entries.
	compIdxHost []int64
	compIdx     *tensor.Tensor
	pairAdj     *tensor.Adj
	perm        *tensor.Tensor // (InFeats*NumRels*OutFeats) permutation to (InFeats, NumRels*OutFeats)
	bddIdx      *tensor.Tensor
	idIdx       *tensor.Tensor
}

// NewRelGraphConv builds a RelGraphConv. It panics with ErrOption naming
// the field when a size is not positive, Regularizer is unknown, NumBases
// does not divide the sizes for "bdd", or Dropout is outside [0, 1).
func NewRelGraphConv(o RelGraphConvOptions) *RelGraphConv {
	const op = "RelGraphConv"
	checkPositive(op, "InFeats", o.InFeats)
	checkPositive(op, "OutFeats", o.OutFeats)
	checkPositive(op, "NumRels", o.NumRels)
	checkDrop(op, "Dropout", o.Dropout)
	c := &RelGraphConv{InFeats: o.InFeats, OutFeats: o.OutFeats, NumRels: o.NumRels, Regularizer: o.Regularizer,
		Dropout: o.Dropout, Activation: o.Activation, gen: genOr(o.Gen)}
	gain := math.Sqrt(2) // nn.init.calculate_gain("relu")
	in, out, r := o.InFeats, o.OutFeats, o.NumRels
	switch o.Regularizer {
	case "":
		c.NumBases = r
		c.Weight = c.param("weight", XavierUniform(tensor.Zeros(r, in, out), in*out, r*out, gain, c.gen))
	case "basis":
		b := o.NumBases
		if b <= 0 || b > r {
			b = r
		}
		c.NumBases = b
		c.Weight = c.param("weight", XavierUniform(tensor.Zeros(b, in, out), in*out, b*out, gain, c.gen))
		c.WComp = c.param("w_comp", XavierUniform(tensor.Zeros(r, b), b, r, gain, c.gen))
	case "bdd":
		b := o.NumBases
		if b <= 0 || in%b != 0 || out%b != 0 {
			panicf(ErrOption, op, "NumBases (%d) must be positive and divide InFeats (%d) and OutFeats (%d) for the bdd regularizer", b, in, out)
		}
		c.NumBases = b
		si, so := in/b, out/b
		c.Weight = c.param("weight", XavierUniform(tensor.Zeros(r, b*si*so), b*si*so, r, gain, c.gen))
	default:
		panicf(ErrOption, op, "Regularizer must be \"\", \"basis\" or \"bdd\", got %q", o.Regularizer)
	}
	if o.LayerNorm {
		c.LNWeight = c.param("layer_norm_weight.weight", tensor.Ones(out))
		c.LNBias = c.param("layer_norm_weight.bias", tensor.Zeros(out))
	}
	if !o.NoBias {
		c.HBias = c.param("h_bias", tensor.Zeros(out))
	}
	if !o.NoSelfLoop {
		c.LoopWeight = c.param("loop_weight", XavierUniform(tensor.Zeros(in, out), in, out, gain, c.gen))
	}
	return c
}

// relWeights returns the stacked relation weights W_r as (NumRels*InFeats,
// OutFeats): rows r*InFeats .. (r+1)*InFeats-1 are W_r.
func (c *RelGraphConv) relWeights() *tensor.Tensor {
	in, out, r := c.InFeats, c.OutFeats, c.NumRels
	switch c.Regularizer {
	case "basis":
		w := tensor.MatMul(c.WComp, tensor.Reshape(c.Weight, c.NumBases, in*out)) // (R, in*out)
		return tensor.Reshape(w, r*in, out)
	case "bdd":
		full := tensor.IndexAdd(r*in*out, c.bddIndex(), tensor.Reshape(c.Weight, -1, 1))
		return tensor.Reshape(full, r*in, out)
	}
	return tensor.Reshape(c.Weight, r*in, out)
}

// bddIndex maps every entry of the bdd weight (r, b, i, o) to its place
// (r, b*sIn+i, b*sOut+o) in the dense (R, InFeats, OutFeats) weight.
func (c *RelGraphConv) bddIndex() *tensor.Tensor {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bddIdx != nil && c.bddIdx.Device() == c.Weight.Device() {
		return c.bddIdx
	}
	in, out, b := c.InFeats, c.OutFeats, c.NumBases
	si, so := in/b, out/b
	idx := make([]int64, 0, c.NumRels*b*si*so)
	for r := 0; r < c.NumRels; r++ {
		for k := 0; k < b; k++ {
			for i := 0; i < si; i++ {
				for o := 0; o < so; o++ {
					idx = append(idx, int64(r*in*out+(k*si+i)*out+k*so+o))
				}
			}
		}
	}
	c.bddIdx = onDevice(tensor.FromInt64(idx), c.Weight.Device())
	return c.bddIdx
}

// Forward computes the layer: x (NumSrcNodes, InFeats) float32, etypes (E)
// int64 relation ids in [0, NumRels) of g's edges in edge-id order (DGL's
// g.edata[dgl.ETYPE]), norm (E, 1), (E) or nil -> (NumDstNodes, OutFeats).
// On a block the self loop uses the first NumDstNodes rows of x. x nil is
// the featureless input (one-hot node ids, InFeats = NumSrcNodes): the
// messages are rows of W_r gathered by (relation, source), never a dense
// product with the identity (see forwardIdentity for the basis case). It
// panics with ErrShape when x, etypes or norm do not fit g, and ErrOption
// naming a relation id outside [0, NumRels).
func (c *RelGraphConv) Forward(g graph.MessageGraph, x, etypes, norm *tensor.Tensor) *tensor.Tensor {
	const op = "RelGraphConv.Forward"
	if x == nil {
		return c.forwardIdentity(op, g, etypes, norm)
	}
	checkInput(op, g, x, c.InFeats)
	norm = c.checkEdges(op, g, etypes, norm)
	aggFirst := c.InFeats <= c.OutFeats
	mode := adjSrcRel
	if aggFirst {
		mode = adjAggFirst
	}
	adj := c.relationalAdj(op, g, etypes, mode)
	nd, r, in, out := g.NumDstNodes(), c.NumRels, c.InFeats, c.OutFeats
	w := c.relWeights() // (R*in, out)
	var h *tensor.Tensor
	if aggFirst {
		agg := tensor.SpMM(adj, x, norm, "sum") // (nd*R, in)
		h = tensor.MatMul(tensor.Reshape(agg, nd, r*in), w)
	} else {
		// x W_r for every r: x (ns, in) @ W' (in, R*out), W'[:, r*out+o] = W_r[:, o].
		wt := tensor.Reshape(tensor.IndexSelect(tensor.Reshape(w, -1, 1), c.permIndex(x.Device())), in, r*out)
		xw := tensor.Reshape(tensor.MatMul(x, wt), -1, out) // (ns*R, out)
		h = tensor.SpMM(adj, xw, norm, "sum")
	}
	return c.finish(g, x, h)
}

// checkEdges validates etypes and norm against g and returns norm as (E).
func (c *RelGraphConv) checkEdges(op string, g graph.MessageGraph, etypes, norm *tensor.Tensor) *tensor.Tensor {
	if etypes == nil || etypes.DType() != tensor.Int64 || etypes.Dim() != 1 || etypes.Size(0) != g.NumEdges() {
		shape := "nil"
		if etypes != nil {
			shape = fmt.Sprintf("%s %v", etypes.DType(), etypes.Shape())
		}
		panicf(ErrShape, op, "etypes must be (E) = (%d) int64 relation ids, got %s", g.NumEdges(), shape)
	}
	if norm != nil {
		if norm.Numel() != g.NumEdges() || norm.Dim() > 2 {
			panicf(ErrShape, op, "norm must be (E, 1) or (E) with E = %d, got %v", g.NumEdges(), norm.Shape())
		}
		norm = tensor.Reshape(norm, -1)
	}
	return norm
}

// forwardIdentity is Forward on featureless nodes: x is the identity
// (node i's input is one-hot i, R-GCN's featureless input), so x_s W_r is
// row s of W_r, InFeats is the number of source nodes, and the self loop
// of node i is row i of W_0. No dense product over the one-hot input is
// formed: with full weights the messages are a row gather of W (one SpMM
// whose sources are the (relation, node) rows r*N+s of the weight, as
// DGL's RelGraphConv on integer node ids); with the basis regularizer
// W_r = sum_b a_rb V_b, so one SpMM forms the rows W_r[s] of only the
// distinct (source, relation) pairs P of g's edges (P*NumBases*OutFeats
// work) and a second sends them along the edges, never forming the
// (NumRels, N, OutFeats) weight.
func (c *RelGraphConv) forwardIdentity(op string, g graph.MessageGraph, etypes, norm *tensor.Tensor) *tensor.Tensor {
	if g == nil {
		panicf(ErrOption, op, "graph is nil")
	}
	if g.NumSrcNodes() != c.InFeats {
		panicf(ErrShape, op, "featureless input (x nil) needs InFeats = the number of source nodes, have %d and %d", c.InFeats, g.NumSrcNodes())
	}
	norm = c.checkEdges(op, g, etypes, norm)
	n, out := c.InFeats, c.OutFeats
	var h *tensor.Tensor
	switch c.Regularizer {
	case "":
		adj := c.relationalAdj(op, g, etypes, adjRelSrc)
		h = tensor.SpMM(adj, tensor.Reshape(c.Weight, c.NumRels*n, out), norm, "sum")
	case "basis":
		adj := c.relationalAdj(op, g, etypes, adjBasisPair)
		c.mu.Lock()
		pa := c.pairAdj
		c.mu.Unlock()
		w := tensor.Reshape(tensor.IndexSelect(tensor.Reshape(c.WComp, -1, 1), c.basisCompIndex(c.Weight.Device())), -1)
		rows := tensor.SpMM(pa, tensor.Reshape(c.Weight, c.NumBases*n, out), w, "sum") // (pairs, out)
		h = tensor.SpMM(adj, rows, norm, "sum")
	default:
		// Row r*N+s of the stacked weights is x_s W_r; SpMM wants row s*R+r.
		adj := c.relationalAdj(op, g, etypes, adjSrcRel)
		xw := tensor.IndexSelect(c.relWeights(), c.identityIndex(c.Weight.Device()))
		h = tensor.SpMM(adj, xw, norm, "sum")
	}
	return c.finish(g, nil, h)
}

// basisCompIndex maps entry q*B+b of pairAdj to entry r_q*B+b of w_comp
// (flattened), r_q being pair q's relation.
func (c *RelGraphConv) basisCompIndex(device string) *tensor.Tensor {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.compIdx == nil || c.compIdx.Device() != device {
		c.compIdx = onDevice(tensor.FromInt64(c.compIdxHost), device)
	}
	return c.compIdx
}

// identityIndex maps row s*R+r to row r*N+s of the stacked weights.
func (c *RelGraphConv) identityIndex(device string) *tensor.Tensor {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idIdx != nil && c.idIdx.Device() == device {
		return c.idIdx
	}
	n, r := c.InFeats, c.NumRels
	p := make([]int64, n*r)
	for s := 0; s < n; s++ {
		for k := 0; k < r; k++ {
			p[s*r+k] = int64(k*n + s)
		}
	}
	c.idIdx = onDevice(tensor.FromInt64(p), device)
	return c.idIdx
}

// finish applies layer norm, bias, self loop (x nil: identity input),
// activation and dropout to the aggregated messages h (NumDst, OutFeats).
func (c *RelGraphConv) finish(g graph.MessageGraph, x, h *tensor.Tensor) *tensor.Tensor {
	nd := g.NumDstNodes()
	if c.LNWeight != nil {
		h = layerNorm(h, c.LNWeight, c.LNBias, 1e-5)
	}
	if c.HBias != nil {
		h = tensor.Add(h, c.HBias)
	}
	if c.LoopWeight != nil {
		if x == nil {
			h = tensor.Add(h, tensor.Narrow(c.LoopWeight, 0, nd))
		} else {
			xd := x
			if nd != x.Size(0) {
				xd = tensor.Narrow(x, 0, nd)
			}
			h = tensor.Add(h, tensor.MatMul(xd, c.LoopWeight))
		}
	}
	if c.Activation != nil {
		h = c.Activation(h)
	}
	if c.Dropout > 0 {
		h = tensor.Dropout(h, c.Dropout, c.Training(), c.gen)
	}
	return h
}

// permIndex is the row permutation taking the stacked (R*in, out) weights
// to (in, R*out).
func (c *RelGraphConv) permIndex(device string) *tensor.Tensor {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.perm != nil && c.perm.Device() == device {
		return c.perm
	}
	in, out, r := c.InFeats, c.OutFeats, c.NumRels
	p := make([]int64, 0, in*r*out)
	for i := 0; i < in; i++ {
		for k := 0; k < r; k++ {
			for o := 0; o < out; o++ {
				p = append(p, int64((k*in+i)*out+o))
			}
		}
	}
	c.perm = onDevice(tensor.FromInt64(p), device)
	return c.perm
}

// The layouts of relationalAdj.
const (
	adjSrcRel    = iota // sources s*R+r, destinations d
	adjAggFirst         // sources s, destinations d*R+r
	adjRelSrc           // sources r*N+s, destinations d (featureless, full weights)
	adjBasisPair        // sources: distinct (s, r) pairs, destinations d (featureless, basis; see pairAdj)
)

// relationalAdj returns the adjacency over (node, relation) pairs for g
// and etypes in the given layout, cached for the last (graph, etypes,
// layout) seen: adjAggFirst, an Adj from the NumSrc sources to
// NumDst*NumRels destinations d*R+r; adjSrcRel, one from NumSrc*NumRels
// sources s*R+r to the NumDst destinations; adjRelSrc, sources r*N+s;
// adjBasisPair, sources the distinct (source, relation) pairs of g's
// edges, with c.pairAdj taking the basis rows b*N+s to the pairs (see
// forwardIdentity). All keep g's edge ids, so norm is indexed in g's
// edge-id order.
func (c *RelGraphConv) relationalAdj(op string, g graph.MessageGraph, etypes *tensor.Tensor, mode int) *tensor.Adj {
	adj := g.Adj()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cacheAdj == adj && c.cacheET == etypes && c.adjMode == mode {
		return c.relAdj
	}
	et := etypes
	if et.Device() != "cpu" {
		var err error
		if et, err = et.To("cpu"); err != nil {
			panic(err)
		}
	}
	ids := et.Int64s()
	r := int64(c.NumRels)
	for i, t := range ids {
		if t < 0 || t >= r {
			panicf(ErrOption, op, "edge %d has relation id %d outside [0, NumRels = %d)", i, t, r)
		}
	}
	eid := func(p int64) int64 {
		if adj.EIDs != nil {
			return adj.EIDs[p]
		}
		return p
	}
	e := adj.NumEdges()
	out := &tensor.Adj{Indices: make([]int64, e), EIDs: make([]int64, e)}
	ns := int64(adj.NumSrc)
	switch mode {
	case adjSrcRel, adjRelSrc:
		out.NumSrc, out.NumDst = adj.NumSrc*c.NumRels, adj.NumDst
		out.Indptr = append([]int64(nil), adj.Indptr...)
		for p := int64(0); p < int64(e); p++ {
			id := eid(p)
			if mode == adjSrcRel {
				out.Indices[p] = adj.Indices[p]*r + ids[id]
			} else {
				out.Indices[p] = ids[id]*ns + adj.Indices[p]
			}
			out.EIDs[p] = id
		}
	case adjBasisPair:
		// Number the distinct (source, relation) pairs in order of first
		// appearance; edge p goes from its pair to its destination.
		b := int64(c.NumBases)
		out.NumSrc, out.NumDst = 0, adj.NumDst
		out.Indptr = append([]int64(nil), adj.Indptr...)
		pairOf := make(map[int64]int64)
		var pairSrc, pairRel []int64
		for p := int64(0); p < int64(e); p++ {
			id := eid(p)
			key := adj.Indices[p]*r + ids[id]
			q, ok := pairOf[key]
			if !ok {
				q = int64(len(pairSrc))
				pairOf[key] = q
				pairSrc = append(pairSrc, adj.Indices[p])
				pairRel = append(pairRel, ids[id])
			}
			out.Indices[p], out.EIDs[p] = q, id
		}
		np := int64(len(pairSrc))
		out.NumSrc = int(np)
		// Pair q's row is sum_b a_{r_q,b} V_b[s_q]: entries q*B+b from the
		// rows b*N+s_q of V, valued w_comp[r_q*B+b].
		pa := &tensor.Adj{NumSrc: adj.NumSrc * c.NumBases, NumDst: int(np), Indptr: make([]int64, np+1),
			Indices: make([]int64, np*b)}
		c.compIdxHost = make([]int64, np*b)
		for q := int64(0); q < np; q++ {
			pa.Indptr[q+1] = (q + 1) * b
			for k := int64(0); k < b; k++ {
				pa.Indices[q*b+k] = k*ns + pairSrc[q]
				c.compIdxHost[q*b+k] = pairRel[q]*b + k
			}
		}
		c.pairAdj, c.compIdx = pa, nil
	default: // adjAggFirst
		out.NumSrc, out.NumDst = adj.NumSrc, adj.NumDst*c.NumRels
		out.Indptr = make([]int64, out.NumDst+1)
		for d := 0; d < adj.NumDst; d++ {
			for p := adj.Indptr[d]; p < adj.Indptr[d+1]; p++ {
				out.Indptr[int64(d)*r+ids[eid(p)]+1]++
			}
		}
		for i := 0; i < out.NumDst; i++ {
			out.Indptr[i+1] += out.Indptr[i]
		}
		next := append([]int64(nil), out.Indptr[:out.NumDst]...)
		for d := 0; d < adj.NumDst; d++ {
			for p := adj.Indptr[d]; p < adj.Indptr[d+1]; p++ {
				id := eid(p)
				row := int64(d)*r + ids[id]
				q := next[row]
				next[row]++
				out.Indices[q], out.EIDs[q] = adj.Indices[p], id
			}
		}
	}
	c.cacheAdj, c.cacheET, c.adjMode, c.relAdj = adj, etypes, mode, out
	return out
}

// layerNorm normalises each row of h (N, F) to zero mean and unit variance
// (biased, as torch.nn.LayerNorm) and applies weight and bias (F).
func layerNorm(h, weight, bias *tensor.Tensor, eps float32) *tensor.Tensor {
	mu := tensor.MeanDim(h, 1, true)
	c := tensor.Sub(h, mu)
	v := tensor.MeanDim(tensor.Mul(c, c), 1, true)
	return tensor.Add(tensor.Mul(tensor.Div(c, tensor.Sqrt(tensor.AddScalar(v, eps))), weight), bias)
}

// String describes the layer in the manner of DGL's repr.
func (c *RelGraphConv) String() string {
	reg := c.Regularizer
	if reg == "" {
		reg = "none"
	}
	return fmt.Sprintf("RelGraphConv(in=%d, out=%d, num_rels=%d, regularizer=%q, num_bases=%d, self_loop=%t, bias=%t, layer_norm=%t, dropout=%g)",
		c.InFeats, c.OutFeats, c.NumRels, reg, c.NumBases, c.LoopWeight != nil, c.HBias != nil, c.LNWeight != nil, c.Dropout)
}
