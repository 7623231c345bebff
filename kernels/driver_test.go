package kernels

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unsafe"
)

// Without a GPU (CI), Available says why and the driver's errors wrap
// ErrNoCUDA.
func TestAvailableReason(t *testing.T) {
	ok, why := Available()
	t.Logf("Available() = %v, %q", ok, why)
	if why == "" {
		t.Error("Available gave no reason")
	}
	if ok {
		return
	}
	_, err := Open(0)
	if !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Open(0) without a GPU: %v, want an error wrapping ErrNoCUDA", err)
	}
}

func TestSearchDirs(t *testing.T) {
	t.Setenv("GNNREPL_CUDA_LIB_PATH", "/opt/x:/opt/y")
	dirs := searchDirs()
	if dirs[0] != "/opt/x" || dirs[1] != "/opt/y" {
		t.Errorf("GNNREPL_CUDA_LIB_PATH not searched first: %v", dirs[:2])
	}
	for _, want := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/local/nvidia/lib64", "/usr/local/cuda/lib64", "/usr/lib64"} {
		found := false
		for _, d := range dirs {
			found = found || d == want
		}
		if !found {
			t.Errorf("%s not searched", want)
		}
	}
}

func expectArgPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		var ae *ArgError
		if err, ok := r.(error); !ok || !errors.As(err, &ae) {
			t.Errorf("%s: recovered %v, want an *ArgError panic", what, r)
		}
	}()
	f()
}

// Misuse panics with *ArgError before any driver call, so it is checked
// without a GPU.
func TestMisusePanics(t *testing.T) {
	fake := &Stream{dev: &Device{}}
	fn := &Function{name: "k"}
	expectArgPanic(t, "Launch with a Go int", func() { Launch(fake, fn, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, 3) })
	expectArgPanic(t, "Launch with a zero grid", func() { Launch(fake, fn, Dim3{0, 1, 1}, Dim3{1, 1, 1}, 0) })
	expectArgPanic(t, "nil stream", func() { AddF32(nil, 0, 0, 0, 1) })
	expectArgPanic(t, "negative n", func() { ReLUForward(fake, 0, 0, -1) })
	expectArgPanic(t, "dropout p", func() { DropoutForward(fake, 0, 0, 0, 1, 1.5, 0, 0) })
	g := CSR{IndexType: DTypeInt32, NumDst: 1, NumSrc: 1}
	expectArgPanic(t, "heads not dividing F", func() { SpMM(fake, g, ReduceSum, 0, DTypeFloat32, 10, 0, 3, 0, 0) })
	expectArgPanic(t, "max without argmax", func() { SpMM(fake, g, ReduceMax, 0, DTypeFloat32, 8, 0, 1, 0, 0) })
	expectArgPanic(t, "bad index type", func() { SpMM(fake, CSR{IndexType: DTypeFloat32}, ReduceSum, 0, DTypeFloat32, 8, 0, 1, 0, 0) })
	expectArgPanic(t, "bad storage type", func() { SpMM(fake, g, ReduceSum, 0, DTypeInt64, 8, 0, 1, 0, 0) })
	expectArgPanic(t, "bad cast", func() { Cast(fake, 0, DTypeFloat16, 0, DTypeBFloat16, 1) })
	expectArgPanic(t, "odd row bytes", func() { GatherRows(fake, 0, 0, DTypeInt64, 0, 1, 3) })
	expectArgPanic(t, "adam step 0", func() { AdamStep(fake, 0, 0, 0, 0, 1, AdamParams{}) })
	expectArgPanic(t, "gemm negative", func() {
		(&BLAS{}).GemmEx(fake, false, false, -1, 1, 1, 1, 0, DTypeFloat32, 1, 0, DTypeFloat32, 1, 0, 0, DTypeFloat32, 1, Compute32F)
	})
}

