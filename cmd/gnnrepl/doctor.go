package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/gnnrepl/gnnrepl/dist"
	"github.com/gnnrepl/gnnrepl/internal/memrelease"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// doctor prints what gnnrepl finds on this machine.
func doctor(w io.Writer, dataFlag string) {
	setupEngine()
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "gnnrepl\t%s\n", version())
	fmt.Fprintf(tw, "Go runtime\t%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(tw, "CPUs\t%d (GOMAXPROCS %d)\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(tw, "Freed memory\t%s\n", memrelease.Mode())
	// The engine's backends say what they found: the CUDA backend opens the
	// driver and cuBLAS with the same loader (and GNNREPL_CUDA_LIB_PATH) it
	// trains with, so doctor cannot disagree with it.
	for _, b := range tensor.Backends() {
		state := "available"
		if !b.OK {
			state = "not usable"
		}
		fmt.Fprintf(tw, "backend %s\t%s: %s\n", b.Kind, state, b.Detail)
	}
	// Package dist says what it finds of MPI and METIS with the loader it
	// runs with (GNNREPL_MPI_LIB, GNNREPL_METIS_LIB and their search paths).
	for _, l := range dist.Libraries() {
		state := "available"
		if !l.OK {
			state = "not found"
		}
		fmt.Fprintf(tw, "%s\t%s: %s\n", l.Name, state, l.Detail)
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
