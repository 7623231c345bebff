package backendtest

import (
	"math"
	"math/rand/v2"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// uniform returns a float32 tensor of values in [lo, hi).
func uniform(r *rand.Rand, lo, hi float64, shape ...int) *tensor.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*r.Float64())
	}
	return tensor.FromFloat32(v, shape...)
}

func ids(v ...int64) *tensor.Tensor { return tensor.FromInt64(v) }

// A small graph: 4 source nodes, 3 destinations, 6 edges with edge ids
// permuted (edge data is in edge-id order), destination 2 without
// in-edges.
func testAdj() *tensor.Adj {
	return &tensor.Adj{NumSrc: 4, NumDst: 3, Indptr: []int64{0, 3, 5, 5},
		Indices: []int64{0, 2, 3, 1, 2}, EIDs: []int64{4, 0, 2, 1, 3}}
}

// edges lists (src, dst, eid) of an Adj.
func edges(a *tensor.Adj) (src, dst, eid []int) {
	for d := 0; d < a.NumDst; d++ {
		for p := a.Indptr[d]; p < a.Indptr[d+1]; p++ {
			src, dst = append(src, int(a.Indices[p])), append(dst, d)
			e := int(p)
			if a.EIDs != nil {
				e = int(a.EIDs[p])
			}
			eid = append(eid, e)
		}
	}
	return
}

func unaryCase(name string, lo, hi float64, run func(x *tensor.Tensor) *tensor.Tensor, f func(float64) float64) Case {
	return Case{Name: name, Float: []int{0}, Grad: []int{0}, DTypes: Low,
		Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, lo, hi, 3, 5)} },
		Run:    func(in []*tensor.Tensor) *tensor.Tensor { return run(in[0]) },
		Ref: func(in [][]float64, _ [][]int) []float64 {
			out := make([]float64, len(in[0]))
			for i, v := range in[0] {
				out[i] = f(v)
			}
			return out
		}}
}

// bcast returns element i of the broadcast of a value of shape s to out.
func bcastIndex(i int, out, s []int) int {
	idx, stride := 0, 1
	for d := len(out) - 1; d >= 0; d-- {
		c := i % out[d]
		i /= out[d]
		sd := d - (len(out) - len(s))
		if sd >= 0 {
			if s[sd] != 1 {
				idx += c * stride
			}
			stride *= s[sd]
		}
	}
	return idx
}

func binaryCase(name string, sa, sb, so []int, run func(a, b *tensor.Tensor) *tensor.Tensor, f func(x, y float64) float64, positiveB bool) Case {
	lo := -1.0
	if positiveB {
		lo = 0.5
	}
	return Case{Name: name, Float: []int{0, 1}, Grad: []int{0, 1}, DTypes: Low,
		Inputs: func(r *rand.Rand) []*tensor.Tensor {
			return []*tensor.Tensor{uniform(r, -1, 1, sa...), uniform(r, lo, 1.5, sb...)}
		},
		Run: func(in []*tensor.Tensor) *tensor.Tensor { return run(in[0], in[1]) },
		Ref: func(in [][]float64, _ [][]int) []float64 {
			n := 1
			for _, d := range so {
				n *= d
			}
			out := make([]float64, n)
			for i := range out {
				out[i] = f(in[0][bcastIndex(i, so, sa)], in[1][bcastIndex(i, so, sb)])
			}
			return out
		}}
}

// matmulRef is (m, k) x (k, n).
func matmulRef(a, b []float64, m, k, n int) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for q := 0; q < k; q++ {
				s += a[i*k+q] * b[q*n+j]
			}
			out[i*n+j] = s
		}
	}
	return out
}

