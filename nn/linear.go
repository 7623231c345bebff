package nn

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Linear is a fully connected layer y = x W + b (torch.nn.Linear), with the
// weight stored (InFeats, OutFeats), the transpose of torch's layout.
// Parameters: "weight" and, unless built without bias, "bias".
type Linear struct {
	core
	InFeats, OutFeats int
	Weight            *tensor.Tensor // (InFeats, OutFeats) float32
	Bias              *tensor.Tensor // (OutFeats) float32, or nil
}

// NewLinear returns a Linear layer initialised as torch.nn.Linear
// (weight and bias uniform in ±1/sqrt(inFeats)) from gen (the default
// generator when nil). It panics with ErrOption when a size is not
// positive.
func NewLinear(inFeats, outFeats int, bias bool, gen *tensor.Generator) *Linear {
	checkPositive("Linear", "in_feats", inFeats)
	checkPositive("Linear", "out_feats", outFeats)
	l := &Linear{InFeats: inFeats, OutFeats: outFeats}
	l.Weight = l.param("weight", KaimingUniformLinear(tensor.Zeros(inFeats, outFeats), inFeats, gen))
	if bias {
		l.Bias = l.param("bias", KaimingUniformLinear(tensor.Zeros(outFeats), inFeats, gen))
	}
	return l
}

// Forward computes x W + b: (N, InFeats) -> (N, OutFeats), float32, or
// float16 / bfloat16 inside an autocast region (package amp), where the
// whole layer runs in the low dtype as torch's F.linear does. It panics
// with ErrShape when x does not have InFeats columns.
func (l *Linear) Forward(x *tensor.Tensor) *tensor.Tensor {
	if x.Dim() != 2 || x.Size(1) != l.InFeats {
		panicf(ErrShape, "Linear.Forward", "input of shape %v does not fit in_features = %d", x.Shape(), l.InFeats)
	}
	return affine(x, l.Weight, l.Bias)
}

// affine returns x w + b for a bias b (F) or nil: one accumulating GEMM
// (tensor.AddMM, as torch's F.linear uses addmm; under autocast its
// result has the autocast dtype, as addBias's does).
func affine(x, w, b *tensor.Tensor) *tensor.Tensor {
	if b == nil {
		return tensor.MatMul(x, w)
	}
	return tensor.AddMM(b, x, w)
}

// addBias returns y + b for y (N, F) and a float32 bias b (F). Inside an
// autocast region a float16 or bfloat16 y keeps its dtype: the bias is
// cast to it (differentiably, so b's gradient stays float32), as torch's
// autocast casts every input of F.linear, instead of promoting the whole
// activation to float32 (which is what y + b alone does, and what DGL's
// layers get under torch.autocast).
func addBias(y, b *tensor.Tensor) *tensor.Tensor {
	if dt := y.DType(); dt != b.DType() && dt.IsFloatingPoint() {
		if on, _ := tensor.AutocastState(); on {
			b = b.Cast(dt)
		}
	}
	return tensor.Add(y, b)
}

// String describes the Linear in the manner of DGL's and PyTorch's repr.
func (l *Linear) String() string {
	return fmt.Sprintf("Linear(in_features=%d, out_features=%d, bias=%t)", l.InFeats, l.OutFeats, l.Bias != nil)
}
