package tensor

import (
	"fmt"
	"slices"
	"testing"
)

// The sparse kernels of the fake device of device_test.go: it has none
// (its tensors only reach ops that refuse them before any kernel runs).
func (fakeBackend) SpMM(*Adj, string, *Tensor, *Tensor, *Tensor, *Tensor) { panic("fake device") }
func (fakeBackend) SpMMBackwardU(*Adj, string, *Tensor, *Tensor, *Tensor, *Tensor, *Tensor) {
	panic("fake device")
}
func (fakeBackend) SpMMBackwardE(*Adj, string, *Tensor, *Tensor, *Tensor, *Tensor, *Tensor) {
	panic("fake device")
}
func (fakeBackend) SDDMM(*Adj, string, *Tensor, *Tensor, *Tensor) { panic("fake device") }
func (fakeBackend) SDDMMBackward(*Adj, string, *Tensor, *Tensor, *Tensor, *Tensor, *Tensor) {
	panic("fake device")
}
func (fakeBackend) EdgeSoftmax(*Adj, *Tensor, *Tensor)                  { panic("fake device") }
func (fakeBackend) EdgeSoftmaxBackward(*Adj, *Tensor, *Tensor, *Tensor) { panic("fake device") }
func (fakeBackend) ScatterAdj(*Tensor, int) *Adj                        { panic("fake device") }

// sparseCase is one graph op for the device tests: its inputs (CPU) and
// how to run it.
type sparseCase struct {
	name string
	ins  []*Tensor
	run  func(in []*Tensor) *Tensor
}

// sparseCases are every op of sparse.go and segment.go in every dtype the
// CPU has, on a graph with permuted edge ids and destinations without
// in-edges. lowSoftmax adds EdgeSoftmax on float16 and bfloat16 scores
// (which are cast to float32 first).
func sparseCases(lowSoftmax bool) []sparseCase {
	adj := permutedPowerLawAdj(300, 6, 11)
	ne := adj.NumEdges()
	ns, nd := adj.NumSrc, adj.NumDst
	var cs []sparseCase
	add := func(name string, run func(in []*Tensor) *Tensor, ins ...*Tensor) {
		cs = append(cs, sparseCase{name, ins, run})
	}
	for _, dt := range []DType{Float32, Float16, BFloat16} {
		r := func(seed int64, shape ...int) *Tensor { return randT(seed, shape...).Cast(dt) }
		for _, red := range []string{"sum", "mean", "max"} {
			add(fmt.Sprintf("SpMM copy_u %s %s", red, dt), func(in []*Tensor) *Tensor { return SpMM(adj, in[0], nil, red) }, r(1, ns, 8))
			add(fmt.Sprintf("SpMM u_mul_e %s %s", red, dt), func(in []*Tensor) *Tensor { return SpMM(adj, in[0], in[1], red) }, r(2, ns, 8), r(3, ne))
			add(fmt.Sprintf("SpMM heads %s %s", red, dt), func(in []*Tensor) *Tensor { return SpMM(adj, in[0], in[1], red) }, r(4, ns, 8), r(5, ne, 4))
			add(fmt.Sprintf("SegmentReduce %s %s", red, dt), func(in []*Tensor) *Tensor {
				return SegmentReduce(in[0], []int64{0, 7, 7, 50, 120}, red)
			}, r(6, 120, 5))
			add(fmt.Sprintf("ScatterReduce %s %s", red, dt), func(in []*Tensor) *Tensor {
				return ScatterReduce(40, in[1], in[0], red)
			}, r(7, 90, 3), modInt64(Arange(90), 37))
		}
		for _, op := range []string{"add", "mul", "dot"} {
			add(fmt.Sprintf("SDDMM %s %s", op, dt), func(in []*Tensor) *Tensor { return SDDMM(adj, in[0], in[1], op) }, r(8, ns, 6), r(9, nd, 6))
		}
		add("SDDMM add 1-D "+dt.String(), func(in []*Tensor) *Tensor { return SDDMM(adj, in[0], in[1], "add") }, r(10, ns), r(11, nd))
		if dt == Float32 || lowSoftmax {
			add("EdgeSoftmax (E, H) "+dt.String(), func(in []*Tensor) *Tensor { return EdgeSoftmax(adj, in[0]) }, r(12, ne, 3))
			add("EdgeSoftmax (E) "+dt.String(), func(in []*Tensor) *Tensor { return EdgeSoftmax(adj, in[0]) }, r(13, ne))
		}
	}
	return cs
}

