package tensor

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// GPU parity tests: every ported op, forward and backward, against the CPU
// result. They skip (with "no CUDA GPU") when no GPU is present.
//
// Tolerance: |gpu - cpu| <= atol + rtol*|cpu| per element, with atol = 1e-5,
// rtol = 1e-4 for float32 kernels (different summation orders, float32
// atomics in scatter-adds, expf/logf against Go's float64 math), rtol 5e-3
// for TF32 products and 2e-2 for bfloat16 products (atol scaled to the
// result's magnitude). Dropout masks and gathers must match exactly.

const cudaDev = "cuda:0"

func needGPU(t testing.TB) {
	t.Helper()
	if ok, why := CUDAStatus(); !ok {
		t.Skipf("no CUDA GPU: %s", why)
	}
}

// gpu uploads a CPU tensor (a leaf on the GPU).
func gpu(t testing.TB, x *Tensor) *Tensor {
	t.Helper()
	y, err := x.Detach().To(cudaDev)
	if err != nil {
		t.Fatalf("To(%s): %v", cudaDev, err)
	}
	return y
}

func closeTo(t testing.TB, what string, got, want *Tensor, atol, rtol float64) {
	t.Helper()
	if got == nil || want == nil {
		if (got == nil) != (want == nil) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
		return
	}
	if !sameShape(got.shape, want.shape) {
		t.Errorf("%s: shape %v, want %v", what, got.shape, want.shape)
		return
	}
	if got.Device() != cudaDev {
		t.Errorf("%s: result on %s, want %s", what, got.Device(), cudaDev)
	}
	h := got.ToCPU()
	switch want.dtype {
	case Int64:
		g, w := h.Int64s(), want.Int64s()
		for i := range w {
			if g[i] != w[i] {
				t.Errorf("%s[%d] = %d, want %d", what, i, g[i], w[i])
				return
			}
		}
		return
	}
	g, w := h.Float32s(), want.Float32s()
	worst, at := 0.0, -1
	for i := range w {
		d := math.Abs(float64(g[i]) - float64(w[i]))
		lim := atol + rtol*math.Abs(float64(w[i]))
		if !(d <= lim) && !(math.IsNaN(float64(g[i])) && math.IsNaN(float64(w[i]))) {
			if d/lim > worst || at < 0 {
				worst, at = d/lim, i
			}
		}
	}
	if at >= 0 {
		t.Errorf("%s[%d] = %v, CPU %v (worst of the elements outside atol %g + rtol %g)", what, at, g[at], w[at], atol, rtol)
	}
}

// parity runs f on CPU copies and GPU copies of inputs, back-propagates
// sum(w * f) with the same random w on both, and compares the outputs and
// the inputs' gradients. Float32 inputs require grad unless noGrad lists
// their position.
func parity(t *testing.T, name string, atol, rtol float64, f func(in []*Tensor) *Tensor, inputs ...*Tensor) {
	t.Helper()
	cpuIn := make([]*Tensor, len(inputs))
	gpuIn := make([]*Tensor, len(inputs))
	for i, x := range inputs {
		cpuIn[i] = x.Clone()
		gpuIn[i] = gpu(t, x)
		if x.dtype == Float32 {
			cpuIn[i].SetRequiresGrad(true)
			gpuIn[i].SetRequiresGrad(true)
		}
	}
	var want *Tensor
	if err := Catch(func() { want = f(cpuIn) }); err != nil {
		t.Fatalf("%s on the CPU: %v", name, err)
	}
	var got *Tensor
	if err := Catch(func() { got = f(gpuIn) }); err != nil {
		t.Errorf("%s on the GPU: %v", name, err)
		return
	}
	closeTo(t, name, got, want, atol, rtol)
	if want.dtype != Float32 || !want.requiresGrad {
		return
	}
	w := Rand(NewGenerator(99), -1, 1, want.shape...)
	Sum(Mul(want, w)).Backward()
	if err := Catch(func() { Sum(Mul(got, gpu(t, w))).Backward() }); err != nil {
		t.Errorf("%s backward on the GPU: %v", name, err)
		return
	}
	for i := range inputs {
		if cpuIn[i].dtype != Float32 {
			continue
		}
		closeTo(t, fmt.Sprintf("%s grad of input %d", name, i), gpuIn[i].Grad(), cpuIn[i].Grad(), atol, rtol)
	}
}

