// Package memrelease makes the Go runtime hand freed memory back to Linux
// lazily (MADV_FREE) instead of at once (MADV_DONTNEED), for the gnnrepl
// binaries.
//
// A training loop allocates and frees large tensor buffers at a high rate
// (a Cora GraphSAGE run: 1.5 GB allocated per second against a 40 MB live
// heap). Between collections the runtime's background scavenger returns
// the freed pages to the kernel with MADV_DONTNEED, and the next batch's
// buffers take a page fault for every 4 KiB they touch again: about 20,000
// faults per second of training on the benchmark machine, 3–10% of the
// step time, and more in an interpreted loop, whose frame keeps the previous
// batch reachable a little longer. With MADV_FREE the pages stay mapped
// until the kernel actually needs the memory, so reusing them costs
// nothing; the resident set then also counts freed pages the kernel has not
// yet taken back.
//
// The runtime reads this setting (GODEBUG=madvdontneed=0) only at start-up,
// and it cannot be set with a //go:debug directive, so Setup re-executes the
// program with it, then gives GODEBUG back the user's value (so that user
// code and child processes see what the user set). GODEBUG naming
// madvdontneed explicitly is left alone, and GNNREPL_MADVISE=keep skips the
// re-execution.
package memrelease

import (
	"os"
	"runtime"
	"strings"
	"syscall"
)

// Env is the variable that, set to "keep", leaves the runtime's default.
const Env = "GNNREPL_MADVISE"

// userEnv carries the user's GODEBUG (possibly empty) across the
// re-execution; its presence marks the re-executed process.
const userEnv = "GNNREPL_GODEBUG_USER"

// lazy is set in the re-executed process.
var lazy bool

// Setup re-executes the running program (same arguments, environment and
// process ID) with madvdontneed=0 added to GODEBUG, on Linux, unless
// GODEBUG already sets madvdontneed or Env is "keep". It must be called at
// the start of main, before any goroutine or file is started, or, earlier
// and cheaper, from an init function by importing package early; a second
// call does nothing. It returns
// only when it did not re-execute (or the exec failed: the program then
// simply runs with the runtime's default).
func Setup() {
	if lazy {
		return // called again in the re-executed process
	}
	if user, ok := os.LookupEnv(userEnv); ok {
		lazy = true
		os.Unsetenv(userEnv)
		if user == "" {
			os.Unsetenv("GODEBUG")
		} else {
			os.Setenv("GODEBUG", user)
		}
		return
	}
	if runtime.GOOS != "linux" || os.Getenv(Env) == "keep" {
		return
	}
	gd := os.Getenv("GODEBUG")
	if strings.Contains(gd, "madvdontneed=") {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	var env []string // the first GODEBUG entry is the one read: replace it
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	sep := ""
	if gd != "" {
		sep = ","
	}
	env = append(env, userEnv+"="+gd, "GODEBUG="+gd+sep+"madvdontneed=0")
	_ = syscall.Exec(exe, os.Args, env)
}

// Mode describes how this process returns freed memory to the kernel, for
// gnnrepl doctor.
func Mode() string {
	if runtime.GOOS != "linux" {
		return "runtime default (" + runtime.GOOS + ")"
	}
	gd := os.Getenv("GODEBUG")
	switch {
	case lazy:
		return "lazy (MADV_FREE: GODEBUG=madvdontneed=0 set at start)"
	case strings.Contains(gd, "madvdontneed=0"):
		return "lazy (MADV_FREE: GODEBUG=madvdontneed=0)"
	case strings.Contains(gd, "madvdontneed="):
		return "immediate (MADV_DONTNEED, set by GODEBUG)"
	}
	if os.Getenv(Env) == "keep" {
		return "immediate (MADV_DONTNEED: " + Env + "=keep)"
	}
	return "immediate (MADV_DONTNEED: the runtime default; this program did not call Setup)"
}
