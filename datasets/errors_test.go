package datasets

import (
	"errors"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// datasets' argument and shape errors are kinds of the engine's sentinels,
// with their messages unchanged.
func TestErrorsAreTheEngines(t *testing.T) {
	_, _, _, err := RandomSplitIdx([]int64{0, 1}, -1, 0, 0, 1)
	if !errors.Is(err, ErrArgument) || !errors.Is(err, tensor.ErrArgument) || errors.Is(err, tensor.ErrShape) ||
		!strings.HasPrefix(err.Error(), "datasets: invalid argument: ") {
		t.Errorf("negative split size: %v, want datasets.ErrArgument and tensor.ErrArgument", err)
	}
	err = tensor.Catch(func() { RowNormalize(make([]float32, 5), 2, 3) })
	if !errors.Is(err, ErrShape) || !errors.Is(err, tensor.ErrShape) || !strings.Contains(err.Error(), "RowNormalize") {
		t.Errorf("RowNormalize misuse through tensor.Catch: %v, want datasets.ErrShape and tensor.ErrShape", err)
	}
}