func TestLaunchShapes(t *testing.T) {
	if g := gridFor(0, 256); g.X != 1 {
		t.Errorf("gridFor(0) = %v", g)
	}
	if g := gridFor(257, 256); g.X != 2 {
		t.Errorf("gridFor(257) = %v", g)
	}
	if g := gridFor(1<<40, 256); g.X != maxGridX {
		t.Errorf("gridFor(2^40) = %v", g)
	}
	for n, want := range map[int64]int{0: 1, 1: 1, 3: 4, 32: 32, 1000: 32} {
		if got := pow2Lanes(n); got != want {
			t.Errorf("pow2Lanes(%d) = %d, want %d", n, got, want)
		}
	}
	grid, block := rowGrid(1000, 4)
	if block != (Dim3{4, 64, 1}) || grid.X != 16 {
		t.Errorf("rowGrid(1000, 4) = %v %v", grid, block)
	}
	if DTypeBFloat16.Size() != 2 || DTypeInt64.Size() != 8 || DTypeFloat32.String() != "float32" {
		t.Error("DType sizes or names")
	}
}

// Device memory, copies (sync, async, pinned), memsets, events, streams,
// mapped pinned memory read by a kernel through UVA, and driver errors.
func TestDriverMemoryAndStreams(t *testing.T) {
	d, s := gpu(t)
	info := d.Info()
	t.Logf("%s: %s sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB, peak bandwidth %.2f TB/s (memory %d MHz x %d bits)",
		d, info.Name, info.Major, info.Minor, info.Multiprocessors, float64(info.TotalMem)/(1<<30), info.L2Bytes>>20,
		info.PeakBandwidth()/1e12, info.MemClockKHz/1000, info.MemBusWidthBits)
	if info.Name == "" || info.Major < 7 || info.TotalMem == 0 || info.Multiprocessors == 0 {
		t.Errorf("implausible device info %+v", info)
	}
	free, total, err := d.MemInfo()
	must(t, err)
	if free == 0 || free > total {
		t.Errorf("MemInfo free %d total %d", free, total)
	}

	const n = 1 << 20
	src := make([]float32, n)
	for i := range src {
		src[i] = float32(i) * 0.5
	}
	a := upF32(t, d, src)
	b := alloc(t, d, 4*n)
	must(t, d.CopyDtoD(b, a, 4*n))
	closeTo(t, "dtod", downF32(t, s, b, n), src, 0, 0)
	must(t, d.Memset32(b, math.Float32bits(2.5), n))
	for _, v := range downF32(t, s, b, n)[:8] {
		if v != 2.5 {
			t.Fatalf("Memset32: %v", v)
		}
	}

	// Pinned host memory, async copies ordered across two streams by an event.
	pin, err := d.HostAlloc(4*n, true)
	must(t, err)
	defer pin.Free()
	copy(pin.Float32s(), src)
	s2, err := d.NewStreamNonBlocking()
	must(t, err)
	defer s2.Destroy()
	start, err := d.NewEvent()
	must(t, err)
	end, err := d.NewEvent()
	must(t, err)
	defer start.Destroy()
	defer end.Destroy()
	c := alloc(t, d, 4*n)
	must(t, start.Record(s))
	must(t, s.CopyHtoDAsync(c, pin.Pointer(), 4*n))
	must(t, end.Record(s))
	must(t, s2.Wait(end))
	must(t, s2.Memset32Async(b, 0, n))
	must(t, s2.CopyDtoDAsync(b, c, 4*n))
	back, err := d.HostAlloc(4*n, false)
	must(t, err)
	defer back.Free()
	must(t, s2.CopyDtoHAsync(back.Pointer(), b, 4*n))
	must(t, s2.Synchronize())
	if done, err := s2.Done(); err != nil || !done {
		t.Errorf("Done after Synchronize = %v, %v", done, err)
	}
	closeTo(t, "pinned async roundtrip", back.Float32s(), src, 0, 0)
	must(t, end.Synchronize())
	ms, err := ElapsedMs(start, end)
	must(t, err)
	t.Logf("pinned HtoD of %d MiB: %.3f ms (%.1f GB/s)", 4*n>>20, ms, 4*n/float64(ms)/1e6)
	if ms <= 0 {
		t.Errorf("elapsed %v ms", ms)
	}

	// A kernel reading mapped pinned memory through its device address (UVA).
	if pin.DevicePtr() == 0 {
		t.Fatal("mapped pinned buffer has no device pointer")
	}
	must(t, ScaleF32(s, pin.DevicePtr(), 2, b, n))
	want := make([]float32, n)
	for i := range want {
		want[i] = 2 * src[i]
	}
	closeTo(t, "uva scale", downF32(t, s, b, n), want, 0, 0)

	// Byte and int copies.
	bs := []byte("gnnrepl")
	pb := alloc(t, d, len(bs))
	must(t, d.UploadBytes(pb, bs))
	got := make([]byte, len(bs))
	must(t, d.DownloadBytes(got, pb))
	if string(got) != "gnnrepl" {
		t.Errorf("bytes roundtrip %q", got)
	}
	must(t, d.CopyHtoD(pb, unsafe.Pointer(&[]byte("GNN")[0]), 3))
	must(t, d.DownloadBytes(got, pb))
	if string(got) != "GNNrepl" {
		t.Errorf("CopyHtoD %q", got)
	}

	// Driver errors are *DriverError with the CUresult's name.
	_, err = d.Alloc(1 << 50)
	var de *DriverError
	if !errors.As(err, &de) || de.Name != "CUDA_ERROR_OUT_OF_MEMORY" {
		t.Errorf("Alloc(1 PiB): %v, want CUDA_ERROR_OUT_OF_MEMORY", err)
	} else {
		t.Logf("Alloc(1 PiB) error: %v", err)
	}
	_, err = d.kernel("elementwise", "no_such_kernel")
	if !errors.As(err, &de) || !strings.Contains(de.Name, "NOT_FOUND") {
		t.Errorf("missing kernel: %v, want CUDA_ERROR_NOT_FOUND", err)
	}
	must(t, d.Synchronize())
	// Every embedded module loads (JIT) on this GPU.
	for _, m := range PTXModules() {
		img, _ := PTX(m)
		mod, err := d.LoadModule(img)
		if err != nil {
			t.Errorf("module %s: %v", m, err)
			continue
		}
		must(t, mod.Unload())
	}
}

