// Package backendtest is the conformance suite of tensor's device backends
// (gonum's testblas pattern): RunAll(t, backend) runs every op of package
// tensor on that backend's device and checks it.
//
// On a device with data (cpu, cuda:N) each op's forward result is compared
// with a plain float64 reference written here, on inputs of every float
// dtype the op takes (the reference reads the inputs after their rounding
// to that dtype), and its gradient, from Backward of sum(out * w) with a
// random w, with the central finite differences of the float64 reference.
// Tolerances are per dtype: float32 1e-4 relative (reductions and products
// over a few terms), float16 2^-9 and bfloat16 2^-6 relative to the largest
// magnitude, gradients four times that. On the meta device the values do
// not exist: each op must give the shapes and dtypes it gives on the CPU,
// forward and backward, and allocate exactly the bytes the CPU allocates
// (tensor.TotalAllocatedBytes deltas), so a memory plan made on meta is the
// CPU's. A new device is one package implementing tensor.Backend plus one
// call of RunAll.
package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Case is one op under test: how to make its inputs, run it on tensors of
// one device, and compute it in float64.
type Case struct {
	Name string
	// Inputs returns CPU inputs: float32 tensors (cast to the dtype under
	// test when they are listed in Float) and int64 or other tensors used
	// as they are.
	Inputs func(r *rand.Rand) []*tensor.Tensor
	// Float lists the inputs that are floats of the dtype under test;
	// Grad those that receive gradients.
	Float, Grad []int
	// Run applies the op to inputs on the device under test.
	Run func(in []*tensor.Tensor) *tensor.Tensor
	// Ref computes the op in float64 from the inputs' values (floats of
	// the inputs in Float, int64 ids of the others, as float64) and returns
	// the output's values in row-major order.
	Ref func(in [][]float64, shapes [][]int) []float64
	// DTypes are the float dtypes to test; nil means float32 only.
	DTypes []tensor.DType
	// Tol scales the dtype's tolerance (1 when zero).
	Tol float64
	// NoFD skips the finite-difference gradient check (ops whose reference
	// is not differentiable at the test points, such as arg-max).
	NoFD bool
}

// Low is the list of every float dtype.
var Low = []tensor.DType{tensor.Float32, tensor.Float16, tensor.BFloat16}

// RunAll runs every case of Cases on be's device.
func RunAll(t *testing.T, be tensor.Backend) {
	for _, c := range Cases() {
		Run(t, be, c)
	}
}

// Run checks one case on be's device.
func Run(t *testing.T, be tensor.Backend, c Case) {
	dev := be.Device()
	dts := c.DTypes
	if dts == nil {
		dts = []tensor.DType{tensor.Float32}
	}
	for _, dt := range dts {
		t.Run(c.Name+"/"+dt.String(), func(t *testing.T) {
			if strings.HasPrefix(dev, "meta") {
				checkMeta(t, dev, c, dt)
				return
			}
			checkValues(t, dev, c, dt)
		})
	}
}

func tolOf(dt tensor.DType) float64 {
	switch dt {
	case tensor.Float16:
		return 1.0 / 512
	case tensor.BFloat16:
		return 1.0 / 64
	}
	return 1e-4
}

func isIn(i int, list []int) bool {
	for _, j := range list {
		if i == j {
			return true
		}
	}
	return false
}

// prepare returns the inputs of c for dtype dt on the CPU (floats rounded
// to dt) and their float64 values.
func prepare(c Case, dt tensor.DType, seed uint64) ([]*tensor.Tensor, [][]float64, [][]int) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	raw := c.Inputs(r)
	in := make([]*tensor.Tensor, len(raw))
	vals := make([][]float64, len(raw))
	shapes := make([][]int, len(raw))
	for i, x := range raw {
		if isIn(i, c.Float) {
			x = x.Cast(dt)
		}
		in[i] = x
		vals[i] = values(x)
		shapes[i] = x.Shape()
	}
	return in, vals, shapes
}

// values reads a CPU tensor as float64.
func values(x *tensor.Tensor) []float64 {
	x = x.ToCPU()
	out := make([]float64, x.Numel())
	if x.Numel() == 0 {
		return out
	}
	flat := tensor.Reshape(x.Detach(), x.Numel())
	for i := range out {
		out[i] = flat.At(i)
	}
	return out
}

func onDevice(t *testing.T, dev string, in []*tensor.Tensor, grad []int) []*tensor.Tensor {
	out := make([]*tensor.Tensor, len(in))
	for i, x := range in {
		y, err := x.Detach().To(dev)
		if err != nil {
			t.Fatalf("To(%q): %v", dev, err)
		}
		if y == x {
			y = x.Clone()
		}
		if isIn(i, grad) {
			y.SetRequiresGrad(true)
		}
		out[i] = y
	}
	return out
}

// weights returns the fixed random w of the gradient check's sum(out * w).
func weights(n int) []float64 {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	w := make([]float64, n)
	for i := range w {
		w[i] = r.Float64()*2 - 1
	}
	return w
}

