package metrics

import "github.com/gnnrepl/gnnrepl/tensor"

// Accuracy returns the fraction of nodes whose predicted class equals the
// label: (1/N) sum_i [pred_i == labels_i], as
// sklearn.metrics.accuracy_score(y_true, y_pred) and torchmetrics'
// Accuracy(task="multiclass", average="micro").
//
// pred is (N) int64 class ids or (N, C) floating scores (logits or
// probabilities of any floating dtype; the class is the row's argmax, the
// first on ties); labels is (N) int64 class ids; any device (the values are
// copied to the host); no gradient is recorded. The result is in [0, 1].
// Errors wrap ErrArgument or ErrShape: a nil argument, a wrong dtype or
// rank, a negative class, no labels, pred and labels of different lengths.
//
// tensor.Accuracy(logits, targets) computes the same for (N, C) logits on
// the tensors' device and panics on misuse; Accuracy here also takes
// predicted ids and returns its errors, like the other metrics.
func Accuracy(pred, labels *tensor.Tensor) (float64, error) {
	p, y, err := classPairs("Accuracy", pred, labels)
	if err != nil {
		return 0, err
	}
	right := 0
	for i := range y {
		if p[i] == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(y)), nil
}