// Where a cuBLAS library is installed (even without a GPU), it loads and
// exports every entry point the bindings use.
func TestCuBLASSymbols(t *testing.T) {
	lib, path, err := openCuBLAS()
	if err != nil {
		t.Skip("no cuBLAS here: ", err)
	}
	for _, name := range []string{"cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2", "cublasGetVersion_v2",
		"cublasGemmEx", "cublasGemmStridedBatchedEx"} {
		if _, err := sym(lib, name); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	if p, _ := sym(lib, "cublasGetStatusName"); p != 0 {
		if got := cString(p, 7); got != "CUBLAS_STATUS_INVALID_VALUE" {
			t.Errorf("cublasGetStatusName(7) = %q", got)
		}
	}
	t.Logf("cuBLAS at %s", path)
}

// The driver's error strings are read where a libcuda is installed, even
// when cuInit fails (no device).
func TestDriverErrorStrings(t *testing.T) {
	loadDriver()
	if drv.cuGetErrorName == 0 {
		t.Skip("no libcuda here")
	}
	err := check("cuTest", 2)
	var de *DriverError
	if !errors.As(err, &de) || de.Name != "CUDA_ERROR_OUT_OF_MEMORY" || de.Desc == "" {
		t.Errorf("check(2) = %v, want CUDA_ERROR_OUT_OF_MEMORY with a description", err)
	}
	t.Log(err)
}