func checkValues(t *testing.T, dev string, c Case, dt tensor.DType) {
	in, vals, shapes := prepare(c, dt, 1)
	x := onDevice(t, dev, in, c.Grad)
	var out *tensor.Tensor
	if err := tensor.Catch(func() { out = c.Run(x) }); err != nil {
		t.Fatalf("%s on %s: %v", c.Name, dev, err)
	}
	if out.Device() != dev {
		t.Fatalf("result on %s, want %s", out.Device(), dev)
	}
	got := values(out)
	want := c.Ref(vals, shapes)
	if len(got) != len(want) {
		t.Fatalf("%d values, reference has %d (shape %v)", len(got), len(want), out.Shape())
	}
	scale := c.Tol
	if scale == 0 {
		scale = 1
	}
	odt := out.DType()
	if !odt.IsFloatingPoint() {
		odt = tensor.Float32
	}
	tol := tolOf(odt) * scale
	if dt != tensor.Float32 && odt == tensor.Float32 {
		tol = tolOf(dt) * scale // computed from rounded inputs, but intermediates may be rounded
	}
	compare(t, "forward", got, want, tol)
	if len(c.Grad) == 0 || !out.DType().IsFloatingPoint() {
		return
	}
	w := weights(len(got))
	w32 := make([]float32, len(w))
	for i, v := range w {
		w32[i] = float32(v)
	}
	wt, err := tensor.FromFloat32(w32, out.Shape()...).Cast(out.DType()).To(dev)
	if err != nil {
		t.Fatal(err)
	}
	wv := values(wt)
	if err := tensor.Catch(func() { tensor.Sum(tensor.Mul(out, wt)).Backward() }); err != nil {
		t.Fatalf("backward of %s on %s: %v", c.Name, dev, err)
	}
	if c.NoFD {
		return
	}
	for _, i := range c.Grad {
		g := x[i].Grad()
		if g == nil {
			t.Fatalf("input %d received no gradient", i)
		}
		if g.DType() != x[i].DType() || !equalInts(g.Shape(), x[i].Shape()) {
			t.Fatalf("input %d: gradient %s%v for a %s%v input", i, g.DType(), g.Shape(), x[i].DType(), x[i].Shape())
		}
		compare(t, fmt.Sprintf("gradient of input %d", i), values(g), finiteDiff(c, vals, shapes, i, wv), 4*tolOf(dt)*scale)
	}
}

// finiteDiff returns d sum(ref(x) * w) / d x[i] by central differences.
func finiteDiff(c Case, vals [][]float64, shapes [][]int, i int, w []float64) []float64 {
	loss := func() float64 {
		var s float64
		for k, v := range c.Ref(vals, shapes) {
			s += v * w[k]
		}
		return s
	}
	g := make([]float64, len(vals[i]))
	for k := range g {
		v := vals[i][k]
		h := 1e-6 * math.Max(1, math.Abs(v))
		vals[i][k] = v + h
		up := loss()
		vals[i][k] = v - h
		down := loss()
		vals[i][k] = v
		g[k] = (up - down) / (2 * h)
	}
	return g
}

func compare(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	big := 1.0
	for _, v := range want {
		big = math.Max(big, math.Abs(v))
	}
	for k := range want {
		d := math.Abs(got[k] - want[k])
		if math.IsNaN(got[k]) != math.IsNaN(want[k]) || d > tol*math.Max(big, 1) && d > tol*math.Abs(want[k]) {
			t.Fatalf("%s: element %d = %.7g, reference %.7g (|diff| %.3g > tol %.3g of %.3g)", what, k, got[k], want[k], d, tol, big)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkMeta runs c on the CPU and on the meta device dev and compares
// shapes, dtypes and allocated bytes, forward and backward.
func checkMeta(t *testing.T, dev string, c Case, dt tensor.DType) {
	type res struct {
		shape      []int
		dtype      tensor.DType
		fwd, bwd   int64
		gradShapes [][]int
	}
	run := func(device string) res {
		in, _, _ := prepare(c, dt, 1)
		x := onDevice(t, device, in, c.Grad)
		acct := device
		if strings.HasPrefix(device, "meta") {
			acct = dev
		}
		var r res
		before := tensor.TotalAllocatedBytes(acct)
		var out *tensor.Tensor
		if err := tensor.Catch(func() { out = c.Run(x) }); err != nil {
			t.Fatalf("%s on %s: %v", c.Name, device, err)
		}
		r.fwd = tensor.TotalAllocatedBytes(acct) - before
		r.shape, r.dtype = out.Shape(), out.DType()
		if len(c.Grad) > 0 && out.DType().IsFloatingPoint() && out.RequiresGrad() {
			g := tensor.ZerosLike(out) // the same seed gradient on both devices
			before = tensor.TotalAllocatedBytes(acct)
			if err := tensor.Catch(func() { out.BackwardWith(g) }); err != nil {
				t.Fatalf("backward of %s on %s: %v", c.Name, device, err)
			}
			r.bwd = tensor.TotalAllocatedBytes(acct) - before
			for _, i := range c.Grad {
				if gi := x[i].Grad(); gi != nil {
					r.gradShapes = append(r.gradShapes, gi.Shape())
				} else {
					r.gradShapes = append(r.gradShapes, nil)
				}
			}
		}
		return r
	}
	want, got := run("cpu"), run(dev)
	if !equalInts(got.shape, want.shape) || got.dtype != want.dtype {
		t.Fatalf("meta result %s%v, CPU %s%v", got.dtype, got.shape, want.dtype, want.shape)
	}
	if dev == "meta" && (got.fwd != want.fwd || got.bwd != want.bwd) {
		t.Errorf("meta allocated %d bytes forward and %d backward, the CPU %d and %d", got.fwd, got.bwd, want.fwd, want.bwd)
	}
	if fmt.Sprint(got.gradShapes) != fmt.Sprint(want.gradShapes) {
		t.Errorf("meta gradient shapes %v, CPU %v", got.gradShapes, want.gradShapes)
	}
}
