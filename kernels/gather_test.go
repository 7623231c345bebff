package kernels

import (
	"math/rand/v2"
	"testing"
)

// GatherRows is a byte copy (exact) for every row width class (16-, 4- and
// 2-byte units) and both index types; ScatterAddRowsF32 against a float64
// loop with repeated indices, atol 1e-5, rtol 1e-5.
func TestGatherScatterParity(t *testing.T) {
	d, s := gpu(t)
	r := rand.New(rand.NewPCG(11, 12))
	const m, n = 500, 3000
	for _, it := range []DType{DTypeInt32, DTypeInt64} {
		idx := make([]int64, n)
		for i := range idx {
			idx[i] = int64(r.IntN(m))
		}
		var pidx DevicePtr
		if it == DTypeInt32 {
			i32 := make([]int32, n)
			for i, v := range idx {
				i32[i] = int32(v)
			}
			pidx = upI32(t, d, i32)
		} else {
			pidx = upI64(t, d, idx)
		}
		// float32 rows of 64 (16-byte units) and 5 (4-byte units); 16-bit
		// rows of 3 (2-byte units).
		for _, f := range []int{64, 5} {
			src := randF32(r, m*f, -1, 1)
			want := make([]float32, n*f)
			for i := 0; i < n; i++ {
				copy(want[i*f:(i+1)*f], src[idx[i]*int64(f):(idx[i]+1)*int64(f)])
			}
			dst := alloc(t, d, 4*n*f)
			must(t, GatherRows(s, upF32(t, d, src), pidx, it, dst, n, 4*f))
			closeTo(t, "gather_f32_"+it.String(), downF32(t, s, dst, n*f), want, 0, 0)

			dout := randF32(r, n*f, -1, 1)
			acc := make([]float64, m*f)
			for i := 0; i < n; i++ {
				for c := 0; c < f; c++ {
					acc[int(idx[i])*f+c] += float64(dout[i*f+c])
				}
			}
			wantS := make([]float32, m*f)
			for i := range acc {
				wantS[i] = float32(acc[i])
			}
			ds := alloc(t, d, 4*m*f)
			must(t, d.Memset32(ds, 0, m*f))
			must(t, ScatterAddRowsF32(s, upF32(t, d, dout), pidx, it, ds, n, f))
			closeTo(t, "scatter_add_f32_"+it.String(), downF32(t, s, ds, m*f), wantS, 1e-5, 1e-5)
		}
		const f = 3
		bits, _ := toStorage(DTypeBFloat16, randF32(r, m*f, -1, 1))
		dst := alloc(t, d, 2*n*f)
		must(t, GatherRows(s, upU16(t, d, bits), pidx, it, dst, n, 2*f))
		got := downU16(t, s, dst, n*f)
		for i := 0; i < n; i++ {
			for c := 0; c < f; c++ {
				if got[i*f+c] != bits[int(idx[i])*f+c] {
					t.Fatalf("gather bf16 row %d col %d: %#x, want %#x", i, c, got[i*f+c], bits[int(idx[i])*f+c])
				}
			}
		}
	}
}
