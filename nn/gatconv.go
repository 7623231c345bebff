package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// GATConvOptions configures a GATConv; the fields are DGL's GATConv
// arguments plus the merge of the heads that DGL's examples do after the
// layer. Zero values take DGL's defaults.
type GATConvOptions struct {
	// InFeats is the input width; OutFeats the width of each head.
	InFeats, OutFeats int
	// NumHeads is the number of attention heads (1 when 0).
	NumHeads int
	// FeatDrop is the dropout probability on the input features, AttnDrop
	// on the attention coefficients (after the edge softmax), in training
	// mode.
	FeatDrop, AttnDrop float32
	// NegativeSlope of the LeakyReLU on the attention logits (0.2 when 0).
	NegativeSlope float32
	// Residual adds a residual connection: the destination's input features,
	// through a linear map "res_fc" unless InFeats == NumHeads*OutFeats.
	Residual bool
	// NoBias builds the layer without a bias.
	NoBias bool
	// Activation, when set, is applied to each head's output (before the
	// heads are merged).
	Activation func(*tensor.Tensor) *tensor.Tensor
	// Merge is "concat" (the default when empty: the heads side by side,
	// (N, NumHeads*OutFeats), DGL's h.flatten(1)) or "mean" (the average of
	// the heads, (N, OutFeats), DGL's h.mean(1)).
	Merge string
	// AllowZeroInDegree turns off the check that panics with
	// ErrZeroInDegree when some destination node has no in-edge.
	AllowZeroInDegree bool
	// Gen draws the initial weights and the dropout masks
	// (tensor.DefaultGenerator when nil).
	Gen *tensor.Generator
}

// GATConv is the graph attention layer of Veličković et al., "Graph
// Attention Networks" (ICLR 2018), as DGL's dgl.nn.GATConv. For each head k:
//
//	z_j = x_j W_k
//	e_ij = LeakyReLU(a_l,k . z_j + a_r,k . z_i)        for each edge j -> i
//	alpha_ij = softmax over the in-edges of i of e_ij    (then attention dropout)
//	h_i,k = act( sum_{j in N(i)} alpha_ij z_j + res_i,k + b_k )
//
// The heads are concatenated or averaged (Merge). Parameters (DGL's
// names): "fc.weight" (InFeats, NumHeads*OutFeats), "attn_l" and "attn_r"
// (1, NumHeads, OutFeats), "bias" (NumHeads*OutFeats), "res_fc.weight" when
// there is a residual map; weights and attention vectors are Glorot normal
// with gain sqrt(2), the bias zeros.
type GATConv struct {
	core
	InFeats, OutFeats, NumHeads int
	FeatDrop, AttnDrop          float32
	NegativeSlope               float32
	Merge                       string
	AllowZeroInDegree           bool
	Activation                  func(*tensor.Tensor) *tensor.Tensor
	Fc                          *Linear
	AttnL, AttnR                *tensor.Tensor // (1, NumHeads, OutFeats)
	Bias                        *tensor.Tensor // (NumHeads*OutFeats), or nil
	Residual                    bool
	ResFc                       *Linear // nil for no residual or the identity
	gen                         *tensor.Generator
}

// NewGATConv builds a GATConv. It panics with ErrOption naming the field
// when a size is not positive, a dropout is outside [0, 1) or Merge is
// unknown.
func NewGATConv(o GATConvOptions) *GATConv {
	const op = "GATConv"
	checkPositive(op, "InFeats", o.InFeats)
	checkPositive(op, "OutFeats", o.OutFeats)
	if o.NumHeads == 0 {
		o.NumHeads = 1
	}
	checkPositive(op, "NumHeads", o.NumHeads)
	checkDrop(op, "FeatDrop", o.FeatDrop)
	checkDrop(op, "AttnDrop", o.AttnDrop)
	if o.NegativeSlope == 0 {
		o.NegativeSlope = 0.2
	}
	if o.Merge == "" {
		o.Merge = "concat"
	}
	if o.Merge != "concat" && o.Merge != "mean" {
		panicf(ErrOption, op, "Merge must be \"concat\" or \"mean\", got %q", o.Merge)
	}
	h, f := o.NumHeads, o.OutFeats
	c := &GATConv{InFeats: o.InFeats, OutFeats: f, NumHeads: h, FeatDrop: o.FeatDrop, AttnDrop: o.AttnDrop,
		NegativeSlope: o.NegativeSlope, Merge: o.Merge, AllowZeroInDegree: o.AllowZeroInDegree,
		Activation: o.Activation, Residual: o.Residual, gen: genOr(o.Gen)}
	c.Fc = NewLinear(o.InFeats, h*f, false, c.gen)
	c.child("fc", c.Fc)
	c.AttnL = c.param("attn_l", tensor.Zeros(1, h, f))
	c.AttnR = c.param("attn_r", tensor.Zeros(1, h, f))
	if !o.NoBias {
		c.Bias = c.param("bias", tensor.Zeros(h*f))
	}
	if o.Residual && o.InFeats != h*f {
		c.ResFc = NewLinear(o.InFeats, h*f, false, c.gen)
		c.child("res_fc", c.ResFc)
	}
	// DGL's reset_parameters: Glorot normal with the ReLU gain; torch counts
	// fan_in = H*F and fan_out = F for the (1, H, F) attention vectors.
	XavierNormal(c.Fc.Weight, o.InFeats, h*f, GainReLU, c.gen)
	XavierNormal(c.AttnL, h*f, f, GainReLU, c.gen)
	XavierNormal(c.AttnR, h*f, f, GainReLU, c.gen)
	if c.ResFc != nil {
		XavierNormal(c.ResFc.Weight, o.InFeats, h*f, GainReLU, c.gen)
	}
	return c
}

