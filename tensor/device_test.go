package tensor

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/kernels"
)

// Device tests that need no GPU: device strings, the device-mismatch and
// host-access errors (with tensors on a fake device that has no memory),
// the CPU halves of the shared definitions (Philox dropout, AdamStep), and
// the staleness of ptx/cuda_ops.ptx.

// onFakeDevice returns a tensor of t's shape and dtype that claims to live
// on device but has no memory behind it: ops must reject it by device
// before touching data.
func onFakeDevice(device string, t *Tensor) *Tensor {
	return &Tensor{shape: t.Shape(), dtype: t.dtype, n: t.n,
		st: &storage{be: fakeBackend(device), buf: &cudaBuf{}, device: device, n: t.n, bytes: t.Nbytes()}}
}

// fakeBackend is a device with no memory: its allocations are empty
// buffers, its values cannot be read (ErrDevice), and its kernels are those
// of a CUDA device with no GPU behind it, which panic with
// ErrNotImplemented where CUDA has no kernel (and fault where it has one).
type fakeBackend string

func (f fakeBackend) Device() string { return string(f) }
func (f fakeBackend) Alloc(op string, dt DType, n int, zero bool) Buffer {
	return &cudaBuf{}
}
func (fakeBackend) Release(Buffer) bool { return false }
func (fakeBackend) Upload(_, _ *Tensor) { panic("fake device") }
func (f fakeBackend) Download(_, _ *Tensor) {
	panicf(ErrDevice, "To", "fake device %s has no memory", string(f))
}
func (fakeBackend) CopyDevice(_, _ *Tensor) {
	panic("fake device")
}
func (fakeBackend) Synchronize() error { return nil }

