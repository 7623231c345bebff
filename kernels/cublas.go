package kernels

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// blasLib holds libcublas and its entry points, bound once.
var blasLib struct {
	once sync.Once
	err  error
	path string

	create, destroy, setStream, getVersion uintptr
	statusName, statusString               uintptr // 0 before cuBLAS 11.4
	gemmEx, gemmStridedBatchedEx           uintptr
}

// loadBLAS opens libcublasLt and libcublas (13, 12, then 11; or the file
// named by GNNREPL_LIBCUBLAS, with its libcublasLt beside it) and binds the
// entry points. libcublasLt is opened first with RTLD_GLOBAL so that
// libcublas finds it even when it sits outside the loader's path.
func loadBLAS() error {
	blasLib.once.Do(func() { blasLib.err = bindBLAS() })
	return blasLib.err
}

func bindBLAS() error {
	if err := loadDriver(); err != nil {
		return err
	}
	var lib uintptr
	var path string
	var err error
	if o := os.Getenv("GNNREPL_LIBCUBLAS"); o != "" {
		// Its libcublasLt beside it first, if there is one.
		lt := filepath.Join(filepath.Dir(o), strings.Replace(filepath.Base(o), "libcublas", "libcublasLt", 1))
		if _, e := os.Stat(lt); e == nil {
			purego.Dlopen(lt, rtldNow|rtldGlobal)
		}
		lib, path, err = dlopenFirst(o)
	} else {
		lib, path, err = openCuBLAS()
	}
	if err != nil {
		return err
	}
	blasLib.path = path
	for _, b := range []struct {
		dst  *uintptr
		name string
	}{
		{&blasLib.create, "cublasCreate_v2"},
		{&blasLib.destroy, "cublasDestroy_v2"},
		{&blasLib.setStream, "cublasSetStream_v2"},
		{&blasLib.getVersion, "cublasGetVersion_v2"},
		{&blasLib.gemmEx, "cublasGemmEx"},
		{&blasLib.gemmStridedBatchedEx, "cublasGemmStridedBatchedEx"},
	} {
		p, err := sym(lib, b.name)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		*b.dst = p
	}
	blasLib.statusName, _ = sym(lib, "cublasGetStatusName")
	blasLib.statusString, _ = sym(lib, "cublasGetStatusString")
	return nil
}

// openCuBLAS opens the newest libcublas.so.{13,12,11}: through the dynamic
// loader (which resolves its libcublasLt the same way), else from the first
// search directory holding it, after loading the libcublasLt of that same
// directory so that the two always come from one installation.
func openCuBLAS() (uintptr, string, error) {
	vers := []string{"13", "12", "11"}
	for _, v := range vers {
		if h, err := purego.Dlopen("libcublas.so."+v, rtldNow|rtldGlobal); err == nil {
			return h, "libcublas.so." + v, nil
		}
	}
	var errs []string
	for _, v := range vers {
		for _, d := range searchDirs() {
			p := filepath.Join(d, "libcublas.so."+v)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			lt := filepath.Join(d, "libcublasLt.so."+v)
			if _, err := os.Stat(lt); err == nil {
				if _, err := purego.Dlopen(lt, rtldNow|rtldGlobal); err != nil {
					errs = append(errs, err.Error())
					continue
				}
			}
			h, err := purego.Dlopen(p, rtldNow|rtldGlobal)
			if err == nil {
				return h, p, nil
			}
			errs = append(errs, err.Error())
		}
	}
	return 0, "", fmt.Errorf("%w: libcublas.so.13/.12/.11 not found in the loader path or in %s (%s); set GNNREPL_CUDA_LIB_PATH to the directory that holds it",
		ErrNoCUDA, strings.Join(searchDirs(), ":"), strings.Join(errs, "; "))
}

var blasStatusNames = map[int]string{
	1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
	7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH",
	11: "CUBLAS_STATUS_MAPPING_ERROR", 13: "CUBLAS_STATUS_EXECUTION_FAILED",
	14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED",
	16: "CUBLAS_STATUS_LICENSE_ERROR",
}

// checkBLAS turns a cublasStatus_t into nil or a *BLASError.
func checkBLAS(fn string, st int) error {
	if st == 0 {
		return nil
	}
	e := &BLASError{Func: fn, Code: st, Name: blasStatusNames[st]}
	if e.Name == "" {
		e.Name = "CUBLAS_STATUS_UNKNOWN"
	}
	if blasLib.statusName != 0 {
		e.Name = cString(blasLib.statusName, st)
		e.Desc = cString(blasLib.statusString, st)
	}
	return e
}

// cString calls a `const char* f(int)` function and copies the result.
func cString(fn uintptr, arg int) string {
	var p *byte
	r := callPtr(fn, uintptr(arg))
	p = *(**byte)(unsafe.Pointer(&r))
	return goString(p)
}

