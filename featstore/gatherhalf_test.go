package featstore

import (
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// plainStore hides every method but Store's, to test GatherHalf's chunked
// fallback for stores without GatherHalfInto.
type plainStore struct{ Store }

// TestGatherHalf checks that gathering in float16 or bfloat16 equals
// rounding the float32 gather, for every store (the half stores in their
// own dtype give their stored bits), the hot cache, Concat and the
// fallback, with parallel chunks and strides, and the documented panics.
func TestGatherHalf(t *testing.T) {
	const n, f = 3000, 40 // 120K values: parallel gathers, two fallback chunks
	x := randFeatures(n, f, 11)
	all := stores(t, x)
	src := make([]int64, n)
	dst := make([]int64, n)
	for i := range src {
		src[i], dst[i] = int64(i), int64((i*7+1)%n)
	}
	g, err := graph.New(n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	hot, err := NewHotCache(all[3], g, HotCacheOptions{Fraction: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := NewConcat(all[1], all[3], plainStore{all[0]})
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, hot, cat, plainStore{all[2]}, plainStore{hot})
	ids := make([]int64, 2*n)
	for i := range ids {
		ids[i] = int64((i * 31) % n)
	}
	for _, s := range all {
		want32 := s.Gather(ids)
		for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
			got := GatherHalf(s, tensor.FromInt64(ids), dt)
			if got.DType() != dt || !slices.Equal(got.Shape(), []int{len(ids), s.Dim()}) || got.RequiresGrad() {
				t.Fatalf("%v as %v: %v %v", s, dt, got.DType(), got.Shape())
			}
			want := want32.Cast(dt)
			if !slices.Equal(got.Uint16s(), want.Uint16s()) {
				t.Fatalf("%v gathered as %v differs from the rounded float32 gather", s, dt)
			}
			if h, ok := halfOf(s); ok && h.DType() == dt { // the stored bits, copied
				for r, v := range ids {
					if !slices.Equal(got.Uint16s()[r*f:r*f+f], h.bits[int(v)*f:int(v)*f+f]) {
						t.Fatalf("%v: row %d is not the stored bits of node %d", s, r, v)
					}
				}
			}
			// Strided into a wider row: the other columns stay.
			if hg, ok := s.(HalfGatherer); ok {
				w := s.Dim() + 3
				buf := make([]uint16, 4*w)
				for k := range buf {
					buf[k] = 0xabcd
				}
				hg.GatherHalfInto(buf, w, ids[:4], dt)
				for r := range 4 {
					if !slices.Equal(buf[r*w:r*w+s.Dim()], got.Uint16s()[r*s.Dim():(r+1)*s.Dim()]) ||
						buf[r*w+s.Dim()] != 0xabcd {
						t.Fatalf("%v: strided GatherHalfInto row %d", s, r)
					}
				}
			}
		}
		if got := GatherHalf(s, tensor.FromInt64(ids[:5]), tensor.Float32); got.DType() != tensor.Float32 ||
			!slices.Equal(got.Float32s(), want32.Float32s()[:5*s.Dim()]) {
			t.Fatalf("%v: float32 GatherHalf is not Gather", s)
		}
	}
	// Misuse.
	for _, s := range all[:4] {
		mustPanic(t, ErrIndex, func() { GatherHalf(s, tensor.FromInt64([]int64{0, n}), tensor.BFloat16) })
		mustPanic(t, ErrArgument, func() { GatherHalf(s, tensor.FromInt64([]int64{0}), tensor.Int8) })
		mustPanic(t, ErrShape, func() { s.(HalfGatherer).GatherHalfInto(make([]uint16, f), f, []int64{0, 1}, tensor.Float16) })
		mustPanic(t, ErrShape, func() { s.(HalfGatherer).GatherHalfInto(make([]uint16, 2*f), f-1, []int64{0, 1}, tensor.Float16) })
	}
	mustPanic(t, ErrArgument, func() { GatherHalf(nil, nil, tensor.BFloat16) })
	mustPanic(t, ErrShape, func() { GatherHalf(all[0], tensor.Zeros(3), tensor.BFloat16) })
	mustPanic(t, ErrShape, func() { GatherHalf(all[0], nil, tensor.BFloat16) })
	closed, _ := NewBFloat16(x)
	closed.Close()
	mustPanic(t, ErrClosed, func() { GatherHalf(closed, tensor.FromInt64([]int64{0}), tensor.BFloat16) })
}

// halfOf returns the half store s is, if it is one.
func halfOf(s Store) (*half, bool) {
	switch h := s.(type) {
	case *Float16:
		return &h.half, true
	case *BFloat16:
		return &h.half, true
	}
	return nil, false
}