const (
	atol32 = 1e-5
	rtol32 = 1e-4
)

func TestCUDAElementwiseParity(t *testing.T) {
	needGPU(t)
	pos := func(seed int64, shape ...int) *Tensor { return Rand(NewGenerator(seed), 0.5, 2, shape...) }
	bin := map[string]func(a, b *Tensor) *Tensor{"Add": Add, "Sub": Sub, "Mul": Mul, "Div": Div}
	for _, name := range []string{"Add", "Sub", "Mul", "Div"} {
		op := bin[name]
		f := func(in []*Tensor) *Tensor { return op(in[0], in[1]) }
		parity(t, name+" same", atol32, rtol32, f, randT(1, 37, 19), pos(2, 37, 19))
		parity(t, name+" row bias", atol32, rtol32, f, randT(3, 37, 19), pos(4, 19))
		parity(t, name+" column", atol32, rtol32, f, randT(5, 37, 19), pos(6, 37, 1))
		parity(t, name+" scalar", atol32, rtol32, f, randT(7, 37, 19), pos(8, 1))
		parity(t, name+" 3-D", atol32, rtol32, f, randT(9, 5, 1, 7), pos(10, 1, 6, 7))
		parity(t, name+" scalar first", atol32, rtol32, f, pos(11), pos(12, 4, 3))
	}
	x := randT(13, 300, 33)
	parity(t, "MulScalar", atol32, rtol32, func(in []*Tensor) *Tensor { return MulScalar(in[0], -2.5) }, x)
	parity(t, "AddScalar", atol32, rtol32, func(in []*Tensor) *Tensor { return AddScalar(in[0], 0.75) }, x)
	parity(t, "Neg", atol32, rtol32, func(in []*Tensor) *Tensor { return Neg(in[0]) }, x)
	parity(t, "ReLU", atol32, rtol32, func(in []*Tensor) *Tensor { return ReLU(in[0]) }, x)
	parity(t, "LeakyReLU", atol32, rtol32, func(in []*Tensor) *Tensor { return LeakyReLU(in[0], 0.2) }, x)
	parity(t, "ELU", atol32, rtol32, func(in []*Tensor) *Tensor { return ELU(in[0], 1) }, x)
	parity(t, "Sigmoid", atol32, rtol32, func(in []*Tensor) *Tensor { return Sigmoid(in[0]) }, x)
	parity(t, "Tanh", atol32, rtol32, func(in []*Tensor) *Tensor { return Tanh(in[0]) }, x)
	parity(t, "Exp", atol32, rtol32, func(in []*Tensor) *Tensor { return Exp(in[0]) }, x)
	parity(t, "Log", atol32, rtol32, func(in []*Tensor) *Tensor { return Log(in[0]) }, pos(14, 300, 33))
	parity(t, "Sqrt", atol32, rtol32, func(in []*Tensor) *Tensor { return Sqrt(in[0]) }, pos(15, 300, 33))
	parity(t, "Pow", atol32, rtol32, func(in []*Tensor) *Tensor { return Pow(in[0], 1.7) }, pos(16, 300, 33))
}

