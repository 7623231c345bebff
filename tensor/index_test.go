package tensor

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
)

// Tests of the index family (index.go): the CPU fast paths against their
// reference loops, and every op on the meta device (shapes, dtypes and the
// bytes it allocates, forward and backward, equal to the CPU's).

// The fake device's index kernels are a GPU-less CUDA device's.
func (f fakeBackend) cuda() *cudaDevice                    { return &cudaDevice{name: string(f)} }
func (f fakeBackend) GatherRows(out, x, idx *Tensor)       { f.cuda().GatherRows(out, x, idx) }
func (f fakeBackend) ScatterAddRows(out, idx, src *Tensor) { f.cuda().ScatterAddRows(out, idx, src) }
func (f fakeBackend) CopyRows(dst *Tensor, do, ds int, src *Tensor, so, ss, rows, w int) {
	f.cuda().CopyRows(dst, do, ds, src, so, ss, rows, w)
}
func (f fakeBackend) Transpose(out, x *Tensor) { f.cuda().Transpose(out, x) }

func TestIndexFastPathsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	// Gathers: float32 and 16-bit rows, enough rows for parallel chunks.
	const n, m, f = 300, 5000, 7
	ids := make([]int64, m)
	for i := range ids {
		ids[i] = r.Int64N(n)
	}
	x32 := make([]float32, n*f)
	x16 := make([]uint16, n*f)
	for i := range x32 {
		x32[i], x16[i] = r.Float32(), uint16(r.Uint32())
	}
	a32, b32 := make([]float32, m*f), make([]float32, m*f)
	gatherRowsFast(a32, x32, ids, f)
	gatherRowsRef(b32, x32, ids, f)
	a16, b16 := make([]uint16, m*f), make([]uint16, m*f)
	gatherRowsFast(a16, x16, ids, f)
	gatherRowsRef(b16, x16, ids, f)
	for i := range a32 {
		if a32[i] != b32[i] || a16[i] != b16[i] {
			t.Fatalf("gather element %d: fast %v/%v, reference %v/%v", i, a32[i], a16[i], b32[i], b16[i])
		}
	}

	// Scatter-add: large enough for the parallel path (bit-identical: each
	// row adds in increasing i).
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	const sn, sm, sf = 97, 40000, 5
	sids := make([]int64, sm)
	src := make([]float32, sm*sf)
	for i := range sids {
		sids[i] = r.Int64N(sn)
	}
	for i := range src {
		src[i] = r.Float32()*2 - 1
	}
	fast, ref := make([]float32, sn*sf), make([]float32, sn*sf)
	scatterAddFast(fast, src, sids, sn, sf)
	scatterAddRef(ref, src, sids, sf)
	for i := range ref {
		if fast[i] != ref[i] {
			t.Fatalf("scatter-add element %d: fast %v, reference %v", i, fast[i], ref[i])
		}
	}

	// Transpose: the blocked loop on shapes that are not whole tiles.
	for _, s := range [][2]int{{1, 1}, {33, 65}, {70, 31}, {0, 5}, {64, 64}} {
		xs := make([]float32, s[0]*s[1])
		for i := range xs {
			xs[i] = float32(i)
		}
		got, want := make([]float32, len(xs)), make([]float32, len(xs))
		transposeBlocked(got, xs, s[0], s[1])
		transposeRef(want, xs, s[0], s[1])
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("transpose %v element %d: blocked %v, reference %v", s, i, got[i], want[i])
			}
		}
	}
}

