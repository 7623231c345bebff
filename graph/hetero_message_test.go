package graph

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/internal/engerr"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// refReduce reduces per-edge messages msg (E, F) at the destinations by a
// plain loop: the reference for UpdateAll's reducers.
func refReduce(n int, dst []int64, msg [][]float64, op string) [][]float64 {
	f := len(msg[0])
	out := make([][]float64, n)
	cnt := make([]int, n)
	for i := range out {
		out[i] = make([]float64, f)
	}
	for e, d := range dst {
		for k := 0; k < f; k++ {
			v := msg[e][k]
			switch {
			case cnt[d] == 0:
				out[d][k] = v
			case op == "max":
				out[d][k] = math.Max(out[d][k], v)
			case op == "min":
				out[d][k] = math.Min(out[d][k], v)
			default:
				out[d][k] += v
			}
		}
		cnt[d]++
	}
	if op == "mean" {
		for d := range out {
			for k := range out[d] {
				out[d][k] /= float64(max(cnt[d], 1))
			}
		}
	}
	return out
}

func TestUpdateAllBuiltins(t *testing.T) {
	src := []int64{0, 1, 2, 3, 0, 2, 4}
	dst := []int64{1, 1, 0, 0, 3, 3, 3} // node 2 and 4 have no in-edge
	g, err := New(5, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	gen := tensor.NewGenerator(1)
	h := tensor.Randn(gen, 5, 3)
	w := tensor.Randn(gen, 7, 3)
	w1 := tensor.Randn(gen, 7)
	g.SetNData("h", h)
	g.SetEData("w", w)
	g.SetEData("w1", w1)
	H, W, W1 := h.Float32s(), w.Float32s(), w1.Float32s()
	msgs := map[string]func(e int, k int) float64{
		"copy_u":  func(e, k int) float64 { return float64(H[src[e]*3+int64(k)]) },
		"copy_e":  func(e, k int) float64 { return float64(W[e*3+k]) },
		"u_add_e": func(e, k int) float64 { return float64(H[src[e]*3+int64(k)] + W[e*3+k]) },
		"u_mul_e": func(e, k int) float64 { return float64(H[src[e]*3+int64(k)] * W1[e]) },
		"e_mul_v": func(e, k int) float64 { return float64(W[e*3+k] * H[dst[e]*3+int64(k)]) },
		"u_sub_v": func(e, k int) float64 { return float64(H[src[e]*3+int64(k)] - H[dst[e]*3+int64(k)]) },
	}
	funcs := map[string]MessageFunc{
		"copy_u": CopyU("h", "m"), "copy_e": CopyE("w", "m"), "u_add_e": UAddE("h", "w", "m"),
		"u_mul_e": UMulE("h", "w1", "m"), "e_mul_v": EMulV("w", "h", "m"), "u_sub_v": USubV("h", "h", "m"),
	}
	for name, mf := range funcs {
		ref := make([][]float64, len(src))
		for e := range ref {
			ref[e] = make([]float64, 3)
			for k := range ref[e] {
				ref[e][k] = msgs[name](e, k)
			}
		}
		for _, red := range []ReduceFunc{Sum("m", "o"), Mean("m", "o"), Max("m", "o"), Min("m", "o")} {
			g.UpdateAll(mf, red)
			want := refReduce(5, dst, ref, red.Op)
			got := g.NData("o").Float32s()
			for i := range want {
				for k := range want[i] {
					if math.Abs(float64(got[i*3+k])-want[i][k]) > 1e-5 {
						t.Fatalf("%s/%s: node %d feature %d: got %g, want %g", name, red.Op, i, k, got[i*3+k], want[i][k])
					}
				}
			}
		}
	}
}

func heteroFixture(t *testing.T) *Graph {
	t.Helper()
	g, err := NewHetero(map[string]int{"user": 3, "item": 2},
		map[CanonicalEType]EdgeList{
			{"user", "clicks", "item"}:     {Src: []int64{0, 1, 2}, Dst: []int64{0, 0, 1}},
			{"user", "buys", "item"}:       {Src: []int64{2}, Dst: []int64{0}},
			{"user", "follows", "user"}:    {Src: []int64{0, 1}, Dst: []int64{1, 2}},
			{"item", "follows", "item"}:    {Src: []int64{0}, Dst: []int64{1}},
			{"item", "clicked-by", "user"}: {Src: []int64{0, 0, 1}, Dst: []int64{0, 1, 2}},
		})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestMultiUpdateAll(t *testing.T) {
	g := heteroFixture(t)
	g.SetNDataOf("user", "h", tensor.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 3, 2))
	g.SetNDataOf("item", "h", tensor.FromFloat32([]float32{10, 20, 30, 40}, 2, 2))
	f := EtypeUpdate{CopyU("h", "m"), Sum("m", "a")}
	// item 0 gets clicks from users 0, 1 (sum 4 6) and buys from user 2 (5 6).
	want := map[string][]float32{
		"sum": {9, 12, 5, 6}, "mean": {4.5, 6, 2.5, 3}, "max": {5, 6, 5, 6}, "min": {4, 6, 0, 0},
		"stack": {5, 6, 4, 6, 0, 0, 5, 6}, // buys before clicks (canonical order)
	}
	for red, w := range want {
		g.MultiUpdateAll(map[string]EtypeUpdate{"clicks": f, "buys": f}, red)
		got := g.NDataOf("item", "a")
		if red == "stack" && (got.Dim() != 3 || got.Size(1) != 2) {
			t.Fatalf("stack: shape %v", got.Shape())
		}
		for i, v := range got.Float32s() {
			if v != w[i] {
				t.Fatalf("%s: got %v, want %v", red, got.Float32s(), w)
			}
		}
	}
	g.UpdateAllOf(`("user", "follows", "user")`, CopyU("h", "m"), Max("m", "f"))
	if got := g.NDataOf("user", "f").Float32s(); got[2] != 1 || got[5] != 4 || got[0] != 0 {
		t.Fatalf("follows: %v", got)
	}
	for _, bad := range []func(){
		func() { g.UpdateAllOf("follows", CopyU("h", "m"), Sum("m", "f")) },               // ambiguous
		func() { g.UpdateAllOf("likes", CopyU("h", "m"), Sum("m", "f")) },                 // unknown
		func() { g.UpdateAllOf("clicks", CopyU("h", "m"), ReduceFunc{"prod", "m", "f"}) }, // reducer
		func() { g.MultiUpdateAll(map[string]EtypeUpdate{"clicks": f}, "concat") },
		func() { g.UpdateAllOf("clicks", MessageFunc{Op: "u_pow_e", U: "h", E: "x", Out: "m"}, Sum("m", "f")) },
	} {
		err := tensor.Catch(bad)
		if !errors.Is(err, engerr.ErrArgument) {
			t.Errorf("got %v, want ErrArgument", err)
		}
	}
	err := tensor.Catch(func() { g.UpdateAllOf("follows", CopyU("h", "m"), Sum("m", "f")) })
	if err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous etype: %v", err)
	}
}

func TestCrossReduceGrad(t *testing.T) {
	a := tensor.FromFloat32([]float32{1, 5, 3}, 3, 1).SetRequiresGrad(true)
	b := tensor.FromFloat32([]float32{2, 4, 6}, 3, 1).SetRequiresGrad(true)
	tensor.Sum(CrossReduce([]*tensor.Tensor{a, b}, "max")).Backward()
	if ga, gb := a.Grad().Float32s(), b.Grad().Float32s(); ga[0] != 0 || ga[1] != 1 || gb[0] != 1 || gb[1] != 0 || gb[2] != 1 {
		t.Fatalf("max grads %v %v", ga, gb)
	}
}
