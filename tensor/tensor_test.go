package tensor

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 }

func TestBroadcastValues(t *testing.T) {
	a := FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := FromFloat32([]float32{10, 20, 30}, 3)
	c := FromFloat32([]float32{100, 200}, 2, 1)
	got := Add(Add(a, b), c).Float32s()
	want := []float32{111, 122, 133, 214, 225, 236}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Add broadcast: got %v want %v", got, want)
		}
	}
	m := Mul(FromFloat32([]float32{1, 2}, 2, 1, 1), FromFloat32([]float32{1, 2, 3}, 1, 3)).Float32s()
	if len(m) != 6 || m[5] != 6 {
		t.Fatalf("3-D broadcast: %v", m)
	}
}

func TestShapeErrorsNameOpAndShapes(t *testing.T) {
	err := Catch(func() { MatMul(Zeros(2, 3), Zeros(4, 5)) })
	if err == nil || !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "MatMul") ||
		!strings.Contains(err.Error(), "[2 3]") || !strings.Contains(err.Error(), "[4 5]") {
		t.Fatalf("MatMul error: %v", err)
	}
	err = Catch(func() { Add(Zeros(2, 3), Zeros(2, 4)) })
	if err == nil || !strings.Contains(err.Error(), "Add") || !strings.Contains(err.Error(), "[2 4]") {
		t.Fatalf("Add error: %v", err)
	}
	err = Catch(func() { IndexSelect(Zeros(3, 2), FromInt64([]int64{0, 3})) })
	if err == nil || !errors.Is(err, ErrIndex) || !strings.Contains(err.Error(), "index 3") {
		t.Fatalf("IndexSelect error: %v", err)
	}
	err = Catch(func() { CrossEntropy(Zeros(2, 3), FromFloat32([]float32{0, 1})) })
	if err == nil || !errors.Is(err, ErrDType) {
		t.Fatalf("CrossEntropy dtype error: %v", err)
	}
}

func TestMatMulValues(t *testing.T) {
	a := FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := FromFloat32([]float32{7, 8, 9, 10, 11, 12}, 3, 2)
	got := MatMul(a, b).Float32s()
	want := []float32{58, 64, 139, 154}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v want %v", got, want)
		}
	}
}

func TestCrossEntropyValue(t *testing.T) {
	// (0.40761 + log 3) / 2, as torch.nn.functional.cross_entropy gives.
	l := CrossEntropy(FromFloat32([]float32{1, 2, 3, 1, 1, 1}, 2, 3), FromInt64([]int64{2, 0}))
	if !near(float32(l.Item()), 0.753109) {
		t.Fatalf("cross entropy %v", l.Item())
	}
}

func TestBackwardAccumulatesAndReleases(t *testing.T) {
	w := FromFloat32([]float32{1, 2}, 2).SetRequiresGrad(true)
	Sum(Mul(w, w)).Backward()
	Sum(Add(w, w)).Backward()
	g := w.Grad().Float32s()
	if g[0] != 2+2 || g[1] != 4+2 {
		t.Fatalf("accumulated grad %v", g)
	}
	y := Sum(Add(w, w))
	y.Backward()
	if err := Catch(func() { y.Backward() }); err == nil {
		t.Fatal("second Backward over released history should fail")
	}
	var z *Tensor
	NoGrad(func() { z = Mul(w, w) })
	if z.RequiresGrad() {
		t.Fatal("NoGrad recorded history")
	}
	// x + x: the same gradient flows twice into one input.
	x := FromFloat32([]float32{3}, 1).SetRequiresGrad(true)
	a := Mul(x, x)
	Sum(Add(a, a)).Backward()
	if x.Grad().Float32s()[0] != 12 {
		t.Fatalf("d(2x^2)/dx at 3 = %v", x.Grad().Float32s()[0])
	}
}

func TestDropoutDeterministicAndScaled(t *testing.T) {
	x := Ones(1000)
	a := Dropout(x, 0.3, true, NewGenerator(5)).Float32s()
	b := Dropout(x, 0.3, true, NewGenerator(5)).Float32s()
	zeros := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("same seed gave different masks")
		}
		if a[i] == 0 {
			zeros++
		} else if !near(a[i], 1/0.7) {
			t.Fatalf("kept value %v", a[i])
		}
	}
	if zeros < 250 || zeros > 350 {
		t.Fatalf("dropped %d of 1000 at p=0.3", zeros)
	}
	if Dropout(x, 0.3, false, nil) != x {
		t.Fatal("eval-mode dropout must be the identity")
	}
}