// TestIndexOpsAllDTypes checks the dtype-agnostic kernels (gathers, copies,
// transposes) on every dtype against the float32 result cast.
func TestIndexOpsAllDTypes(t *testing.T) {
	x := Arange(24)
	x = Reshape(x.Cast(Float32), 6, 4)
	idx := FromInt64([]int64{5, 0, 0, 3})
	for _, dt := range []DType{Float32, Float16, BFloat16, Int8, Int64, Bool} {
		xd := x.Cast(dt)
		check := func(what string, got, want *Tensor) {
			t.Helper()
			if got.DType() != dt || !sameShape(got.shape, want.shape) {
				t.Fatalf("%s %s: %s%v, want %s%v", what, dt, got.DType(), got.shape, dt, want.shape)
			}
			w := want.Cast(dt)
			for i := 0; i < w.n; i++ {
				if elem(got, i) != elem(w, i) {
					t.Fatalf("%s %s: element %d = %v, want %v", what, dt, i, elem(got, i), elem(w, i))
				}
			}
		}
		check("IndexSelect", IndexSelect(xd, idx), IndexSelect(x, idx))
		check("Narrow", Narrow(xd, 2, 3), Narrow(x, 2, 3))
		check("Transpose", Transpose(xd), Transpose(x))
		check("Transpose of a view", Transpose(Narrow(xd, 1, 4)), Transpose(Narrow(x, 1, 4)))
		check("Reshape", Reshape(xd, 4, -1), Reshape(x, 4, -1))
		if dt.IsFloatingPoint() {
			check("Concat", Concat([]*Tensor{xd, Narrow(xd, 1, 2)}, 0), Concat([]*Tensor{x, Narrow(x, 1, 2)}, 0))
			check("Concat 1", Concat([]*Tensor{xd, Narrow(xd, 0, 6)}, 1), Concat([]*Tensor{x, Narrow(x, 0, 6)}, 1))
		}
	}
}

// onMeta returns x on the meta device as a leaf (requiring grad when grad is
// set).
func onMeta(t *testing.T, x *Tensor, grad bool) *Tensor {
	t.Helper()
	m, err := x.Detach().To("meta")
	if err != nil {
		t.Fatal(err)
	}
	if grad {
		m.SetRequiresGrad(true)
	}
	return m
}

// TestIndexOpsOnMeta runs every op of index.go on the CPU and on meta
// tensors: the results have the CPU's shapes and dtypes, and the forward
// and the backward allocate the same bytes on "meta" as on "cpu".
func TestIndexOpsOnMeta(t *testing.T) {
	type c struct {
		name   string
		inputs []*Tensor // CPU inputs; float ones require grad
		op     func(in []*Tensor) *Tensor
	}
	x := randT(1, 9, 4)
	idx := FromInt64([]int64{8, 0, 0, 3, 5})
	cases := []c{
		{"IndexSelect", []*Tensor{x, idx}, func(in []*Tensor) *Tensor { return IndexSelect(in[0], in[1]) }},
		{"IndexSelect int64", []*Tensor{Arange(9), idx}, func(in []*Tensor) *Tensor { return IndexSelect(in[0], in[1]) }},
		{"IndexAdd", []*Tensor{randT(2, 5, 3), idx}, func(in []*Tensor) *Tensor { return IndexAdd(11, in[1], in[0]) }},
		{"Narrow", []*Tensor{x}, func(in []*Tensor) *Tensor { return Narrow(in[0], 2, 5) }},
		{"Reshape", []*Tensor{x}, func(in []*Tensor) *Tensor { return Reshape(in[0], 2, -1, 3) }},
		{"Transpose", []*Tensor{x}, func(in []*Tensor) *Tensor { return Transpose(in[0]) }},
		{"Concat 0", []*Tensor{x, randT(3, 2, 4)}, func(in []*Tensor) *Tensor { return Concat(in, 0) }},
		{"Concat 1", []*Tensor{x, randT(4, 9, 7)}, func(in []*Tensor) *Tensor { return Concat(in, -1) }},
		{"Concat 1 of 3-D", []*Tensor{randT(5, 2, 3, 4), randT(6, 2, 1, 4)}, func(in []*Tensor) *Tensor { return Concat(in, 1) }},
	}
	for _, dt := range []DType{Float32, BFloat16, Float16} {
		if dt != Float32 {
			// The low-precision paths cast (Tensor.Cast), which runs on
			// meta tensors once the elementwise family is on the Backend.
			if err := Catch(func() { onMeta(t, Ones(2), false).Cast(dt) }); err != nil {
				t.Logf("%s on meta skipped: Cast on meta: %v", dt, err)
				continue
			}
		}
		for _, cs := range cases {
			run := func(dev string) (out *Tensor, fwd, bwd int64, grads []*Tensor) {
				in := make([]*Tensor, len(cs.inputs))
				for i, v := range cs.inputs {
					if v.DType() == Float32 {
						v = v.Cast(dt)
					}
					grad := v.DType().IsFloatingPoint()
					if dev == "meta" {
						in[i] = onMeta(t, v, grad)
					} else {
						in[i] = v.Detach()
						if grad {
							in[i].SetRequiresGrad(true)
						}
					}
				}
				before := TotalAllocatedBytes(dev)
				out = cs.op(in)
				fwd = TotalAllocatedBytes(dev) - before
				if !out.RequiresGrad() {
					return out, fwd, 0, nil
				}
				seed := Ones(out.Shape()...).Cast(out.DType())
				if dev == "meta" {
					seed = onMeta(t, seed, false)
				}
				before = TotalAllocatedBytes(dev)
				out.BackwardWith(seed)
				bwd = TotalAllocatedBytes(dev) - before
				for _, v := range in {
					grads = append(grads, v.Grad())
				}
				return out, fwd, bwd, grads
			}
			name := cs.name + " " + dt.String()
			want, wf, wb, wg := run("cpu")
			ResetPeakMemoryStats("meta")
			got, gf, gb, gg := run("meta")
			if got.Device() != "meta" || got.DType() != want.DType() || !sameShape(got.shape, want.shape) {
				t.Errorf("%s: meta result %s%v on %s, CPU %s%v", name, got.DType(), got.shape, got.Device(), want.DType(), want.shape)
			}
			if gf != wf || gb != wb {
				t.Errorf("%s: meta allocated %d bytes forward, %d backward; the CPU %d and %d", name, gf, gb, wf, wb)
			}
			if wf+wb > 0 && MaxMemoryAllocated("meta") <= 0 {
				t.Errorf("%s: MaxMemoryAllocated(meta) = %d after allocating %d bytes", name, MaxMemoryAllocated("meta"), gf+gb)
			}
			for i := range wg {
				if (wg[i] == nil) != (gg[i] == nil) {
					t.Errorf("%s: gradient %d: meta %v, CPU %v", name, i, gg[i], wg[i])
				} else if wg[i] != nil && (gg[i].DType() != wg[i].DType() || !sameShape(gg[i].shape, wg[i].shape) || gg[i].Device() != "meta") {
					t.Errorf("%s: gradient %d: meta %s%v on %s, CPU %s%v", name, i, gg[i].DType(), gg[i].shape, gg[i].Device(), wg[i].DType(), wg[i].shape)
				}
			}
		}
	}
}