// Forward computes the layer: x (NumSrcNodes, InFeats) float32 ->
// (NumDstNodes, NumHeads*OutFeats) with Merge "concat", (NumDstNodes,
// OutFeats) with "mean". It panics with ErrShape when x does not fit, and
// with ErrZeroInDegree (naming the nodes) when a destination has no in-edge
// and AllowZeroInDegree is off.
func (c *GATConv) Forward(g graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	out, _ := c.forward("GATConv.Forward", g, x)
	return out
}

// ForwardWithAttention is Forward that also returns the attention
// coefficients, (E, NumHeads) in edge-id order, after attention dropout (DGL's
// get_attention=True).
func (c *GATConv) ForwardWithAttention(g graph.MessageGraph, x *tensor.Tensor) (out, attn *tensor.Tensor) {
	return c.forward("GATConv.ForwardWithAttention", g, x)
}

func (c *GATConv) forward(op string, g graph.MessageGraph, x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
	checkInput(op, g, x, c.InFeats)
	if !c.AllowZeroInDegree {
		if err := zeroInDegree(op, g); err != nil {
			panic(err)
		}
	}
	adj := g.Adj()
	h, f := c.NumHeads, c.OutFeats
	ns, nd := g.NumSrcNodes(), g.NumDstNodes()
	in := c.input(x, c.FeatDrop, c.gen)
	fsrc := in.linear(c.Fc)  // (Ns, H*F)
	fdst := dstRows(g, fsrc) // (Nd, H*F)
	// el = sum_f z * a_l per head: (N, H, F) * (1, H, F) -> (N, H).
	el := tensor.SumDim(tensor.Mul(tensor.Reshape(fsrc, ns, h, f), c.AttnL), 2, false)
	er := tensor.SumDim(tensor.Mul(tensor.Reshape(fdst, nd, h, f), c.AttnR), 2, false)
	e := tensor.LeakyReLU(tensor.SDDMM(adj, el, er, "add"), c.NegativeSlope) // (E, H)
	a := c.dropout(tensor.EdgeSoftmax(adj, e), c.AttnDrop, c.gen)
	rst := tensor.SpMM(adj, fsrc, a, "sum") // (Nd, H*F), head k in columns [kF, (k+1)F)
	if c.Residual {
		hdst := in.rows(nd)
		if c.ResFc != nil {
			rst = tensor.Add(rst, hdst.linear(c.ResFc))
		} else {
			rst = tensor.Add(rst, hdst.dense())
		}
	}
	if c.Bias != nil {
		rst = tensor.Add(rst, c.Bias)
	}
	if c.Activation != nil {
		rst = c.Activation(rst)
	}
	if c.Merge == "mean" && h > 1 {
		rst = tensor.MeanDim(tensor.Reshape(rst, nd, h, f), 1, false)
	}
	return rst, a
}

// String describes the GATConv in the manner of DGL's and PyTorch's repr.
func (c *GATConv) String() string {
	return fmt.Sprintf("GATConv(in=%d, out=%d, heads=%d, feat_drop=%g, attn_drop=%g, negative_slope=%g, residual=%t, merge=%s, activation=%s)",
		c.InFeats, c.OutFeats, c.NumHeads, c.FeatDrop, c.AttnDrop, c.NegativeSlope, c.Residual, c.Merge, activationName(c.Activation))
}
