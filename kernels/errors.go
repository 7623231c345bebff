package kernels

import (
	"errors"
	"fmt"
)

// ErrNoCUDA is wrapped by the errors returned when the CUDA driver, a GPU or
// cuBLAS cannot be found or initialized on this machine.
var ErrNoCUDA = errors.New("kernels: CUDA not available")

// DriverError is a failed CUDA driver API call: Func is the entry point
// (e.g. "cuMemAlloc_v2"), Code the CUresult, Name and Desc the strings
// cuGetErrorName and cuGetErrorString give for it.
type DriverError struct {
	Func string
	Code int
	Name string
	Desc string
}

func (e *DriverError) Error() string {
	return fmt.Sprintf("kernels: %s: %s (%d): %s", e.Func, e.Name, e.Code, e.Desc)
}

// BLASError is a failed cuBLAS call: Func is the entry point, Code the
// cublasStatus_t, Name and Desc its name and description (from
// cublasGetStatusName and cublasGetStatusString where the library has them).
type BLASError struct {
	Func string
	Code int
	Name string
	Desc string
}

func (e *BLASError) Error() string {
	return fmt.Sprintf("kernels: %s: %s (%d): %s", e.Func, e.Name, e.Code, e.Desc)
}

// ArgError is the panic value for misuse of the package: a nil stream, a
// negative or overflowing size, an unsupported dtype or reduction. Op names
// the function, Msg what was wrong.
type ArgError struct {
	Op  string
	Msg string
}

func (e *ArgError) Error() string { return "kernels: " + e.Op + ": " + e.Msg }

func argPanic(op, format string, args ...any) {
	panic(&ArgError{Op: op, Msg: fmt.Sprintf(format, args...)})
}
