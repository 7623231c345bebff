package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// GraphConvOptions configures a GraphConv; the fields are DGL's GraphConv
// arguments. Zero values take DGL's defaults.
type GraphConvOptions struct {
	InFeats, OutFeats int
	// Norm is "both" (the default when empty: D_in^-1/2 A D_out^-1/2, Kipf &
	// Welling), "right" (divide the sum by the in-degree: mean), "left"
	// (divide each message by its source's out-degree) or "none".
	Norm string
	// NoWeight builds the layer without a weight (DGL's weight=False);
	// OutFeats must then equal InFeats.
	NoWeight bool
	// NoBias builds the layer without a bias (DGL's bias=False).
	NoBias bool
	// Activation, when set, is applied to the output.
	Activation func(*tensor.Tensor) *tensor.Tensor
	// AllowZeroInDegree turns off the check that panics with
	// ErrZeroInDegree when some destination node has no in-edge.
	AllowZeroInDegree bool
	// Gen draws the initial weight (tensor.DefaultGenerator when nil).
	Gen *tensor.Generator
}

// GraphConv is the graph convolution of Kipf & Welling, "Semi-Supervised
// Classification with Graph Convolutional Networks" (ICLR 2017), as DGL's
// dgl.nn.GraphConv:
//
//	h_i = act( bias + sum_{j in N(i)} 1/c_ij * x_j W )
//
// with c_ij = sqrt(|N(j)|) sqrt(|N(i)|) for norm "both", |N(i)| for
// "right", |N(j)| (out-degree of the source) for "left", 1 for "none";
// degrees are clamped to at least 1. When InFeats > OutFeats the features
// are multiplied by W before aggregation, otherwise after (same result,
// less work). Parameters: "weight" (InFeats, OutFeats), Glorot uniform;
// "bias" (OutFeats), zeros.
type GraphConv struct {
	core
	InFeats, OutFeats int
	Norm              string
	AllowZeroInDegree bool
	Activation        func(*tensor.Tensor) *tensor.Tensor
	Weight            *tensor.Tensor // (InFeats, OutFeats), or nil
	Bias              *tensor.Tensor // (OutFeats), or nil
}

// NewGraphConv builds a GraphConv. It panics with ErrOption naming the
// field when a size is not positive or Norm is unknown.
func NewGraphConv(o GraphConvOptions) *GraphConv {
	const op = "GraphConv"
	checkPositive(op, "InFeats", o.InFeats)
	checkPositive(op, "OutFeats", o.OutFeats)
	if o.Norm == "" {
		o.Norm = "both"
	}
	switch o.Norm {
	case "both", "right", "left", "none":
	default:
		panicf(ErrOption, op, "Norm must be \"both\", \"right\", \"left\" or \"none\", got %q", o.Norm)
	}
	if o.NoWeight && o.InFeats != o.OutFeats {
		panicf(ErrOption, op, "without a weight OutFeats (%d) must equal InFeats (%d)", o.OutFeats, o.InFeats)
	}
	c := &GraphConv{InFeats: o.InFeats, OutFeats: o.OutFeats, Norm: o.Norm,
		AllowZeroInDegree: o.AllowZeroInDegree, Activation: o.Activation}
	if !o.NoWeight {
		c.Weight = c.param("weight", XavierUniform(tensor.Zeros(o.InFeats, o.OutFeats), o.InFeats, o.OutFeats, 1, o.Gen))
	}
	if !o.NoBias {
		c.Bias = c.param("bias", tensor.Zeros(o.OutFeats))
	}
	return c
}

// Forward computes the convolution: x (NumSrcNodes, InFeats) float32 ->
// (NumDstNodes, OutFeats). It panics with ErrShape when x does not fit,
// and with ErrZeroInDegree (naming the nodes) when a destination has no
// in-edge and AllowZeroInDegree is off.
func (c *GraphConv) Forward(g graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	const op = "GraphConv.Forward"
	checkInput(op, g, x, c.InFeats)
	if !c.AllowZeroInDegree {
		if err := zeroInDegree(op, g); err != nil {
			panic(err)
		}
	}
	adj := g.Adj()
	h := x
	if c.Norm == "both" || c.Norm == "left" {
		p := -0.5
		if c.Norm == "left" {
			p = -1
		}
		h = tensor.Mul(h, degreeNorm(g.OutDegrees().Int64s(), p))
	}
	var rst *tensor.Tensor
	if c.Weight != nil && c.InFeats > c.OutFeats {
		rst = tensor.SpMM(adj, tensor.MatMul(h, c.Weight), nil, "sum")
	} else {
		rst = tensor.SpMM(adj, h, nil, "sum")
		if c.Weight != nil {
			rst = tensor.MatMul(rst, c.Weight)
		}
	}
	if c.Norm == "both" || c.Norm == "right" {
		p := -0.5
		if c.Norm == "right" {
			p = -1
		}
		rst = tensor.Mul(rst, degreeNorm(adj.InDegrees(), p))
	}
	if c.Bias != nil {
		rst = tensor.Add(rst, c.Bias)
	}
	if c.Activation != nil {
		rst = c.Activation(rst)
	}
	return rst
}

func (c *GraphConv) String() string {
	return fmt.Sprintf("GraphConv(in=%d, out=%d, normalization=%s, activation=%s)",
		c.InFeats, c.OutFeats, c.Norm, activationName(c.Activation))
}