// modInt64 is x mod m elementwise for an int64 x.
func modInt64(x *Tensor, m int64) *Tensor {
	v := slices.Clone(x.Int64s())
	for i := range v {
		v[i] %= m
	}
	return FromInt64(v)
}

// allocated returns the bytes allocated on device while f runs.
func sparseAllocated(device string, f func()) int64 {
	b := TotalAllocatedBytes(device)
	f()
	return TotalAllocatedBytes(device) - b
}

// TestSparseOpsOnMeta runs every graph op, forward and backward, on meta
// tensors: the results have the CPU's shapes and dtypes, nothing is
// computed or allocated on the CPU, and the meta device counts exactly the
// bytes the CPU allocates (outputs, SpMM max's arg indices, the float32
// accumulators of the low-precision max gradient).
func TestSparseOpsOnMeta(t *testing.T) {
	for _, c := range sparseCases(false) {
		var outs [2]*Tensor
		var grads [2][]*Tensor
		var fwd, bwd [2]int64
		for k, dev := range []string{"cpu", "meta"} {
			ins := make([]*Tensor, len(c.ins))
			for i, in := range c.ins {
				x, err := in.To(dev)
				if err != nil {
					t.Fatal(err)
				}
				if x == in {
					x = in.Clone()
				}
				ins[i] = x.SetRequiresGrad(x.DType().IsFloatingPoint())
			}
			cpuBytes := sparseAllocated("cpu", func() { fwd[k] = sparseAllocated(dev, func() { outs[k] = c.run(ins) }) })
			out := outs[k]
			g := EmptyOn(dev, out.DType(), out.Shape()...)
			cpuBytes += sparseAllocated("cpu", func() { bwd[k] = sparseAllocated(dev, func() { grads[k] = out.node.backward(g) }) })
			if dev == "meta" && cpuBytes != 0 {
				t.Errorf("%s on meta allocated %d bytes on the CPU", c.name, cpuBytes)
			}
		}
		cpuOut, metaOut := outs[0], outs[1]
		if metaOut.Device() != "meta" || !slices.Equal(metaOut.Shape(), cpuOut.Shape()) || metaOut.DType() != cpuOut.DType() {
			t.Errorf("%s: meta gives %s %v on %s, cpu %s %v", c.name, metaOut.DType(), metaOut.Shape(), metaOut.Device(), cpuOut.DType(), cpuOut.Shape())
		}
		if fwd[0] == 0 || fwd[1] != fwd[0] {
			t.Errorf("%s forward: meta counted %d bytes, cpu allocated %d", c.name, fwd[1], fwd[0])
		}
		if bwd[0] == 0 || bwd[1] != bwd[0] {
			t.Errorf("%s backward: meta counted %d bytes, cpu allocated %d", c.name, bwd[1], bwd[0])
		}
		for i := range grads[0] {
			gc, gm := grads[0][i], grads[1][i]
			if (gc == nil) != (gm == nil) {
				t.Errorf("%s grad %d: cpu %v, meta %v", c.name, i, gc, gm)
				continue
			}
			if gc != nil && (gm.Device() != "meta" || gm.DType() != gc.DType() || !slices.Equal(gm.Shape(), gc.Shape())) {
				t.Errorf("%s grad %d: meta %s %v, cpu %s %v", c.name, i, gm.DType(), gm.Shape(), gc.DType(), gc.Shape())
			}
		}
	}
}

// TestSparseBackwardOnMeta runs float32 graph ops through Backward on meta
// leaves: the leaves' gradients are meta tensors of their shapes.
func TestSparseBackwardOnMeta(t *testing.T) {
	for _, c := range sparseCases(false) {
		if c.ins[0].DType() != Float32 {
			continue
		}
		ins := make([]*Tensor, len(c.ins))
		for i, in := range c.ins {
			x, err := in.To("meta")
			if err != nil {
				t.Fatal(err)
			}
			ins[i] = x.SetRequiresGrad(x.DType().IsFloatingPoint())
		}
		out := c.run(ins)
		out.BackwardWith(EmptyOn("meta", out.DType(), out.Shape()...))
		for i, in := range ins {
			if !in.DType().IsFloatingPoint() {
				continue
			}
			if g := in.Grad(); g == nil || g.Device() != "meta" || !slices.Equal(g.Shape(), in.Shape()) {
				t.Errorf("%s: input %d's gradient %v", c.name, i, g)
			}
		}
	}
}
