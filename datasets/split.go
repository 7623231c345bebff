package datasets

import (
	"fmt"
	"slices"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Default sizes of the Planetoid-style random split, used by loaders of
// datasets that have no standard split (Shchur et al., "Pitfalls of Graph
// Neural Network Evaluation", 2018, section 4: 20 labelled nodes per class,
// 500 validation and 1000 test nodes).
const (
	DefaultTrainPerClass = 20
	DefaultNumVal        = 500
	DefaultNumTest       = 1000
)

// RandomSplitIdx draws a Planetoid-style split from the labels (N) as PyG's
// RandomNodeSplit(split="random", num_train_per_class=perClass,
// num_val=numVal, num_test=numTest) does: for each class, perClass of its
// nodes at random (all of them when it has fewer); then, from the other
// labelled nodes in random order, the first numVal for validation and the
// next numTest for test. Nodes with a negative label are in no split. The
// draw is a pure function of the labels and seed (tensor.NewGenerator); the
// returned ids are sorted ascending. It returns an error wrapping
// ErrArgument when a size is negative or too few nodes are left for
// validation and test.
func RandomSplitIdx(labels []int64, perClass, numVal, numTest int, seed int64) (train, val, test []int64, err error) {
	if perClass < 0 || numVal < 0 || numTest < 0 {
		return nil, nil, nil, fmt.Errorf("%w: split sizes must be non-negative, got %d per class, %d val, %d test",
			ErrArgument, perClass, numVal, numTest)
	}
	gen := tensor.NewGenerator(seed)
	classes := 0
	for _, y := range labels {
		classes = max(classes, int(y)+1)
	}
	byClass := make([][]int64, classes)
	for i, y := range labels {
		if y >= 0 {
			byClass[y] = append(byClass[y], int64(i))
		}
	}
	inTrain := make([]bool, len(labels))
	for _, nodes := range byClass {
		perm := gen.Perm(len(nodes))
		for _, p := range perm[:min(perClass, len(nodes))] {
			train = append(train, nodes[p])
			inTrain[nodes[p]] = true
		}
	}
	var rest []int64
	for i, y := range labels {
		if y >= 0 && !inTrain[i] {
			rest = append(rest, int64(i))
		}
	}
	if len(rest) < numVal+numTest {
		return nil, nil, nil, fmt.Errorf("%w: %d labelled nodes remain after %d training nodes, fewer than %d validation + %d test",
			ErrArgument, len(rest), len(train), numVal, numTest)
	}
	perm := gen.Perm(len(rest))
	for k, p := range perm[:numVal+numTest] {
		if k < numVal {
			val = append(val, rest[p])
		} else {
			test = append(test, rest[p])
		}
	}
	slices.Sort(train)
	slices.Sort(val)
	slices.Sort(test)
	return train, val, test, nil
}

// RandomSplit replaces d's split with RandomSplitIdx over its "label" node
// data (N) int64: TrainIdx, ValIdx, TestIdx and the node data
// "train_mask", "val_mask", "test_mask". On error d is unchanged.
func (d *Dataset) RandomSplit(perClass, numVal, numTest int, seed int64) error {
	if !d.Graph.HasNData("label") || d.Graph.NData("label").DType() != tensor.Int64 || d.Graph.NData("label").Dim() != 1 {
		return fmt.Errorf("%w: %s: RandomSplit needs node data \"label\" of shape (N) and dtype int64", ErrArgument, d.Name)
	}
	tr, va, te, err := RandomSplitIdx(d.Graph.NData("label").Int64s(), perClass, numVal, numTest, seed)
	if err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	n := d.Graph.NumNodes()
	for _, s := range []struct {
		name string
		idx  []int64
	}{{"train_mask", tr}, {"val_mask", va}, {"test_mask", te}} {
		if err := d.Graph.SetNData(s.name, mask(n, s.idx)); err != nil {
			return err
		}
	}
	d.TrainIdx, d.ValIdx, d.TestIdx = tensor.FromInt64(tr), tensor.FromInt64(va), tensor.FromInt64(te)
	return nil
}