func TestCUDADenseParity(t *testing.T) {
	needGPU(t)
	mm := func(in []*Tensor) *Tensor { return MatMul(in[0], in[1]) }
	a, b := randT(1, 129, 67), randT(2, 67, 45)
	parity(t, "MatMul", atol32, rtol32*5, mm, a, b)
	for _, c := range []struct {
		prec string
		rtol float64
	}{{"high", 5e-3}, {"medium", 2e-2}} {
		SetFloat32MatmulPrecision(c.prec)
		// Products of ~67 terms of size ~1/3: atol scaled to the result's magnitude.
		parity(t, "MatMul "+c.prec, c.rtol*2, c.rtol, mm, a, b)
	}
	SetFloat32MatmulPrecision("highest")
	parity(t, "MatMul k=0", 0, 0, mm, randT(3, 4, 0), randT(4, 0, 3))

	x := randT(5, 57, 23)
	parity(t, "Sum", 1e-4, rtol32, func(in []*Tensor) *Tensor { return Sum(in[0]) }, x)
	parity(t, "Mean", atol32, rtol32, func(in []*Tensor) *Tensor { return Mean(in[0]) }, x)
	parity(t, "SumDim 0", atol32, rtol32, func(in []*Tensor) *Tensor { return SumDim(in[0], 0, false) }, x)
	parity(t, "SumDim 1", atol32, rtol32, func(in []*Tensor) *Tensor { return SumDim(in[0], 1, true) }, x)
	parity(t, "SumDim 3-D middle", atol32, rtol32, func(in []*Tensor) *Tensor { return SumDim(in[0], 1, false) }, randT(6, 4, 9, 5))
	parity(t, "MeanDim", atol32, rtol32, func(in []*Tensor) *Tensor { return MeanDim(in[0], -1, false) }, x)
	parity(t, "LogSoftmax", atol32, rtol32, func(in []*Tensor) *Tensor { return LogSoftmax(in[0]) }, x)
	parity(t, "Softmax", atol32, rtol32, func(in []*Tensor) *Tensor { return Softmax(in[0]) }, x)
	parity(t, "LogSoftmax wide", atol32, rtol32, func(in []*Tensor) *Tensor { return LogSoftmax(MulScalar(in[0], 10)) }, randT(7, 3, 3000))
	labels := FromInt64([]int64{0, 22, 5, 5, 7, 1, 9, 3, 14, 2})
	xl := randT(8, 10, 23)
	parity(t, "CrossEntropy", atol32, rtol32, func(in []*Tensor) *Tensor { return CrossEntropy(in[0], in[1]) }, xl, labels)
	parity(t, "NLLLoss", atol32, rtol32, func(in []*Tensor) *Tensor { return NLLLoss(LogSoftmax(in[0]), in[1]) }, xl, labels)
	parity(t, "ArgMax", 0, 0, func(in []*Tensor) *Tensor { return ArgMax(in[0]) }, x)
	if got, want := Accuracy(gpu(t, xl), gpu(t, labels)), Accuracy(xl, labels); got != want {
		t.Errorf("Accuracy: GPU %v, CPU %v", got, want)
	}

	idx := FromInt64([]int64{3, 0, 0, 56, 12, 3})
	parity(t, "IndexSelect", 0, 0, func(in []*Tensor) *Tensor { return IndexSelect(in[0], in[1]) }, x, idx)
	parity(t, "IndexSelect int64", 0, 0, func(in []*Tensor) *Tensor { return IndexSelect(in[0], in[1]) }, Arange(57), idx)
	parity(t, "IndexAdd", atol32, rtol32, func(in []*Tensor) *Tensor { return IndexAdd(60, in[1], in[0]) }, randT(9, 6, 5), idx)
	parity(t, "Narrow", 0, 0, func(in []*Tensor) *Tensor { return Narrow(in[0], 7, 20) }, x)
	parity(t, "Narrow of Narrow", 0, 0, func(in []*Tensor) *Tensor { return MulScalar(Narrow(Narrow(in[0], 7, 20), 3, 4), 2) }, x)
	parity(t, "Reshape", 0, 0, func(in []*Tensor) *Tensor { return Reshape(in[0], 23, -1) }, x)
	parity(t, "Transpose", 0, 0, func(in []*Tensor) *Tensor { return Transpose(in[0]) }, randT(10, 70, 33))
	cat := func(dim int) func(in []*Tensor) *Tensor {
		return func(in []*Tensor) *Tensor { return Concat([]*Tensor{in[0], in[1], in[2]}, dim) }
	}
	parity(t, "Concat 0", 0, 0, cat(0), randT(11, 3, 4), randT(12, 5, 4), randT(13, 1, 4))
	parity(t, "Concat 1", 0, 0, cat(1), randT(14, 3, 4), randT(15, 3, 2), randT(16, 3, 7))
	parity(t, "Concat 1 of 3-D", 0, 0, cat(1), randT(17, 2, 3, 4), randT(18, 2, 1, 4), randT(19, 2, 2, 4))
	parity(t, "ScatterReduce mean", atol32, rtol32, func(in []*Tensor) *Tensor { return ScatterReduce(60, in[1], in[0], "mean") }, randT(20, 6, 5), idx)
	parity(t, "SegmentReduce max", atol32, rtol32, func(in []*Tensor) *Tensor { return SegmentReduce(in[0], []int64{0, 2, 2, 6}, "max") }, randT(21, 6, 5))
}

