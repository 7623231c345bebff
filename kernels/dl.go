package kernels

import (
	"fmt"

	"github.com/gnnrepl/gnnrepl/internal/dynlib"
)

// libDirs are the directories searched, after the dynamic loader's own path,
// for the CUDA driver and cuBLAS. Patterns are expanded with filepath.Glob,
// newest CUDA install first.
var libDirs = []string{
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/usr/local/nvidia/lib64",
	"/usr/local/nvidia/lib",
	"/usr/local/cuda/lib64",
	"/usr/local/cuda/targets/x86_64-linux/lib",
	"/usr/local/cuda-*/lib64",
	"/usr/local/cuda-*/targets/x86_64-linux/lib",
	"/usr/lib64",
	"/usr/lib/wsl/lib",
	"/opt/*/.venv/lib/python3*/site-packages/nvidia/cu*/lib",
	"/usr/local/lib/python3*/dist-packages/nvidia/cu*/lib",
}

// dlopen flags (openCuBLAS opens libcublasLt beside libcublas itself).
const (
	rtldNow    = 0x2
	rtldGlobal = 0x100
)

// searchDirs expands libDirs, plus the colon-separated directories in the
// environment variable GNNREPL_CUDA_LIB_PATH (searched first).
func searchDirs() []string { return dynlib.Dirs("GNNREPL_CUDA_LIB_PATH", libDirs) }

// dlopenFirst opens the first of names that loads: each name through the
// dynamic loader (LD_LIBRARY_PATH, the ldconfig cache), then in each of the
// search directories. An absolute path in override is tried alone. It
// returns the handle and the path (or soname) that loaded, or an error
// wrapping ErrNoCUDA listing what was tried.
func dlopenFirst(override string, names ...string) (uintptr, string, error) {
	h, p, err := dynlib.Open(override, searchDirs(), names...)
	if err != nil {
		return 0, "", fmt.Errorf("%w: %v; set GNNREPL_CUDA_LIB_PATH to the directory that holds it", ErrNoCUDA, err)
	}
	return h, p, nil
}

// sym returns the address of the first of names that the library exports
// (the newest versioned name first: "cuMemAlloc_v2", then "cuMemAlloc").
func sym(lib uintptr, names ...string) (uintptr, error) {
	p, err := dynlib.Sym(lib, names...)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNoCUDA, err)
	}
	return p, nil
}

// call invokes the C function at fn with integer and pointer arguments and
// returns its int-sized result (a CUresult or cublasStatus_t). Pointers to
// Go memory may be passed converted to uintptr in the argument list: the
// directive below keeps them alive and in place for the call.
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) int { return dynlib.Call(fn, args...) }

// goString copies the NUL-terminated C string at p.
func goString(p *byte) string { return dynlib.GoString(p) }

// callPtr is call for C functions that return a pointer-sized value.
//
//go:uintptrescapes
func callPtr(fn uintptr, args ...uintptr) uintptr { return dynlib.CallPtr(fn, args...) }