func TestParseDevice(t *testing.T) {
	for in, want := range map[string]string{"cpu": "cpu", "cuda": "cuda:0", "cuda:0": "cuda:0", "cuda:3": "cuda:3"} {
		got, err := ParseDevice(in)
		if err != nil || got != want {
			t.Errorf("ParseDevice(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"gpu", "cuda:", "cuda:-1", "cuda:x", "CPU", ""} {
		if _, err := ParseDevice(bad); !errors.Is(err, ErrDevice) {
			t.Errorf("ParseDevice(%q): err %v, want ErrDevice", bad, err)
		}
	}
}

// TestDeviceMismatchNamesOpAndDevices checks the seed's first GPU pitfall:
// an op given tensors on two devices panics with ErrDevice naming the op
// and both devices, before any data is read.
func TestDeviceMismatchNamesOpAndDevices(t *testing.T) {
	a := Ones(2, 3)
	g := onFakeDevice("cuda:0", Ones(3, 2))
	idx := FromInt64([]int64{0, 1})
	adj := &Adj{NumSrc: 2, NumDst: 2, Indptr: []int64{0, 1, 2}, Indices: []int64{1, 0}}
	cases := []struct {
		op string
		f  func()
	}{
		{"MatMul", func() { MatMul(a, g) }},
		{"Add", func() { Add(a, onFakeDevice("cuda:0", a)) }},
		{"Mul", func() { Mul(onFakeDevice("cuda:0", a), a) }},
		{"IndexSelect", func() { IndexSelect(onFakeDevice("cuda:0", a), idx) }},
		{"CrossEntropy", func() { CrossEntropy(onFakeDevice("cuda:0", Ones(2, 3)), idx) }},
		{"SpMM", func() { SpMM(adj, Ones(2, 3), onFakeDevice("cuda:0", Ones(2)), "sum") }},
		{"Concat", func() { Concat([]*Tensor{a, onFakeDevice("cuda:0", a)}, 0) }},
		{"Accuracy", func() { Accuracy(onFakeDevice("cuda:0", Ones(2, 3)), idx) }},
		{"AdamStep", func() { AdamStep(a, a, a, onFakeDevice("cuda:0", a), AdamConfig{LR: 1, Step: 1}) }},
	}
	for _, c := range cases {
		err := Catch(c.f)
		if err == nil || !errors.Is(err, ErrDevice) {
			t.Errorf("%s: err %v, want ErrDevice", c.op, err)
			continue
		}
		var te *Error
		if !errors.As(err, &te) || te.Op != c.op {
			t.Errorf("%s: error %v does not name the op", c.op, err)
		}
		if !strings.Contains(err.Error(), "cpu") || !strings.Contains(err.Error(), "cuda:0") {
			t.Errorf("%s: error %q does not name both devices", c.op, err)
		}
	}
	err := Catch(func() { MatMul(a, g) })
	if want := "tensor.MatMul: tensors on cpu and cuda:0"; err == nil || err.Error() != want {
		t.Errorf("MatMul mismatch: %v, want %q", err, want)
	}
	err = Catch(func() { Add(onFakeDevice("cuda:0", a), onFakeDevice("cuda:1", a)) })
	if err == nil || !errors.Is(err, ErrDevice) || !strings.Contains(err.Error(), "cuda:0 and cuda:1") {
		t.Errorf("two GPUs: %v", err)
	}
}

// TestHostAccessOnDevicePanics checks that the slices of a GPU tensor are
// refused with a clear error, never garbage.
func TestHostAccessOnDevicePanics(t *testing.T) {
	for _, x := range []*Tensor{onFakeDevice("cuda:0", Ones(3)), onFakeDevice("cuda:0", Arange(3)), onFakeDevice("cuda:0", FromBool([]bool{true}))} {
		err := Catch(func() {
			switch x.DType() {
			case Float32:
				x.Float32s()
			case Int64:
				x.Int64s()
			default:
				x.Bools()
			}
		})
		if err == nil || !errors.Is(err, ErrDevice) || !strings.Contains(err.Error(), `To("cpu")`) || !strings.Contains(err.Error(), "cuda:0") {
			t.Errorf("%s on a GPU tensor: %v", x.DType(), err)
		}
	}
	if s := onFakeDevice("cuda:0", Ones(2)).String(); !strings.Contains(s, "device=cuda:0") {
		t.Errorf("String of a device tensor: %q", s)
	}
	if d := onFakeDevice("cuda:0", Ones(2)).Device(); d != "cuda:0" {
		t.Errorf("Device() = %q", d)
	}
}

func TestNotImplementedNamesOpAndDevice(t *testing.T) {
	err := Catch(func() { Transpose(onFakeDevice("cuda:0", New(Int64, 2, 3))) })
	if err == nil || !errors.Is(err, ErrNotImplemented) || !strings.Contains(err.Error(), "Transpose") ||
		!strings.Contains(err.Error(), "not implemented on cuda:0") {
		t.Errorf("Transpose int64 on a GPU: %v", err)
	}
}

func TestToWithoutGPU(t *testing.T) {
	x := Ones(2)
	if y, err := x.To("cpu"); err != nil || y != x {
		t.Fatalf("To(cpu) of a CPU tensor: %v, %v; want the tensor itself", y, err)
	}
	if _, err := x.To("tpu"); !errors.Is(err, ErrDevice) {
		t.Errorf("To(tpu): %v", err)
	}
	if CUDAAvailable() {
		t.Skip("a GPU is present; cuda_test.go covers To(\"cuda\")")
	}
	_, why := CUDAStatus()
	// Every entry point that takes "cuda" names the missing driver or
	// device (kernels.Available's reason), never a bare "cpu only".
	for _, dev := range []string{"cuda", "cuda:0", "cuda:3"} {
		if _, err := x.To(dev); err == nil || !strings.Contains(err.Error(), why) || strings.Contains(err.Error(), "cpu only") {
			t.Errorf("To(%s) without a GPU: %v; want the reason %q", dev, err, why)
		}
		if err := x.MoveTo(dev); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("MoveTo(%s) without a GPU: %v; want the reason %q", dev, err, why)
		}
		if err := Synchronize(dev); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Synchronize(%s) without a GPU: %v; want the reason %q", dev, err, why)
		}
		if _, err := OpenBackend(dev); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("OpenBackend(%s) without a GPU: %v", dev, err)
		}
	}
	if x.Device() != "cpu" {
		t.Errorf("a failed MoveTo moved the tensor to %s", x.Device())
	}
	t.Logf("CUDA unavailable: %s", why)
	if MemoryReserved("cuda:0") != 0 {
		t.Error("reserved bytes on a GPU that was never used")
	}
	EmptyCache("cuda") // no device: nothing to do, no panic
	if err := Synchronize("cpu"); err != nil {
		t.Error(err)
	}
}

// TestDropoutMaskIsPhilox checks that the CPU draws the mask the GPU
// kernels draw for the same (seed, offset): kernels.DropoutMask.
func TestDropoutMaskIsPhilox(t *testing.T) {
	const n, p = 1003, float32(0.37)
	for _, c := range []struct{ seed, base uint64 }{{7, 0}, {1 << 40, 12345}, {0, 1<<33 + 5}} {
		y := DropoutAt(Ones(n), p, c.seed, c.base).Float32s()
		keep := make([]bool, n)
		kernels.DropoutMask(c.seed, c.base, p, keep)
		for i := range y {
			if (y[i] != 0) != keep[i] {
				t.Fatalf("seed %d offset %d: element %d kept=%v on the CPU, %v by kernels.DropoutMask", c.seed, c.base, i, y[i] != 0, keep[i])
			}
		}
	}
	// Successive Dropout calls advance the offset by ceil(n/4).
	g := NewGenerator(3)
	Dropout(Ones(10), 0.5, true, g)
	if got := g.counter.Load(); got != 3 {
		t.Errorf("offset after one call on 10 elements: %d, want 3", got)
	}
}

