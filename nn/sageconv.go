package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// SAGEConvOptions configures a SAGEConv; the fields are DGL's SAGEConv
// arguments. Zero values take DGL's defaults.
type SAGEConvOptions struct {
	InFeats, OutFeats int
	// Aggregator is "mean" (the default when empty), "gcn" or "pool".
	Aggregator string
	// FeatDrop is the dropout probability applied to the input features in
	// training mode.
	FeatDrop float32
	// NoBias builds the layer without a bias.
	NoBias bool
	// Activation and Norm, when set, are applied to the output in that
	// order.
	Activation, Norm func(*tensor.Tensor) *tensor.Tensor
	// Gen draws the initial weights and the dropout masks
	// (tensor.DefaultGenerator when nil).
	Gen *tensor.Generator
}

// SAGEConv is the GraphSAGE layer of Hamilton, Ying & Leskovec, "Inductive
// Representation Learning on Large Graphs" (NeurIPS 2017), as DGL's
// dgl.nn.SAGEConv:
//
//	mean: h_i = x_i W_self + mean_{j in N(i)} x_j W_neigh + b
//	gcn:  h_i = ( (x_i + sum_{j in N(i)} x_j) / (|N(i)| + 1) ) W_neigh + b
//	pool: h_i = x_i W_self + max_{j in N(i)} relu(x_j W_pool + b_pool) W_neigh + b
//
// followed by the activation and the norm when set. Destinations without
// in-edges aggregate to 0. For mean and gcn, W_neigh is applied before the
// aggregation when InFeats > OutFeats (same result, less work). Parameters
// (DGL's names): "fc_self.weight" (mean and pool), "fc_neigh.weight",
// "fc_pool.weight" and "fc_pool.bias" (pool), "bias"; weights are Glorot
// uniform with gain sqrt(2), fc_pool's bias as torch.nn.Linear, bias zeros.
//
// Inside an autocast region (package amp) the products and the
// aggregation run in float16 or bfloat16 and so does the output: the bias
// is cast to the activations' dtype, where DGL's SAGEConv under
// torch.autocast promotes the output to float32.
type SAGEConv struct {
	core
	InFeats, OutFeats int
	Aggregator        string
	FeatDrop          float32
	Activation, Norm  func(*tensor.Tensor) *tensor.Tensor
	FcSelf            *Linear // nil for "gcn"
	FcNeigh           *Linear
	FcPool            *Linear // only for "pool"
	Bias              *tensor.Tensor
	gen               *tensor.Generator
}

// NewSAGEConv builds a SAGEConv. It panics with ErrOption naming the field
// when a size is not positive, the aggregator is unknown ("lstm" is not
// implemented) or FeatDrop is outside [0, 1).
func NewSAGEConv(o SAGEConvOptions) *SAGEConv {
	const op = "SAGEConv"
	checkPositive(op, "InFeats", o.InFeats)
	checkPositive(op, "OutFeats", o.OutFeats)
	checkDrop(op, "FeatDrop", o.FeatDrop)
	if o.Aggregator == "" {
		o.Aggregator = "mean"
	}
	switch o.Aggregator {
	case "mean", "gcn", "pool":
	default:
		panicf(ErrOption, op, "Aggregator must be \"mean\", \"gcn\" or \"pool\", got %q", o.Aggregator)
	}
	c := &SAGEConv{InFeats: o.InFeats, OutFeats: o.OutFeats, Aggregator: o.Aggregator,
		FeatDrop: o.FeatDrop, Activation: o.Activation, Norm: o.Norm, gen: genOr(o.Gen)}
	// Construction order follows DGL's __init__ (fc_pool, fc_self,
	// fc_neigh), and initialisation its reset_parameters.
	if o.Aggregator == "pool" {
		c.FcPool = NewLinear(o.InFeats, o.InFeats, true, c.gen)
		c.child("fc_pool", c.FcPool)
	}
	if o.Aggregator != "gcn" {
		c.FcSelf = NewLinear(o.InFeats, o.OutFeats, false, c.gen)
		c.child("fc_self", c.FcSelf)
	}
	c.FcNeigh = NewLinear(o.InFeats, o.OutFeats, false, c.gen)
	c.child("fc_neigh", c.FcNeigh)
	if !o.NoBias {
		c.Bias = c.param("bias", tensor.Zeros(o.OutFeats))
	}
	if c.FcPool != nil {
		XavierUniform(c.FcPool.Weight, o.InFeats, o.InFeats, GainReLU, c.gen)
	}
	if c.FcSelf != nil {
		XavierUniform(c.FcSelf.Weight, o.InFeats, o.OutFeats, GainReLU, c.gen)
	}
	XavierUniform(c.FcNeigh.Weight, o.InFeats, o.OutFeats, GainReLU, c.gen)
	return c
}