func TestSpMMNoNeighboursGivesZero(t *testing.T) {
	adj := &Adj{NumSrc: 2, NumDst: 2, Indptr: []int64{0, 1, 1}, Indices: []int64{1}}
	u := FromFloat32([]float32{-5, -7}, 2, 1)
	for _, r := range []string{"sum", "mean", "max"} {
		out := SpMM(adj, u, nil, r).Float32s()
		if out[0] != -7 || out[1] != 0 || math.IsNaN(float64(out[1])) {
			t.Errorf("%s: %v", r, out)
		}
	}
}

func TestMemoryAccounting(t *testing.T) {
	runtime.GC()
	runtime.GC()
	ResetPeakMemoryStats("cpu")
	base := MemoryAllocated("cpu")
	x := Zeros(1024, 256) // 1 MiB
	if got := MemoryAllocated("cpu") - base; got != 1<<20 {
		t.Fatalf("allocated grew by %d, want %d", got, 1<<20)
	}
	if MaxMemoryAllocated("cpu")-base < 1<<20 {
		t.Fatal("peak below allocation")
	}
	runtime.KeepAlive(x)
	x = nil
	for i := 0; i < 5 && MemoryAllocated("cpu") > base; i++ {
		runtime.GC()
	}
	if got := MemoryAllocated("cpu") - base; got > 0 {
		t.Fatalf("after GC %d bytes still counted", got)
	}
	if !strings.Contains(MemorySummary(), "cpu") {
		t.Fatal("summary lacks cpu")
	}
}

func TestString(t *testing.T) {
	cases := []struct {
		x    *Tensor
		want string
	}{
		{FromFloat32([]float32{1, 2.5}, 2), "tensor([1.0000, 2.5000], shape=[2], dtype=float32)"},
		{FromFloat32([]float32{1, -20}, 2), "tensor([  1., -20.], shape=[2], dtype=float32)"},
		{FromFloat32([]float32{1e-6, 2.5e3}, 2), "tensor([1.0000e-06, 2.5000e+03], shape=[2], dtype=float32)"},
		{FromFloat32([]float32{float32(math.NaN()), float32(math.Inf(-1)), 0.5}, 3), "tensor([   nan,   -inf, 0.5000], shape=[3], dtype=float32)"},
		{FromInt64([]int64{1, 20, 300}), "tensor([  1,  20, 300], shape=[3], dtype=int64)"},
		{FromFloat32([]float32{1.5}), "tensor([1.5000], shape=[1], dtype=float32)"},
		{Sum(FromFloat32([]float32{1.5, 2}, 2)), "tensor(3.5000, shape=[], dtype=float32)"},
		{FromFloat32([]float32{1, 2, 3, 4}, 2, 2), "tensor([[1., 2.],\n        [3., 4.]], shape=[2 2], dtype=float32)"},
	}
	for _, c := range cases {
		if s := c.x.String(); s != c.want {
			t.Errorf("got  %s\nwant %s", s, c.want)
		}
	}
	// Large tensors show their corners.
	big := Zeros(2000, 100)
	big.Float32s()[0], big.Float32s()[len(big.Float32s())-1] = 1, 2
	s := big.String()
	if !strings.HasPrefix(s, "tensor([[1., 0., 0., ..., 0., 0., 0.],") || !strings.Contains(s, "        ...,\n") ||
		!strings.Contains(s, "[0., 0., 0., ..., 0., 0., 2.]], shape=[2000 100]") || strings.Count(s, "\n") != 6 {
		t.Errorf("summarized:\n%s", s)
	}
	w := Ones(2).SetRequiresGrad(true)
	if s := Mul(w, w).String(); !strings.HasSuffix(s, "grad_fn=<MulBackward>)") {
		t.Errorf("grad_fn: %s", s)
	}
	if s := w.String(); !strings.HasSuffix(s, "requires_grad=true)") {
		t.Errorf("leaf: %s", s)
	}
}

// TestHugeShapesAreRefused: a shape whose element count overflows, or one
// larger than the machine's memory, panics with an error instead of
// wrapping around or killing the process in make.
func TestHugeShapesAreRefused(t *testing.T) {
	if err := Catch(func() { Zeros(1<<40, 1<<40) }); err == nil || !errors.Is(err, ErrShape) {
		t.Errorf("overflowing shape: %v", err)
	}
	if hostMemory() == 0 {
		t.Skip("no /proc/meminfo")
	}
	if err := Catch(func() { Zeros(1<<20, 1<<20) }); err == nil || !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("4 TiB tensor: %v", err)
	}
}