func TestCUDADropoutSameMaskAsCPU(t *testing.T) {
	needGPU(t)
	x := randT(1, 1001, 3)
	for _, c := range []struct {
		p          float32
		seed, base uint64
	}{{0.5, 7, 0}, {0.1, 1 << 35, 999}, {0.9, 3, 1 << 33}} {
		parity(t, fmt.Sprintf("DropoutAt p=%v", c.p), 0, 0, func(in []*Tensor) *Tensor { return DropoutAt(in[0], c.p, c.seed, c.base) }, x)
	}
	// Dropout from a generator: the same offsets on both devices.
	parity(t, "Dropout twice", 0, 0, func(in []*Tensor) *Tensor {
		g := NewGenerator(11)
		return Add(Dropout(in[0], 0.3, true, g), Dropout(in[0], 0.3, true, g))
	}, x)
}

// testAdjBig is a random graph with permuted edge ids, some destinations
// without in-edges and one hub (long-row path of the SpMM kernel).
func testAdjBig(withEIDs bool) *Adj {
	const ns, nd = 700, 600
	g := NewGenerator(5)
	indptr := []int64{0}
	var idx []int64
	for v := 0; v < nd; v++ {
		deg := int(g.Float64() * 8)
		if v%50 == 0 {
			deg = 0
		}
		if v == 17 {
			deg = 1500
		}
		for k := 0; k < deg; k++ {
			idx = append(idx, int64(g.Float64()*ns))
		}
		indptr = append(indptr, int64(len(idx)))
	}
	a := &Adj{NumSrc: ns, NumDst: nd, Indptr: indptr, Indices: idx}
	if withEIDs {
		a.EIDs = g.Perm(len(idx))
	}
	return a
}

func TestCUDASparseParity(t *testing.T) {
	needGPU(t)
	for _, withEIDs := range []bool{false, true} {
		adj := testAdjBig(withEIDs)
		e := adj.NumEdges()
		tag := fmt.Sprintf(" eids=%v", withEIDs)
		u := randT(1, adj.NumSrc, 24)
		for _, r := range []string{"sum", "mean", "max"} {
			parity(t, "SpMM copy_u "+r+tag, atol32, rtol32, func(in []*Tensor) *Tensor { return SpMM(adj, in[0], nil, r) }, u)
			parity(t, "SpMM u_mul_e (E) "+r+tag, atol32, rtol32, func(in []*Tensor) *Tensor { return SpMM(adj, in[0], in[1], r) }, u, randT(2, e))
			parity(t, "SpMM u_mul_e (E,H) "+r+tag, atol32, rtol32, func(in []*Tensor) *Tensor { return SpMM(adj, in[0], in[1], r) }, u, randT(3, e, 4))
		}
		parity(t, "SpMM 1-D"+tag, atol32, rtol32, func(in []*Tensor) *Tensor { return SpMM(adj, in[0], nil, "sum") }, randT(4, adj.NumSrc))
		for _, op := range []string{"add", "mul", "dot"} {
			parity(t, "SDDMM "+op+tag, atol32, rtol32, func(in []*Tensor) *Tensor { return SDDMM(adj, in[0], in[1], op) },
				randT(5, adj.NumSrc, 6), randT(6, adj.NumDst, 6))
		}
		parity(t, "SDDMM add 1-D"+tag, atol32, rtol32, func(in []*Tensor) *Tensor { return SDDMM(adj, in[0], in[1], "add") },
			randT(7, adj.NumSrc), randT(8, adj.NumDst))
		parity(t, "EdgeSoftmax (E,H)"+tag, atol32, rtol32, func(in []*Tensor) *Tensor { return EdgeSoftmax(adj, in[0]) }, randT(9, e, 3))
		parity(t, "EdgeSoftmax (E)"+tag, atol32, rtol32, func(in []*Tensor) *Tensor { return EdgeSoftmax(adj, in[0]) }, randT(10, e))
		// GAT's attention chain: u_add_v, leaky_relu, edge_softmax, u_mul_e.
		parity(t, "GAT chain"+tag, atol32, rtol32, func(in []*Tensor) *Tensor {
			a := EdgeSoftmax(adj, LeakyReLU(SDDMM(adj, in[1], in[2], "add"), 0.2))
			return ELU(SpMM(adj, in[0], a, "sum"), 1)
		}, randT(11, adj.NumSrc, 8), randT(12, adj.NumSrc, 2), randT(13, adj.NumDst, 2))
	}
}

