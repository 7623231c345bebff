package tensor

import (
	"github.com/gnnrepl/gnnrepl/kernels"
)

// cudaBinaryRaw computes a op b with NumPy broadcasting on the device,
// without autograd.
func cudaBinaryRaw(op string, code int32, a, b *Tensor) *Tensor {
	checkFloat(op, a, b)
	shape := broadcastShapes(op, a.shape, b.shape)
	d := cudaOf(op, a)
	out := d.empty(op, Float32, shape)
	n := out.n
	if n == 0 {
		return out
	}
	pa, pb, py := devPtr(op, a), devPtr(op, b), ptr(out)
	switch {
	case sameShape(a.shape, b.shape) && code != opCopyA:
		switch code {
		case opAdd:
			d.must(op, kernels.AddF32(d.s, pa, pb, py, n))
		case opSub:
			d.must(op, kernels.SubF32(d.s, pa, pb, py, n))
		case opMul:
			d.must(op, kernels.MulF32(d.s, pa, pb, py, n))
		default:
			d.launch1D(op, "gt_binary_f32", int64(n), pa, pb, py, int64(n), code)
		}
	case code == opAdd && sameShape(a.shape, shape) && len(b.shape) == 1 && len(shape) >= 1 && b.shape[0] == shape[len(shape)-1]:
		f := b.shape[0]
		d.must(op, kernels.AddBiasF32(d.s, pa, pb, py, n/f, f))
	default:
		if len(shape) > 4 {
			notOnDevice(op+" (broadcast over more than 4 dimensions)", d.name)
		}
		od := padTo4(shape, 1)
		sa, sb := padTo4(bstrides(a.shape, shape), 0), padTo4(bstrides(b.shape, shape), 0)
		d.launch1D(op, "gt_bcast_binary_f32", int64(n), pa, pb, py, int64(n), code,
			od[1], od[2], od[3], sa[0], sa[1], sa[2], sa[3], sb[0], sb[1], sb[2], sb[3])
	}
	return out
}

// expandDev broadcasts x to shape (a copy).
func expandDev(op string, x *Tensor, shape []int) *Tensor {
	broadcastShapes(op, x.shape, shape)
	d := cudaOf(op, x)
	out := d.empty(op, Float32, shape)
	if out.n == 0 {
		return out
	}
	if len(shape) > 4 {
		notOnDevice(op+" (broadcast over more than 4 dimensions)", d.name)
	}
	od := padTo4(shape, 1)
	sa := padTo4(bstrides(x.shape, shape), 0)
	px := ptr(x)
	d.launch1D(op, "gt_bcast_binary_f32", int64(out.n), px, px, ptr(out), int64(out.n), opCopyA,
		od[1], od[2], od[3], sa[0], sa[1], sa[2], sa[3], int64(0), int64(0), int64(0), int64(0))
	return out
}

// sumToDev reduces a broadcast gradient g to shape (sumTo on the device).
func sumToDev(op string, g *Tensor, shape []int) *Tensor {
	if sameShape(g.shape, shape) {
		return g
	}
	d := cudaOf(op, g)
	out := d.empty(op, Float32, shape)
	switch {
	case out.n == 0:
	case g.n == 0:
		d.must(op, d.dev.Memset8(ptr(out), 0, out.n*4))
	case out.n == 1:
		d.must(op, kernels.SumF32(d.s, ptr(g), g.n, ptr(out), 1))
	case len(shape) == 1 && len(g.shape) == 2 && shape[0] == g.shape[1]:
		d.must(op, kernels.SumDim0F32(d.s, ptr(g), ptr(out), g.shape[0], g.shape[1], 1))
	default:
		if len(g.shape) > 4 {
			notOnDevice(op+" (broadcast gradient over more than 4 dimensions)", d.name)
		}
		// Align shape to g's rank, then pad both to four dimensions.
		al := make([]int, len(g.shape))
		for i := range al {
			al[i] = 1
			if j := len(shape) - len(g.shape) + i; j >= 0 {
				al[i] = shape[j]
			}
		}
		gp, op4 := padTo4(g.shape, 1), padTo4(al, 1)
		d.launch1D(op, "gt_sum_to_f32", int64(out.n), ptr(g), ptr(out), int64(out.n),
			gp[0], gp[1], gp[2], gp[3], op4[1], op4[2], op4[3])
	}
	return out
}

