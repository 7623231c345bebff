package tensor

import "math"

// ElementwiseKernels are the primitive kernels of this file's ops: binary and unary elementwise ops with broadcasting, activations and their gradients, casts between dtypes, fills and in-place updates.
// Every Backend implements them (cpu_*.go, cuda_*.go, meta.go).
type ElementwiseKernels interface{}

func checkFloat(op string, ts ...*Tensor) {
	for _, t := range ts {
		if t.dtype != Float32 {
			panicf(ErrDType, op, "needs float32 tensors, got %s of shape %v", t.dtype, t.shape)
		}
	}
}

// binary applies f elementwise over the broadcast of a and b.
func binary(op string, a, b *Tensor, f func(x, y float32) float32) *Tensor {
	if a.dtype != Float32 || b.dtype != Float32 {
		return binaryLow(op, a, b, f)
	}
	shape := broadcastShapes(op, a.shape, b.shape)
	out := Empty(Float32, shape...) // every branch writes every element
	od, ad, bd := out.Float32s(), a.Float32s(), b.Float32s()
	switch {
	case sameShape(a.shape, b.shape):
		parallelFor(len(od), 1<<15, func(lo, hi int) {
			kernel2(op, f, od[lo:hi], ad[lo:hi], bd[lo:hi])
		})
	case b.n == 1:
		y := bd[0]
		for i := range od {
			od[i] = f(ad[i], y)
		}
	case sameShape(a.shape, shape) && len(b.shape) == 1 && len(shape) >= 1 && b.shape[0] == shape[len(shape)-1]:
		f0 := b.shape[0]
		parallelFor(len(od)/f0, max(1, (1<<15)/f0), func(lo, hi int) {
			for r := lo; r < hi; r++ {
				kernel2(op, f, od[r*f0:(r+1)*f0], ad[r*f0:(r+1)*f0], bd)
			}
		})
	default:
		sa, sb := bstrides(a.shape, shape), bstrides(b.shape, shape)
		bcastLoop(shape, sa, sb, func(o, ai, bi, n, as, bs int) {
			for i := 0; i < n; i++ {
				od[o+i] = f(ad[ai+i*as], bd[bi+i*bs])
			}
		})
	}
	return out
}

// kernel2 sets od[i] = f(ad[i], bd[i]) for float32 slices of od's length,
// with direct loops for Add, Sub and Mul (a call per element costs more than
// the arithmetic).
func kernel2(op string, f func(x, y float32) float32, od, ad, bd []float32) {
	ad, bd = ad[:len(od)], bd[:len(od)]
	switch op {
	case "Add":
		for i := range od {
			od[i] = ad[i] + bd[i]
		}
	case "Sub":
		for i := range od {
			od[i] = ad[i] - bd[i]
		}
	case "Mul":
		for i := range od {
			od[i] = ad[i] * bd[i]
		}
	default:
		for i := range od {
			od[i] = f(ad[i], bd[i])
		}
	}
}

// Add returns a + b with NumPy broadcasting. Float tensors of any float
// dtype: the result has the promoted dtype (PromoteTypes: bfloat16 +
// float32 -> float32, as PyTorch), computed in float32. Panics with
// ErrShape when the shapes do not broadcast and with ErrDType for integer
// or bool operands. Sub, Mul and Div follow the same rules.
func Add(a, b *Tensor) *Tensor {
	defer hookOp("Add")()
	if d := deviceOf("Add", a, b); d != "cpu" {
		return cudaAdd(a, b)
	}
	out := binary("Add", a, b, func(x, y float32) float32 { return x + y })
	return record(out, "Add", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		return []*Tensor{sumTo(g, a.shape), sumTo(g, b.shape)}
	})
}

// Sub returns a - b with broadcasting.
func Sub(a, b *Tensor) *Tensor {
	defer hookOp("Sub")()
	if d := deviceOf("Sub", a, b); d != "cpu" {
		return cudaSub(a, b)
	}
	out := binary("Sub", a, b, func(x, y float32) float32 { return x - y })
	return record(out, "Sub", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var gb *Tensor
		if b.requiresGrad {
			gb = sumTo(scaleNew(g, -1), b.shape)
		}
		return []*Tensor{sumTo(g, a.shape), gb}
	})
}

