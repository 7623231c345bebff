package kernels

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
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

// searchDirs expands libDirs, plus the colon-separated directories in the
// environment variable GNNREPL_CUDA_LIB_PATH (searched first).
func searchDirs() []string {
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, d := range strings.Split(os.Getenv("GNNREPL_CUDA_LIB_PATH"), ":") {
		add(d)
	}
	for _, pat := range libDirs {
		if !strings.ContainsAny(pat, "*?[") {
			add(pat)
			continue
		}
		m, _ := filepath.Glob(pat)
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		for _, d := range m {
			add(d)
		}
	}
	return out
}

const (
	rtldNow    = 0x2
	rtldGlobal = 0x100
)

// dlopenFirst opens the first of names that loads: each name through the
// dynamic loader (LD_LIBRARY_PATH, the ldconfig cache), then in each of the
// search directories. An absolute path in override is tried alone. It
// returns the handle and the path (or soname) that loaded, or an error
// listing what was tried.
func dlopenFirst(override string, names ...string) (uintptr, string, error) {
	if override != "" {
		h, err := purego.Dlopen(override, rtldNow|rtldGlobal)
		if err != nil {
			return 0, "", fmt.Errorf("%w: dlopen %s: %v", ErrNoCUDA, override, err)
		}
		return h, override, nil
	}
	var errs []string
	for _, n := range names {
		h, err := purego.Dlopen(n, rtldNow|rtldGlobal)
		if err == nil {
			return h, n, nil
		}
		errs = append(errs, err.Error())
	}
	for _, d := range searchDirs() {
		for _, n := range names {
			p := filepath.Join(d, n)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			h, err := purego.Dlopen(p, rtldNow|rtldGlobal)
			if err == nil {
				return h, p, nil
			}
			errs = append(errs, err.Error())
		}
	}
	return 0, "", fmt.Errorf("%w: none of %s found in the loader path or %d CUDA directories (%s)",
		ErrNoCUDA, strings.Join(names, ", "), len(searchDirs()), strings.Join(errs, "; "))
}

// sym returns the address of the first of names that the library exports
// (the newest versioned name first: "cuMemAlloc_v2", then "cuMemAlloc").
func sym(lib uintptr, names ...string) (uintptr, error) {
	for _, n := range names {
		if p, err := purego.Dlsym(lib, n); err == nil && p != 0 {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: symbol %s not exported", ErrNoCUDA, strings.Join(names, " / "))
}

// call invokes the C function at fn with integer and pointer arguments and
// returns its int-sized result (a CUresult or cublasStatus_t). Pointers to
// Go memory may be passed converted to uintptr in the argument list: the
// directive below keeps them alive and in place for the call.
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) int {
	r, _, _ := purego.SyscallN(fn, args...)
	return int(int32(uint32(r)))
}

// goString copies the NUL-terminated C string at p.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// callPtr is call for C functions that return a pointer-sized value.
//
//go:uintptrescapes
func callPtr(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}