// Forward computes the layer: x (NumSrcNodes, InFeats) float32 ->
// (NumDstNodes, OutFeats). On a block the destination nodes' own features
// are the first NumDstNodes rows of x. It panics with ErrShape when x does
// not fit.
func (c *SAGEConv) Forward(g graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	return c.forward(g, x, false)
}

// forward is Forward followed by ReLU when relu is set (GraphSAGE's
// hidden layers), fused into the output's accumulation where it can be
// (tensor.AddMMReLU).
func (c *SAGEConv) forward(g graph.MessageGraph, x *tensor.Tensor, relu bool) *tensor.Tensor {
	checkInput("SAGEConv.Forward", g, x, c.InFeats)
	adj := g.Adj()
	in := c.input(x, c.FeatDrop, c.gen)
	linFirst := c.InFeats > c.OutFeats
	// neigh is the neighbour term; neighIn, when set instead, is the
	// aggregate still to be multiplied by fc_neigh's weight, so that the
	// self term, the bias and the neighbour term can accumulate in one
	// output (tensor.AddMM) instead of three temporaries and two Adds.
	var neigh, neighIn *tensor.Tensor
	switch c.Aggregator {
	case "mean", "gcn":
		var src *tensor.Tensor
		if linFirst {
			src = in.linear(c.FcNeigh)
		} else {
			src = in.dense()
		}
		if c.Aggregator == "mean" {
			neigh = tensor.SpMM(adj, src, nil, "mean")
		} else {
			deg := adj.InDegrees()
			div := make([]float32, len(deg))
			for i, d := range deg {
				div[i] = float32(d + 1)
			}
			sum := tensor.SpMM(adj, src, nil, "sum")
			neigh = tensor.Div(tensor.Add(sum, dstRows(g, src)), onDevice(tensor.FromFloat32(div, len(div), 1), src.Device()))
		}
		if !linFirst {
			neigh, neighIn = nil, neigh
		}
	case "pool":
		src := tensor.ReLU(in.linear(c.FcPool))
		neighIn = tensor.SpMM(adj, src, nil, "max")
	}
	var rst *tensor.Tensor
	bias := c.Bias
	self := in
	if c.FcSelf != nil {
		self = in.rows(g.NumDstNodes())
	}
	switch {
	case c.FcSelf != nil && neighIn != nil && self.sp == nil:
		addmm := tensor.AddMM
		if relu && c.Activation == nil && c.Norm == nil {
			addmm, relu = tensor.AddMMReLU, false
		}
		if bias != nil {
			rst = addmm(bias, self.x, c.FcSelf.Weight, neighIn, c.FcNeigh.Weight)
		} else {
			rst = addmm(tensor.MatMul(self.x, c.FcSelf.Weight), neighIn, c.FcNeigh.Weight)
		}
		bias = nil
	case c.FcSelf != nil:
		if neigh == nil {
			neigh = c.FcNeigh.Forward(neighIn)
		}
		rst = tensor.Add(self.linear(c.FcSelf), neigh)
	case neigh == nil:
		rst = affine(neighIn, c.FcNeigh.Weight, bias)
		bias = nil
	default:
		rst = neigh
	}
	if bias != nil {
		rst = addBias(rst, bias) // stays float16 / bfloat16 under autocast
	}
	if c.Activation != nil {
		rst = c.Activation(rst)
	}
	if c.Norm != nil {
		rst = c.Norm(rst)
	}
	if relu {
		rst = tensor.ReLU(rst)
	}
	return rst
}

// String describes the SAGEConv in the manner of DGL's and PyTorch's repr.
func (c *SAGEConv) String() string {
	return fmt.Sprintf("SAGEConv(in=%d, out=%d, aggregator=%s, feat_drop=%g, bias=%t, activation=%s)",
		c.InFeats, c.OutFeats, c.Aggregator, c.FeatDrop, c.Bias != nil, activationName(c.Activation))
}
