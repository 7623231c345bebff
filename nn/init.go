package nn

import (
	"math"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// GainReLU is torch.nn.init.calculate_gain("relu") = sqrt(2), the gain DGL
// uses when it initialises SAGEConv and GATConv weights.
var GainReLU = math.Sqrt2

// XavierUniform fills w in place with values drawn uniformly from ±a, a =
// gain*sqrt(6/(fanIn+fanOut)) (Glorot & Bengio 2010; torch.nn.init.
// xavier_uniform_), from gen's sequential stream (the default generator
// when nil). It returns w.
func XavierUniform(w *tensor.Tensor, fanIn, fanOut int, gain float64, gen *tensor.Generator) *tensor.Tensor {
	a := gain * math.Sqrt(6/float64(fanIn+fanOut))
	return fillUniform(w, -a, a, gen)
}

// XavierNormal fills w in place with normal values of standard deviation
// gain*sqrt(2/(fanIn+fanOut)) (torch.nn.init.xavier_normal_). It returns w.
func XavierNormal(w *tensor.Tensor, fanIn, fanOut int, gain float64, gen *tensor.Generator) *tensor.Tensor {
	std := gain * math.Sqrt(2/float64(fanIn+fanOut))
	gen = genOr(gen)
	d := w.Float32s()
	for i := range d {
		d[i] = float32(std * gen.NormFloat64())
	}
	return w
}

// KaimingUniformLinear fills w in place from U(-1/sqrt(fanIn),
// 1/sqrt(fanIn)), which is what torch.nn.Linear's default initialisation
// (kaiming_uniform_ with a = sqrt(5)) amounts to, for weights and biases
// alike. It returns w.
func KaimingUniformLinear(w *tensor.Tensor, fanIn int, gen *tensor.Generator) *tensor.Tensor {
	b := 0.0
	if fanIn > 0 {
		b = 1 / math.Sqrt(float64(fanIn))
	}
	return fillUniform(w, -b, b, gen)
}

func fillUniform(w *tensor.Tensor, lo, hi float64, gen *tensor.Generator) *tensor.Tensor {
	gen = genOr(gen)
	d := w.Float32s()
	for i := range d {
		d[i] = float32(lo + (hi-lo)*gen.Float64())
	}
	return w
}
