package nn

import (
	"fmt"
	"math"
	"sync"

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
	// FeatDrop is the dropout probability applied to the input features in
	// training mode (not a DGL GraphConv argument: DGL's GCN example applies
	// nn.Dropout before the layer; doing it inside lets the layer keep sparse
	// input features sparse).
	FeatDrop float32
	// Gen draws the initial weight and the dropout masks
	// (tensor.DefaultGenerator when nil).
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
// less work); the normalisation is applied as one weight per edge,
// 1/c_ij, inside the aggregation. Parameters: "weight" (InFeats, OutFeats),
// Glorot uniform; "bias" (OutFeats), zeros.
type GraphConv struct {
	core
	InFeats, OutFeats int
	Norm              string
	AllowZeroInDegree bool
	FeatDrop          float32
	Activation        func(*tensor.Tensor) *tensor.Tensor
	Weight            *tensor.Tensor // (InFeats, OutFeats), or nil
	Bias              *tensor.Tensor // (OutFeats), or nil
	gen               *tensor.Generator

	normMu  sync.Mutex
	normAdj *tensor.Adj    // the adjacency normW was computed for
	normW   *tensor.Tensor // (E) edge weights 1/c_ij in edge-id order
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
	checkDrop(op, "FeatDrop", o.FeatDrop)
	c := &GraphConv{InFeats: o.InFeats, OutFeats: o.OutFeats, Norm: o.Norm, FeatDrop: o.FeatDrop,
		AllowZeroInDegree: o.AllowZeroInDegree, Activation: o.Activation, gen: genOr(o.Gen)}
	if !o.NoWeight {
		c.Weight = c.param("weight", XavierUniform(tensor.Zeros(o.InFeats, o.OutFeats), o.InFeats, o.OutFeats, 1, c.gen))
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
	in := c.input(x, c.FeatDrop, c.gen)
	w := c.edgeNorm(g, x.Device())
	var rst *tensor.Tensor
	if c.Weight != nil && c.InFeats > c.OutFeats {
		rst = tensor.SpMM(adj, in.mm(c.Weight), w, "sum")
	} else {
		rst = tensor.SpMM(adj, in.dense(), w, "sum")
		if c.Weight != nil {
			rst = tensor.MatMul(rst, c.Weight)
		}
	}
	if c.Bias != nil {
		rst = tensor.Add(rst, c.Bias)
	}
	if c.Activation != nil {
		rst = c.Activation(rst)
	}
	return rst
}

// edgeNorm returns the weight 1/c_ij of every edge j -> i of g in edge-id
// order, (E) float32, or nil for norm "none". It is cached for the last
// adjacency seen (a full graph's stays the same from epoch to epoch).
func (c *GraphConv) edgeNorm(g graph.MessageGraph, device string) *tensor.Tensor {
	if c.Norm == "none" {
		return nil
	}
	adj := g.Adj()
	c.normMu.Lock()
	defer c.normMu.Unlock()
	if c.normAdj == adj && c.normW.Device() == device {
		return c.normW
	}
	left := make([]float64, adj.NumSrc)
	right := make([]float64, adj.NumDst)
	for i := range left {
		left[i] = 1
	}
	for i := range right {
		right[i] = 1
	}
	if c.Norm == "both" || c.Norm == "left" {
		for s, d := range g.OutDegrees().Int64s() {
			if c.Norm == "both" {
				left[s] = 1 / math.Sqrt(float64(max(d, 1)))
			} else {
				left[s] = 1 / float64(max(d, 1))
			}
		}
	}
	if c.Norm == "both" || c.Norm == "right" {
		for d := range right {
			deg := float64(max(adj.Indptr[d+1]-adj.Indptr[d], 1))
			if c.Norm == "both" {
				right[d] = 1 / math.Sqrt(deg)
			} else {
				right[d] = 1 / deg
			}
		}
	}
	w := make([]float32, adj.NumEdges())
	for d := 0; d < adj.NumDst; d++ {
		for p := adj.Indptr[d]; p < adj.Indptr[d+1]; p++ {
			e := p
			if adj.EIDs != nil {
				e = adj.EIDs[p]
			}
			w[e] = float32(left[adj.Indices[p]] * right[d])
		}
	}
	c.normAdj, c.normW = adj, onDevice(tensor.FromFloat32(w, len(w)), device)
	return c.normW
}

// String describes the GraphConv in the manner of DGL's and PyTorch's repr.
func (c *GraphConv) String() string {
	return fmt.Sprintf("GraphConv(in=%d, out=%d, normalization=%s, feat_drop=%g, activation=%s)",
		c.InFeats, c.OutFeats, c.Norm, c.FeatDrop, activationName(c.Activation))
}
