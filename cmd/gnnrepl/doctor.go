package main

import (
	"bytes"
	"fmt"
	"github.com/gnnrepl/gnnrepl/internal/memrelease"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/gnnrepl/gnnrepl/builtins"
	"github.com/gnnrepl/gnnrepl/kernels"
)

// doctor prints what gnnrepl finds on this machine.
func doctor(w io.Writer, dataFlag string) {
	setupEngine()
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "gnnrepl\t%s\n", version())
	fmt.Fprintf(tw, "Go runtime\t%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(tw, "CPUs\t%d (GOMAXPROCS %d)\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(tw, "CPU BLAS\t%s\n", builtins.BLAS())
	fmt.Fprintf(tw, "Freed memory\t%s\n", memrelease.Mode())
	if paths := findLibrary("libcuda.so.1"); len(paths) > 0 {
		fmt.Fprintf(tw, "CUDA driver\tlibcuda.so.1 found: %s\n", strings.Join(paths, ", "))
	} else {
		fmt.Fprintf(tw, "CUDA driver\tlibcuda.so.1 not found (CPU only)\n")
	}
	for _, lib := range []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"} {
		if paths := findLibrary(lib); len(paths) > 0 {
			fmt.Fprintf(tw, "cuBLAS\t%s found: %s\n", lib, strings.Join(paths, ", "))
			break
		}
	}
	if ok, why := kernels.Available(); ok {
		fmt.Fprintf(tw, "GPUs\t%s\n", why)
	} else {
		fmt.Fprintf(tw, "GPUs\tnone usable: %s\n", why)
	}
	dir, source := dataDir(dataFlag)
	fmt.Fprintf(tw, "data directory\t%s (%s)\n", dir, source)
	fmt.Fprintf(tw, "datasets\t%s\n", datasetsIn(dir))
	tw.Flush()
}

// dataDir resolves the data directory: the --data flag, GNNREPL_DATA, or
// os.UserCacheDir()/gnnrepl/data, and says which one it used.
func dataDir(flagValue string) (dir, source string) {
	if flagValue != "" {
		return flagValue, "--data"
	}
	if v := os.Getenv("GNNREPL_DATA"); v != "" {
		return v, "GNNREPL_DATA"
	}
	if c, err := os.UserCacheDir(); err == nil && c != "" {
		return filepath.Join(c, "gnnrepl", "data"), "default: user cache directory"
	}
	return filepath.Join(os.TempDir(), "gnnrepl", "data"), "default: no user cache directory"
}

// datasetsIn lists the dataset folders under dir with their sizes.
func datasetsIn(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return "none (the directory does not exist; loaders download into it when the network allows)"
		}
		return "unreadable: " + err.Error()
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		files, size := 0, int64(0)
		filepath.WalkDir(filepath.Join(dir, e.Name()), func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					files++
					size += fi.Size()
				}
			}
			return nil
		})
		if files > 0 {
			out = append(out, fmt.Sprintf("%s (%d files, %s)", e.Name(), files, humanBytes(size)))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// libraryDirs lists where the dynamic loader looks, in its order:
// LD_LIBRARY_PATH, the directories of /etc/ld.so.conf (and its includes),
// then the usual system, CUDA and NVIDIA container directories.
func libraryDirs() []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("LD_LIBRARY_PATH")) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	dirs = append(dirs, ldConfDirs("/etc/ld.so.conf", 0)...)
	dirs = append(dirs,
		"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
		"/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
		"/usr/lib64", "/lib64", "/usr/lib", "/lib",
		"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/wsl/lib")
	cudas, _ := filepath.Glob("/usr/local/cuda*")
	sort.Strings(cudas)
	for _, c := range cudas {
		dirs = append(dirs, filepath.Join(c, "lib64"), filepath.Join(c, "compat"), filepath.Join(c, "targets", "x86_64-linux", "lib"))
	}
	return dirs
}

// ldConfDirs reads an ld.so.conf file: directory lines and include globs.
func ldConfDirs(file string, depth int) []string {
	b, err := os.ReadFile(file)
	if err != nil || depth > 4 {
		return nil
	}
	var dirs []string
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "include "):
			pat := strings.TrimSpace(strings.TrimPrefix(line, "include "))
			if !filepath.IsAbs(pat) {
				pat = filepath.Join(filepath.Dir(file), pat)
			}
			matches, _ := filepath.Glob(pat)
			sort.Strings(matches)
			for _, m := range matches {
				dirs = append(dirs, ldConfDirs(m, depth+1)...)
			}
		default:
			dirs = append(dirs, line)
		}
	}
	return dirs
}

// ldCachePaths returns the paths /etc/ld.so.cache records for lib: the
// cache's string table holds each library's full path, NUL-terminated.
func ldCachePaths(cache []byte, lib string) []string {
	var out []string
	for _, s := range bytes.Split(cache, []byte{0}) {
		if len(s) > 0 && s[0] == '/' && filepath.Base(string(s)) == lib {
			out = append(out, string(s))
		}
	}
	return out
}

// findLibrary returns the distinct files named lib the dynamic loader
// could open, looking through ld.so.cache and libraryDirs.
func findLibrary(lib string) []string {
	var found []string
	seen := map[string]bool{}
	add := func(p string) {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return
		}
		key := p
		if r, err := filepath.EvalSymlinks(p); err == nil {
			key = r
		}
		if !seen[key] {
			seen[key] = true
			found = append(found, p)
		}
	}
	if cache, err := os.ReadFile("/etc/ld.so.cache"); err == nil {
		for _, p := range ldCachePaths(cache, lib) {
			add(p)
		}
	}
	for _, d := range libraryDirs() {
		add(filepath.Join(d, lib))
	}
	return found
}