func spmmCase(name, reduce string, heads int, withE bool) Case {
	c := Case{Name: name, Float: []int{0}, Grad: []int{0}, DTypes: Low}
	if withE {
		c.Float, c.Grad = []int{0, 1}, []int{0, 1}
	}
	const f = 4
	c.Inputs = func(r *rand.Rand) []*tensor.Tensor {
		in := []*tensor.Tensor{uniform(r, -1, 1, 4, f)}
		if withE {
			if heads == 1 {
				in = append(in, uniform(r, 0.2, 1, 5))
			} else {
				in = append(in, uniform(r, 0.2, 1, 5, heads))
			}
		}
		return in
	}
	c.Run = func(in []*tensor.Tensor) *tensor.Tensor {
		var e *tensor.Tensor
		if withE {
			e = in[1]
		}
		return tensor.SpMM(testAdj(), in[0], e, reduce)
	}
	c.Ref = func(in [][]float64, _ [][]int) []float64 {
		a := testAdj()
		src, dst, eid := edges(a)
		out := make([]float64, a.NumDst*f)
		cnt := make([]int, a.NumDst)
		w := f / heads
		for d := range cnt {
			for j := 0; j < f; j++ {
				out[d*f+j] = math.Inf(-1)
				if reduce != "max" {
					out[d*f+j] = 0
				}
			}
		}
		for k := range src {
			cnt[dst[k]]++
			for j := 0; j < f; j++ {
				m := in[0][src[k]*f+j]
				if withE {
					m *= in[1][eid[k]*heads+j/w]
				}
				o := &out[dst[k]*f+j]
				if reduce == "max" {
					*o = math.Max(*o, m)
				} else {
					*o += m
				}
			}
		}
		for d, n := range cnt {
			for j := 0; j < f; j++ {
				switch {
				case n == 0:
					out[d*f+j] = 0
				case reduce == "mean":
					out[d*f+j] /= float64(n)
				}
			}
		}
		return out
	}
	if reduce == "max" {
		c.Tol = 2 // the arg-max of rounded products may differ by an ulp
	}
	return c
}

func sddmmCase(op string) Case {
	const d = 3
	return Case{Name: "SDDMM/" + op, Float: []int{0, 1}, Grad: []int{0, 1}, DTypes: Low,
		Inputs: func(r *rand.Rand) []*tensor.Tensor {
			return []*tensor.Tensor{uniform(r, -1, 1, 4, d), uniform(r, -1, 1, 3, d)}
		},
		Run: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.SDDMM(testAdj(), in[0], in[1], op) },
		Ref: func(in [][]float64, _ [][]int) []float64 {
			src, dst, eid := edges(testAdj())
			ow := d
			if op == "dot" {
				ow = 1
			}
			out := make([]float64, len(src)*ow)
			for k := range src {
				for j := 0; j < d; j++ {
					l, r := in[0][src[k]*d+j], in[1][dst[k]*d+j]
					switch op {
					case "add":
						out[eid[k]*ow+j] = l + r
					case "mul":
						out[eid[k]*ow+j] = l * r
					case "dot":
						out[eid[k]] += l * r
					}
				}
			}
			return out
		}}
}

func softmaxRows(x []float64, c int, log bool) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < len(x)/c; r++ {
		row := x[r*c : (r+1)*c]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, v)
		}
		var s float64
		for _, v := range row {
			s += math.Exp(v - m)
		}
		for j, v := range row {
			if log {
				out[r*c+j] = v - m - math.Log(s)
			} else {
				out[r*c+j] = math.Exp(v-m) / s
			}
		}
	}
	return out
}