// Mul returns the elementwise product a * b with broadcasting.
func Mul(a, b *Tensor) *Tensor {
	defer hookOp("Mul")()
	if d := deviceOf("Mul", a, b); d != "cpu" {
		return cudaMul(a, b)
	}
	out := binary("Mul", a, b, func(x, y float32) float32 { return x * y })
	return record(out, "Mul", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			ga = sumTo(binary("Mul", g, b.Detach(), func(x, y float32) float32 { return x * y }), a.shape)
		}
		if b.requiresGrad {
			gb = sumTo(binary("Mul", g, a.Detach(), func(x, y float32) float32 { return x * y }), b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

// Div returns the elementwise quotient a / b with broadcasting.
func Div(a, b *Tensor) *Tensor {
	defer hookOp("Div")()
	if d := deviceOf("Div", a, b); d != "cpu" {
		return cudaDiv(a, b)
	}
	out := binary("Div", a, b, func(x, y float32) float32 { return x / y })
	return record(out, "Div", []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if a.requiresGrad {
			ga = sumTo(binary("Div", g, b.Detach(), func(x, y float32) float32 { return x / y }), a.shape)
		}
		if b.requiresGrad {
			// d(a/b)/db = -a/b^2 = -out/b
			t := binary("Div", out.Detach(), b.Detach(), func(x, y float32) float32 { return -x / y })
			gb = sumTo(binary("Mul", g, t, func(x, y float32) float32 { return x * y }), b.shape)
		}
		return []*Tensor{ga, gb}
	})
}

func scaleNew(t *Tensor, s float32) *Tensor {
	if t.dtype != Float32 {
		return scaleLow(t, s)
	}
	out := Zeros(t.shape...)
	od, td := out.Float32s(), t.Float32s()
	for i, v := range td {
		od[i] = s * v
	}
	return out
}

// MulScalar returns s * x.
func MulScalar(x *Tensor, s float32) *Tensor {
	defer hookOp("MulScalar")()
	if d := deviceOf("MulScalar", x); d != "cpu" {
		return cudaMulScalar(x, s)
	}
	checkFloats("MulScalar", x)
	out := scaleNew(x, s)
	return record(out, "MulScalar", []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{scaleNew(g, s)}
	})
}

// AddScalar returns x + s.
func AddScalar(x *Tensor, s float32) *Tensor {
	defer hookOp("AddScalar")()
	if d := deviceOf("AddScalar", x); d != "cpu" {
		return cudaAddScalar(x, s)
	}
	out := unary("AddScalar", x, func(v float32) float32 { return v + s })
	return record(out, "AddScalar", []*Tensor{x}, func(g *Tensor) []*Tensor { return []*Tensor{g} })
}

// Neg returns -x.
func Neg(x *Tensor) *Tensor {
	defer hookOp("Neg")()
	return MulScalar(x, -1)
}

func unary(op string, x *Tensor, f func(float32) float32) *Tensor {
	if x.dtype != Float32 {
		return unaryLow(op, x, f)
	}
	out := Zeros(x.shape...)
	od, xd := out.Float32s(), x.Float32s()
	parallelFor(len(od), 1<<15, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			od[i] = f(xd[i])
		}
	})
	return out
}

// unaryGrad builds the gradient g * f'(x, y) for an elementwise op with
// input x and output y.
func unaryGrad(g, x, y *Tensor, df func(x, y float32) float32) *Tensor {
	if g.dtype != Float32 || x.dtype != Float32 || y.dtype != Float32 {
		return unaryGradLow(g, x, y, df)
	}
	out := Zeros(g.shape...)
	od, gd, xd, yd := out.Float32s(), g.Float32s(), x.Float32s(), y.Float32s()
	parallelFor(len(od), 1<<15, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			od[i] = gd[i] * df(xd[i], yd[i])
		}
	})
	return out
}

// elementwise defines a differentiable elementwise op from f and its
// derivative df(x, y) where y = f(x).
func elementwise(op string, x *Tensor, f func(float32) float32, df func(x, y float32) float32) *Tensor {
	out := unary(op, x, f)
	return record(out, op, []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{unaryGrad(g, x, out, df)}
	})
}

// ReLU returns max(x, 0) elementwise.
func ReLU(x *Tensor) *Tensor {
	defer hookOp("ReLU")()
	if d := deviceOf("ReLU", x); d != "cpu" {
		return cudaActivation("ReLU", x, 0)
	}
	if x.dtype == Float32 {
		return reluF32(x)
	}
	return elementwise("ReLU", x,
		func(v float32) float32 {
			if v <= 0 {
				return 0
			}
			return v // NaN stays NaN, as in torch
		},
		func(x, _ float32) float32 {
			if x > 0 {
				return 1
			}
			return 0
		})
}

// b2u32 is 1 for true and 0 for false.
func b2u32(b bool) uint32 {
	var u uint32
	if b {
		u = 1
	}
	return u
}

// reluF32 is ReLU of a float32 tensor with direct loops: the output and
// the gradient are zero where the output is not positive.
func reluF32(x *Tensor) *Tensor {
	out := Zeros(x.shape...)
	od, xd := out.Float32s(), x.Float32s()
	parallelFor(len(od), 1<<15, func(lo, hi int) {
		o := od[lo:hi]
		for i, v := range xd[lo:hi] {
			o[i] = max(v, 0) // branch-free; NaN stays NaN, as in torch
		}
	})
	return record(out, "ReLU", []*Tensor{x}, func(g *Tensor) []*Tensor {
		if g.dtype != Float32 {
			return []*Tensor{unaryGrad(g, x, out, func(x, _ float32) float32 {
				if x > 0 {
					return 1
				}
				return 0
			})}
		}
		return []*Tensor{reluGrad(g, od)}
	})
}