// TestAddMMMatchesAddMatMul checks the fused c + a @ b against the two
// ops it replaces, for a bias row and a full c, on sizes the GEMM splits
// over goroutines, and that a bad c names its shape.
func TestAddMMMatchesAddMatMul(t *testing.T) {
	gen := NewGenerator(5)
	a, b := Rand(gen, -1, 1, 300, 70), Rand(gen, -1, 1, 70, 40)
	for _, c := range []*Tensor{Rand(gen, -1, 1, 40), Rand(gen, -1, 1, 300, 40)} {
		got, want := AddMM(c, a, b).Float32s(), Add(c, MatMul(a, b)).Float32s()
		for i := range want {
			if d := got[i] - want[i]; d > 1e-4 || d < -1e-4 {
				t.Fatalf("c %v: element %d: AddMM %v, Add(MatMul) %v", c.Shape(), i, got[i], want[i])
			}
		}
	}
	err := Catch(func() { AddMM(Zeros(300), a, b) })
	if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "c has shape [300]") {
		t.Fatalf("AddMM with a bad c: %v", err)
	}
}

// TestAddMMPairs checks c + a@b + a2@b2 against Adds of MatMuls and that
// an odd number of extra operands is refused.
func TestAddMMPairs(t *testing.T) {
	gen := NewGenerator(6)
	c, a, b := Rand(gen, -1, 1, 40), Rand(gen, -1, 1, 300, 70), Rand(gen, -1, 1, 70, 40)
	a2, b2 := Rand(gen, -1, 1, 300, 9), Rand(gen, -1, 1, 9, 40)
	got := AddMM(c, a, b, a2, b2).Float32s()
	want := Add(Add(c, MatMul(a, b)), MatMul(a2, b2)).Float32s()
	for i := range want {
		if d := got[i] - want[i]; d > 1e-4 || d < -1e-4 {
			t.Fatalf("element %d: AddMM %v, Adds %v", i, got[i], want[i])
		}
	}
	if err := Catch(func() { AddMM(c, a, b, a2) }); !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "pairs") {
		t.Fatalf("odd pairs: %v", err)
	}
	if err := Catch(func() { AddMM(c, a, b, b2, b2) }); !errors.Is(err, ErrShape) {
		t.Fatalf("bad pair: %v", err)
	}
}

// TestAddMMReLUMatchesReLU checks the fused activation against ReLU of
// AddMM, values and gradients.
func TestAddMMReLUMatchesReLU(t *testing.T) {
	gen := NewGenerator(7)
	mk := func() []*Tensor {
		g := NewGenerator(8)
		ts := []*Tensor{Rand(g, -1, 1, 40), Rand(g, -1, 1, 300, 70), Rand(g, -1, 1, 70, 40)}
		for _, x := range ts {
			x.SetRequiresGrad(true)
		}
		return ts
	}
	w := Rand(gen, -1, 1, 300, 40)
	p, q := mk(), mk()
	y1, y2 := AddMMReLU(p[0], p[1], p[2]), ReLU(AddMM(q[0], q[1], q[2]))
	Sum(Mul(y1, w)).Backward()
	Sum(Mul(y2, w)).Backward()
	pairs := [][2]*Tensor{{y1, y2}, {p[0].Grad(), q[0].Grad()}, {p[1].Grad(), q[1].Grad()}, {p[2].Grad(), q[2].Grad()}}
	for k, pr := range pairs {
		a, b := pr[0].Float32s(), pr[1].Float32s()
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("pair %d element %d: fused %v, separate %v", k, i, a[i], b[i])
			}
		}
	}
}

// TestAddMMAutocast checks AddMM on autocast's lower-precision list: inside
// a bfloat16 region the result is bfloat16 (a float32 bias included),
// close to the float32 result, and the float32 leaves get float32
// gradients.
func TestAddMMAutocast(t *testing.T) {
	gen := NewGenerator(9)
	c, a, b := Rand(gen, -1, 1, 40), Rand(gen, -1, 1, 300, 70), Rand(gen, -1, 1, 70, 40)
	want := AddMMReLU(c, a, b).Float32s()
	w := b.Detach().SetRequiresGrad(true)
	bias := c.Detach().SetRequiresGrad(true)
	SetAutocast(true, BFloat16)
	y := AddMMReLU(bias, a, w)
	SetAutocast(false, BFloat16)
	if y.DType() != BFloat16 {
		t.Fatalf("AddMMReLU under bfloat16 autocast has dtype %s", y.DType())
	}
	for i, v := range y.Float().Float32s() {
		if d := v - want[i]; d > 0.05 || d < -0.05 {
			t.Fatalf("element %d: autocast %v, float32 %v", i, v, want[i])
		}
	}
	Sum(y.Float()).Backward()
	if w.Grad() == nil || w.Grad().DType() != Float32 || bias.Grad() == nil || bias.Grad().DType() != Float32 {
		t.Fatalf("gradients of float32 leaves: %v, %v", w.Grad(), bias.Grad())
	}
}

