// Package repl is the interactive Go session gnnrepl's front ends share: one
// yaegi interpreter (github.com/traefik/yaegi v0.16.1) preloaded with the
// builtins, evaluating cells with a cancellable context, plus completion,
// inspection and is-complete for editors, and the terminal shell
// (github.com/chzyer/readline) on top of it. The Jupyter kernel drives the
// same Session.
//
// A cell may mix imports, declarations and statements on any lines, as in
// a notebook; the value of its final expression statement is shown
// (Result.Text). Everything a cell declares persists into the next one.
//
//	s, err := repl.New(repl.DefaultOptions())
//	res, err := s.Eval(ctx, "x := 20\nfunc add(a, b int) int { return a + b }\nadd(x, 22)")
//	// res.Text == "42"
//
// Interrupts: cancelling Eval's context stops the interpreted code at its
// next step and, through package runctx, engine loops at their next batch;
// Eval returns only once the code has stopped (or after
// Options.InterruptGrace, reporting InterruptedError.StillRunning), so the
// session is never changed behind the prompt, and every variable keeps its
// value.
//
// Goroutines: an interrupt of a cell, and Session.Interrupt (which the
// shell calls on Ctrl-C and the kernel on interrupt_request, also while no
// cell runs), stop every interpreted goroutine any cell started at its next
// step; one blocked on a channel operation or a select wakes up and stops,
// running its deferred calls; one inside a compiled call stops when the
// call returns (a compiled call that should stop too takes
// runctx.Session's context, cancelled on every interrupt). A panic in a
// goroutine a cell started is recovered by the session: while a cell runs
// it stops that cell (and every interpreted goroutine, as the panic would
// end a Go program), which fails with a *PanicError whose Goroutine field
// is the go statement's position and whose Stack is the goroutine's; after
// the cells have finished it is noted on Options.Stderr and is the error
// of the next cell, which does not run (PanicError.After).
//
// Output: interpreted fmt.Print* and log output go to Options.Stdout and
// Options.Stderr, and the display package's output (display.HTML, Show,
// progress bars) to Options.Display, a front end's publisher, or as text
// to the same streams when it is nil; every session has its own, as yaegi
// gives each interpreter its own streams. Result.MIMEBundle is a value as
// a notebook shows it, and PreludeNotices what the prelude wrote on
// stderr. Compiled code writing to os.Stdout or os.Stderr directly
// bypasses them; CaptureFDs redirects the process's descriptors 1 and 2
// for the duration of an evaluation.
//
// Limits of yaegi v0.16.1 the session works around or reports: a range
// over an integer or a function whose type the session cannot tell panics
// inside the compiler (recovered, reported with a hint; gosem.go rewrites
// the others); the generic packages slices, maps, cmp and iter are
// interpreted Go source (gosrc.go); a type or method cannot be redefined (an identical redeclaration is
// ignored, a changed one rejected; :reset starts over); only one program
// runs at a time, and goroutines a cell leaves running may race with the
// next cell's start. Memory: yaegi keeps every cell's compiled code; the
// session drops what nothing reads (reclaim.go: the program roots kept for
// yaegi's debugger, the package scope's list of block scopes, temporaries'
// frame slots), so the live heap grows by about 0.5 KB per small cell
// (TestHeapPerCell), the cell's frame slots and source positions; a
// function literal made at top level keeps a copy of the session's frame.
//
// Error policy: Eval returns typed errors (*CompileError with the position,
// *PanicError with the panic value and the interpreted stack,
// *InterruptedError, ErrBusy) and recovers every panic raised while
// compiling or running a cell, including the interpreter's own and those in
// goroutines cells start (above); panics in goroutines started by compiled
// code cannot be recovered. New and the shell return wrapped errors for
// configuration and I/O failures.
package repl
