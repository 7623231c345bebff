package kernels

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/x448/float16"
)

// gpu returns device 0 and a fresh non-blocking stream, or skips the test
// when no CUDA driver or GPU is present (CI).
func gpu(t testing.TB) (*Device, *Stream) {
	t.Helper()
	if ok, why := Available(); !ok {
		t.Skip("no CUDA GPU: " + why)
	}
	d, err := Open(0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Synchronize(); err != nil {
			t.Errorf("stream: %v", err)
		}
		s.Destroy()
	})
	return d, s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// alloc returns bytes of device memory poisoned with 0xFF bytes (NaN as
// float32 / float16 / bfloat16, -1 as integers), so an unwritten output
// fails the comparison. Freed at cleanup.
func alloc(t testing.TB, d *Device, bytes int) DevicePtr {
	t.Helper()
	p, err := d.Alloc(bytes)
	must(t, err)
	must(t, d.Memset8(p, 0xFF, bytes))
	t.Cleanup(func() { d.Free(p) })
	return p
}

func upF32(t testing.TB, d *Device, v []float32) DevicePtr {
	t.Helper()
	p := alloc(t, d, 4*max(len(v), 1))
	must(t, d.UploadFloat32(p, v))
	return p
}

func upI32(t testing.TB, d *Device, v []int32) DevicePtr {
	t.Helper()
	p := alloc(t, d, 4*max(len(v), 1))
	must(t, d.UploadInt32(p, v))
	return p
}

func upI64(t testing.TB, d *Device, v []int64) DevicePtr {
	t.Helper()
	p := alloc(t, d, 8*max(len(v), 1))
	must(t, d.UploadInt64(p, v))
	return p
}

func upU16(t testing.TB, d *Device, v []uint16) DevicePtr {
	t.Helper()
	p := alloc(t, d, 2*max(len(v), 1))
	must(t, d.UploadUint16(p, v))
	return p
}

func downF32(t testing.TB, s *Stream, p DevicePtr, n int) []float32 {
	t.Helper()
	must(t, s.Synchronize())
	out := make([]float32, n)
	must(t, s.Device().DownloadFloat32(out, p))
	return out
}

func downI64(t testing.TB, s *Stream, p DevicePtr, n int) []int64 {
	t.Helper()
	must(t, s.Synchronize())
	out := make([]int64, n)
	must(t, s.Device().DownloadInt64(out, p))
	return out
}

func downU16(t testing.TB, s *Stream, p DevicePtr, n int) []uint16 {
	t.Helper()
	must(t, s.Synchronize())
	out := make([]uint16, n)
	must(t, s.Device().DownloadUint16(out, p))
	return out
}

func randF32(r *rand.Rand, n int, lo, hi float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = lo + (hi-lo)*r.Float32()
	}
	return v
}

// closeTo reports the first elements where |got - want| > atol + rtol*|want|
// (NaN never passes).
func closeTo(t testing.TB, name string, got, want []float32, atol, rtol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: len %d, want %d", name, len(got), len(want))
	}
	bad := 0
	worst := 0.0
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		diff := math.Abs(g - w)
		if math.IsNaN(g) || math.IsNaN(w) || diff > atol+rtol*math.Abs(w) {
			if bad < 5 {
				t.Errorf("%s[%d] = %v, want %v (|diff| %.3g > %.3g + %.3g*|want|)", name, i, got[i], want[i], diff, atol, rtol)
			}
			bad++
		}
		if diff > worst {
			worst = diff
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements out of tolerance", name, bad, len(got))
	} else {
		t.Logf("%s: %d elements, max |diff| %.3g (atol %.1g, rtol %.1g)", name, len(got), worst, atol, rtol)
	}
}

func f16(x float32) uint16     { return float16.Fromfloat32(x).Bits() }
func f16to32(b uint16) float32 { return float16.Frombits(b).Float32() }

// bf16 rounds x to bfloat16, nearest even (finite x).
func bf16(x float32) uint16 {
	b := math.Float32bits(x)
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}
func bf16to32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// toStorage rounds v to dtype, returning the bits (for 16-bit types) and
// the float32 values the device will see.
func toStorage(dt DType, v []float32) ([]uint16, []float32) {
	if dt == DTypeFloat32 {
		return nil, v
	}
	bits := make([]uint16, len(v))
	vals := make([]float32, len(v))
	for i, x := range v {
		if dt == DTypeFloat16 {
			bits[i] = f16(x)
			vals[i] = f16to32(bits[i])
		} else {
			bits[i] = bf16(x)
			vals[i] = bf16to32(bits[i])
		}
	}
	return bits, vals
}

func fromStorage(dt DType, bits []uint16) []float32 {
	out := make([]float32, len(bits))
	for i, b := range bits {
		if dt == DTypeFloat16 {
			out[i] = f16to32(b)
		} else {
			out[i] = bf16to32(b)
		}
	}
	return out
}

// testGraph is a random CSR over destinations with some zero in-degree
// rows, one hub row, and repeated edges.
type testGraph struct {
	nSrc, nDst int
	indptr     []int64
	indices    []int64
}

func randGraph(r *rand.Rand, nSrc, nDst, maxDeg int) testGraph {
	g := testGraph{nSrc: nSrc, nDst: nDst, indptr: make([]int64, nDst+1)}
	for v := 0; v < nDst; v++ {
		deg := r.IntN(maxDeg + 1)
		if v%7 == 3 {
			deg = 0
		}
		if v == nDst/2 {
			deg = 40 * maxDeg // hub
		}
		for k := 0; k < deg; k++ {
			g.indices = append(g.indices, int64(r.IntN(nSrc)))
		}
		g.indptr[v+1] = int64(len(g.indices))
	}
	return g
}

func (g testGraph) numEdges() int { return len(g.indices) }

// upload puts the graph on the device with indices of type it.
func (g testGraph) upload(t testing.TB, d *Device, it DType) CSR {
	c := CSR{Indptr: upI64(t, d, g.indptr), IndexType: it, NumDst: g.nDst, NumSrc: g.nSrc, NumEdges: g.numEdges()}
	if it == DTypeInt32 {
		idx := make([]int32, len(g.indices))
		for i, v := range g.indices {
			idx[i] = int32(v)
		}
		c.Indices = upI32(t, d, idx)
	} else {
		c.Indices = upI64(t, d, g.indices)
	}
	return c
}

// relErr returns ||got - want|| / ||want|| in float64.
func relErr(got []float32, want []float64) float64 {
	var num, den float64
	for i := range got {
		d := float64(got[i]) - want[i]
		num += d * d
		den += want[i] * want[i]
	}
	return math.Sqrt(num / den)
}

// median returns the median of v (v is reordered).
func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}
