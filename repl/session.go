package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"log"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnnrepl/gnnrepl/builtins"
	"github.com/gnnrepl/gnnrepl/builtins/display"
	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/traefik/yaegi/interp"
)

// Options configure a Session. The zero value is a session with no symbols
// (not even the standard library), no prelude and the process's standard
// streams; DefaultOptions returns the gnnrepl configuration.
type Options struct {
	// Stdout, Stderr and Stdin are the interpreted program's fmt.Print*,
	// log output and fmt.Scan* streams (nil: the process's). Compiled code
	// that writes to os.Stdout directly bypasses them; see CaptureFDs.
	Stdout, Stderr io.Writer
	Stdin          io.Reader

	// Symbols are the yaegi symbol tables the interpreter can import.
	Symbols []interp.Exports

	// Prelude is evaluated, like a cell named "prelude", when the session
	// starts and after Reset.
	Prelude string

	// Docs maps "pkg.Name" and "pkg.Type.Method" to doc text, for Inspect
	// and :doc (builtins.Docs).
	Docs map[string]string

	// MemStats returns the tensor memory table printed by :mem, or is nil.
	MemStats func() string

	// Display receives the output of the display package's functions
	// called in the session (display.HTML, Show, Handles, progress bars,
	// loss curves): a notebook front end's Publisher (the Jupyter
	// kernel's sends to the running cell, and implements display.Pinner so
	// that a Handle keeps updating the cell it first showed in). nil is
	// terminal mode: each output's text/plain is written to Stdout and
	// progress bars are drawn on Stderr. It is used when Symbols include
	// the display package (builtins.Symbols do).
	Display Publisher

	// InterruptGrace bounds how long Eval waits, after a cancel, for the
	// interpreted code to stop (default 3s). Interpreted code stops at its
	// next step and engine loops at their next batch (runctx), so only a
	// long compiled call that ignores runctx outlasts it.
	InterruptGrace time.Duration

	// RecursionLimit is the number of interpreted calls one goroutine may
	// have on its stack before the call fails with a *RecursionError
	// (0: DefaultRecursionLimit; negative: no limit).
	RecursionLimit int
}

// Publisher is where a session's rich output goes (display.Publisher):
// Display sends a MIME bundle (display_data, or update_display_data for an
// earlier displayID), ClearOutput clears the cell's output.
type Publisher = display.Publisher

// DefaultOptions returns the options gnnrepl's front ends use: the builtins'
// symbol tables (standard library and engine), prelude, docs and memory hook,
// and the process's standard streams. It runs builtins.Setup (OpenBLAS).
func DefaultOptions() Options {
	builtins.Setup()
	return Options{
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Stdin:    os.Stdin,
		Symbols:  []interp.Exports{builtins.Symbols},
		Prelude:  builtins.Prelude,
		Docs:     builtins.Docs,
		MemStats: builtins.MemStats,
	}
}

