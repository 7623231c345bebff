package nn

import "github.com/gnnrepl/gnnrepl/tensor"

// nodeIndex turns a node selection into int64 ids: idx is either (M) int64
// node ids or an (N) bool mask over the n rows (train_mask, val_mask, ...).
func nodeIndex(op string, idx *tensor.Tensor, n int) *tensor.Tensor {
	if idx == nil {
		panicf(ErrOption, op, "the node selection is nil")
	}
	switch idx.DType() {
	case tensor.Int64:
		if idx.Dim() != 1 {
			panicf(ErrShape, op, "node ids must be 1-D, got shape %v", idx.Shape())
		}
		return idx
	case tensor.Bool:
		if idx.Dim() != 1 || idx.Size(0) != n {
			panicf(ErrShape, op, "a node mask must have shape [%d], got %v", n, idx.Shape())
		}
		if idx.IsMeta() {
			panicf(ErrOption, op, "a node mask on %s has no values to select by; pass int64 node ids", idx.Device())
		}
		var ids []int64
		for i, b := range idx.ToCPU().Bools() {
			if b {
				ids = append(ids, int64(i))
			}
		}
		return tensor.FromInt64(ids, len(ids))
	}
	panicf(ErrShape, op, "nodes must be int64 ids or a bool mask, got %s", idx.DType())
	return nil
}

// MaskedCrossEntropy returns the mean cross-entropy of the selected rows:
// logits (N, C) float32, labels (N) int64, idx the selected nodes as (M)
// int64 ids or an (N) bool mask -> scalar, that is
// F.cross_entropy(logits[idx], labels[idx]). Gradients flow to logits. It
// panics when the selection is empty or does not fit.
func MaskedCrossEntropy(logits, labels, idx *tensor.Tensor) *tensor.Tensor {
	ids := onDevice(nodeIndex("MaskedCrossEntropy", idx, logits.Size(0)), logits.Device())
	if ids.Numel() == 0 {
		panicf(ErrShape, "MaskedCrossEntropy", "no nodes selected")
	}
	return tensor.CrossEntropy(tensor.IndexSelect(logits, ids), tensor.IndexSelect(labels, ids))
}

// MaskedAccuracy returns the fraction of the selected rows of logits (N, C)
// whose arg-max is the label (N) int64; idx as in MaskedCrossEntropy. An
// empty selection gives 0. It records no gradient.
func MaskedAccuracy(logits, labels, idx *tensor.Tensor) float64 {
	ids := onDevice(nodeIndex("MaskedAccuracy", idx, logits.Size(0)), logits.Device())
	if ids.Numel() == 0 {
		return 0
	}
	var acc float64
	tensor.NoGrad(func() {
		acc = tensor.Accuracy(tensor.IndexSelect(logits, ids), tensor.IndexSelect(labels, ids))
	})
	return acc
}
