package nn

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func pairGraph(t *testing.T, n int, src, dst []int64) *graph.Graph {
	t.Helper()
	g, err := graph.New(n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestLinkLossValues(t *testing.T) {
	close := func(name string, got *tensor.Tensor, want float64) {
		t.Helper()
		if v := got.Item(); math.Abs(v-want) > 1e-5 {
			t.Errorf("%s = %.6f, want %.6f", name, v, want)
		}
	}
	sp := Softplus(tensor.FromFloat32([]float32{0, 100, -100, 1})).Float32s()
	if math.Abs(float64(sp[0])-math.Ln2) > 1e-6 || sp[1] != 100 || sp[2] < 0 || sp[2] > 1e-30 || math.Abs(float64(sp[3])-1.3132617) > 1e-6 {
		t.Errorf("softplus %v", sp)
	}
	ls := LogSigmoid(tensor.FromFloat32([]float32{-200, 0})).Float32s()
	if ls[0] != -200 || math.Abs(float64(ls[1])+math.Ln2) > 1e-6 {
		t.Errorf("logsigmoid %v", ls)
	}
	// -log sigmoid(0), -log(1 - sigmoid(2)) = softplus(2), -log sigmoid(-1) = softplus(1).
	close("BCEWithLogits", BCEWithLogits(tensor.FromFloat32([]float32{0, 2, -1}), tensor.FromFloat32([]float32{1, 0, 1})),
		(math.Ln2+2.1269280+1.3132617)/3)
	close("LinkBCELoss", LinkBCELoss(tensor.FromFloat32([]float32{0}), tensor.FromFloat32([]float32{0, 0})), math.Ln2)
	pos, neg := tensor.FromFloat32([]float32{1, 0}), tensor.FromFloat32([]float32{0, 2, 1, -1})
	// Differences 1, -1, -1, 1: -log sigmoid(1) = 0.3132617, -log sigmoid(-1) = 1.3132617.
	close("BPRLoss", BPRLoss(pos, neg), (0.3132617+1.3132617)/2)
	close("BPRLoss (P, k)", BPRLoss(pos, tensor.Reshape(neg, 2, 2)), (0.3132617+1.3132617)/2)
	// 1 - 1 + 0, 1 - 1 + 2, 1 - 0 + 1, 1 - 0 - 1 -> mean(0, 2, 2, 0).
	close("MarginLoss", MarginLoss(pos, neg, 1), 1)
	close("MarginLoss k=1", MarginLoss(pos, tensor.FromFloat32([]float32{0.5, 0.5}), 0.25), (0+0.75)/2)
}

func TestPredictorValues(t *testing.T) {
	pair := pairGraph(t, 3, []int64{0, 2, 1}, []int64{1, 0, 1})
	h := tensor.FromFloat32([]float32{1, 2, 3, -1, 0.5, 0}, 3, 2)
	got := NewDotPredictor().Forward(pair, h).Float32s()
	want := []float32{1*3 + 2*-1, 0.5*1 + 0*2, 3*3 + 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("dot scores %v, want %v", got, want)
		}
	}
	m := NewMLPPredictor(MLPPredictorOptions{InFeats: 2, HiddenFeats: 4, Gen: tensor.NewGenerator(1)})
	s := m.Forward(pair, h)
	if s.Dim() != 1 || s.Size(0) != 3 {
		t.Fatalf("MLP scores shape %v", s.Shape())
	}
	if len(m.NamedParameters()) != 4 || m.NamedParameters()[0].Name != "W1.weight" || m.String() != "MLPPredictor(in_feats=2, hidden_feats=4)" {
		t.Errorf("MLPPredictor params %v, %s", m.NamedParameters(), m)
	}
}

// TestGradCheckLinkPrediction checks the scorers' and losses' gradients by
// finite differences.
func TestGradCheckLinkPrediction(t *testing.T) {
	pair := pairGraph(t, 4, []int64{0, 1, 3, 2, 0}, []int64{1, 2, 0, 2, 3})
	h := randT(3, -1, 1, 4, 3).SetRequiresGrad(true)
	gradCheck(t, "DotPredictor", func() *tensor.Tensor { return NewDotPredictor().Forward(pair, h) }, []NamedParameter{{"h", h}})
	m := NewMLPPredictor(MLPPredictorOptions{InFeats: 3, HiddenFeats: 5, Gen: tensor.NewGenerator(2)})
	gradCheck(t, "MLPPredictor", func() *tensor.Tensor { return m.Forward(pair, h) },
		append(m.NamedParameters(), NamedParameter{"h", h}))
	// Scores away from the hinge's kink (|margin - pos + neg| > eps).
	pos := tensor.FromFloat32([]float32{1.3, -0.4, 0}).SetRequiresGrad(true)
	neg := tensor.FromFloat32([]float32{0.2, 2.1, -1.7, 0.9, 0, 0.55}).SetRequiresGrad(true)
	x := tensor.FromFloat32([]float32{0, 3, -2.5, 0.7}).SetRequiresGrad(true)
	y := tensor.FromFloat32([]float32{1, 0, 1, 0.3})
	both := []NamedParameter{{"pos", pos}, {"neg", neg}}
	gradCheck(t, "Softplus", func() *tensor.Tensor { return Softplus(x) }, []NamedParameter{{"x", x}})
	gradCheck(t, "LogSigmoid", func() *tensor.Tensor { return LogSigmoid(x) }, []NamedParameter{{"x", x}})
	gradCheck(t, "BCEWithLogits", func() *tensor.Tensor { return BCEWithLogits(x, y) }, []NamedParameter{{"x", x}})
	gradCheck(t, "LinkBCELoss", func() *tensor.Tensor { return LinkBCELoss(pos, neg) }, both)
	gradCheck(t, "BPRLoss", func() *tensor.Tensor { return BPRLoss(pos, neg) }, both)
	gradCheck(t, "MarginLoss", func() *tensor.Tensor { return MarginLoss(pos, neg, 0.5) }, both)
	// The softplus gradient at 0 is sigmoid(0) = 1/2 (a kink-free form).
	z := tensor.Zeros(1).SetRequiresGrad(true)
	tensor.Sum(Softplus(z)).Backward()
	if g := z.Grad().Float32s()[0]; g != 0.5 {
		t.Errorf("softplus'(0) = %v", g)
	}
}

func TestLinkPredictionErrors(t *testing.T) {
	pair := pairGraph(t, 3, []int64{0}, []int64{1})
	cases := []struct {
		name string
		f    func()
		kind error
		want string
	}{
		{"dot rows", func() { NewDotPredictor().Forward(pair, tensor.Zeros(4, 2)) }, ErrShape, "h of shape [4 2] does not fit the pair graph's 3 nodes"},
		{"dot nil", func() { NewDotPredictor().Forward(nil, tensor.Zeros(4, 2)) }, ErrOption, "nil"},
		{"mlp width", func() { NewMLPPredictor(MLPPredictorOptions{InFeats: 2}).Forward(pair, tensor.Zeros(3, 3)) }, ErrShape, "does not fit InFeats = 2"},
		{"mlp opts", func() { NewMLPPredictor(MLPPredictorOptions{}) }, ErrOption, "InFeats must be positive"},
		{"bce shapes", func() { BCEWithLogits(tensor.Zeros(3), tensor.Zeros(2)) }, ErrShape, "logits of shape [3] and targets of shape [2]"},
		{"bpr lengths", func() { BPRLoss(tensor.Zeros(2), tensor.Zeros(3)) }, ErrShape, "neg has 3 scores, not a multiple of pos's 2"},
		{"margin empty", func() { MarginLoss(tensor.Zeros(0), tensor.Zeros(3), 1) }, ErrShape, "pos is empty"},
		{"pos 2-D", func() { LinkBCELoss(tensor.Zeros(2, 1), tensor.Zeros(3)) }, ErrShape, "pos must be 1-D"},
	}
	for _, c := range cases {
		err := tensor.Catch(c.f)
		if err == nil || !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v; want %v containing %q", c.name, err, c.kind, c.want)
		}
	}
}
