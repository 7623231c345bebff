package nn

import (
	"fmt"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// MetapathMean aggregates the features x of a metapath's first node type
// along the metapath by mean, one relation at a time:
//
//	h_0 = x,  h_k = D_k^-1 A_k h_{k-1}  (k = 1..len(metapath))
//
// where A_k is the (N_dst, N_src) adjacency of relation metapath[k-1] and
// D_k its in-degrees (a destination without in-edges gets zeros). This is
// the neighbor aggregation of SeHGNN (Yang et al., "Simple and Efficient
// Heterogeneous Graph Neural Network", AAAI 2023) and of NARS (Yu et al.
// 2020), precomputed once before training. metapath lists edge types
// (names, or the CanonicalEType String form) whose types chain: the
// destination type of one is the source type of the next. x is (N_src,
// F) float32 on any device; the result is (N_dst, F) for the last
// relation's destination type, without gradient history beyond x's
// (SpMM records one). Cost: one SpMM pass over each relation's edges.
// It panics with ErrOption naming an unknown or ambiguous edge type, an
// empty metapath or types that do not chain, and with ErrShape when x
// does not have N_src rows.
func MetapathMean(g *graph.Graph, metapath []string, x *tensor.Tensor) *tensor.Tensor {
	const op = "MetapathMean"
	if g == nil {
		panicf(ErrOption, op, "graph is nil")
	}
	if len(metapath) == 0 {
		panicf(ErrOption, op, "metapath is empty")
	}
	if x == nil {
		panicf(ErrShape, op, "x is nil")
	}
	ces := g.CanonicalETypes()
	h := x
	var prev graph.CanonicalEType
	for k, et := range metapath {
		var match []graph.CanonicalEType
		for _, ce := range ces {
			if ce.String() == et {
				match = []graph.CanonicalEType{ce}
				break
			}
			if ce.EType == et {
				match = append(match, ce)
			}
		}
		switch {
		case len(match) == 0:
			panicf(ErrOption, op, "metapath[%d]: the graph has no edge type %q (have %v)", k, et, g.ETypes())
		case len(match) > 1:
			names := make([]string, len(match))
			for i, ce := range match {
				names[i] = ce.String()
			}
			panicf(ErrOption, op, "metapath[%d]: edge type %q is ambiguous (%s); use the canonical form", k, et, strings.Join(names, ", "))
		}
		ce := match[0]
		if k > 0 && ce.Src != prev.Dst {
			panicf(ErrOption, op, "metapath[%d] %v starts at node type %q, but metapath[%d] %v ends at %q", k, ce, ce.Src, k-1, prev, prev.Dst)
		}
		if k == 0 && (h.Dim() != 2 || h.Size(0) != g.NumNodesOf(ce.Src)) {
			panicf(ErrShape, op, "x has shape %v, want (%d, F): one row per %q node", x.Shape(), g.NumNodesOf(ce.Src), ce.Src)
		}
		h = tensor.SpMM(g.AdjOf(ce.String()), h, nil, "mean")
		prev = ce
	}
	return h
}

// SIGNOptions configures a SIGN model.
type SIGNOptions struct {
	// InFeats is the feature size of each operator's input, in the order
	// Forward receives them (hops A^k X, or metapath aggregates).
	InFeats []int
	// HiddenFeats is each operator's projection size (64 when 0); the
	// concatenation has len(InFeats)*HiddenFeats features.
	HiddenFeats int
	// OutFeats is the number of classes.
	OutFeats int
	// InputDropout is applied to every operator's input, Dropout to the
	// concatenated hidden features, both in training mode only.
	InputDropout, Dropout float32
	// Seed seeds the initial weights and the dropout masks.
	Seed int64
}

// SIGN is the Scalable Inception Graph Network of Frasca, Rossi, Eynard,
// Chamberlain, Bronstein and Monti ("SIGN: Scalable Inception Graph
// Neural Networks", 2020), as PyG's SIGN example builds it:
//
//	Z = ReLU( [X_0 Θ_0 + b_0 || X_1 Θ_1 + b_1 || ... || X_r Θ_r + b_r] )
//	Y = dropout(Z) Ω + c
//
// X_k are precomputed operator features: hops A^k X on a homogeneous graph
// (featstore.Propagate), or metapath aggregates on a heterograph
// (MetapathMean; the heterogeneous use is NARS and SeHGNN's). All graph
// work happens once before training, so an epoch is two dense layers over
// the rows of a batch. Parameters: "inception.<k>.weight"/".bias"
// (InFeats[k], HiddenFeats) per operator and "lin.weight"/".bias"
// (len(InFeats)*HiddenFeats, OutFeats), initialised as torch.nn.Linear.
type SIGN struct {
	core
	Inception             []*Linear
	Lin                   *Linear
	InputDropout, Dropout float32
	gen                   *tensor.Generator
}

// NewSIGN builds the model. It panics with ErrOption when InFeats is
// empty, a size is not positive or a dropout is outside [0, 1).
func NewSIGN(o SIGNOptions) *SIGN {
	const op = "SIGN"
	if len(o.InFeats) == 0 {
		panicf(ErrOption, op, "InFeats is empty: give one feature size per operator")
	}
	if o.HiddenFeats == 0 {
		o.HiddenFeats = 64
	}
	for k, f := range o.InFeats {
		checkPositive(op, fmt.Sprintf("InFeats[%d]", k), f)
	}
	checkPositive(op, "HiddenFeats", o.HiddenFeats)
	checkPositive(op, "OutFeats", o.OutFeats)
	checkDrop(op, "InputDropout", o.InputDropout)
	checkDrop(op, "Dropout", o.Dropout)
	gen := tensor.NewGenerator(o.Seed)
	m := &SIGN{InputDropout: o.InputDropout, Dropout: o.Dropout, gen: gen}
	for k, f := range o.InFeats {
		l := NewLinear(f, o.HiddenFeats, true, gen)
		m.Inception = append(m.Inception, l)
		m.child(fmt.Sprintf("inception.%d", k), l)
	}
	m.Lin = NewLinear(len(o.InFeats)*o.HiddenFeats, o.OutFeats, true, gen)
	m.child("lin", m.Lin)
	return m
}

// Forward returns the logits (N, OutFeats) float32 of N nodes from their
// operator features xs[k] (N, InFeats[k]), all on one device. It panics
// with ErrShape when the number of operators, a feature size or the row
// counts do not fit.
func (m *SIGN) Forward(xs []*tensor.Tensor) *tensor.Tensor {
	const op = "SIGN.Forward"
	if len(xs) != len(m.Inception) {
		panicf(ErrShape, op, "got %d operator inputs, the model has %d", len(xs), len(m.Inception))
	}
	hs := make([]*tensor.Tensor, len(xs))
	for k, x := range xs {
		if x == nil || x.Dim() != 2 || x.Size(1) != m.Inception[k].InFeats || x.Size(0) != xs[0].Size(0) {
			shape := []int(nil)
			if x != nil {
				shape = x.Shape()
			}
			panicf(ErrShape, op, "xs[%d] has shape %v, want (%d, %d)", k, shape, xs[0].Size(0), m.Inception[k].InFeats)
		}
		hs[k] = m.Inception[k].Forward(m.dropout(x, m.InputDropout, m.gen))
	}
	h := tensor.ReLU(tensor.Concat(hs, 1))
	return m.Lin.Forward(m.dropout(h, m.Dropout, m.gen))
}

func (m *SIGN) String() string {
	return fmt.Sprintf("SIGN(%d operators, hidden=%d, out=%d, input_dropout=%g, dropout=%g)",
		len(m.Inception), m.Inception[0].OutFeats, m.Lin.OutFeats, m.InputDropout, m.Dropout)
}