// Session is one interactive Go session: a yaegi interpreter whose
// variables, functions, types and imports persist from one Eval to the next.
// The terminal shell and the Jupyter kernel both drive a Session.
//
// Eval, Reset and Vars are serialized; Complete, Inspect and IsComplete may
// be called while an Eval runs (they then use only the names the session
// has declared, not the values).
type Session struct {
	opts  Options
	trace *traceWriter
	out   *display.Output // the display package's destination in this session

	mu     sync.Mutex // held by Eval, Reset, Vars
	in     *interp.Interpreter
	zombie atomic.Pointer[execution] // an interrupted run still inside compiled code (set and cleared under mu)
	at     atomic.Int64              // position of the top-level statement running (markStmts), line<<20 | column
	// unitSnap is the package scope before the unit being evaluated was
	// compiled: a failed run puts back the names its unfinished
	// statements declared (assignguard.go).
	unitSnap *scopeSnapshot
	live     atomic.Int64 // goroutines started by cells still running (gostmt.go)
	rec      reclaimer    // releases global-frame slots no later code reads (reclaim.go)
	st       stopper      // stops the interpreted code: the running cell and every goroutine cells started

	gmu     sync.Mutex                         // guards cur and pending
	cur     *cellRun                           // the cell being evaluated, or nil
	pending *PanicError                        // a goroutine's panic that came while no cell ran, reported by the next
	inp     atomic.Pointer[interp.Interpreter] // s.in, for Interrupt (which does not take mu)

	nmu         sync.Mutex                          // guards the tables below
	names       map[string]string                   // session-declared name -> "var", "const", "func", "type"
	imports     map[string]string                   // local package name -> import path
	decls       map[string]string                   // "type T", "method T.M" -> declaration text (redecl.go)
	funcTypes   map[string]*ast.FuncType            // the signatures of the session's functions (rangefunc.go)
	methodTypes map[string]map[string]*ast.FuncType // method name -> receiver type name -> signature
	packages    map[string]string                   // package name -> import path, for every symbol table (unambiguous names)
	memberTable map[string][]string
	notices     string // what the prelude wrote on stderr (PreludeNotices)

	goSources bool // the source packages (gosrc.go) are compiled into in (set and read under mu)

	frames recursionGuard // counts interpreted frames (recursion.go)
	tc     *typeCheck     // the type checker's view of the session (check.go; set and read under mu)
	info   *types.Info    // the types of the unit being evaluated, for the rewrites of gosem.go (nil for the session's own cells)
}

// Result is what an evaluation shows.
type Result struct {
	// Text is the display string of the value of the cell's final
	// expression statement, or "" when the cell ends with a statement or a
	// declaration, or with a call that returns nothing.
	Text string
	// Values are the values shown: one, or all results of a final call that
	// returns several.
	Values []reflect.Value
}

// New starts a session and evaluates opts.Prelude. It fails when the
// symbol tables cannot be loaded or the prelude fails.
func New(opts Options) (*Session, error) {
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Stdin == nil {
		opts.Stdin = os.Stdin
	}
	if opts.InterruptGrace <= 0 {
		opts.InterruptGrace = 3 * time.Second
	}
	if opts.RecursionLimit == 0 {
		opts.RecursionLimit = DefaultRecursionLimit
	}
	s := &Session{opts: opts, trace: &traceWriter{w: opts.Stderr}}
	s.frames.limit.Store(int64(opts.RecursionLimit))
	s.frames.main = &s.trace.main
	s.out = display.NewOutput(opts.Display, opts.Stdout, opts.Stderr)
	s.packages, s.memberTable = packageTables(opts.Symbols)
	if s.hasStdlib() {
		s.addGoSourceTables()
	}
	if err := s.init(); err != nil {
		return nil, err
	}
	return s, nil
}

