package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// GPU benchmarks: each reports its own rate, timed with CUDA events around
// b.N back-to-back launches after warm-up, and logs a "SUMMARY" line that
// scripts/gpu-check.sh collects. Run with -test.benchtime=20x. Inputs are
// random (never zeros, which run faster and hide bugs).

// timeGPU runs f warm times, then b.N times between two events, and returns
// seconds per call.
func timeGPU(b *testing.B, s *Stream, warm int, f func() error) float64 {
	b.Helper()
	for i := 0; i < warm; i++ {
		must(b, f())
	}
	must(b, s.Synchronize())
	d := s.Device()
	start, err := d.NewEvent()
	must(b, err)
	end, err := d.NewEvent()
	must(b, err)
	defer start.Destroy()
	defer end.Destroy()
	b.ResetTimer()
	must(b, start.Record(s))
	for i := 0; i < b.N; i++ {
		must(b, f())
	}
	must(b, end.Record(s))
	must(b, end.Synchronize())
	b.StopTimer()
	ms, err := ElapsedMs(start, end)
	must(b, err)
	return float64(ms) / 1e3 / float64(b.N)
}

// peakBandwidth is the device's theoretical memory bandwidth from its
// attributes, or the H200 datasheet's 4.8 TB/s when the driver does not say.
func peakBandwidth(d *Device) float64 {
	if p := d.Info().PeakBandwidth(); p > 0 {
		return p
	}
	return 4.8e12
}

// benchRand returns n random float32 in [-1, 1), generated once per n.
var benchRandCache sync.Map

func benchRand(n int, seed uint64) []float32 {
	key := [2]uint64{uint64(n), seed}
	if v, ok := benchRandCache.Load(key); ok {
		return v.([]float32)
	}
	v := randF32(rand.New(rand.NewPCG(seed, 99)), n, -1, 1)
	benchRandCache.Store(key, v)
	return v
}

// devRand allocates n random values of dtype on the device: a block of at
// most 2^24 random float32 (generated once per seed) is uploaded repeatedly
// to fill n, then cast on the device for 16-bit types.
func devRand(b *testing.B, d *Device, s *Stream, dt DType, n int, seed uint64) DevicePtr {
	chunk := benchRand(min(n, 1<<24), seed)
	f := alloc(b, d, 4*n)
	for off := 0; off < n; off += len(chunk) {
		must(b, d.UploadFloat32(f.Add(4*off), chunk[:min(len(chunk), n-off)]))
	}
	if dt == DTypeFloat32 {
		return f
	}
	p := alloc(b, d, 2*n)
	must(b, Cast(s, f, DTypeFloat32, p, dt, n))
	must(b, s.Synchronize())
	return p
}

// BenchmarkCopyDtoD measures the device-to-device copy bandwidth (bytes
// read plus bytes written), the practical ceiling of memory-bound kernels.
func BenchmarkCopyDtoD(b *testing.B) {
	d, s := gpu(b)
	const bytes = 1 << 30
	src := alloc(b, d, bytes)
	dst := alloc(b, d, bytes)
	sec := timeGPU(b, s, 3, func() error { return s.CopyDtoDAsync(dst, src, bytes) })
	bw := 2 * bytes / sec
	b.ReportMetric(bw/1e12, "TB/s")
	b.Logf("SUMMARY copy DtoD 1 GiB: %.2f TB/s = %.0f%% of %.2f TB/s peak", bw/1e12, 100*bw/peakBandwidth(d), peakBandwidth(d)/1e12)
}

// BenchmarkGemm measures cuBLAS GemmEx at 8192^3 (row-major MatMul,
// C = A @ B) in bf16 and fp16 (tensor cores, float32 accumulation, 16-bit
// output as torch.matmul under autocast), TF32 and plain float32.
// FLOPs = 2 M N K per product.
func BenchmarkGemm(b *testing.B) {
	for _, c := range []struct {
		name    string
		in, out DType
		compute ComputeType
	}{
		{"bf16", DTypeBFloat16, DTypeBFloat16, Compute32F},
		{"fp16", DTypeFloat16, DTypeFloat16, Compute32F},
		{"tf32", DTypeFloat32, DTypeFloat32, Compute32FFastTF32},
		{"fp32", DTypeFloat32, DTypeFloat32, Compute32F},
	} {
		b.Run(c.name+"_8192", func(b *testing.B) {
			d, s := gpu(b)
			h, err := NewBLAS(d)
			must(b, err)
			defer h.Destroy()
			const n = 8192
			pa := devRand(b, d, s, c.in, n*n, 1)
			pb := devRand(b, d, s, c.in, n*n, 2)
			pc := alloc(b, d, c.out.Size()*n*n)
			sec := timeGPU(b, s, 3, func() error {
				return h.MatMul(s, false, false, n, n, n, 1, pa, pb, c.in, 0, pc, c.out, c.compute)
			})
			tf := 2 * math.Pow(n, 3) / sec / 1e12
			b.ReportMetric(tf, "TFLOP/s")
			b.Logf("SUMMARY gemm %s 8192^3 (cuBLAS GemmEx, %v out): %.1f TFLOP/s, %.2f ms", c.name, c.out, tf, sec*1e3)
		})
	}
}

