package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// permutedPowerLawAdj is powerLawAdj with edge ids shuffled, so that edge
// tensors are read through EIDs.
func permutedPowerLawAdj(n, avgDeg int, seed uint64) *Adj {
	a := powerLawAdj(n, avgDeg, seed)
	r := rand.New(rand.NewPCG(seed, 2))
	a.EIDs = make([]int64, a.NumEdges())
	for i, p := range r.Perm(a.NumEdges()) {
		a.EIDs[i] = int64(p)
	}
	return a
}

// sameFloats fails unless got and want agree within tol (0: bit for bit).
func sameFloats(t *testing.T, what string, got, want *Tensor, tol float64) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Fatalf("%s: got %v, want %v", what, got == nil, want == nil)
	}
	if got == nil {
		return
	}
	g, w := got.Float32s(), want.Float32s()
	if len(g) != len(w) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(w))
	}
	for i := range g {
		if d := math.Abs(float64(g[i] - w[i])); d > tol*math.Max(1, math.Abs(float64(w[i]))) || (tol == 0 && g[i] != w[i]) {
			t.Fatalf("%s: element %d: got %v, want %v", what, i, g[i], w[i])
		}
	}
}

// runBoth evaluates op (fast) and ref (reference) on fresh copies of the
// inputs with requires-grad set, back-propagates the same random weights
// and returns outputs and input gradients.
func runBoth(ins []*Tensor, fast, ref func([]*Tensor) *Tensor) (outs [2]*Tensor, grads [2][]*Tensor) {
	for k, f := range []func([]*Tensor) *Tensor{fast, ref} {
		cp := make([]*Tensor, len(ins))
		for i, in := range ins {
			cp[i] = in.Detach().Clone()
			cp[i].SetRequiresGrad(true)
		}
		out := f(cp)
		out.BackwardWith(Rand(NewGenerator(5), -1, 1, out.Shape()...))
		outs[k] = out.Detach()
		for _, c := range cp {
			grads[k] = append(grads[k], c.Grad())
		}
	}
	return
}

// TestSparseFastMatchesReference compares the edge-partitioned SpMM, SDDMM
// and EdgeSoftmax (values and gradients) with the reference loops on a
// power-law graph with permuted edge ids: bit-identical, since every
// output element receives its terms in the same order.
func TestSparseFastMatchesReference(t *testing.T) {
	adj := permutedPowerLawAdj(3000, 12, 3)
	ne := adj.NumEdges()
	for _, f := range []int{1, 13, 64} {
		for _, red := range []string{"sum", "mean", "max"} {
			u := randT(1, adj.NumSrc, f)
			cases := map[string][]*Tensor{"copy_u": {u}, "u_mul_e": {u, randT(2, ne)}}
			if f%4 == 0 {
				cases["heads"] = []*Tensor{u, randT(3, ne, 4)}
			}
			for name, ins := range cases {
				op := func(s func(*Adj, *Tensor, *Tensor, string) *Tensor) func([]*Tensor) *Tensor {
					return func(in []*Tensor) *Tensor {
						if len(in) == 1 {
							return s(adj, in[0], nil, red)
						}
						return s(adj, in[0], in[1], red)
					}
				}
				outs, grads := runBoth(ins, op(SpMM), op(refSpMM))
				what := fmt.Sprintf("SpMM %s %s f=%d", name, red, f)
				sameFloats(t, what, outs[0], outs[1], 0)
				for i := range grads[0] {
					sameFloats(t, fmt.Sprintf("%s grad %d", what, i), grads[0][i], grads[1][i], 0)
				}
			}
		}
		for _, op := range []string{"add", "mul", "dot"} {
			ins := []*Tensor{randT(4, adj.NumSrc, f), randT(5, adj.NumDst, f)}
			outs, grads := runBoth(ins,
				func(in []*Tensor) *Tensor { return SDDMM(adj, in[0], in[1], op) },
				func(in []*Tensor) *Tensor { return refSDDMM(adj, in[0], in[1], op) })
			what := fmt.Sprintf("SDDMM %s f=%d", op, f)
			sameFloats(t, what, outs[0], outs[1], 0)
			sameFloats(t, what+" grad lhs", grads[0][0], grads[1][0], 0)
			sameFloats(t, what+" grad rhs", grads[0][1], grads[1][1], 0)
		}
	}
	for _, h := range []int{1, 3} {
		s := randT(6, ne, h)
		if h == 1 {
			s = randT(6, ne)
		}
		outs, grads := runBoth([]*Tensor{s},
			func(in []*Tensor) *Tensor { return EdgeSoftmax(adj, in[0]) },
			func(in []*Tensor) *Tensor { return refEdgeSoftmax(adj, in[0]) })
		sameFloats(t, "EdgeSoftmax", outs[0], outs[1], 0)
		sameFloats(t, "EdgeSoftmax grad", grads[0][0], grads[1][0], 0)
	}
}

// TestIndexAddFastMatchesReference checks the parallel scatter against the
// sequential loop, bit for bit, with many repeats of hub rows.
func TestIndexAddFastMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	z := rand.NewZipf(r, 1.3, 1, 999)
	ids := make([]int64, 50_000)
	for i := range ids {
		ids[i] = int64(z.Uint64())
	}
	for _, f := range []int{1, 7, 32} {
		src := randT(7, len(ids), f)
		sameFloats(t, fmt.Sprintf("IndexAdd f=%d", f), IndexAdd(1000, FromInt64(ids), src), refIndexAdd(1000, ids, src), 0)
	}
}

// BenchmarkSparseFastVsRef times the fast ops and the reference loops on
// the graph of BenchmarkSpMM (100k nodes, about 2M power-law edges, 64
// features), interleaved so that both see the same machine load.
func BenchmarkSparseFastVsRef(b *testing.B) {
	adj := powerLawAdj(100_000, 20, 1)
	adj.Reverse()
	const f = 64
	u := Rand(NewGenerator(1), -1, 1, adj.NumSrc, f)
	ops := []struct {
		name     string
		fast     func(*Adj, *Tensor, *Tensor, string) *Tensor
		ref      func(*Adj, *Tensor, *Tensor, string) *Tensor
		reduce   string
		backward bool
	}{
		{"SpMMSum", SpMM, refSpMM, "sum", false},
		{"SpMMMax", SpMM, refSpMM, "max", false},
		{"SpMMSumBackward", SpMM, refSpMM, "sum", true},
		{"SpMMMaxBackward", SpMM, refSpMM, "max", true},
	}
	for _, o := range ops {
		for _, impl := range []string{"fast", "ref"} {
			b.Run(o.name+"/"+impl, func(b *testing.B) {
				fn := o.fast
				if impl == "ref" {
					fn = o.ref
				}
				x := u.Detach()
				if o.backward {
					x.SetRequiresGrad(true)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					out := fn(adj, x, nil, o.reduce)
					if o.backward {
						out.BackwardWith(Ones(out.Shape()...))
					}
				}
				b.ReportMetric(float64(adj.NumEdges())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Medges/s")
			})
		}
	}
	ids := make([]int64, 500_000)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range ids {
		ids[i] = r.Int64N(int64(adj.NumSrc))
	}
	src := Rand(NewGenerator(2), -1, 1, len(ids), f)
	idx := FromInt64(ids)
	b.Run("IndexAdd/fast", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			IndexAdd(adj.NumSrc, idx, src)
		}
	})
	b.Run("IndexAdd/ref", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			refIndexAdd(adj.NumSrc, ids, src)
		}
	})
}