func TestCUDAToGradientFlowsBack(t *testing.T) {
	needGPU(t)
	x := randT(1, 5, 4).SetRequiresGrad(true)
	y, err := x.To("cuda")
	if err != nil {
		t.Fatal(err)
	}
	if y.Device() != cudaDev || !y.RequiresGrad() || y.IsLeaf() {
		t.Fatalf("To(cuda): device %s, requires grad %v, leaf %v", y.Device(), y.RequiresGrad(), y.IsLeaf())
	}
	loss := Sum(Mul(ReLU(y), y))
	loss.Backward()
	if x.Grad() == nil || x.Grad().Device() != "cpu" {
		t.Fatalf("gradient of the CPU leaf: %v", x.Grad())
	}
	want := Zeros(5, 4)
	for i, v := range x.Float32s() {
		if v > 0 {
			want.Float32s()[i] = 2 * v
		}
	}
	for i, g := range x.Grad().Float32s() {
		if math.Abs(float64(g-want.Float32s()[i])) > 1e-6 {
			t.Fatalf("grad %v, want %v", x.Grad().Float32s(), want.Float32s())
		}
	}
	if v := loss.Item(); math.IsNaN(v) {
		t.Error("Item of a GPU scalar")
	}
	back := y.ToCPU()
	for i, v := range back.Float32s() {
		if v != x.Float32s()[i] {
			t.Fatal("round trip changed values")
		}
	}
	if s := y.String(); !strings.Contains(s, "device=cuda:0") {
		t.Errorf("String: %q", s)
	}
	if At := y.At(2, 3); float32(At) != x.Float32s()[11] {
		t.Errorf("At(2, 3) = %v", At)
	}
	// CopyFrom across devices and Clone.
	z := ZerosLike(y)
	z.CopyFrom(x)
	if c := z.Clone().ToCPU().Float32s(); c[7] != x.Float32s()[7] {
		t.Error("CopyFrom cpu -> cuda then Clone")
	}
}

func TestCUDAErrors(t *testing.T) {
	needGPU(t)
	g := gpu(t, Ones(3, 2))
	err := Catch(func() { MatMul(Ones(2, 3), g) })
	if err == nil || !errors.Is(err, ErrDevice) || err.Error() != "tensor.MatMul: tensors on cpu and cuda:0" {
		t.Errorf("mismatch: %v", err)
	}
	err = Catch(func() { g.Float32s() })
	if !errors.Is(err, ErrDevice) {
		t.Errorf("Float32s of a GPU tensor: %v", err)
	}
	err = Catch(func() { IndexSelect(g, gpu(t, FromInt64([]int64{0, 3}))) })
	if !errors.Is(err, ErrIndex) || !strings.Contains(err.Error(), "index 3 at position 1") {
		t.Errorf("bad index on the GPU: %v", err)
	}
	err = Catch(func() { CrossEntropy(g, gpu(t, FromInt64([]int64{0, 2, 1}))) })
	if !errors.Is(err, ErrIndex) {
		t.Errorf("bad target on the GPU: %v", err)
	}
	err = Catch(func() { MatMul(g, g) })
	if !errors.Is(err, ErrShape) {
		t.Errorf("shape error on the GPU: %v", err)
	}
	x := gpu(t, Ones(2))
	x.Free()
	err = Catch(func() { ReLU(x) })
	if !errors.Is(err, ErrDevice) || !strings.Contains(err.Error(), "freed") {
		t.Errorf("use after Free: %v", err)
	}
	if err := Synchronize("cuda"); err != nil {
		t.Errorf("Synchronize: %v", err)
	}
}