// BLASPath returns the cuBLAS library that was (or would be) loaded and its
// version (cublasGetVersion: major*10000 + minor*100 + patch, or
// major*1000 + minor*100 + patch before cuBLAS 12), or an error wrapping
// ErrNoCUDA when cuBLAS cannot be loaded.
func BLASPath() (path string, err error) {
	if err := loadBLAS(); err != nil {
		return "", err
	}
	return blasLib.path, nil
}

// ComputeType is cuBLAS's cublasComputeType_t: the precision of the
// products and of the accumulation.
type ComputeType int

const (
	// Compute32F accumulates in float32; with float16 or bfloat16 inputs
	// cuBLAS uses the tensor cores (the autocast matmul).
	Compute32F ComputeType = 68
	// Compute32FPedantic is float32 throughout, no reduced-precision shortcut.
	Compute32FPedantic ComputeType = 69
	// Compute32FFastTF32 lets float32 inputs be rounded to TF32 (10-bit
	// mantissa) on the tensor cores, accumulating in float32, as PyTorch's
	// torch.backends.cuda.matmul.allow_tf32.
	Compute32FFastTF32 ComputeType = 77
	// Compute32FFast16F lets float32 inputs be rounded to float16.
	Compute32FFast16F ComputeType = 74
	// Compute32FFast16BF lets float32 inputs be rounded to bfloat16.
	Compute32FFast16BF ComputeType = 75
)

const gemmDefault = ^uintptr(0) // CUBLAS_GEMM_DEFAULT = -1

// BLAS is a cuBLAS handle on one device. Its methods may be called from
// several goroutines: calls are serialized, each on the stream it is given.
type BLAS struct {
	mu  sync.Mutex
	dev *Device
	h   uintptr
}

// NewBLAS creates a cuBLAS handle (cublasCreate_v2) for d. Errors wrap
// ErrNoCUDA when libcublas (13, 12 or 11) cannot be found.
func NewBLAS(d *Device) (*BLAS, error) {
	if err := loadBLAS(); err != nil {
		return nil, err
	}
	unlock, err := d.bind()
	if err != nil {
		return nil, err
	}
	defer unlock()
	b := &BLAS{dev: d}
	if err := checkBLAS("cublasCreate_v2", call(blasLib.create, uintptr(unsafe.Pointer(&b.h)))); err != nil {
		return nil, err
	}
	return b, nil
}

// Version returns cublasGetVersion's number (e.g. 130000 for 13.0.0).
func (b *BLAS) Version() (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var v int32
	err := checkBLAS("cublasGetVersion_v2", call(blasLib.getVersion, b.h, uintptr(unsafe.Pointer(&v))))
	return int(v), err
}

// Destroy releases the handle (cublasDestroy_v2).
func (b *BLAS) Destroy() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.h == 0 {
		return nil
	}
	unlock, err := b.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	err = checkBLAS("cublasDestroy_v2", call(blasLib.destroy, b.h))
	b.h = 0
	return err
}

func op(trans bool) uintptr {
	if trans {
		return 1 // CUBLAS_OP_T
	}
	return 0 // CUBLAS_OP_N
}

func checkGemmDims(fn string, m, n, k, lda, ldb, ldc int) {
	const maxInt32 = 1<<31 - 1
	for _, v := range []int{m, n, k, lda, ldb, ldc} {
		if v < 0 || v > maxInt32 {
			argPanic(fn, "dimension %d out of range (m=%d n=%d k=%d lda=%d ldb=%d ldc=%d)", v, m, n, k, lda, ldb, ldc)
		}
	}
}

// GemmEx computes, in cuBLAS's column-major convention,
//
//	C = alpha * op(A) * op(B) + beta * C,  op(A) (m, k), op(B) (k, n), C (m, n),
//
// where op(X) is X or X^T as transA / transB say, on stream s
// (cublasGemmEx with CUBLAS_GEMM_DEFAULT). aType, bType and cType are the
// storage types and compute the product precision: float16 / bfloat16 inputs
// with Compute32F run on the tensor cores with float32 accumulation;
// float32 inputs with Compute32FFastTF32 use TF32 tensor cores. alpha and
// beta are float32 host values (all compute types here are float32).
//
// Row-major callers use the transpose identity C^T = op(B)^T op(A)^T: a
// row-major (r, c) matrix is a column-major (c, r) one, so pass B first
// (see MatMul, which does this).
func (b *BLAS) GemmEx(s *Stream, transA, transB bool, m, n, k int,
	alpha float32, a DevicePtr, aType DType, lda int,
	bm DevicePtr, bType DType, ldb int,
	beta float32, c DevicePtr, cType DType, ldc int, compute ComputeType) error {
	checkGemmDims("GemmEx", m, n, k, lda, ldb, ldc)
	at, bt, ct := aType.cudaDataType("GemmEx"), bType.cudaDataType("GemmEx"), cType.cudaDataType("GemmEx")
	b.mu.Lock()
	defer b.mu.Unlock()
	unlock, err := b.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	if err := checkBLAS("cublasSetStream_v2", call(blasLib.setStream, b.h, s.h)); err != nil {
		return err
	}
	al, be := new(float32), new(float32)
	*al, *be = alpha, beta
	return checkBLAS("cublasGemmEx", call(blasLib.gemmEx, b.h, op(transA), op(transB),
		uintptr(m), uintptr(n), uintptr(k), uintptr(unsafe.Pointer(al)),
		uintptr(a), at, uintptr(lda),
		uintptr(bm), bt, uintptr(ldb),
		uintptr(unsafe.Pointer(be)), uintptr(c), ct, uintptr(ldc),
		uintptr(compute), gemmDefault))
}