// hasSymbols reports whether the session's symbol tables include every
// package of x.
func (s *Session) hasSymbols(x interp.Exports) bool {
	for k := range x {
		found := false
		for _, t := range s.opts.Symbols {
			if _, ok := t[k]; ok {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// cellRun is the evaluation of one cell, as seen by the goroutines the
// session's code started.
type cellRun struct {
	cancel context.CancelFunc
	goErr  *PanicError // the first goroutine panic while the cell ran
	// counted is set once the cell's interruption has been counted
	// (runctx.Interrupts): by Interrupt, or when its context ended.
	counted atomic.Bool
}

// goPanic reports a panic recovered in a goroutine the interpreted code
// started by the go statement at where (see guardGoStmts). While a cell
// runs, the cell is stopped (with every interpreted goroutine, as a
// goroutine's panic ends a Go program) and fails with the panic; otherwise
// the panic is noted on Stderr and fails the next cell.
func (s *Session) goPanic(v any, where string) {
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		v = rv.Interface()
	}
	goStack := stack()
	pe := &PanicError{Value: goRuntimeError(v, goStack), Stack: s.trace.take(goid()), GoStack: goStack, Goroutine: where, Hint: nilHint(v, goStack)}
	s.gmu.Lock()
	defer s.gmu.Unlock()
	if c := s.cur; c != nil {
		if c.goErr == nil {
			c.goErr = pe
			c.cancel()
		}
		return
	}
	if s.pending == nil {
		pe.After = true
		s.pending = pe
		fmt.Fprintf(s.opts.Stderr, "panic in the goroutine started at %s: %v (no cell was running; the next cell reports it)\n", where, v)
	}
}

// Interrupt stops the running cell, as cancelling its context does, and
// every interpreted goroutine cells started, at their next step (a
// goroutine blocked on a channel operation or a select wakes up and stops;
// one inside a compiled call stops when the call returns), and cancels
// runctx.Session's context. It may be called at any time, from any
// goroutine: the front ends call it on Ctrl-C and interrupt_request, also
// while no cell runs.
//
// Each call counts one interrupt (runctx.Interrupts). A cell whose context
// is cancelled (or that a goroutine's panic stops) counts one too, unless
// Interrupt has counted it already: a front end that also cancels the
// cell's context calls Interrupt first, and one Ctrl-C counts once.
func (s *Session) Interrupt() {
	s.gmu.Lock()
	c := s.cur
	if c != nil {
		c.counted.Store(true)
	}
	s.gmu.Unlock()
	runctx.CancelSession()
	if c != nil {
		c.cancel()
	}
	s.stopInterpreted()
}

// cellInterrupted stops every interpreted goroutine of the session, as
// the end of cell c's context does, and counts the interrupt and cancels
// runctx.Session's context unless that was done for c already (c nil: a
// program run outside a cell).
func (s *Session) cellInterrupted(c *cellRun) {
	if c == nil || c.counted.CompareAndSwap(false, true) {
		runctx.CancelSession()
	}
	s.stopInterpreted()
}

// goBegin counts a cell goroutine that starts running (gostmt.go) unless a
// stop came since its go statement ran, at stop count epoch: then it must
// not run at all, and goBegin reports false.
func (s *Session) goBegin(epoch uint64) bool {
	s.live.Add(1)
	if s.st.stops.Load() != epoch {
		s.live.Add(-1)
		return false
	}
	return true
}

// reviveAfterStop, before a program runs, puts the run id back after an
// interrupt (stopper.revive) once no interpreted code runs, waiting up to
// Options.InterruptGrace for the goroutines of earlier cells to stop. When some have not
// (one blocked in a compiled call: a sync lock, a long sleep), the function
// literals made before the interrupt cannot run again: reviving later would
// stop the ones made from now on instead. It gives the revive up and says
// so on the cell's standard error.
func (s *Session) reviveAfterStop(ctx context.Context) {
	if !s.st.revivePending() {
		return
	}
	for deadline := time.Now().Add(s.opts.InterruptGrace); s.live.Load() > 0 && time.Now().Before(deadline) && ctx.Err() == nil; {
		time.Sleep(5 * time.Millisecond)
	}
	if ctx.Err() != nil {
		return // interrupted while waiting: the revive stays pending
	}
	if n := s.live.Load(); n > 0 || s.zombie.Load() != nil {
		s.st.dropRevive()
		fmt.Fprintf(s.opts.Stderr, "gnnrepl: %d goroutine(s) started by earlier cells did not stop at the interrupt (blocked in a compiled call such as a lock or a sleep); "+
			"function literals made before the interrupt now return zero values without running: define them again\n", n)
		return
	}
	s.st.revive(s.in) // no interpreted code runs: earlier function literals work again
}

// stopInterpreted stops every interpreted goroutine of the session at its
// next step.
func (s *Session) stopInterpreted() {
	if i := s.inp.Load(); i != nil && yaegi.ok {
		s.st.stop(i)
	}
}

func (s *Session) init() error {
	s.rec = reclaimer{}
	if old := s.inp.Load(); old != nil && yaegi.ok {
		s.st.stop(old) // the goroutines of the discarded interpreter
	}
	s.gmu.Lock()
	s.pending = nil
	s.gmu.Unlock()
	s.in = interp.New(interp.Options{
		Stdin:        s.opts.Stdin,
		Stdout:       s.opts.Stdout,
		Stderr:       s.trace,
		Unrestricted: true,
	})
	s.inp.Store(s.in)
	s.tc = newTypeCheck(s.opts.Symbols)
	for _, x := range s.opts.Symbols {
		if err := s.in.Use(withoutGoSourceStubs(x)); err != nil {
			return fmt.Errorf("repl: loading symbols: %w", err)
		}
	}
	s.goSources = false // compiled at the first import of one (needGoSources)
	// yaegi v0.16.1 compiling a package's source after main's globals
	// exist (the prelude's) gives later defines of main the prelude's
	// slots ("reflect.Set: value of type int is not assignable to ..."):
	// a session with a prelude compiles the source packages first.
	if strings.TrimSpace(s.opts.Prelude) != "" && s.hasStdlib() {
		s.goSources = true
		if err := s.installGoSources(); err != nil {
			return err
		}
	}
	// The display package, when loaded, shows in this session's Output.
	if bound := builtins.DisplaySymbols(s.out); s.hasSymbols(bound) {
		if err := s.in.Use(bound); err != nil {
			return fmt.Errorf("repl: loading symbols: %w", err)
		}
	}
	rt := map[string]reflect.Value{
		"GoPanic": reflect.ValueOf(s.goPanic), "Results": reflect.ValueOf(results), "At": reflect.ValueOf(s.atStmt),
		"GoEpoch": reflect.ValueOf(s.st.stops.Load), "GoBegin": reflect.ValueOf(s.goBegin), "GoEnd": reflect.ValueOf(func() { s.live.Add(-1) }),
		"Print":   reflect.ValueOf(func(args ...any) { rtPrint(s.opts.Stderr, false, args) }),
		"Println": reflect.ValueOf(func(args ...any) { rtPrint(s.opts.Stderr, true, args) }),
		"Clear":   reflect.ValueOf(rtClear),
	}
	rt["Recovered"] = reflect.ValueOf(rtRecovered) // gosem_recover.go
	rt["Return"] = reflect.ValueOf(&cellReturn).Elem()
	rt["Enter"] = reflect.ValueOf(s.frames.enter) // lower.go
	rt["Error"] = reflect.ValueOf((*error)(nil))  // gosem_tswitch.go
	if err := s.in.Use(interp.Exports{rtKey: rt}); err != nil {
		return fmt.Errorf("repl: loading symbols: %w", err)
	}
	s.nmu.Lock()
	s.names = map[string]string{}
	s.imports = map[string]string{}
	s.decls = map[string]string{}
	s.funcTypes = map[string]*ast.FuncType{}
	s.methodTypes = map[string]map[string]*ast.FuncType{}
	s.nmu.Unlock()
	if _, err := s.eval(context.Background(), "runtime", "import "+rtName+" "+strconv.Quote(rtPath)); err != nil {
		return fmt.Errorf("repl: %w", err)
	}
	if _, err := s.eval(context.Background(), "runtime", minMaxDecls); err != nil {
		return fmt.Errorf("repl: %w", err)
	}
	s.nmu.Lock()
	s.notices = ""
	s.nmu.Unlock()
	if strings.TrimSpace(s.opts.Prelude) != "" {
		s.trace.record()
		_, err := s.eval(context.Background(), "prelude", s.opts.Prelude)
		notices := s.trace.recorded()
		if err != nil {
			return fmt.Errorf("repl: prelude: %w", err)
		}
		s.nmu.Lock()
		s.notices = notices
		s.nmu.Unlock()
	}
	return nil
}

// PreludeNotices returns what the prelude wrote on the session's stderr the
// last time it ran (in New or Reset; it is also written to Options.Stderr
// as it comes), or "" when it wrote nothing. builtins.Prelude writes one
// "gnnrepl: ..." line there, through log.Writer() (os.Stderr in the
// interpreter is the process's), when the dataset files are absent and it
// fell back to a synthetic graph. A front end whose stderr nobody reads at
// start-up (the Jupyter kernel's goes to the server's log) shows them with
// the first cell.
func (s *Session) PreludeNotices() string {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	return s.notices
}

// Reset discards every variable, function, type and import and starts
// again from the prelude. It returns ErrBusy while an interrupted
// evaluation is still finishing a compiled call.
func (s *Session) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if z := s.zombie.Load(); z != nil {
		select {
		case <-z.fin:
			s.zombie.Store(nil)
		default:
			return ErrBusy
		}
	}
	return s.init()
}

// Busy reports whether an interrupted evaluation is still running a
// compiled call that does not poll runctx (InterruptedError.StillRunning):
// the next Eval would wait for that call to return. It does not block, and
// may be called while an Eval runs.
func (s *Session) Busy() bool {
	z := s.zombie.Load()
	if z == nil {
		return false
	}
	select {
	case <-z.fin:
		return false
	default:
		return true
	}
}

// Eval evaluates a cell named "input" in errors; see EvalSource.
func (s *Session) Eval(ctx context.Context, src string) (Result, error) {
	return s.EvalSource(ctx, "input", src)
}

// EvalSource evaluates src, a cell of any mix of imports, declarations and
// statements (or a whole file with a package clause, whose main function,
// if any, runs), and returns the display of its final expression statement.
// name is the file name in error positions ("In[3]", "train.go").
//
// The error is a *CompileError (nothing of the failing unit ran, and it
// declared nothing: no new names, the session variables it declares again
// keep their types and values; earlier imports, declarations and
// statements of the cell did run), a *PanicError (the statements before the
// panic ran, as in Go; its Value is a *RuntimeError with Go's text for a
// run-time error the interpreter raised through package reflect), or an
// *InterruptedError when ctx is cancelled: the interpreted code is then
// stopped at its next step and engine loops at their next batch (runctx),
// and Eval waits up to Options.InterruptGrace for that, so the session is
// not changed after Eval returns; every variable keeps the value it had.
func (s *Session) EvalSource(ctx context.Context, name, src string) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if z := s.zombie.Load(); z != nil {
		select {
		case <-z.fin:
			s.zombie.Store(nil)
		case <-ctx.Done():
			return Result{}, ErrBusy
		}
	}
	if name == "" {
		name = "input"
	}
	s.gmu.Lock()
	if pe := s.pending; pe != nil {
		s.pending = nil
		s.gmu.Unlock()
		return Result{}, pe
	}
	// An interrupt of the cell stops every interpreted goroutine too, also
	// when it comes before the cell's program starts (while compiling).
	c := &cellRun{}
	// The interrupt's AfterFunc runs on a goroutine of its own: the cell
	// waits for it, so that a late one cannot stop the next cell's program.
	afterDone := make(chan struct{})
	stopAfter := context.AfterFunc(ctx, func() { defer close(afterDone); s.cellInterrupted(c) })
	defer func() {
		if !stopAfter() {
			<-afterDone
		}
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.cancel = cancel
	s.cur = c
	s.gmu.Unlock()
	res, err := s.eval(ctx, name, src)
	s.gmu.Lock()
	s.cur = nil
	goErr := c.goErr
	s.gmu.Unlock()
	if goErr != nil {
		return Result{}, goErr
	}
	return res, err
}

func (s *Session) eval(ctx context.Context, name, src string) (Result, error) {
	units, err := splitCell(name, src)
	if err != nil {
		return Result{}, compileError(err)
	}
	// Every unit is parsed and type-checked before the first one runs: a
	// cell with an error anywhere runs nothing (check.go). The session's
	// own cells ("runtime") are not checked.
	files := make([]*ast.File, len(units))
	checks := make([]*checked, len(units))
	snaps := make([]typeSnap, len(units))
	for i, u := range units {
		f, err := s.parseUnit(name, src, u)
		if err != nil {
			return Result{}, err
		}
		files[i] = f
		if name == "runtime" {
			continue
		}
		if u.kind != unitStmts {
			if _, err := s.dropRedeclarations(f); err != nil {
				return Result{}, err
			}
		}
		s.nmu.Lock()
		decls := s.decls
		s.nmu.Unlock()
		snaps[i] = s.tc.snapshot()
		c, err := s.tc.check(s.in.FileSet(), f, u.kind == unitStmts, decls)
		if err != nil {
			s.tc.restore(snaps[0])
			return Result{}, err
		}
		checks[i] = c
	}
	var res Result
	for i, u := range units {
		if err := ctx.Err(); err != nil {
			return Result{}, interrupted(ctx)
		}
		res, err = s.evalUnit(ctx, name, src, u, files[i], checks[i], i == len(units)-1)
		if pe := (*PanicError)(nil); errors.As(err, &pe) && pe.Value == any(cellReturn) {
			return Result{}, nil // a top-level return: the cell ends here
		}
		if err != nil {
			if checks[i] == nil {
				return Result{}, err
			}
			// What the unit and the later ones declared is not the
			// session's; the statements of a unit that ran before its
			// panic did declare theirs.
			s.tc.restore(snaps[i])
			var pe *PanicError
			if errors.As(err, &pe) && u.kind == unitStmts {
				at := s.at.Load()
				fset := s.in.FileSet()
				s.tc.keepRan(checks[i], func(pos token.Pos) bool {
					p := fset.Position(pos)
					return int64(p.Line)<<20|int64(p.Column&(1<<20-1)) < at
				})
			}
			return Result{}, err
		}
	}
	return res, nil
}

const (
	declPrefix = "package main\n"
	stmtPrefix = "package main\nfunc main() {\n"
	stmtSuffix = "\n}"
)

// fileSuffix is appended to every cell name given to the parser. yaegi
// scopes imports by the base name of the file they appear in, so all cells
// must share one base name ("_.go") for an import to persist from cell to
// cell; the directory part keeps the cell's own name in positions, and
// errors strip the suffix again.
const fileSuffix = "/_.go"

func (s *Session) evalUnit(ctx context.Context, name, src string, u unit, f *ast.File, c *checked, last bool) (Result, error) {
	s.unitSnap = unitSnapshot(s.in)
	s.info = nil
	if c != nil {
		s.info = c.info
	}
	defer func() { s.unitSnap, s.info = nil, nil }()
	fset := s.in.FileSet()
	switch u.kind {
	case unitFile:
		if err := s.needGoSources(f); err != nil {
			return Result{}, err
		}
		s.dropKnownImports(f)
		if _, err := s.dropRedeclarations(f); err != nil {
			return Result{}, err
		}
		texts := s.declTexts(f)
		s.lower(f, c, false)
		s.goSemantics(ctx, f)
		s.guardGoStmts(f)
		splitTupleAssigns(f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" && fd.Body != nil {
				fd.Body.List = markStmts(fset, fd.Body.List)
			}
		}
		if _, err := s.compileRun(ctx, f, src); err != nil {
			return Result{}, err
		}
		s.record(f)
		s.recordDecls(texts)
		return Result{}, nil
	case unitDecls:
		if err := s.needGoSources(f); err != nil {
			return Result{}, err
		}
		if s.dropKnownImports(f) {
			return Result{}, nil
		}
		if empty, err := s.dropRedeclarations(f); err != nil || empty {
			return Result{}, err
		}
		texts := s.declTexts(f)
		s.lower(f, c, false)
		s.goSemantics(ctx, f)
		s.guardGoStmts(f)
		splitTupleAssigns(f)
		if _, err := s.compileRun(ctx, f, src); err != nil {
			if body := varsOnly(f, err); body != nil {
				// yaegi cannot initialize a package-level var from a
				// variable of another cell ("variable definition loop");
				// as statements of the cell's main they work.
				body.List = markStmts(fset, body.List)
				return s.evalStmts(ctx, body, src, false)
			}
			return Result{}, err
		}
		s.record(f)
		s.recordDecls(texts)
		return Result{}, nil
	}

	if err := s.lower(f, c, true); err != nil {
		return Result{}, err
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	if err := loopDeferError(fset, body); err != nil {
		return Result{}, err
	}
	guardAssigns(body)
	s.goSemantics(ctx, body)
	s.guardGoStmts(body)
	splitTupleAssigns(body)
	wrapTupleBlocks(body.List)
	body.List = markStmts(fset, body.List)
	return s.evalStmts(ctx, body, src, last)
}

// varsOnly returns the declarations of f as the statements of a block when
// f declares only variables and compiling it failed with yaegi's "variable
// definition loop"; otherwise nil.
func varsOnly(f *ast.File, err error) *ast.BlockStmt {
	if !varsOnlyError(err) || len(f.Decls) == 0 {
		return nil
	}
	body := &ast.BlockStmt{Lbrace: f.Decls[0].Pos(), Rbrace: f.End()}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			return nil
		}
		body.List = append(body.List, &ast.DeclStmt{Decl: g})
	}
	return body
}

