package datasets

import (
	"errors"
	"slices"
	"testing"
)

func TestRowNormalize(t *testing.T) {
	x := []float32{
		1, 0, 1, 2,
		0, 0, 0, 0,
		0, 0.5, 0, 0,
	}
	RowNormalize(x, 3, 4)
	want := []float32{
		0.25, 0, 0.25, 0.5,
		0, 0, 0, 0,
		0, 1, 0, 0,
	}
	if !slices.Equal(x, want) {
		t.Errorf("RowNormalize = %v, want %v", x, want)
	}
	RowNormalize(nil, 0, 5) // empty is fine
}

func TestRowNormalizePanics(t *testing.T) {
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, ErrShape) {
			t.Errorf("panic value %v, want an error wrapping ErrShape", r)
		}
	}()
	RowNormalize(make([]float32, 5), 2, 3)
}
