package kernels

// DType is the storage type of a device buffer as the kernels and cuBLAS see
// it. Float16 and BFloat16 are 16-bit storage types (IEEE binary16 and
// bfloat16, bits in a uint16); arithmetic on them is done in float32.
type DType int

const (
	DTypeFloat32  DType = iota // 4 bytes; cudaDataType CUDA_R_32F
	DTypeFloat16               // 2 bytes, IEEE half; CUDA_R_16F
	DTypeBFloat16              // 2 bytes, bfloat16; CUDA_R_16BF
	DTypeInt32                 // 4 bytes; indices
	DTypeInt64                 // 8 bytes; indices, indptr
)

// Size returns the bytes one element takes.
func (t DType) Size() int {
	switch t {
	case DTypeFloat32, DTypeInt32:
		return 4
	case DTypeFloat16, DTypeBFloat16:
		return 2
	case DTypeInt64:
		return 8
	}
	return 0
}

func (t DType) String() string {
	switch t {
	case DTypeFloat32:
		return "float32"
	case DTypeFloat16:
		return "float16"
	case DTypeBFloat16:
		return "bfloat16"
	case DTypeInt32:
		return "int32"
	case DTypeInt64:
		return "int64"
	}
	return "invalid"
}

// suffix is the kernel-name suffix of a floating storage type.
func (t DType) suffix(op string) string {
	switch t {
	case DTypeFloat32:
		return "f32"
	case DTypeFloat16:
		return "f16"
	case DTypeBFloat16:
		return "bf16"
	}
	argPanic(op, "dtype %v, want float32, float16 or bfloat16", t)
	return ""
}

// indexSuffix is the kernel-name suffix of an index type.
func (t DType) indexSuffix(op string) string {
	switch t {
	case DTypeInt32:
		return "i32"
	case DTypeInt64:
		return "i64"
	}
	argPanic(op, "index dtype %v, want int32 or int64", t)
	return ""
}

// cudaDataType returns the cudaDataType_t value of t for cuBLAS.
func (t DType) cudaDataType(op string) uintptr {
	switch t {
	case DTypeFloat32:
		return 0
	case DTypeFloat16:
		return 2
	case DTypeBFloat16:
		return 14
	}
	argPanic(op, "dtype %v, want float32, float16 or bfloat16", t)
	return 0
}
