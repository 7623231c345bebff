package tensor

import (
	"os"
	"unsafe"

	"github.com/ebitengine/purego"
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
	cblasSgemm      func(order, ta, tb, m, n, k int32, alpha float32, a *float32, lda int32, b *float32, ldb int32, beta float32, c *float32, ldc int32)
	openblasVersion func() *byte
)

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
		return &Error{Op: "LoadOpenBLAS", Msg: "libopenblas.so.0 not found (install libopenblas0-pthread)"}
	}
	purego.RegisterLibFunc(&cblasSgemm, lib, "cblas_sgemm")
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