func TestCUDAMemoryStats(t *testing.T) {
	needGPU(t)
	runtime.GC()
	EmptyCache("cuda")
	base := MemoryAllocated("cuda")
	x := gpu(t, Zeros(1<<20)) // 4 MiB, a 4 MiB block
	if got := MemoryAllocated("cuda") - base; got != 4<<20 {
		t.Errorf("allocated grew by %d, want %d", got, 4<<20)
	}
	if MemoryReserved("cuda") < MemoryAllocated("cuda") || MaxMemoryAllocated("cuda") < MemoryAllocated("cuda") {
		t.Errorf("reserved %d, peak %d, allocated %d", MemoryReserved("cuda"), MaxMemoryAllocated("cuda"), MemoryAllocated("cuda"))
	}
	reserved := MemoryReserved("cuda")
	x.Free()
	if got := MemoryAllocated("cuda"); got != base {
		t.Errorf("after Free: allocated %d, want %d", got, base)
	}
	if MemoryReserved("cuda") != reserved {
		t.Error("Free returned the block to the driver instead of the cache")
	}
	y := gpu(t, Zeros(1<<20)) // reuses the cached block
	if MemoryReserved("cuda") != reserved {
		t.Errorf("a cached block was not reused: reserved %d -> %d", reserved, MemoryReserved("cuda"))
	}
	y.Free()
	EmptyCache("cuda")
	if got := MemoryReserved("cuda"); got >= reserved {
		t.Errorf("EmptyCache: reserved %d, was %d", got, reserved)
	}
	// Unreachable tensors return their blocks when collected.
	func() { gpu(t, Zeros(1<<20)) }()
	collectGarbage()
	if got := MemoryAllocated("cuda"); got != base {
		t.Errorf("after GC: allocated %d, want %d", got, base)
	}
	t.Logf("\n%s", MemorySummary())
}

func TestCUDAAdamStepParity(t *testing.T) {
	needGPU(t)
	p := randT(1, 1000)
	pc, pg := p.Clone(), gpu(t, p)
	mc, vc, mg, vg := ZerosLike(pc), ZerosLike(pc), ZerosLike(pg), ZerosLike(pg)
	for step := 1; step <= 10; step++ {
		g := randT(int64(100+step), 1000)
		cfg := AdamConfig{LR: 0.01, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 5e-4, Step: step, Decoupled: step%2 == 0}
		AdamStep(pc, g, mc, vc, cfg)
		AdamStep(pg, gpu(t, g), mg, vg, cfg)
	}
	closeTo(t, "Adam parameters after 10 steps", pg, pc, 1e-6, 1e-5)
	closeTo(t, "Adam v", vg, vc, 1e-9, 1e-5)
	q := gpu(t, Ones(3))
	q.AddScaledInPlace(gpu(t, Full(2, 3)), -0.5)
	closeTo(t, "AddScaledInPlace", q, Zeros(3), 0, 0)
}

// BenchmarkCUDAMatMul measures float32 MatMul 8192^3 on the GPU in each
// precision of SetFloat32MatmulPrecision ("medium" includes the two casts
// to bfloat16), in TFLOP/s.
func BenchmarkCUDAMatMul(b *testing.B) {
	needGPU(b)
	const n = 8192
	a := gpu(b, Rand(NewGenerator(1), -1, 1, n, n))
	c := gpu(b, Rand(NewGenerator(2), -1, 1, n, n))
	defer SetFloat32MatmulPrecision("highest")
	for _, prec := range []string{"highest", "high", "medium"} {
		b.Run(prec, func(b *testing.B) {
			SetFloat32MatmulPrecision(prec)
			MatMul(a, c).Free() // warm-up: cuBLAS heuristics, casts
			Synchronize(cudaDev)
			b.ResetTimer()
			t0 := time.Now()
			for i := 0; i < b.N; i++ {
				MatMul(a, c).Free()
			}
			if err := Synchronize(cudaDev); err != nil {
				b.Fatal(err)
			}
			s := time.Since(t0).Seconds() / float64(b.N)
			tf := 2 * float64(n) * n * n / s / 1e12
			b.ReportMetric(tf, "TFLOP/s")
			name := map[string]string{"highest": "fp32", "high": "tf32", "medium": "bf16 (incl. casts)"}[prec]
			if b.N == 1 {
				return // the probe run; report the measured one
			}
			fmt.Printf("SUMMARY tensor.MatMul %d^3 %s: %.1f TFLOP/s\n", n, name, tf)
		})
	}
}
