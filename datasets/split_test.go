package datasets

import (
	"errors"
	"slices"
	"testing"
)

func TestRandomSplitIdx(t *testing.T) {
	labels := make([]int64, 3000)
	for i := range labels {
		labels[i] = int64(i % 4)
	}
	labels[5], labels[6] = -1, -1 // unlabelled
	tr, va, te, err := RandomSplitIdx(labels, 20, 500, 1000, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 80 || len(va) != 500 || len(te) != 1000 {
		t.Fatalf("sizes %d %d %d", len(tr), len(va), len(te))
	}
	per := make([]int, 4)
	seen := map[int64]bool{}
	for _, part := range [][]int64{tr, va, te} {
		if !slices.IsSorted(part) {
			t.Error("split not sorted")
		}
		for _, i := range part {
			if seen[i] || labels[i] < 0 {
				t.Fatalf("node %d repeated or unlabelled", i)
			}
			seen[i] = true
		}
	}
	for _, i := range tr {
		per[labels[i]]++
	}
	if !slices.Equal(per, []int{20, 20, 20, 20}) {
		t.Errorf("train per class %v", per)
	}
	// Same seed, same split; another seed, another split.
	tr2, va2, te2, _ := RandomSplitIdx(labels, 20, 500, 1000, 7)
	if !slices.Equal(tr, tr2) || !slices.Equal(va, va2) || !slices.Equal(te, te2) {
		t.Error("same seed gave another split")
	}
	tr3, _, _, _ := RandomSplitIdx(labels, 20, 500, 1000, 8)
	if slices.Equal(tr, tr3) {
		t.Error("another seed gave the same training set")
	}
	// A class smaller than perClass contributes all it has.
	tr, _, _, err = RandomSplitIdx([]int64{0, 0, 0, 1, 2, 2, 2, 2}, 2, 1, 1, 1)
	if err != nil || len(tr) != 5 {
		t.Errorf("small class: %v %v", tr, err)
	}
	if _, _, _, err := RandomSplitIdx(labels, 20, 2000, 1000, 1); !errors.Is(err, ErrArgument) {
		t.Errorf("too large: %v", err)
	}
	if _, _, _, err := RandomSplitIdx(labels, -1, 0, 0, 1); !errors.Is(err, ErrArgument) {
		t.Errorf("negative: %v", err)
	}
}

func TestDatasetRandomSplit(t *testing.T) {
	d, err := GNNBenchmarkNPZ(sharedData(t) + "/gnnbench-npz/cora.npz")
	if err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(d.TrainIdx.Int64s())
	if err := d.RandomSplit(10, 100, 200, 3); err != nil {
		t.Fatal(err)
	}
	if d.TrainIdx.Numel() != 70 || d.ValIdx.Numel() != 100 || d.TestIdx.Numel() != 200 || slices.Equal(before, d.TrainIdx.Int64s()) {
		t.Errorf("resplit %v", d)
	}
	n := 0
	for _, m := range d.Graph.NData("val_mask").Bools() {
		if m {
			n++
		}
	}
	if n != 100 {
		t.Errorf("val_mask has %d nodes", n)
	}
	if err := d.RandomSplit(10, 5000, 0, 3); !errors.Is(err, ErrArgument) || d.ValIdx.Numel() != 100 {
		t.Errorf("failed resplit changed the dataset or did not fail: %v", err)
	}
}
