package nn

import (
	"reflect"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// ForwardBlock computes the layer on one heterogeneous block (DGL's
// RelGraphConv on a sampled heterograph, with the relations of
// blk.CanonicalETypes() as the NumRels relations, relation r being the
// r-th canonical edge type):
//
//	h_i = act( LN( sum_r mean_{j in N_r(i)} x_j W_r ) + b + x_i W_0 ), then dropout
//
// for every destination node i of every node type, mean over the sampled
// in-edges of relation r (the R-GCN paper's normalisation 1/c_{i,r}, c_{i,r}
// = |N_r(i)|). x maps a node type to its source nodes' features
// (NumSrcNodes(ntype), InFeats) float32; it must hold every node type that
// has source nodes. The self loop takes the first NumDstNodes(ntype) rows
// of x[ntype]. The result maps every node type with destination nodes to
// (NumDstNodes(ntype), OutFeats). Per destination type, each relation's
// messages are aggregated first (a block has fewer destination than source
// nodes, so mean_r(x) W_r is cheaper than mean_r(x W_r)), and the
// products with W_r, the self loop and the bias accumulate into one output
// (tensor.AddMM, the ReLU fused when Activation is tensor.ReLU); with
// LayerNorm, which comes before the bias and the self loop, the aggregates
// are concatenated and multiplied by the stacked W_r in one GEMM. It panics with ErrShape when NumRels is not the
// block's number of edge types or a feature tensor does not fit, and
// ErrOption for a nil block or missing features.
func (c *RelGraphConv) ForwardBlock(blk *graph.HeteroBlock, x map[string]*tensor.Tensor) map[string]*tensor.Tensor {
	const op = "RelGraphConv.ForwardBlock"
	if blk == nil {
		panicf(ErrOption, op, "block is nil")
	}
	ces := blk.CanonicalETypes()
	if len(ces) != c.NumRels {
		panicf(ErrShape, op, "the block has %d edge types, the layer NumRels = %d", len(ces), c.NumRels)
	}
	checkTypedInputs(op, blk, x, func(string) int { return c.InFeats })
	in, out := c.InFeats, c.OutFeats
	w := c.relWeights() // (R*in, out)
	res := map[string]*tensor.Tensor{}
	for _, nt := range blk.NTypes() {
		nd := blk.NumDstNodes(nt)
		if nd == 0 {
			continue
		}
		if c.LNWeight == nil {
			if h := c.fusedBlockRows(blk, nt, x, w); h != nil {
				res[nt] = h
				continue
			}
		}
		var aggs []*tensor.Tensor
		var rows []int64
		for r, ce := range ces {
			if ce.Dst != nt || blk.NumEdgesOf(ce.String()) == 0 {
				continue
			}
			aggs = append(aggs, tensor.SpMM(blk.AdjOf(ce.String()), x[ce.Src], nil, "mean"))
			for i := 0; i < in; i++ {
				rows = append(rows, int64(r*in+i))
			}
		}
		var h *tensor.Tensor
		switch len(aggs) {
		case 0:
			h = tensor.Zeros(nd, out)
			if d := w.Device(); d != "cpu" {
				h = onDevice(h, d)
			}
		case 1:
			h = tensor.MatMul(aggs[0], tensor.Narrow(w, int(rows[0]), in))
		default:
			wr := tensor.IndexSelect(w, onDevice(tensor.FromInt64(rows), w.Device()))
			h = tensor.MatMul(tensor.Concat(aggs, 1), wr)
		}
		var xd *tensor.Tensor
		if xs, ok := x[nt]; ok && c.LoopWeight != nil {
			xd = xs
			if xs.Size(0) != nd {
				xd = tensor.Narrow(xs, 0, nd)
			}
		}
		res[nt] = c.finishRows(xd, h)
	}
	return res
}

// fusedBlockRows is ForwardBlock's destination type nt without layer
// norm: the aggregated messages of each relation into nt, the self loop
// and the bias accumulate into one output (tensor.AddMM, with the ReLU
// fused when Activation is tensor.ReLU), h = b + sum_r mean_r(x) W_r +
// x_dst W_0, instead of concatenating the aggregates, gathering the
// stacked W_r rows and adding the terms one by one. It returns nil when
// nt has no term to multiply (no relation with edges and no self loop).
func (c *RelGraphConv) fusedBlockRows(blk *graph.HeteroBlock, nt string, x map[string]*tensor.Tensor, w *tensor.Tensor) *tensor.Tensor {
	in := c.InFeats
	nd := blk.NumDstNodes(nt)
	var pairs []*tensor.Tensor
	for r, ce := range blk.CanonicalETypes() {
		if ce.Dst != nt || blk.NumEdgesOf(ce.String()) == 0 {
			continue
		}
		pairs = append(pairs, tensor.SpMM(blk.AdjOf(ce.String()), x[ce.Src], nil, "mean"), tensor.Narrow(w, r*in, in))
	}
	if xs, ok := x[nt]; ok && c.LoopWeight != nil {
		xd := xs
		if xs.Size(0) != nd {
			xd = tensor.Narrow(xs, 0, nd)
		}
		pairs = append(pairs, xd, c.LoopWeight)
	}
	if len(pairs) == 0 {
		return nil
	}
	bias := c.HBias
	if bias == nil {
		bias = onDevice(tensor.Scalar(0), w.Device())
	}
	act := c.Activation
	addmm := tensor.AddMM
	if act != nil && reflect.ValueOf(act).Pointer() == reflect.ValueOf(tensor.ReLU).Pointer() {
		addmm, act = tensor.AddMMReLU, nil
	}
	h := addmm(bias, pairs[0], pairs[1], pairs[2:]...)
	if act != nil {
		h = act(h)
	}
	if c.Dropout > 0 {
		h = tensor.Dropout(h, c.Dropout, c.Training(), c.gen)
	}
	return h
}

// finishRows is finish for nd destinations whose own features are xd
// (NumDst, InFeats), or nil when the self loop is off.
func (c *RelGraphConv) finishRows(xd, h *tensor.Tensor) *tensor.Tensor {
	if c.LNWeight != nil {
		h = layerNorm(h, c.LNWeight, c.LNBias, 1e-5)
	}
	if c.HBias != nil {
		h = tensor.Add(h, c.HBias)
	}
	if c.LoopWeight != nil && xd != nil {
		h = tensor.Add(h, tensor.MatMul(xd, c.LoopWeight))
	}
	if c.Activation != nil {
		h = c.Activation(h)
	}
	if c.Dropout > 0 {
		h = tensor.Dropout(h, c.Dropout, c.Training(), c.gen)
	}
	return h
}

// checkTypedInputs checks per-type source features against a block: every
// node type with source nodes must have features of (NumSrcNodes, in(nt))
// rows, and no unknown node type may appear.
func checkTypedInputs(op string, blk *graph.HeteroBlock, x map[string]*tensor.Tensor, in func(string) int) {
	if x == nil {
		panicf(ErrOption, op, "features are nil; give {node type: (NumSrcNodes, F)}")
	}
	types := map[string]bool{}
	for _, nt := range blk.NTypes() {
		types[nt] = true
	}
	for nt := range x {
		if !types[nt] {
			panicf(ErrOption, op, "features of node type %q, which the block does not have (have %v)", nt, blk.NTypes())
		}
	}
	for _, nt := range blk.NTypes() {
		t, ok := x[nt]
		n := blk.NumSrcNodes(nt)
		if !ok || t == nil {
			if n > 0 {
				panicf(ErrOption, op, "no features for node type %q, which has %d source nodes", nt, n)
			}
			continue
		}
		if !t.DType().IsFloatingPoint() || t.Dim() != 2 || t.Size(0) != n || t.Size(1) != in(nt) {
			panicf(ErrShape, op, "features of node type %q must be float (%d, %d) (its source nodes, in_feats), got %s%v", nt, n, in(nt), t.DType(), t.Shape())
		}
	}
}

// ForwardBlocks returns the logits of the seeds of a minibatch of
// heterogeneous blocks (sampling.HeteroDataLoader), one RelGraphConv layer
// per block (ForwardBlock): inputs maps a node type to the features of
// blocks[0]'s source nodes of that type, (NumSrcNodes(ntype), InFeats)
// float32 (every type with source nodes; build the model with
// RGCNOptions.InFeats). The result maps every node type with seeds to
// (NumDstNodes(ntype), OutFeats) for the last block. NumRels must be the
// blocks' number of canonical edge types. This is DGL's minibatch R-GCN on
// a heterograph (examples/graphbolt/rgcn). It panics with ErrShape when
// the number of blocks is not the number of layers, and as ForwardBlock.
func (m *RGCN) ForwardBlocks(blocks []*graph.HeteroBlock, inputs map[string]*tensor.Tensor) map[string]*tensor.Tensor {
	const op = "RGCN.ForwardBlocks"
	if len(blocks) != len(m.Layers) {
		panicf(ErrShape, op, "%d blocks for %d layers", len(blocks), len(m.Layers))
	}
	if inputs == nil {
		panicf(ErrOption, op, "inputs are nil: minibatch R-GCN takes input features per node type (RGCNOptions.InFeats)")
	}
	h := inputs
	for i, l := range m.Layers {
		h = l.ForwardBlock(blocks[i], h)
	}
	return h
}

// ForwardBlock is Forward on one heterogeneous block (DGL's HeteroGraphConv
// on a block): inputs maps a node type to its source nodes' features
// (NumSrcNodes(ntype), F); each module runs on its relation's
// blk.RelationGraph(etype) with the source type's features, and the results
// are aggregated per destination type into (NumDstNodes(ntype), F_out) (or
// (NumDstNodes, K, F_out) for "stack"). Relations whose source type has no
// input are skipped. Modules that read destination features from the first
// NumDstNodes source rows are only right on relations within one node type
// (see graph.HeteroBlock.RelationGraph). Panics as Forward.
func (h *HeteroGraphConv) ForwardBlock(blk *graph.HeteroBlock, inputs map[string]*tensor.Tensor) map[string]*tensor.Tensor {
	const op = "HeteroGraphConv.ForwardBlock"
	if blk == nil {
		panicf(ErrOption, op, "block is nil")
	}
	return h.forward(op, blk.NTypes(), blk.CanonicalETypes(), blk.RelationGraph, inputs)
}

// HeteroForwardBlocks runs layers[i].ForwardBlock on blocks[i], feeding each
// layer's output to the next (the usual stack of HeteroGraphConv layers
// over a minibatch), with act applied between layers when not nil. It
// panics with ErrShape when the counts differ, and as ForwardBlock.
func HeteroForwardBlocks(layers []*HeteroGraphConv, blocks []*graph.HeteroBlock, inputs map[string]*tensor.Tensor, act func(*tensor.Tensor) *tensor.Tensor) map[string]*tensor.Tensor {
	if len(layers) != len(blocks) {
		panicf(ErrShape, "HeteroForwardBlocks", "%d blocks for %d layers", len(blocks), len(layers))
	}
	x := inputs
	for i, l := range layers {
		x = l.ForwardBlock(blocks[i], x)
		if act != nil && i+1 < len(layers) {
			for k, v := range x {
				x[k] = act(v)
			}
		}
	}
	return x
}
