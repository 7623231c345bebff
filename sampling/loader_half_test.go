package sampling

import (
	"errors"
	"slices"
	"testing"

	"github.com/gnnrepl/gnnrepl/featstore"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// TestLoaderStoreGatherDType checks that a DataLoader gathering its stores
// as bfloat16 or float16 hands out, batch for batch, the rounded float32
// gather (a float32 store, rounded) and the stored bits (a bfloat16 store),
// and that other dtypes are rejected.
func TestLoaderStoreGatherDType(t *testing.T) {
	d := loadCora(t)
	g := d.Graph
	x := g.NData("feat")
	f32, err := featstore.NewFloat32(x)
	if err != nil {
		t.Fatal(err)
	}
	bf, err := featstore.NewBFloat16(x)
	if err != nil {
		t.Fatal(err)
	}
	s := NeighborSampler{Fanouts: []int{10, 5}}
	mk := func(dt tensor.DType) *DataLoader {
		return newLoader(t, g, rangeIDs(0, 300), s, LoaderOptions{BatchSize: 64, NumWorkers: 2, Seed: 3,
			StoreGatherDType: dt, NodeFeatStores: map[string]featstore.Store{"f32": f32, "bf": bf}})
	}
	ref, low, half := mk(tensor.Float32), mk(tensor.BFloat16), mk(tensor.Float16)
	defer ref.Close()
	defer low.Close()
	defer half.Close()
	batches := 0
	for ref.Next() {
		if !low.Next() || !half.Next() {
			t.Fatal("the low-precision loaders ended early")
		}
		r, l, h := ref.Blocks()[0], low.Blocks()[0], half.Blocks()[0]
		if !slices.Equal(r.SrcNodeIDs(), l.SrcNodeIDs()) {
			t.Fatal("different samples")
		}
		if a := r.SrcData("f32"); a.DType() != tensor.Float32 {
			t.Fatalf("float32 loader gathered %v", a.DType())
		}
		for _, name := range []string{"f32", "bf"} {
			want := r.SrcData(name)
			gotB, gotH := l.SrcData(name), h.SrcData(name)
			if gotB.DType() != tensor.BFloat16 || gotH.DType() != tensor.Float16 ||
				!slices.Equal(gotB.Shape(), want.Shape()) || !slices.Equal(gotH.Shape(), want.Shape()) {
				t.Fatalf("%s: gathered %v %v and %v %v, want the shape %v", name, gotB.DType(), gotB.Shape(), gotH.DType(), gotH.Shape(), want.Shape())
			}
			if !slices.Equal(gotB.Uint16s(), want.Cast(tensor.BFloat16).Uint16s()) {
				t.Fatalf("%s: the bfloat16 gather is not the rounded float32 gather", name)
			}
			if !slices.Equal(gotH.Uint16s(), want.Cast(tensor.Float16).Uint16s()) {
				t.Fatalf("%s: the float16 gather is not the rounded float32 gather", name)
			}
		}
		batches++
	}
	if low.Next() || ref.Err() != nil || low.Err() != nil || batches != 5 {
		t.Fatalf("%d batches, errors %v %v", batches, ref.Err(), low.Err())
	}
	_, err = NewDataLoader(g, tensor.FromInt64([]int64{0}), s, LoaderOptions{StoreGatherDType: tensor.Int8})
	if !errors.Is(err, ErrArgument) {
		t.Fatalf("StoreGatherDType int8: %v", err)
	}
}
