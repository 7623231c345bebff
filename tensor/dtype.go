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
	// Float16 is IEEE 754 binary16 (1 sign, 5 exponent, 10 mantissa bits),
	// stored as its bits in a uint16; torch.float16.
	Float16
	// BFloat16 is the upper half of a float32 (1 sign, 8 exponent, 7
	// mantissa bits), stored as its bits in a uint16; torch.bfloat16.
	BFloat16
	// Int8 holds quantised values (signed 8-bit); torch.int8.
	Int8
)

// Size returns the bytes one element takes.
func (d DType) Size() int {
	switch d {
	case Float32:
		return 4
	case Int64:
		return 8
	case Bool, Int8:
		return 1
	case Float16, BFloat16:
		return 2
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
	case Float16:
		return "float16"
	case BFloat16:
		return "bfloat16"
	case Int8:
		return "int8"
	}
	return "invalid"
}