func varsOnlyError(err error) bool {
	var ce *CompileError
	return errors.As(err, &ce) && ce.Msg == "variable definition loop"
}

// evalStmts runs a statement unit and, when it is the cell's last unit and
// ends with an expression statement, builds the display of its value: a
// call shows all its results, nothing when it has none, and fmt's Print
// functions show nothing.
//
// The unit runs as one program whenever possible: yaegi grows its global
// frame at the start of each program, which races with goroutines the
// previous one left running, so a cell is not cut into more programs than
// needed. Only a final call whose function is declared by the same unit
// needs the statements before it to run first, to learn how many results
// the call has.
func (s *Session) evalStmts(ctx context.Context, body *ast.BlockStmt, src string, last bool) (Result, error) {
	list := body.List
	if len(list) == 0 {
		return Result{}, nil
	}
	var final *ast.ExprStmt
	if last {
		final, _ = list[len(list)-1].(*ast.ExprStmt)
	}
	if final == nil {
		_, err := s.compileRun(ctx, body, src)
		if err == nil {
			s.recordStmts(list)
		}
		return Result{}, err
	}
	nout, printCall := 1, false
	if call, ok := ast.Unparen(final.X).(*ast.CallExpr); ok {
		var known bool
		nout, printCall, known = s.results(ctx, body.Lbrace, call)
		if !known && len(list) > 1 {
			// The head runs first (the final call's result count depends
			// on what it defines), so the whole cell is compiled before:
			// a cell that does not compile runs nothing (a failing
			// opt.Stepp() after opt := ... must not replace opt).
			if _, err := s.compile(&ast.BlockStmt{Lbrace: body.Lbrace, List: list, Rbrace: body.Rbrace}, src); err != nil {
				return Result{}, err
			}
			head := &ast.BlockStmt{Lbrace: body.Lbrace, List: list[:len(list)-1], Rbrace: body.Rbrace}
			if _, err := s.compileRun(ctx, head, src); err != nil {
				return Result{}, err
			}
			s.recordStmts(head.List)
			list = list[len(list)-1:]
			nout, printCall, _ = s.results(ctx, body.Lbrace, call)
		}
		switch {
		case nout < 0:
			// The count is unknown (the function is itself computed by a
			// call): yaegi's value of a call statement that returns
			// nothing is a stale frame slot (another variable's value), so
			// the results are passed through the runtime's Results, which
			// does not compile for a call with no results.
			wrapped := append(list[:len(list)-1:len(list)-1], collectAll(call))
			if prog, err := s.compile(&ast.BlockStmt{Lbrace: body.Lbrace, List: wrapped, Rbrace: body.Rbrace}, src); err == nil {
				v, err := s.runUnit(ctx, prog, body)
				if err != nil {
					return Result{}, err
				}
				s.recordStmts(list)
				return multiResult(v, printCall), nil
			}
			nout = 0 // no results, or the cell does not compile: the plain statement says which
		case nout > 1 && !printCall:
			list = append(list[:len(list)-1:len(list)-1], collectResults(call, nout))
		}
	}
	block := &ast.BlockStmt{Lbrace: body.Lbrace, List: list, Rbrace: body.Rbrace}
	v, err := s.compileRun(ctx, block, src)
	if err != nil {
		return Result{}, err
	}
	s.recordStmts(list)
	switch {
	case nout == 0 || printCall && nout > 1 || !v.IsValid():
		return Result{}, nil
	case nout == 1:
		return Result{Text: Format(v), Values: []reflect.Value{v}}, nil
	}
	return multiResult(v, false), nil
}