// Cases returns every op case of the suite.
func Cases() []Case {
	relu := func(v float64) float64 { return math.Max(v, 0) }
	cs := []Case{
		binaryCase("Add", []int{3, 4}, []int{3, 4}, []int{3, 4}, tensor.Add, func(x, y float64) float64 { return x + y }, false),
		binaryCase("Add/bias", []int{3, 4}, []int{4}, []int{3, 4}, tensor.Add, func(x, y float64) float64 { return x + y }, false),
		binaryCase("Add/broadcast", []int{3, 1}, []int{1, 4}, []int{3, 4}, tensor.Add, func(x, y float64) float64 { return x + y }, false),
		binaryCase("Sub", []int{3, 4}, []int{3, 1}, []int{3, 4}, tensor.Sub, func(x, y float64) float64 { return x - y }, false),
		binaryCase("Mul", []int{2, 3, 4}, []int{3, 4}, []int{2, 3, 4}, tensor.Mul, func(x, y float64) float64 { return x * y }, false),
		binaryCase("Mul/scalar", []int{3, 4}, []int{1}, []int{3, 4}, tensor.Mul, func(x, y float64) float64 { return x * y }, false),
		binaryCase("Div", []int{3, 4}, []int{4}, []int{3, 4}, tensor.Div, func(x, y float64) float64 { return x / y }, true),
		unaryCase("MulScalar", -1, 1, func(x *tensor.Tensor) *tensor.Tensor { return tensor.MulScalar(x, 2.5) }, func(v float64) float64 { return 2.5 * v }),
		unaryCase("AddScalar", -1, 1, func(x *tensor.Tensor) *tensor.Tensor { return tensor.AddScalar(x, 0.75) }, func(v float64) float64 { return v + 0.75 }),
		unaryCase("Neg", -1, 1, tensor.Neg, func(v float64) float64 { return -v }),
		unaryCase("ReLU", -1, 1, tensor.ReLU, relu),
		unaryCase("LeakyReLU", -1, 1, func(x *tensor.Tensor) *tensor.Tensor { return tensor.LeakyReLU(x, 0.2) }, func(v float64) float64 {
			if v > 0 {
				return v
			}
			return 0.2 * v
		}),
		unaryCase("ELU", -1, 1, func(x *tensor.Tensor) *tensor.Tensor { return tensor.ELU(x, 1) }, func(v float64) float64 {
			if v > 0 {
				return v
			}
			return math.Expm1(v)
		}),
		unaryCase("Sigmoid", -2, 2, tensor.Sigmoid, func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }),
		unaryCase("Tanh", -2, 2, tensor.Tanh, math.Tanh),
		unaryCase("Exp", -1, 1, tensor.Exp, math.Exp),
		unaryCase("Log", 0.5, 2, tensor.Log, math.Log),
		unaryCase("Sqrt", 0.5, 2, tensor.Sqrt, math.Sqrt),
		unaryCase("Pow", 0.5, 2, func(x *tensor.Tensor) *tensor.Tensor { return tensor.Pow(x, 3) }, func(v float64) float64 { return v * v * v }),
		{Name: "MatMul", Float: []int{0, 1}, Grad: []int{0, 1}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor {
				return []*tensor.Tensor{uniform(r, -1, 1, 3, 5), uniform(r, -1, 1, 5, 4)}
			},
			Run: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.MatMul(in[0], in[1]) },
			Ref: func(in [][]float64, _ [][]int) []float64 { return matmulRef(in[0], in[1], 3, 5, 4) }},
		{Name: "AddMM", Float: []int{0, 1, 2, 3, 4}, Grad: []int{0, 1, 2, 3, 4}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor {
				return []*tensor.Tensor{uniform(r, -1, 1, 4), uniform(r, -1, 1, 3, 5), uniform(r, -1, 1, 5, 4),
					uniform(r, -1, 1, 3, 2), uniform(r, -1, 1, 2, 4)}
			},
			Run: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.AddMM(in[0], in[1], in[2], in[3], in[4]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				p, q := matmulRef(in[1], in[2], 3, 5, 4), matmulRef(in[3], in[4], 3, 2, 4)
				for i := range p {
					p[i] += q[i] + in[0][i%4]
				}
				return p
			}},
		{Name: "AddMMReLU", Float: []int{0, 1, 2}, Grad: []int{0, 1, 2}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor {
				return []*tensor.Tensor{uniform(r, -1, 1, 3, 4), uniform(r, -1, 1, 3, 5), uniform(r, -1, 1, 5, 4)}
			},
			Run: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.AddMMReLU(in[0], in[1], in[2]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				p := matmulRef(in[1], in[2], 3, 5, 4)
				for i := range p {
					p[i] = relu(p[i] + in[0][i])
				}
				return p
			}},
		spmmCase("SpMM/copy_u/sum", "sum", 1, false),
		spmmCase("SpMM/copy_u/mean", "mean", 1, false),
		spmmCase("SpMM/copy_u/max", "max", 1, false),
		spmmCase("SpMM/u_mul_e/sum", "sum", 1, true),
		spmmCase("SpMM/u_mul_e/heads", "sum", 2, true),
		spmmCase("SpMM/u_mul_e/mean", "mean", 2, true),
		spmmCase("SpMM/u_mul_e/max", "max", 2, true),
		sddmmCase("add"), sddmmCase("mul"), sddmmCase("dot"),
		{Name: "EdgeSoftmax", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -2, 2, 5, 2)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.EdgeSoftmax(testAdj(), in[0]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				_, dst, eid := edges(testAdj())
				out := make([]float64, len(in[0]))
				for h := 0; h < 2; h++ {
					for d := 0; d < 3; d++ {
						m, s := math.Inf(-1), 0.0
						for k := range dst {
							if dst[k] == d {
								m = math.Max(m, in[0][eid[k]*2+h])
							}
						}
						for k := range dst {
							if dst[k] == d {
								s += math.Exp(in[0][eid[k]*2+h] - m)
							}
						}
						for k := range dst {
							if dst[k] == d {
								out[eid[k]*2+h] = math.Exp(in[0][eid[k]*2+h]-m) / s
							}
						}
					}
				}
				return out
			}},
		{Name: "IndexSelect", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor {
				return []*tensor.Tensor{uniform(r, -1, 1, 5, 3), ids(4, 0, 4, 2)}
			},
			Run: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.IndexSelect(in[0], in[1]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				var out []float64
				for _, i := range in[1] {
					out = append(out, in[0][int(i)*3:int(i)*3+3]...)
				}
				return out
			}},
		{Name: "IndexAdd", Float: []int{1}, Grad: []int{1}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor {
				return []*tensor.Tensor{ids(3, 0, 3, 1), uniform(r, -1, 1, 4, 3)}
			},
			Run: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.IndexAdd(5, in[0], in[1]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				out := make([]float64, 15)
				for k, i := range in[0] {
					for j := 0; j < 3; j++ {
						out[int(i)*3+j] += in[1][k*3+j]
					}
				}
				return out
			}},
		{Name: "Narrow", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 5, 3)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.Narrow(in[0], 1, 3) },
			Ref:    func(in [][]float64, _ [][]int) []float64 { return append([]float64(nil), in[0][3:12]...) }},
		{Name: "Reshape", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 4, 3)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.Reshape(in[0], 2, -1) },
			Ref:    func(in [][]float64, _ [][]int) []float64 { return append([]float64(nil), in[0]...) }},
		{Name: "Transpose", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 3, 5)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.Transpose(in[0]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				out := make([]float64, 15)
				for i := 0; i < 3; i++ {
					for j := 0; j < 5; j++ {
						out[j*3+i] = in[0][i*5+j]
					}
				}
				return out
			}},
		{Name: "Concat", Float: []int{0, 1}, Grad: []int{0, 1}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor {
				return []*tensor.Tensor{uniform(r, -1, 1, 3, 2), uniform(r, -1, 1, 3, 4)}
			},
			Run: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.Concat([]*tensor.Tensor{in[0], in[1]}, 1) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				var out []float64
				for r := 0; r < 3; r++ {
					out = append(append(out, in[0][r*2:r*2+2]...), in[1][r*4:r*4+4]...)
				}
				return out
			}},
		{Name: "Sum", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 4, 5)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.Sum(in[0]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				var s float64
				for _, v := range in[0] {
					s += v
				}
				return []float64{s}
			}},
		{Name: "Mean", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 4, 5)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.Mean(in[0]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				var s float64
				for _, v := range in[0] {
					s += v
				}
				return []float64{s / 20}
			}},
		{Name: "SumDim/0", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 4, 5)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.SumDim(in[0], 0, false) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				out := make([]float64, 5)
				for i, v := range in[0] {
					out[i%5] += v
				}
				return out
			}},
		{Name: "MeanDim/1", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 2, 4, 3)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.MeanDim(in[0], 1, true) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				out := make([]float64, 6)
				for i, v := range in[0] {
					out[(i/12)*3+i%3] += v / 4
				}
				return out
			}},
		{Name: "ArgMax", Float: []int{0}, DTypes: Low, NoFD: true,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 4, 5)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.ArgMax(in[0]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				out := make([]float64, 4)
				for r := 0; r < 4; r++ {
					best := 0
					for j := 1; j < 5; j++ {
						if in[0][r*5+j] > in[0][r*5+best] {
							best = j
						}
					}
					out[r] = float64(best)
				}
				return out
			}},
		{Name: "LogSoftmax", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -2, 2, 3, 5)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.LogSoftmax(in[0]) },
			Ref:    func(in [][]float64, _ [][]int) []float64 { return softmaxRows(in[0], 5, true) }},
		{Name: "Softmax", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -2, 2, 3, 5)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.Softmax(in[0]) },
			Ref:    func(in [][]float64, _ [][]int) []float64 { return softmaxRows(in[0], 5, false) }},
		{Name: "CrossEntropy", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor {
				return []*tensor.Tensor{uniform(r, -2, 2, 4, 3), ids(2, 0, 1, 2)}
			},
			Run: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.CrossEntropy(in[0], in[1]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				lp := softmaxRows(in[0], 3, true)
				var s float64
				for i, t := range in[1] {
					s -= lp[i*3+int(t)]
				}
				return []float64{s / 4}
			}},
		{Name: "NLLLoss", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor {
				return []*tensor.Tensor{uniform(r, -3, 0, 4, 3), ids(1, 1, 0, 2)}
			},
			Run: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.NLLLoss(in[0], in[1]) },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				var s float64
				for i, t := range in[1] {
					s -= in[0][i*3+int(t)]
				}
				return []float64{s / 4}
			}},
		{Name: "Cast", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 3, 4)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return in[0].Cast(tensor.Float32) },
			Ref:    func(in [][]float64, _ [][]int) []float64 { return append([]float64(nil), in[0]...) }},
		{Name: "Dropout/p=0", Float: []int{0}, Grad: []int{0}, DTypes: Low,
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 3, 4)} },
			Run:    func(in []*tensor.Tensor) *tensor.Tensor { return tensor.DropoutAt(in[0], 0, 1, 0) },
			Ref:    func(in [][]float64, _ [][]int) []float64 { return append([]float64(nil), in[0]...) }},
		{Name: "SegmentReduce/sum", Float: []int{0}, Grad: []int{0},
			Inputs: func(r *rand.Rand) []*tensor.Tensor { return []*tensor.Tensor{uniform(r, -1, 1, 5, 2)} },
			Run: func(in []*tensor.Tensor) *tensor.Tensor {
				return tensor.SegmentReduce(in[0], []int64{0, 2, 2, 5}, "sum")
			},
			Ref: func(in [][]float64, _ [][]int) []float64 {
				out := make([]float64, 6)
				for i := 0; i < 5; i++ {
					s := 0
					if i >= 2 {
						s = 2
					}
					for j := 0; j < 2; j++ {
						out[s*2+j] += in[0][i*2+j]
					}
				}
				return out
			}},
		{Name: "ScatterReduce/mean", Float: []int{1}, Grad: []int{1},
			Inputs: func(r *rand.Rand) []*tensor.Tensor {
				return []*tensor.Tensor{ids(2, 0, 2, 2), uniform(r, -1, 1, 4, 3)}
			},
			Run: func(in []*tensor.Tensor) *tensor.Tensor { return tensor.ScatterReduce(3, in[0], in[1], "mean") },
			Ref: func(in [][]float64, _ [][]int) []float64 {
				out := make([]float64, 9)
				cnt := make([]float64, 3)
				for k, i := range in[0] {
					cnt[int(i)]++
					for j := 0; j < 3; j++ {
						out[int(i)*3+j] += in[1][k*3+j]
					}
				}
				for i := range out {
					if cnt[i/3] > 0 {
						out[i] /= cnt[i/3]
					}
				}
				return out
			}},
	}
	return cs
}
