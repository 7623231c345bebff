// Package dynlib opens shared libraries at run time with
// github.com/ebitengine/purego, so that the default gnnrepl binary needs no
// cgo: the CUDA driver and cuBLAS (package kernels), MPI and METIS (package
// dist) are found and opened with the same search and calling rules.
//
// Open tries each library name through the dynamic loader first
// (LD_LIBRARY_PATH, the ldconfig cache), then in a list of directories
// (Dirs: an environment variable's colon-separated list first, then glob
// patterns, newest match first). Sym finds the first exported name of a
// list; Call and CallPtr call a C function with integer and pointer
// arguments.
package dynlib

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Flags of dlopen: every library is opened RTLD_NOW | RTLD_GLOBAL, so that
// the plugins a library loads itself (Open MPI's MCA components) see its
// symbols.
const (
	rtldNow    = 0x2
	rtldGlobal = 0x100
)

// Dirs returns the directories to search: the colon-separated directories
// in the environment variable env (when env is not empty), then patterns,
// each expanded with filepath.Glob (newest-named match first, so
// /usr/local/cuda-13.0 comes before cuda-12.4). Duplicates are dropped.
func Dirs(env string, patterns []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	if env != "" {
		for _, d := range strings.Split(os.Getenv(env), ":") {
			add(d)
		}
	}
	for _, pat := range patterns {
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

// Open opens the first of names that loads: each name through the dynamic
// loader, then in each of dirs in turn. An override (an absolute path or a
// soname) is tried alone. It returns the handle and the path (or soname)
// that loaded, or an error listing what was tried.
func Open(override string, dirs []string, names ...string) (uintptr, string, error) {
	if override != "" {
		h, err := purego.Dlopen(override, rtldNow|rtldGlobal)
		if err != nil {
			return 0, "", fmt.Errorf("dlopen %s: %v", override, err)
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
	for _, d := range dirs {
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
	where := "no other directory"
	if len(dirs) > 0 {
		where = strings.Join(dirs, ":")
	}
	return 0, "", fmt.Errorf("none of %s found in the loader path (LD_LIBRARY_PATH, the ldconfig cache) or in %s (%s)",
		strings.Join(names, ", "), where, strings.Join(errs, "; "))
}

// Sym returns the address of the first of names that the library exports
// (the newest versioned name first: "cuMemAlloc_v2", then "cuMemAlloc").
func Sym(lib uintptr, names ...string) (uintptr, error) {
	for _, n := range names {
		if p, err := purego.Dlsym(lib, n); err == nil && p != 0 {
			return p, nil
		}
	}
	return 0, fmt.Errorf("symbol %s not exported", strings.Join(names, " / "))
}

// Call invokes the C function at fn with integer and pointer arguments and
// returns its int-sized result (an error code). Pointers to Go memory may be
// passed converted to uintptr in the argument list: the directive below
// keeps them alive and in place for the call.
//
//go:uintptrescapes
func Call(fn uintptr, args ...uintptr) int {
	r, _, _ := purego.SyscallN(fn, args...)
	return int(int32(uint32(r)))
}

// CallPtr is Call for C functions that return a pointer-sized value.
//
//go:uintptrescapes
func CallPtr(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// GoString copies the NUL-terminated C string at p.
func GoString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
