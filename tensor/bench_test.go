package tensor

import (
	"math/rand/v2"
	"testing"
)

// powerLawAdj builds a destination-major adjacency of n nodes with about
// n*avgDeg edges whose sources follow a Zipf-like law (hubs exist).
func powerLawAdj(n, avgDeg int, seed uint64) *Adj {
	r := rand.New(rand.NewPCG(seed, 1))
	z := rand.NewZipf(r, 1.2, 1, uint64(n-1))
	adj := &Adj{NumSrc: n, NumDst: n, Indptr: make([]int64, n+1)}
	for d := 0; d < n; d++ {
		k := r.IntN(2 * avgDeg)
		for j := 0; j < k; j++ {
			adj.Indices = append(adj.Indices, int64(z.Uint64()))
		}
		adj.Indptr[d+1] = int64(len(adj.Indices))
	}
	return adj
}

func benchSpMM(b *testing.B, reduce string, backward bool) { benchSpMMOf(b, Float32, reduce, backward) }

func benchSpMMOf(b *testing.B, dt DType, reduce string, backward bool) {
	adj := powerLawAdj(100_000, 20, 1)
	const f = 64
	u := Rand(NewGenerator(1), -1, 1, adj.NumSrc, f).Cast(dt)
	if backward {
		u.SetRequiresGrad(true)
	}
	adj.Reverse()
	b.SetBytes(int64(adj.NumEdges()) * f * int64(dt.Size()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := SpMM(adj, u, nil, reduce)
		if backward {
			out.BackwardWith(Ones(out.Shape()...).Cast(dt))
		}
	}
	b.ReportMetric(float64(adj.NumEdges())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Medges/s")
}

// BenchmarkSpMM measures copy_u aggregation over 100k nodes and about 2M
// edges with 64 features; the byte rate counts one feature row read per
// edge.
func BenchmarkSpMMSum(b *testing.B)         { benchSpMM(b, "sum", false) }
func BenchmarkSpMMMean(b *testing.B)        { benchSpMM(b, "mean", false) }
func BenchmarkSpMMMax(b *testing.B)         { benchSpMM(b, "max", false) }
func BenchmarkSpMMSumBackward(b *testing.B) { benchSpMM(b, "sum", true) }

// BenchmarkSpMMSumBF16 and BenchmarkSpMMSumBF16Backward are the bfloat16
// versions (rows widened per edge, float32 accumulation).
func BenchmarkSpMMSumBF16(b *testing.B)         { benchSpMMOf(b, BFloat16, "sum", false) }
func BenchmarkSpMMSumBF16Backward(b *testing.B) { benchSpMMOf(b, BFloat16, "sum", true) }

func BenchmarkMatMul(b *testing.B) { benchMatMul(b, Float32) }

// BenchmarkMatMulBF16 is the bfloat16 product (row blocks widened, float32
// BLAS, result rounded).
func BenchmarkMatMulBF16(b *testing.B) { benchMatMul(b, BFloat16) }

func benchMatMul(b *testing.B, dt DType) {
	x := Rand(NewGenerator(1), -1, 1, 2708, 1433).Cast(dt)
	w := Rand(NewGenerator(2), -1, 1, 1433, 16).Cast(dt)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		MatMul(x, w)
	}
	b.ReportMetric(2*2708*1433*16*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