// TestAdamStepCPU checks the CPU AdamStep against the closed form of the
// first steps and against a float64 re-derivation over several steps.
func TestPhiloxMatchesKernels(t *testing.T) {
	g := NewGenerator(1)
	for i := 0; i < 1000; i++ {
		var c [4]uint32
		var k [2]uint32
		for j := range c {
			c[j] = uint32(g.Float64() * (1 << 32))
		}
		k[0], k[1] = uint32(g.Float64()*(1<<32)), uint32(g.Float64()*(1<<32))
		want := kernels.Philox4x32(c, k)
		a, b, cc, d := philox4x32(c[0], c[1], c[2], c[3], k[0], k[1])
		if [4]uint32{a, b, cc, d} != want {
			t.Fatalf("philox4x32(%v, %v) = %v, kernels %v", c, k, [4]uint32{a, b, cc, d}, want)
		}
	}
}

func TestAdamStepCPU(t *testing.T) {
	p := FromFloat32([]float32{1, -2, 0.5, 3})
	g := FromFloat32([]float32{0.1, -0.3, 0, 2})
	m, v := ZerosLike(p), ZerosLike(p)
	cfg := AdamConfig{LR: 0.01, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 1}
	AdamStep(p, g, m, v, cfg)
	// Step 1: m_hat = g, v_hat = g^2, so p -= lr * g / (|g| + eps).
	want := []float32{1 - 0.01, -2 + 0.01, 0.5, 3 - 0.01}
	for i, w := range want {
		if math.Abs(float64(p.Float32s()[i]-w)) > 1e-6 {
			t.Fatalf("step 1: p = %v, want %v", p.Float32s(), want)
		}
	}
	// Several AdamW steps against float64.
	pf := []float64{1, -2, 0.5, 3}
	p = FromFloat32([]float32{1, -2, 0.5, 3})
	m, v = ZerosLike(p), ZerosLike(p)
	mf, vf := make([]float64, 4), make([]float64, 4)
	for step := 1; step <= 5; step++ {
		cfg := AdamConfig{LR: 0.05, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.1, Step: step, Decoupled: true}
		AdamStep(p, g, m, v, cfg)
		for i := range pf {
			gi := float64(g.Float32s()[i])
			pf[i] *= 1 - cfg.LR*cfg.WeightDecay
			mf[i] = 0.9*mf[i] + 0.1*gi
			vf[i] = 0.999*vf[i] + 0.001*gi*gi
			pf[i] -= cfg.LR / (1 - math.Pow(0.9, float64(step))) * mf[i] / (math.Sqrt(vf[i])/math.Sqrt(1-math.Pow(0.999, float64(step))) + 1e-8)
		}
	}
	for i := range pf {
		if d := math.Abs(float64(p.Float32s()[i]) - pf[i]); d > 1e-5 {
			t.Errorf("AdamW after 5 steps: p[%d] = %v, float64 %v", i, p.Float32s()[i], pf[i])
		}
	}
	if err := Catch(func() { AdamStep(p, g, m, v, AdamConfig{Step: 0}) }); !errors.Is(err, ErrArgument) {
		t.Errorf("Step 0: %v", err)
	}
}

func TestAddScaledInPlace(t *testing.T) {
	p := FromFloat32([]float32{1, 2})
	p.AddScaledInPlace(FromFloat32([]float32{10, 20}), -0.1)
	if got := p.Float32s(); got[0] != 0 || got[1] != 0 {
		t.Errorf("got %v", got)
	}
}

func TestRoundBlock(t *testing.T) {
	for n, want := range map[int64]int64{0: 0, 1: 512, 512: 512, 513: 1024, 1<<20 - 1: 1 << 20, 1 << 20: 2 << 20, 5 << 20: 6 << 20} {
		if got := roundBlock(n); got != want {
			t.Errorf("roundBlock(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestFreeOnCPUIsANoOp(t *testing.T) {
	x := Ones(4)
	x.Free()
	if x.Float32s()[3] != 1 {
		t.Fatal("Free on the CPU changed the tensor")
	}
	if !strings.Contains(MemorySummary(), "reserved") {
		t.Error("MemorySummary has no reserved column")
	}
}
