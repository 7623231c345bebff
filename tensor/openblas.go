package tensor

import (
	"os"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/gnnrepl/gnnrepl/internal/workers"
)

// OpenBLAS is opened at run time with purego (no cgo): when the machine has
// libopenblas, dense products use its cblas_sgemm; otherwise gonum's pure-Go
// BLAS. GNNREPL_BLAS=gonum forces gonum. Results agree to float32 rounding
// (tested).

var openblasCandidates = []string{
	"libopenblas.so.0",
	"/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
	"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
	"/usr/lib/aarch64-linux-gnu/libopenblas.so.0",
	"/usr/lib64/libopenblas.so.0",
	"/usr/local/lib/libopenblas.so.0",
	"/opt/homebrew/opt/openblas/lib/libopenblas.dylib",
}

var (
	cblasSgemm            func(order, ta, tb, m, n, k int32, alpha float32, a *float32, lda int32, b *float32, ldb int32, beta float32, c *float32, ldc int32)
	openblasVersion       func() *byte
	openblasSetNumThreads func(n int32)
)

// gemmSplitFlops is the size (m*n*k) from which openblasGemm splits a
// product over goroutines; below it one single-threaded call is faster.
const gemmSplitFlops = 1 << 18

const (
	cblasRowMajor = 101
	cblasNoTrans  = 111
	cblasTrans    = 112
)

// LoadOpenBLAS opens OpenBLAS and makes it the GEMM behind MatMul. It
// returns an error naming the places it looked when no library is found.
// gnnrepl calls it at start-up unless GNNREPL_BLAS=gonum.
func LoadOpenBLAS() error {
	var lib uintptr
	var err error
	for _, p := range openblasCandidates {
		lib, err = purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			break
		}
	}
	if lib == 0 {
		return &Error{Pkg: "tensor", Op: "LoadOpenBLAS", Msg: "libopenblas.so.0 not found (install libopenblas0-pthread)"}
	}
	purego.RegisterLibFunc(&cblasSgemm, lib, "cblas_sgemm")
	// OpenBLAS's own threads spin in sched_yield between calls and fight
	// the Go scheduler's workers for the cores (on 2 cores a GraphSAGE
	// step spent 25% of its time in the kernel); gnnrepl runs OpenBLAS
	// single-threaded and splits large products over goroutines instead.
	if sym, err := purego.Dlsym(lib, "openblas_set_num_threads"); err == nil && sym != 0 {
		purego.RegisterFunc(&openblasSetNumThreads, sym)
		openblasSetNumThreads(1)
	}
	name := "OpenBLAS"
	if sym, err := purego.Dlsym(lib, "openblas_get_config"); err == nil && sym != 0 {
		purego.RegisterFunc(&openblasVersion, sym)
		name = "OpenBLAS (" + goString(openblasVersion()) + ")"
	}
	SetBLAS(name, openblasGemm)
	return nil
}

func goString(p *byte) string {
	if p == nil {
		return ""
	}
	var b []byte
	for q := unsafe.Pointer(p); *(*byte)(q) != 0; q = unsafe.Add(q, 1) {
		b = append(b, *(*byte)(q))
	}
	return string(b)
}

func openblasGemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || len(a) == 0 || len(b) == 0 {
		gonumGemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if p := runtime.GOMAXPROCS(0); p > 1 && openblasSetNumThreads != nil && int64(m)*int64(n)*int64(k) >= gemmSplitFlops {
		splitGemm(p, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	cblasGemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// splitGemm computes the product as up to p single-threaded GEMMs on
// goroutines, each writing its own band of C: bands of rows when C has at
// least as many rows as columns, else bands of columns.
func splitGemm(p int, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m >= n {
		workers.For(m, max(1, (m+p-1)/p), func(lo, hi int) {
			offA := lo * lda // row lo of op(A) = A
			if tA {
				offA = lo // column lo of the stored A
			}
			cblasGemm(tA, tB, hi-lo, n, k, alpha, a[offA:], lda, b, ldb, beta, c[lo*ldc:], ldc)
		})
		return
	}
	workers.For(n, max(1, (n+p-1)/p), func(lo, hi int) {
		offB := lo // column lo of op(B) = B
		if tB {
			offB = lo * ldb // row lo of the stored B
		}
		cblasGemm(tA, tB, m, hi-lo, k, alpha, a, lda, b[offB:], ldb, beta, c[lo:], ldc)
	})
}

// cblasGemm is one cblas_sgemm call (k > 0, operands non-empty).
func cblasGemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := int32(cblasNoTrans), int32(cblasNoTrans)
	if tA {
		ta = cblasTrans
	}
	if tB {
		tb = cblasTrans
	}
	cblasSgemm(cblasRowMajor, ta, tb, int32(m), int32(n), int32(k), alpha, &a[0], int32(lda), &b[0], int32(ldb), beta, &c[0], int32(ldc))
}

func init() {
	if os.Getenv("GNNREPL_BLAS") != "gonum" {
		_ = LoadOpenBLAS()
	}
}
