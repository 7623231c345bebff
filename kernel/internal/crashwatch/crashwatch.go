// Package crashwatch is the Jupyter kernel's crash watcher: a small child
// process that writes a fatal runtime error's whole report, its first line
// included, into the server's log.
//
// The kernel redirects descriptor 2 into a pipe read by one of its own
// goroutines (kernel/capture_linux.go). A fatal runtime error (stack
// overflow, concurrent map writes, out of memory) writes its first lines
// ("runtime: goroutine stack exceeds ...", "fatal error: stack overflow")
// to descriptor 2 only, then freezes every goroutine, the pipe's reader
// included, and writes the rest (the stacks) both to descriptor 2 and to
// the file of debug.SetCrashOutput (runtime.writeErrData copies once the
// thread is dying). The first lines stay in the pipe and die with the
// process.
//
// The watcher is the pattern of debug.SetCrashOutput's "monitor" example:
// the kernel's crash output is the write end of a pipe ("crash pipe") only
// the kernel holds (close-on-exec, so processes the kernel starts do not
// inherit it); the watcher blocks reading its read end. End of file
// without data means the kernel ended without a report; data means a
// crash: the watcher then takes what is left in the descriptor 2 pipe (it
// holds a second descriptor of the pipe's read end, never its write end)
// and writes to its own stderr, the server's log, that remainder up to
// where the report's copy begins, then the report as it arrives, so the log
// reads as a terminal would have shown it. It exits at the crash pipe's end
// of file, when the kernel has exited, after one last non-blocking read of
// the descriptor 2 pipe: it never waits for a process that inherited
// descriptor 2. It ignores SIGINT, SIGTERM, SIGHUP and SIGQUIT, which reach
// the whole process group from a terminal; SIGKILL of the group ends it.
//
// The watcher is the program's own executable started with the single
// argument Arg: the init function below runs it and exits before any other
// package's init of note (this package imports only the standard library,
// and Go initializes packages in import-path order as soon as their imports
// are). It has descriptors 0 and 1 on /dev/null, 2 on the log, WatchFD the
// crash pipe and StderrFD the descriptor 2 pipe, and closes any other.
package crashwatch

// Arg, as the only argument, makes the program the crash watcher.
const Arg = "__gnnrepl-crash-watcher__"

// The watcher's descriptors besides 0, 1 and 2.
const (
	WatchFD  = 3 // the crash pipe's read end (blocking)
	StderrFD = 4 // the kernel's descriptor 2 pipe's read end
)

// maxRemainder bounds what is read from the descriptor 2 pipe (a pipe holds
// 64 KiB unless enlarged).
const maxRemainder = 4 << 20