// benchGraph is a synthetic graph in CSR over destinations: in-degrees
// from a power law (Pareto, exponent 2.5, minimum 5, capped at 20000:
// mean about 15) and sources either uniform or skewed towards low ids
// (u = N * r^2, popular nodes as in real graphs).
type benchGraph struct {
	n       int
	indptr  []int64
	indices []int32
}

var benchGraphs sync.Map

func makeBenchGraph(n int, skew bool) *benchGraph {
	if v, ok := benchGraphs.Load(skew); ok {
		return v.(*benchGraph)
	}
	r := rand.New(rand.NewPCG(23, 24))
	g := &benchGraph{n: n, indptr: make([]int64, n+1)}
	g.indices = make([]int32, 0, 16*n)
	for v := 0; v < n; v++ {
		deg := int(5 * math.Pow(1-r.Float64(), -1/1.5))
		deg = min(deg, 20000)
		for k := 0; k < deg; k++ {
			x := r.Float64()
			if skew {
				x *= x
			}
			g.indices = append(g.indices, int32(x*float64(n)))
		}
		g.indptr[v+1] = int64(len(g.indices))
	}
	benchGraphs.Store(skew, g)
	return g
}

// BenchmarkSpMM measures CSR aggregation (SpMM) over a 2M-node synthetic
// power-law graph with F = 128 features: effective bandwidth = bytes the
// kernel must touch if every gathered row came from memory (E*(4 + F*size)
// + N*(8 + F*size)) per second, and its fraction of the GPU's memory
// bandwidth. The skewed graph's popular rows are served partly from L2, so
// its effective bandwidth can exceed what DRAM delivers.
func BenchmarkSpMM(b *testing.B) {
	const n, f = 1 << 21, 128
	for _, skew := range []bool{false, true} {
		gname := "uniform"
		if skew {
			gname = "powerlaw"
		}
		for _, c := range []struct {
			dt      DType
			red     Reduce
			noSplit bool
		}{{DTypeFloat32, ReduceSum, false}, {DTypeBFloat16, ReduceSum, false}, {DTypeFloat16, ReduceMean, false},
			{DTypeFloat32, ReduceMax, false}, {DTypeFloat32, ReduceSum, true}} {
			if c.noSplit && !skew {
				continue
			}
			split := SpMMLongRow
			if c.noSplit {
				split = 0
			}
			b.Run(fmt.Sprintf("%s_%v_%v_F%d_longrow%d", gname, c.red, c.dt, f, split), func(b *testing.B) {
				defer func(old int) { SpMMLongRow = old }(SpMMLongRow)
				SpMMLongRow = split
				d, s := gpu(b)
				g := makeBenchGraph(n, skew)
				E := len(g.indices)
				cg := CSR{Indptr: upI64(b, d, g.indptr), Indices: upI32(b, d, g.indices), IndexType: DTypeInt32,
					NumDst: n, NumSrc: n, NumEdges: E}
				x := devRand(b, d, s, c.dt, n*f, 3)
				out := alloc(b, d, c.dt.Size()*n*f)
				var arg DevicePtr
				if c.red == ReduceMax {
					arg = alloc(b, d, 8*n*f)
				}
				sec := timeGPU(b, s, 2, func() error { return SpMM(s, cg, c.red, x, c.dt, f, 0, 1, out, arg) })
				bytes := float64(E)*float64(4+f*c.dt.Size()) + float64(n)*float64(8+f*c.dt.Size())
				if c.red == ReduceMax {
					bytes += float64(n) * f * 8
				}
				bw := bytes / sec
				frac := bw / peakBandwidth(d)
				b.ReportMetric(bw/1e12, "TB/s")
				b.ReportMetric(frac, "frac_peak")
				b.Logf("SUMMARY spmm %s %v %v F=%d longrow=%d (N=%d, E=%d): %.3f ms, %.2f TB/s effective = %.0f%% of %.2f TB/s peak, %.1f Gedges/s",
					gname, c.red, c.dt, f, split, n, E, sec*1e3, bw/1e12, 100*frac, peakBandwidth(d)/1e12, float64(E)/sec/1e9)
			})
		}
	}
}