// TestMemoryStatsDeviceNames checks that "" means the CPU and that a
// misspelled device is an error, not a silent zero.
func TestMemoryStatsDeviceNames(t *testing.T) {
	if MemoryAllocated("") != MemoryAllocated("cpu") {
		t.Error(`MemoryAllocated("") differs from "cpu"`)
	}
	ResetPeakMemoryStats("")
	if err := Catch(func() { MemoryAllocated("gpu") }); !errors.Is(err, ErrDevice) || !strings.Contains(err.Error(), `"gpu"`) {
		t.Errorf(`MemoryAllocated("gpu"): %v`, err)
	}
}

// TestAddMMBroadcastAndErrors checks c of every shape torch.addmm accepts,
// float32 and bfloat16, and that errors name AddMM's own arguments.
func TestAddMMBroadcastAndErrors(t *testing.T) {
	gen := NewGenerator(11)
	a, b := Rand(gen, -1, 1, 6, 5), Rand(gen, -1, 1, 5, 4)
	for _, shape := range [][]int{{6, 4}, {4}, {1, 4}, {6, 1}, {1, 1}, {1}, {}} {
		c := Rand(gen, -1, 1, shape...)
		want := Add(c, MatMul(a, b)).Float32s()
		for _, dt := range []DType{Float32, BFloat16} {
			got := AddMM(c.Cast(dt), a.Cast(dt), b.Cast(dt)).Float().Float32s()
			for i := range want {
				if d := got[i] - want[i]; d > 0.05 || d < -0.05 {
					t.Fatalf("c %v %s: element %d = %v, want %v", shape, dt, i, got[i], want[i])
				}
			}
		}
	}
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { AddMM(Zeros(4), a, b, b, a) }, "more[0] [5 4] by more[1] [6 5]"},
		{func() { AddMM(Zeros(4), a, b, Zeros(3, 2), Zeros(2, 4)) }, "more[0] [3 2] @ more[1] [2 4] is not (6, 4)"},
		{func() { AddMM(Zeros(4), nil, b) }, "a is nil"},
		{func() { AddMM(nil, a, b) }, "c is nil"},
		{func() { AddMM(Zeros(5), a, b) }, "c has shape [5]"},
		{func() { AddMM(Arange(4), a, b) }, "floating-point"},
	} {
		if err := Catch(c.f); err == nil || !strings.Contains(err.Error(), "AddMM") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an AddMM error with %q", err, c.want)
		}
	}
}

// TestNewUnknownDType: a made-up dtype is refused, not printed as garbage.
func TestNewUnknownDType(t *testing.T) {
	if err := Catch(func() { New(DType(99), 3) }); !errors.Is(err, ErrDType) {
		t.Errorf("New(DType(99)): %v", err)
	}
}

// TestCrossEntropyErrorsNameIt: bad targets are reported by CrossEntropy,
// not by the NLLLoss inside it.
func TestCrossEntropyErrorsNameIt(t *testing.T) {
	logits := Zeros(3, 4)
	for _, f := range []func(){
		func() { CrossEntropy(logits, FromInt64([]int64{0, 1})) },
		func() { CrossEntropy(logits, Zeros(3)) },
		func() { CrossEntropy(logits, FromInt64([]int64{0, 1, 4})) },
	} {
		if err := Catch(f); err == nil || !strings.Contains(err.Error(), "CrossEntropy") {
			t.Errorf("got %v, want a CrossEntropy error", err)
		}
	}
}

// TestArange: torch.arange's three forms and its sign error.
func TestArange(t *testing.T) {
	for _, c := range []struct {
		args []int
		want []int64
	}{
		{[]int{4}, []int64{0, 1, 2, 3}},
		{[]int{0}, []int64{}},
		{[]int{2, 5}, []int64{2, 3, 4}},
		{[]int{1, 8, 3}, []int64{1, 4, 7}},
		{[]int{5, 0, -2}, []int64{5, 3, 1}},
		{[]int{3, 3}, []int64{}},
	} {
		got := Arange(c.args...)
		if got.DType() != Int64 || got.Dim() != 1 || !slices.Equal(got.Int64s(), c.want) {
			t.Errorf("Arange%v = %v %v, want %v", c.args, got.DType(), got.Int64s(), c.want)
		}
	}
	for _, args := range [][]int{{}, {1, 2, 3, 4}, {-1}, {5, 2}, {0, 4, 0}} {
		if err := Catch(func() { Arange(args...) }); !errors.Is(err, ErrArgument) {
			t.Errorf("Arange%v: %v, want ErrArgument", args, err)
		}
	}
}
