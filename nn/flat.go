package nn

import (
	"math"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// NumElements returns the total number of scalars in params.
func NumElements(params []*tensor.Tensor) int {
	n := 0
	for _, p := range params {
		n += p.Numel()
	}
	return n
}

// ParametersToVector copies the values of params, in order, into one flat
// buffer (torch.nn.utils.parameters_to_vector) and returns it. buf is reused
// when it has room. Data-parallel training all-reduces such buffers.
func ParametersToVector(params []*tensor.Tensor, buf []float32) []float32 {
	buf = grow(buf, NumElements(params))
	off := 0
	for _, p := range params {
		off += copy(buf[off:], p.Float32s())
	}
	return buf
}

// VectorToParameters copies a flat buffer back into params, in order
// (torch.nn.utils.vector_to_parameters). It panics with ErrShape when the
// lengths differ.
func VectorToParameters(vec []float32, params []*tensor.Tensor) {
	checkLen("VectorToParameters", vec, params)
	off := 0
	for _, p := range params {
		off += copy(p.Float32s(), vec[off:])
	}
}

// GradientsToVector copies the gradients of params, in order, into one flat
// buffer (zeros where a parameter has no gradient) and returns it; buf is
// reused when it has room. It is the send buffer of a gradient all-reduce.
func GradientsToVector(params []*tensor.Tensor, buf []float32) []float32 {
	buf = grow(buf, NumElements(params))
	off := 0
	for _, p := range params {
		n := p.Numel()
		if g := p.Grad(); g != nil {
			copy(buf[off:off+n], g.Float32s())
		} else {
			clear(buf[off : off+n])
		}
		off += n
	}
	return buf
}

// VectorToGradients stores a flat buffer as the gradients of params, in
// order, allocating a gradient where a parameter has none. It panics with
// ErrShape when the lengths differ.
func VectorToGradients(vec []float32, params []*tensor.Tensor) {
	checkLen("VectorToGradients", vec, params)
	off := 0
	for _, p := range params {
		g := p.Grad()
		if g == nil {
			g = tensor.Zeros(p.Shape()...)
			p.SetGrad(g)
		}
		off += copy(g.Float32s(), vec[off:])
	}
}

// ClipGradNorm scales the gradients of params in place so that their
// global L2 norm is at most maxNorm, and returns the norm before clipping
// (torch.nn.utils.clip_grad_norm_ with norm_type 2).
func ClipGradNorm(params []*tensor.Tensor, maxNorm float64) float64 {
	var s float64
	for _, p := range params {
		if g := p.Grad(); g != nil {
			for _, v := range g.Float32s() {
				s += float64(v) * float64(v)
			}
		}
	}
	norm := math.Sqrt(s)
	if coef := maxNorm / (norm + 1e-6); coef < 1 {
		c := float32(coef)
		for _, p := range params {
			if g := p.Grad(); g != nil {
				d := g.Float32s()
				for i := range d {
					d[i] *= c
				}
			}
		}
	}
	return norm
}

func grow(buf []float32, n int) []float32 {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]float32, n)
}

func checkLen(op string, vec []float32, params []*tensor.Tensor) {
	if n := NumElements(params); len(vec) != n {
		panicf(ErrShape, op, "vector has %d values, the parameters hold %d", len(vec), n)
	}
}