// reluGrad returns g where the ReLU output y is positive and 0 elsewhere
// (g float32 of y's length).
func reluGrad(g *Tensor, y []float32) *Tensor {
	gx := New(Float32, g.shape...)
	gd, gxd := g.Float32s(), gx.Float32s()
	parallelFor(len(gxd), 1<<15, func(lo, hi int) {
		o, gi := gxd[lo:hi], gd[lo:hi]
		for i, v := range y[lo:hi] {
			// Keep g where y > 0 without a branch (the signs are random).
			o[i] = math.Float32frombits(math.Float32bits(gi[i]) & -b2u32(v > 0))
		}
	})
	return gx
}

// LeakyReLU returns x for x > 0 and slope*x otherwise (PyTorch's default
// slope is 0.01; GAT uses 0.2).
func LeakyReLU(x *Tensor, slope float32) *Tensor {
	defer hookOp("LeakyReLU")()
	if d := deviceOf("LeakyReLU", x); d != "cpu" {
		return cudaActivation("LeakyReLU", x, slope)
	}
	return elementwise("LeakyReLU", x,
		func(v float32) float32 {
			if v > 0 {
				return v
			}
			return slope * v
		},
		func(x, _ float32) float32 {
			if x > 0 {
				return 1
			}
			return slope
		})
}

// ELU returns x for x > 0 and alpha*(exp(x)-1) otherwise (Clevert et al.
// 2016; GAT's hidden activation with alpha 1).
func ELU(x *Tensor, alpha float32) *Tensor {
	defer hookOp("ELU")()
	if d := deviceOf("ELU", x); d != "cpu" {
		return cudaActivation("ELU", x, alpha)
	}
	return elementwise("ELU", x,
		func(v float32) float32 {
			if v > 0 {
				return v
			}
			return alpha * float32(math.Expm1(float64(v)))
		},
		func(x, y float32) float32 {
			if x > 0 {
				return 1
			}
			return y + alpha
		})
}

// Sigmoid returns 1/(1+exp(-x)) elementwise.
func Sigmoid(x *Tensor) *Tensor {
	defer hookOp("Sigmoid")()
	if d := deviceOf("Sigmoid", x); d != "cpu" {
		return cudaUnary("Sigmoid", uSigmoid, x, 0)
	}
	return elementwise("Sigmoid", x,
		func(v float32) float32 { return float32(1 / (1 + math.Exp(-float64(v)))) },
		func(_, y float32) float32 { return y * (1 - y) })
}

// Tanh returns tanh(x) elementwise.
func Tanh(x *Tensor) *Tensor {
	defer hookOp("Tanh")()
	if d := deviceOf("Tanh", x); d != "cpu" {
		return cudaUnary("Tanh", uTanh, x, 0)
	}
	return elementwise("Tanh", x,
		func(v float32) float32 { return float32(math.Tanh(float64(v))) },
		func(_, y float32) float32 { return 1 - y*y })
}

// Exp returns exp(x) elementwise.
func Exp(x *Tensor) *Tensor {
	defer hookOp("Exp")()
	x = autocastFloat32("Exp", x)
	if d := deviceOf("Exp", x); d != "cpu" {
		return cudaUnary("Exp", uExp, x, 0)
	}
	return elementwise("Exp", x,
		func(v float32) float32 { return float32(math.Exp(float64(v))) },
		func(_, y float32) float32 { return y })
}

// Log returns the natural logarithm of x elementwise.
func Log(x *Tensor) *Tensor {
	defer hookOp("Log")()
	x = autocastFloat32("Log", x)
	if d := deviceOf("Log", x); d != "cpu" {
		return cudaUnary("Log", uLog, x, 0)
	}
	return elementwise("Log", x,
		func(v float32) float32 { return float32(math.Log(float64(v))) },
		func(x, _ float32) float32 { return 1 / x })
}

// Sqrt returns the square root of x elementwise.
func Sqrt(x *Tensor) *Tensor {
	defer hookOp("Sqrt")()
	if d := deviceOf("Sqrt", x); d != "cpu" {
		return cudaUnary("Sqrt", uSqrt, x, 0)
	}
	return elementwise("Sqrt", x,
		func(v float32) float32 { return float32(math.Sqrt(float64(v))) },
		func(_, y float32) float32 { return 0.5 / y })
}

// Pow returns x**p elementwise.
func Pow(x *Tensor, p float32) *Tensor {
	defer hookOp("Pow")()
	x = autocastFloat32("Pow", x)
	if d := deviceOf("Pow", x); d != "cpu" {
		return cudaUnary("Pow", uPow, x, p)
	}
	return elementwise("Pow", x,
		func(v float32) float32 { return float32(math.Pow(float64(v), float64(p))) },
		func(x, _ float32) float32 { return p * float32(math.Pow(float64(x), float64(p-1))) })
}