// GemmStridedBatchedEx computes batch independent column-major products
// C_i = alpha * op(A_i) * op(B_i) + beta * C_i with A_i at a + i*strideA
// elements (likewise B, C), on stream s (cublasGemmStridedBatchedEx). Types
// and precision as GemmEx.
func (b *BLAS) GemmStridedBatchedEx(s *Stream, transA, transB bool, m, n, k int,
	alpha float32, a DevicePtr, aType DType, lda int, strideA int64,
	bm DevicePtr, bType DType, ldb int, strideB int64,
	beta float32, c DevicePtr, cType DType, ldc int, strideC int64,
	batch int, compute ComputeType) error {
	checkGemmDims("GemmStridedBatchedEx", m, n, k, lda, ldb, ldc)
	if batch < 0 || batch > 1<<31-1 {
		argPanic("GemmStridedBatchedEx", "batch %d out of range", batch)
	}
	at, bt, ct := aType.cudaDataType("GemmStridedBatchedEx"), bType.cudaDataType("GemmStridedBatchedEx"), cType.cudaDataType("GemmStridedBatchedEx")
	b.mu.Lock()
	defer b.mu.Unlock()
	unlock, err := b.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	if err := checkBLAS("cublasSetStream_v2", call(blasLib.setStream, b.h, s.h)); err != nil {
		return err
	}
	al, be := new(float32), new(float32)
	*al, *be = alpha, beta
	return checkBLAS("cublasGemmStridedBatchedEx", call(blasLib.gemmStridedBatchedEx, b.h, op(transA), op(transB),
		uintptr(m), uintptr(n), uintptr(k), uintptr(unsafe.Pointer(al)),
		uintptr(a), at, uintptr(lda), uintptr(strideA),
		uintptr(bm), bt, uintptr(ldb), uintptr(strideB),
		uintptr(unsafe.Pointer(be)), uintptr(c), ct, uintptr(ldc), uintptr(strideC),
		uintptr(batch), uintptr(compute), gemmDefault))
}

// MatMul computes the row-major product
//
//	C = alpha * op(A) @ op(B) + beta * C,   op(A) (M, K), op(B) (K, N), C (M, N),
//
// with A stored (M, K) row-major, or (K, M) when transA; B stored (K, N), or
// (N, K) when transB; C (M, N); all contiguous. inType is the storage of A
// and B, outType of C. It calls GemmEx on the transposed problem
// C^T (N, M) = op(B)^T op(A)^T, which is what column-major cuBLAS sees when
// handed row-major buffers, so no data moves.
func (b *BLAS) MatMul(s *Stream, transA, transB bool, m, n, k int,
	alpha float32, a, bm DevicePtr, inType DType, beta float32, c DevicePtr, outType DType, compute ComputeType) error {
	lda := k // A (M, K) row-major
	if transA {
		lda = m // A stored (K, M)
	}
	ldb := n // B (K, N) row-major
	if transB {
		ldb = k // B stored (N, K)
	}
	return b.GemmEx(s, transB, transA, n, m, k, alpha, bm, inType, ldb, a, inType, lda, beta, c, outType, n, compute)
}

// BatchedMatMul is MatMul over batch row-major problems with A_i, B_i, C_i
// at a, bm, c plus i times (M*K), (K*N), (M*N) elements respectively
// (shapes (batch, M, K) @ (batch, K, N) -> (batch, M, N)).
func (b *BLAS) BatchedMatMul(s *Stream, transA, transB bool, batch, m, n, k int,
	alpha float32, a, bm DevicePtr, inType DType, beta float32, c DevicePtr, outType DType, compute ComputeType) error {
	lda := k
	if transA {
		lda = m
	}
	ldb := n
	if transB {
		ldb = k
	}
	return b.GemmStridedBatchedEx(s, transB, transA, n, m, k, alpha,
		bm, inType, ldb, int64(k)*int64(n),
		a, inType, lda, int64(m)*int64(k),
		beta, c, outType, n, int64(m)*int64(n), batch, compute)
}
