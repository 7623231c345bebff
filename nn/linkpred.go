package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Link prediction: edge scorers over pair graphs (the positive and negative
// pair graphs of sampling.NewEdgeDataLoader, or any graph whose nodes are
// the rows of h) and the losses of DGL's and PyG's link-prediction
// examples.

// endpointRows returns h's rows of the sources and destinations of g's
// edges, each (E, F), checking that h has a row per node of g.
func endpointRows(op string, g *graph.Graph, h *tensor.Tensor) (hu, hv *tensor.Tensor) {
	if g == nil || h == nil {
		panicf(ErrOption, op, "the pair graph or the node representations are nil")
	}
	if !g.IsHomogeneous() {
		panicf(ErrOption, op, "the pair graph has node types %v and edge types %v; give a homogeneous pair graph", g.NTypes(), g.ETypes())
	}
	if h.Dim() != 2 || h.Size(0) != g.NumNodes() {
		panicf(ErrShape, op, "h of shape %v does not fit the pair graph's %d nodes; want (%d, F)", h.Shape(), g.NumNodes(), g.NumNodes())
	}
	src, dst := g.Edges()
	return tensor.IndexSelect(h, onDevice(src, h.Device())), tensor.IndexSelect(h, onDevice(dst, h.Device()))
}

// DotPredictor scores every edge u -> v of a pair graph by the dot product
// of its endpoints' representations, h[u] . h[v] (DGL's
// g.apply_edges(fn.u_dot_v('h', 'h', 'score')), the DotPredictor of DGL's
// link-prediction tutorial, PyG's (z[src] * z[dst]).sum(-1)). It has no
// parameters.
type DotPredictor struct{ core }

// NewDotPredictor returns a DotPredictor.
func NewDotPredictor() *DotPredictor { return &DotPredictor{} }

// Forward returns the edge scores (logits): pair graph with N nodes and E
// edges, h (N, F) float32 -> (E) float32, in edge-id order, on h's device.
// Gradients flow to h. It panics with ErrShape when h does not have N rows.
func (p *DotPredictor) Forward(pair *graph.Graph, h *tensor.Tensor) *tensor.Tensor {
	hu, hv := endpointRows("DotPredictor.Forward", pair, h)
	return tensor.SumDim(tensor.Mul(hu, hv), 1, false)
}

// String is "DotPredictor()".
func (p *DotPredictor) String() string { return "DotPredictor()" }

// MLPPredictorOptions configures NewMLPPredictor.
type MLPPredictorOptions struct {
	// InFeats is the width F of the node representations (required).
	InFeats int
	// HiddenFeats is the hidden width; 0 means InFeats.
	HiddenFeats int
	// Gen draws the initial weights (the default generator when nil).
	Gen *tensor.Generator
}

// MLPPredictor scores every edge u -> v of a pair graph with a two-layer
// perceptron over the concatenated endpoint representations,
// W2 relu(W1 [h[u] || h[v]] + b1) + b2 (the MLPPredictor of DGL's
// link-prediction tutorial). Parameters "W1.weight", "W1.bias",
// "W2.weight", "W2.bias".
type MLPPredictor struct {
	core
	W1, W2 *Linear
}

// NewMLPPredictor returns an MLPPredictor with Linear(2F, hidden) and
// Linear(hidden, 1) initialised as torch.nn.Linear. It panics with
// ErrOption when InFeats is not positive or HiddenFeats is negative.
func NewMLPPredictor(o MLPPredictorOptions) *MLPPredictor {
	checkPositive("MLPPredictor", "InFeats", o.InFeats)
	hidden := o.HiddenFeats
	if hidden < 0 {
		panicf(ErrOption, "MLPPredictor", "HiddenFeats must be >= 0 (0: InFeats), got %d", hidden)
	}
	if hidden == 0 {
		hidden = o.InFeats
	}
	m := &MLPPredictor{W1: NewLinear(2*o.InFeats, hidden, true, o.Gen), W2: NewLinear(hidden, 1, true, o.Gen)}
	m.child("W1", m.W1)
	m.child("W2", m.W2)
	return m
}

// Forward returns the edge scores (logits): pair graph with N nodes and E
// edges, h (N, InFeats) float32 -> (E) float32, in edge-id order. It
// panics with ErrShape when h does not have N rows of InFeats columns.
func (m *MLPPredictor) Forward(pair *graph.Graph, h *tensor.Tensor) *tensor.Tensor {
	hu, hv := endpointRows("MLPPredictor.Forward", pair, h)
	if h.Size(1) != m.W1.InFeats/2 {
		panicf(ErrShape, "MLPPredictor.Forward", "h of shape %v does not fit InFeats = %d", h.Shape(), m.W1.InFeats/2)
	}
	z := tensor.ReLU(m.W1.Forward(tensor.Concat([]*tensor.Tensor{hu, hv}, 1)))
	out := m.W2.Forward(z)
	return tensor.Reshape(out, out.Size(0))
}

// String describes the predictor as PyTorch prints it.
func (m *MLPPredictor) String() string {
	return fmt.Sprintf("MLPPredictor(in_feats=%d, hidden_feats=%d)", m.W1.InFeats/2, m.W1.OutFeats)
}

// Softplus returns log(1 + exp(x)) elementwise (F.softplus), computed
// without overflow as relu(x) + log(1 + exp(x - 2 relu(x))), whose
// gradient is sigmoid(x) everywhere, 0.5 at 0 included. Same shape, dtype
// and device as x.
func Softplus(x *tensor.Tensor) *tensor.Tensor {
	if x == nil {
		panicf(ErrOption, "Softplus", "x is nil")
	}
	r := tensor.ReLU(x)
	negAbs := tensor.Sub(x, tensor.MulScalar(r, 2)) // -|x|
	return tensor.Add(r, tensor.Log(tensor.AddScalar(tensor.Exp(negAbs), 1)))
}

// LogSigmoid returns log(sigmoid(x)) = -softplus(-x) elementwise
// (F.logsigmoid), stable for large |x|.
func LogSigmoid(x *tensor.Tensor) *tensor.Tensor {
	if x == nil {
		panicf(ErrOption, "LogSigmoid", "x is nil")
	}
	return tensor.Neg(Softplus(tensor.Neg(x)))
}

// BCEWithLogits returns the mean binary cross-entropy of logits against
// targets in [0, 1]: mean(softplus(x) - x*y), the numerically stable form of
// -[y log sigmoid(x) + (1-y) log(1 - sigmoid(x))]
// (F.binary_cross_entropy_with_logits with reduction "mean"). logits and
// targets are float32 of the same shape -> scalar. It panics with ErrShape
// when the shapes differ or are empty.
func BCEWithLogits(logits, targets *tensor.Tensor) *tensor.Tensor {
	const op = "BCEWithLogits"
	if logits == nil || targets == nil {
		panicf(ErrOption, op, "logits or targets are nil")
	}
	if !sameShape(logits.Shape(), targets.Shape()) || logits.Numel() == 0 {
		panicf(ErrShape, op, "logits of shape %v and targets of shape %v must have the same non-empty shape", logits.Shape(), targets.Shape())
	}
	return tensor.Mean(tensor.Sub(Softplus(logits), tensor.Mul(logits, targets)))
}

// flatScores checks a score tensor of a link loss: 1-D, or (P, k) for neg.
func flatScores(op, arg string, s *tensor.Tensor) *tensor.Tensor {
	if s == nil {
		panicf(ErrOption, op, "%s is nil", arg)
	}
	if s.Numel() == 0 {
		panicf(ErrShape, op, "%s is empty (shape %v)", arg, s.Shape())
	}
	if s.Dim() == 1 {
		return s
	}
	if s.Dim() == 2 && arg == "neg" {
		return tensor.Reshape(s, s.Numel())
	}
	panicf(ErrShape, op, "%s must be 1-D scores, got shape %v", arg, s.Shape())
	return nil
}

// LinkBCELoss returns the binary cross-entropy of positive edge scores pos
// (P) labelled 1 and negative scores neg (any length) labelled 0, as one
// mean over all P + len(neg) logits (compute_loss of DGL's link-prediction
// examples: BCE with logits of cat([pos, neg]) against cat([ones, zeros])).
// Scalar float32; gradients flow to both.
func LinkBCELoss(pos, neg *tensor.Tensor) *tensor.Tensor {
	p, n := flatScores("LinkBCELoss", "pos", pos), flatScores("LinkBCELoss", "neg", neg)
	logits := tensor.Concat([]*tensor.Tensor{p, n}, 0)
	y := make([]float32, logits.Numel())
	for i := range p.Numel() {
		y[i] = 1
	}
	t := tensor.FromFloat32(y)
	if d := logits.Device(); d != "cpu" {
		var err error
		if t, err = t.To(d); err != nil {
			panic(err)
		}
	}
	return BCEWithLogits(logits, t)
}

// pairUp repeats each positive score k times to line up with negatives
// laid out as a negative sampler makes them: k negatives per positive,
// neg[i*k+j] paired with pos[i] ((P*k) or (P, k)).
func pairUp(op string, pos, neg *tensor.Tensor) (p, n *tensor.Tensor) {
	p, n = flatScores(op, "pos", pos), flatScores(op, "neg", neg)
	np, nNeg := p.Numel(), n.Numel()
	if nNeg%np != 0 {
		panicf(ErrShape, op, "neg has %d scores, not a multiple of pos's %d: want k negatives per positive, neg[i*k+j] paired with pos[i]", nNeg, np)
	}
	k := nNeg / np
	if k == 1 {
		return p, n
	}
	idx := make([]int64, nNeg)
	for i := range idx {
		idx[i] = int64(i / k)
	}
	return tensor.IndexSelect(p, onDevice(tensor.FromInt64(idx), p.Device())), n
}

// BPRLoss returns the Bayesian personalised ranking loss
// -mean(log sigmoid(pos_i - neg_ij)) (Rendle et al., "BPR: Bayesian
// Personalized Ranking from Implicit Feedback", UAI 2009; LightGCN's loss)
// over the P*k pairs of positive scores pos (P) and negative scores neg
// (P*k) or (P, k), neg[i*k+j] being a negative of positive i (the layout of
// sampling.PerSourceUniform). Scalar float32. It panics with ErrShape when
// len(neg) is not a multiple of len(pos).
func BPRLoss(pos, neg *tensor.Tensor) *tensor.Tensor {
	p, n := pairUp("BPRLoss", pos, neg)
	return tensor.Mean(Softplus(tensor.Sub(n, p)))
}

// MarginLoss returns the hinge (margin ranking) loss
// mean(max(0, margin - pos_i + neg_ij)) over the same pairs as BPRLoss
// (the margin loss of DGL's link-prediction tutorial, margin 1;
// torch.nn.MarginRankingLoss with target 1). Scalar float32. margin may be
// any finite value.
func MarginLoss(pos, neg *tensor.Tensor, margin float32) *tensor.Tensor {
	p, n := pairUp("MarginLoss", pos, neg)
	return tensor.Mean(tensor.ReLU(tensor.AddScalar(tensor.Sub(n, p), margin)))
}