var noResultBuiltins = map[string]bool{"print": true, "println": true, "panic": true, "close": true, "delete": true, "clear": true}

var basicTypes = map[string]bool{
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true, "float32": true,
	"float64": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true, "rune": true,
	"string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "any": true,
}

// compileRun compiles and runs one unit.
func (s *Session) compileRun(ctx context.Context, n ast.Node, src string) (reflect.Value, error) {
	prog, err := s.compile(n, src)
	if err != nil {
		return reflect.Value{}, err
	}
	return s.runUnit(ctx, prog, n)
}

// runUnit runs prog, compiled from n (a statement block or a file), and
// when the run fails puts back the session variables that the statements
// which did not complete declared (assignguard.go).
func (s *Session) runUnit(ctx context.Context, prog *interp.Program, n ast.Node) (reflect.Value, error) {
	v, err := s.run(ctx, prog)
	if err != nil {
		s.unitSnap.restoreNames(failedDefines(s.in.FileSet(), n, s.at.Load()))
	}
	return v, err
}

// compile compiles n, turning compile-time panics of the interpreter into
// a *PanicError with Internal set.
//
// yaegi reports some internal errors with log.Panic, which also prints the
// message through the standard logger; while compiling, that logger writes
// into a buffer, passed on afterwards unless it only holds that message.
func (s *Session) compile(n ast.Node, src string) (prog *interp.Program, err error) {
	snap := snapshot(s.in)
	defer func() {
		if err != nil {
			snap.restore() // a failed compile declares nothing (atomic.go)
		}
	}()
	prev := log.Writer()
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer func() {
		r := recover()
		log.SetOutput(prev)
		if logged.Len() > 0 && (r == nil || !strings.HasSuffix(strings.TrimSpace(logged.String()), fmt.Sprint(r))) {
			prev.Write(logged.Bytes())
		}
		if r != nil {
			pe := &PanicError{Value: r, Internal: true, GoStack: stack()}
			pe.Hint = hint(r, src)
			prog, err = nil, pe
		}
	}()
	prog, err = s.in.CompileAST(n)
	if err != nil {
		return nil, compileError(err)
	}
	if !declaresMain(n) {
		dropMain(s.in, prog)
	}
	return prog, nil
}

// declaresMain reports whether n is a file declaring func main.
func declaresMain(n ast.Node) bool {
	f, ok := n.(*ast.File)
	if !ok {
		return false
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			return true
		}
	}
	return false
}