// scaleDev returns s * x on the device.
func scaleDev(op string, x *Tensor, s float32) *Tensor {
	d := cudaOf(op, x)
	out := d.empty(op, Float32, x.shape)
	d.must(op, kernels.ScaleF32(d.s, ptr(x), s, ptr(out), x.n))
	return out
}

func cudaAdd(a, b *Tensor) *Tensor {
	out := cudaBinaryRaw("Add", opAdd, a, b)
	return record(out, "Add", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			ga = sumToDev("Add", g, a.shape)
		}
		if b.requiresGrad {
			gb = sumToDev("Add", g, b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

func cudaSub(a, b *Tensor) *Tensor {
	out := cudaBinaryRaw("Sub", opSub, a, b)
	return record(out, "Sub", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			ga = sumToDev("Sub", g, a.shape)
		}
		if b.requiresGrad {
			gb = sumToDev("Sub", scaleDev("Sub", g, -1), b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

func cudaMul(a, b *Tensor) *Tensor {
	out := cudaBinaryRaw("Mul", opMul, a, b)
	return record(out, "Mul", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			ga = sumToDev("Mul", cudaBinaryRaw("Mul", opMul, g, b), a.shape)
		}
		if b.requiresGrad {
			gb = sumToDev("Mul", cudaBinaryRaw("Mul", opMul, g, a), b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

func cudaDiv(a, b *Tensor) *Tensor {
	out := cudaBinaryRaw("Div", opDiv, a, b)
	return record(out, "Div", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			ga = sumToDev("Div", cudaBinaryRaw("Div", opDiv, g, b), a.shape)
		}
		if b.requiresGrad { // d(a/b)/db = -out/b
			t := cudaBinaryRaw("Div", opDiv, out, b)
			gb = sumToDev("Div", scaleDev("Div", cudaBinaryRaw("Div", opMul, g, t), -1), b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

func cudaMulScalar(x *Tensor, s float32) *Tensor {
	checkFloat("MulScalar", x)
	out := scaleDev("MulScalar", x, s)
	return record(out, "MulScalar", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{scaleDev("MulScalar", g, s)}
	})
}

// unaryDev runs gt_unary_f32 with op code u.
func unaryDev(op string, u int32, x *Tensor, p float32) *Tensor {
	checkFloat(op, x)
	d := cudaOf(op, x)
	out := d.empty(op, Float32, x.shape)
	d.launch1D(op, "gt_unary_f32", int64(x.n), ptr(x), ptr(out), int64(x.n), u, p)
	return out
}

func cudaAddScalar(x *Tensor, s float32) *Tensor {
	out := unaryDev("AddScalar", uAddScalar, x, s)
	return record(out, "AddScalar", []*Tensor{x}, func(g *Tensor) []*Tensor { return []*Tensor{g} })
}

// cudaUnary is a differentiable gt_unary_f32 op (Exp, Log, Sqrt, Sigmoid,
// Tanh, Pow).
func cudaUnary(op string, u int32, x *Tensor, p float32) *Tensor {
	out := unaryDev(op, u, x, p)
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		d := cudaOf(op, g)
		gx := d.empty(op, Float32, x.shape)
		d.launch1D(op, "gt_unary_bwd_f32", int64(x.n), ptr(x), ptr(out), ptr(g), ptr(gx), int64(x.n), u, p)
		return []*Tensor{gx}
	})
}

// cudaActivation is ReLU, LeakyReLU or ELU with the kernels package's
// forward and backward (a is the slope or alpha).
func cudaActivation(op string, x *Tensor, a float32) *Tensor {
	checkFloat(op, x)
	d := cudaOf(op, x)
	out := d.empty(op, Float32, x.shape)
	n := x.n
	switch op {
	case "ReLU":
		d.must(op, kernels.ReLUForward(d.s, ptr(x), ptr(out), n))
	case "LeakyReLU":
		d.must(op, kernels.LeakyReLUForward(d.s, ptr(x), ptr(out), a, n))
	default:
		d.must(op, kernels.ELUForward(d.s, ptr(x), ptr(out), a, n))
	}
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		gx := d.empty(op, Float32, x.shape)
		switch op {
		case "ReLU":
			d.must(op, kernels.ReLUBackward(d.s, ptr(x), ptr(g), ptr(gx), n))
		case "LeakyReLU":
			d.must(op, kernels.LeakyReLUBackward(d.s, ptr(x), ptr(g), ptr(gx), a, n))
		default:
			d.must(op, kernels.ELUBackward(d.s, ptr(x), ptr(g), ptr(gx), a, n))
		}
		return []*Tensor{gx}
	})
}
