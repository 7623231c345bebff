package metrics

import "github.com/gnnrepl/gnnrepl/tensor"

// classPairs returns the predicted and true class of every node: pred is
// (N) int64 class ids or (N, C) floating scores (the class is the row's
// argmax, the first on ties), labels (N) int64 class ids >= 0.
func classPairs(op string, pred, labels *tensor.Tensor) (p, y []int64, err error) {
	if pred == nil {
		return nil, nil, errorf(ErrArgument, op, "pred is nil")
	}
	if labels == nil {
		return nil, nil, errorf(ErrArgument, op, "labels is nil")
	}
	if labels.DType() != tensor.Int64 || labels.Dim() != 1 {
		return nil, nil, errorf(ErrArgument, op, "labels must be (N) int64 class ids, got %s of shape %v", labels.DType(), labels.Shape())
	}
	n := labels.Size(0)
	if n == 0 {
		return nil, nil, errorf(ErrShape, op, "labels is empty")
	}
	err = tensor.Catch(func() {
		tensor.NoGrad(func() {
			host := func(t *tensor.Tensor) *tensor.Tensor {
				t = t.Detach()
				if t.Device() != "cpu" {
					c, err := t.To("cpu")
					if err != nil {
						panic(err)
					}
					t = c
				}
				return t
			}
			y = append([]int64(nil), host(labels).Int64s()...)
			switch {
			case pred.DType() == tensor.Int64 && pred.Dim() == 1:
				p = append([]int64(nil), host(pred).Int64s()...)
			case pred.DType().IsFloatingPoint() && pred.Dim() == 2:
				s := host(pred)
				if s.DType() != tensor.Float32 {
					s = s.Cast(tensor.Float32)
				}
				f, c := s.Float32s(), s.Size(1)
				if c == 0 {
					panic(errorf(ErrShape, op, "pred has no classes (shape %v)", pred.Shape()))
				}
				p = make([]int64, s.Size(0))
				for i := range p {
					row := f[i*c : (i+1)*c]
					best := 0
					for j, v := range row {
						if v > row[best] {
							best = j
						}
					}
					p[i] = int64(best)
				}
			default:
				panic(errorf(ErrArgument, op, "pred must be (N) int64 class ids or (N, C) floating scores, got %s of shape %v", pred.DType(), pred.Shape()))
			}
		})
	})
	if err != nil {
		return nil, nil, err
	}
	if len(p) != n {
		return nil, nil, errorf(ErrShape, op, "pred has %d rows (shape %v), labels %d", len(p), pred.Shape(), n)
	}
	for i := range y {
		if y[i] < 0 {
			return nil, nil, errorf(ErrArgument, op, "labels[%d] = %d is negative", i, y[i])
		}
		if p[i] < 0 {
			return nil, nil, errorf(ErrArgument, op, "pred[%d] = %d is negative", i, p[i])
		}
	}
	return p, y, nil
}

// confusion counts true positives, false positives and false negatives
// per class, and marks the classes that occur in y or p.
func confusion(p, y []int64) (tp, fp, fn []float64, present []bool) {
	k := int64(0)
	for i := range y {
		k = max(k, y[i]+1, p[i]+1)
	}
	tp, fp, fn, present = make([]float64, k), make([]float64, k), make([]float64, k), make([]bool, k)
	for i := range y {
		present[y[i]], present[p[i]] = true, true
		if p[i] == y[i] {
			tp[y[i]]++
		} else {
			fp[p[i]]++
			fn[y[i]]++
		}
	}
	return tp, fp, fn, present
}

// MacroF1 returns the macro-averaged F1 score of predictions pred against
// labels: the unweighted mean over classes of 2 TP / (2 TP + FP + FN),
// over the classes that occur in labels or in the predictions (a class
// predicted but never true scores 0), as sklearn.metrics.f1_score(y_true,
// y_pred, average="macro") with zero_division=0. pred is (N) int64 class
// ids or (N, C) floating scores (logits or probabilities; the class is
// the row's argmax), labels (N) int64; any device. The result is in
// [0, 1]. Errors wrap ErrArgument or ErrShape: a nil argument, a wrong
// dtype or rank, a negative class, pred and labels of different lengths.
func MacroF1(pred, labels *tensor.Tensor) (float64, error) {
	p, y, err := classPairs("MacroF1", pred, labels)
	if err != nil {
		return 0, err
	}
	tp, fp, fn, present := confusion(p, y)
	var sum float64
	classes := 0
	for c := range tp {
		if !present[c] {
			continue
		}
		classes++
		if d := 2*tp[c] + fp[c] + fn[c]; d > 0 {
			sum += 2 * tp[c] / d
		}
	}
	return sum / float64(classes), nil
}

// MicroF1 returns the micro-averaged F1 score, 2 TP / (2 TP + FP + FN)
// summed over classes, as sklearn.metrics.f1_score(average="micro"). For
// single-label classification every wrong prediction is one FP and one
// FN, so it equals the accuracy. Arguments and errors as MacroF1.
func MicroF1(pred, labels *tensor.Tensor) (float64, error) {
	p, y, err := classPairs("MicroF1", pred, labels)
	if err != nil {
		return 0, err
	}
	tp, fp, fn, _ := confusion(p, y)
	var t, f float64
	for c := range tp {
		t += tp[c]
		f += fp[c] + fn[c]
	}
	return 2 * t / (2*t + f), nil
}