// TestIndexChecksOnMeta checks that the ops' argument checks run on meta
// tensors with the CPU's errors (index values are unknown and not checked).
func TestIndexChecksOnMeta(t *testing.T) {
	x := onMeta(t, Ones(4, 3), false)
	for name, f := range map[string]func(){
		"IndexSelect": func() { IndexSelect(x, onMeta(t, Ones(2), false)) },
		"IndexAdd":    func() { IndexAdd(4, onMeta(t, FromInt64([]int64{0, 1}), false), x) },
		"Narrow":      func() { Narrow(x, 3, 2) },
		"Reshape":     func() { Reshape(x, 5, -1) },
		"Transpose":   func() { Transpose(onMeta(t, Ones(2, 3, 4), false)) },
		"Concat":      func() { Concat([]*Tensor{x, onMeta(t, Ones(4, 2), false)}, 0) },
	} {
		err := Catch(f)
		var te *Error
		if err == nil {
			t.Errorf("%s on meta: no error", name)
		} else if !errors.As(err, &te) || te.Op != name {
			t.Errorf("%s on meta: %v does not name the op", name, err)
		}
	}
	// Unknown index values pass.
	if got := IndexSelect(x, onMeta(t, FromInt64([]int64{7, 9}), false)); !sameShape(got.shape, []int{2, 3}) {
		t.Errorf("IndexSelect on meta: shape %v", got.shape)
	}
	if err := Catch(func() { x.At(1, 2) }); !errors.Is(err, ErrDevice) {
		t.Errorf("At of a meta tensor: %v, want ErrDevice", err)
	}
	if s := x.String(); s != "tensor(<no data>, shape=[4 3], dtype=float32, device=meta)" {
		t.Errorf("String of a meta tensor: %q", s)
	}
}
