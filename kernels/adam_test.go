package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Three Adam and AdamW steps against a float64 transcription of
// torch.optim.Adam / AdamW: atol 1e-6, rtol 1e-5 on p, m and v.
func TestAdamParity(t *testing.T) {
	d, s := gpu(t)
	r := rand.New(rand.NewPCG(13, 14))
	const n = 50_001
	for _, decoupled := range []bool{false, true} {
		hp := AdamParams{LR: 1e-2, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 5e-4, Decoupled: decoupled}
		p := randF32(r, n, -1, 1)
		pp, pm, pv := upF32(t, d, p), alloc(t, d, 4*n), alloc(t, d, 4*n)
		must(t, d.Memset32(pm, 0, n))
		must(t, d.Memset32(pv, 0, n))
		rp, rm, rv := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range p {
			rp[i] = float64(p[i])
		}
		for step := 1; step <= 3; step++ {
			g := randF32(r, n, -1, 1)
			hp.Step = step
			must(t, AdamStep(s, pp, upF32(t, d, g), pm, pv, n, hp))
			bc1 := 1 - math.Pow(hp.Beta1, float64(step))
			bc2 := 1 - math.Pow(hp.Beta2, float64(step))
			for i := range rp {
				gi := float64(g[i])
				if decoupled {
					rp[i] *= 1 - hp.LR*hp.WeightDecay
				} else {
					gi += hp.WeightDecay * rp[i]
				}
				rm[i] = hp.Beta1*rm[i] + (1-hp.Beta1)*gi
				rv[i] = hp.Beta2*rv[i] + (1-hp.Beta2)*gi*gi
				rp[i] -= hp.LR / bc1 * rm[i] / (math.Sqrt(rv[i])/math.Sqrt(bc2) + hp.Eps)
			}
		}
		f32 := func(v []float64) []float32 {
			o := make([]float32, len(v))
			for i := range v {
				o[i] = float32(v[i])
			}
			return o
		}
		name := "adam"
		if decoupled {
			name = "adamw"
		}
		closeTo(t, name+"_p", downF32(t, s, pp, n), f32(rp), 1e-6, 1e-5)
		closeTo(t, name+"_m", downF32(t, s, pm, n), f32(rm), 1e-6, 1e-5)
		closeTo(t, name+"_v", downF32(t, s, pv, n), f32(rv), 1e-9, 1e-5)
	}
}

// UnscaleF32 multiplies exactly by a power of two and flags Inf/NaN only
// when present.
func TestUnscaleParity(t *testing.T) {
	d, s := gpu(t)
	r := rand.New(rand.NewPCG(15, 16))
	const n = 10_000
	g := randF32(r, n, -100, 100)
	want := make([]float32, n)
	for i := range g {
		want[i] = g[i] / 1024
	}
	pg := upF32(t, d, g)
	flag := upF32(t, d, []float32{0})
	must(t, UnscaleF32(s, pg, n, 1.0/1024, flag))
	closeTo(t, "unscale", downF32(t, s, pg, n), want, 0, 0)
	if f := downF32(t, s, flag, 1)[0]; f != 0 {
		t.Errorf("found_inf = %v on finite gradients", f)
	}
	g[n/2] = float32(math.Inf(1))
	must(t, UnscaleF32(s, upF32(t, d, g), n, 1.0/1024, flag))
	if f := downF32(t, s, flag, 1)[0]; f != 1 {
		t.Errorf("found_inf = %v with an Inf gradient", f)
	}
}
