package tensor

// DType is the element type of a tensor.
type DType int

const (
	// Float32 holds features, weights, activations and gradients.
	Float32 DType = iota
	// Int64 holds node ids, edge ids and class labels.
	Int64
	// Bool holds masks (train_mask, val_mask, test_mask).
	Bool
)

// Size returns the bytes one element takes.
func (d DType) Size() int {
	switch d {
	case Float32:
		return 4
	case Int64:
		return 8
	case Bool:
		return 1
	}
	return 0
}

func (d DType) String() string {
	switch d {
	case Float32:
		return "float32"
	case Int64:
		return "int64"
	case Bool:
		return "bool"
	}
	return "invalid"
}
