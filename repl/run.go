package repl

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gnnrepl/gnnrepl/runctx"
	"github.com/traefik/yaegi/interp"
)

// This file runs a compiled yaegi program so that an interrupt really stops
// it. yaegi's ExecuteWithContext returns as soon as the context is done but
// leaves the program running in a goroutine the caller cannot wait for, so
// the interpreted code could keep mutating the session after the prompt
// returns. run does what ExecuteWithContext does (arm the cancellable channel
// operations, then on cancel bump the interpreter's run id and close its done
// channel, which stops every interpreted frame at its next step) but in a
// goroutine it owns, and waits for it. The unexported fields it touches are
// located by name and type through reflection once, at start-up; if yaegi's
// layout ever differs (another version), run falls back to
// ExecuteWithContext and reports that it cannot wait (stopWaitable false).

type internals struct {
	ok                                  bool
	idOff, mutexOff, doneOff, cancelOff uintptr
}

var yaegi = findInternals()

func findInternals() internals {
	t := reflect.TypeOf(interp.Interpreter{})
	field := func(name string, typ reflect.Type) (uintptr, bool) {
		f, ok := t.FieldByName(name)
		if !ok || f.Type != typ || len(f.Index) != 1 {
			return 0, false
		}
		return f.Offset, true
	}
	var in internals
	var ok1, ok2, ok3, ok4 bool
	in.idOff, ok1 = field("id", reflect.TypeOf(uint64(0)))
	in.mutexOff, ok2 = field("mutex", reflect.TypeOf(sync.RWMutex{}))
	in.doneOff, ok3 = field("done", reflect.TypeOf(make(chan struct{})))
	in.cancelOff, ok4 = field("cancelChan", reflect.TypeOf(false))
	in.ok = ok1 && ok2 && ok3 && ok4 && in.idOff%8 == 0
	return in
}

func (in internals) id(i *interp.Interpreter) *uint64 {
	return (*uint64)(unsafe.Add(unsafe.Pointer(i), in.idOff))
}

func (in internals) mutex(i *interp.Interpreter) *sync.RWMutex {
	return (*sync.RWMutex)(unsafe.Add(unsafe.Pointer(i), in.mutexOff))
}

func (in internals) done(i *interp.Interpreter) *chan struct{} {
	return (*chan struct{})(unsafe.Add(unsafe.Pointer(i), in.doneOff))
}

func (in internals) cancelChan(i *interp.Interpreter) *bool {
	return (*bool)(unsafe.Add(unsafe.Pointer(i), in.cancelOff))
}

// stopper arms an interpreter for cancellable runs and stops it. Every run
// armed since the last stop shares one done channel, so a stop wakes the
// channel operations of every interpreted goroutine any of those runs
// started (a goroutine's frames keep the done channel of the run that
// started it), not only the running cell's.
type stopper struct {
	mu    sync.Mutex
	done  chan struct{} // nil after a stop, until the next arm
	stops atomic.Uint64 // number of stop calls
	// base is the run id before the first stop since the last revive,
	// when pending.
	base    uint64
	pending bool
}

// arm prepares i for a cancellable run: the same steps as yaegi's
// ExecuteWithContext.
func (st *stopper) arm(i *interp.Interpreter) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done == nil {
		st.done = make(chan struct{})
	}
	mu := yaegi.mutex(i)
	mu.Lock()
	*yaegi.done(i) = st.done
	*yaegi.cancelChan(i) = true
	mu.Unlock()
}

// stop stops every interpreted frame of i at its next step: the steps of
// yaegi's stop method. Every call bumps the run id: a frame yaegi created
// after an earlier bump (the interrupt arrived before the program's first
// frame, or a goroutine started since) carries the new id, and only a later
// bump stops it. The done channel closes once per arm.
func (st *stopper) stop(i *interp.Interpreter) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.stops.Add(1)
	if !st.pending {
		st.base, st.pending = atomic.LoadUint64(yaegi.id(i)), true
	}
	atomic.AddUint64(yaegi.id(i), 1)
	if st.done != nil {
		close(st.done)
		st.done = nil
	}
}

// revive puts the run id back to what it was before the stops since the
// last revive. Call it only when no interpreted code runs: no program, no
// goroutine a cell started. yaegi gives a function literal, when it is
// made, a copy of the frame it is made in, run id included, and each call
// of it runs under that id; a stop bumps the interpreter's id, so every
// function literal made before a stop returned zero values without running
// from then on (`one := func() int { return 1 }`, Ctrl-C in any cell, then
// one() == 0). With the id back, they run again. (The frames they copied
// keep the done channel the stop closed, so their channel operations still
// return at once; README's interpreter limits say so.) No upstream issue
// was found.
func (st *stopper) revive(i *interp.Interpreter) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.pending && yaegi.ok {
		atomic.StoreUint64(yaegi.id(i), st.base)
		st.pending = false
	}
}

// revivePending reports whether a stop awaits revive.
func (st *stopper) revivePending() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.pending
}

// dropRevive gives up the pending revive: the run id stays as the stops
// left it.
func (st *stopper) dropRevive() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.pending = false
}

// execution is one program running in its own goroutine.
type execution struct {
	fin  chan struct{} // closed when the goroutine has returned
	res  reflect.Value
	err  error
	stop func() // stops the interpreted code at its next step
}

// start runs prog in a new goroutine with ctx as runctx's context. Every
// panic that escapes yaegi's own recovery is turned into a *PanicError.
func start(ctx context.Context, i *interp.Interpreter, st *stopper, prog *interp.Program, setCtx func(context.Context) func(), gid *atomic.Uint64) *execution {
	e := &execution{fin: make(chan struct{})}
	if yaegi.ok {
		st.arm(i)
		e.stop = func() { st.stop(i) }
	}
	go func() {
		gid.Store(goid())
		restore := setCtx(ctx)
		defer close(e.fin)
		defer restore()
		returned := false
		defer func() {
			if r := recover(); r != nil {
				e.err = interp.Panic{Value: r, Callers: callers(), Stack: debug.Stack()}
			} else if !returned {
				// runtime.Goexit: the recursion limit (recursion.go).
				v, _ := goexits.LoadAndDelete(gid.Load())
				e.err = interp.Panic{Value: v}
			}
		}()
		if yaegi.ok {
			e.res, e.err = i.Execute(prog)
		} else {
			e.res, e.err = i.ExecuteWithContext(ctx, prog)
		}
		returned = true
	}()
	return e
}

// goid returns the id of the calling goroutine, from the first line of its
// stack ("goroutine 7 [running]:").
func goid() uint64 {
	var buf [40]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, _ = bytes.CutPrefix(b, []byte("goroutine "))
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

func callers() []uintptr {
	var pc [64]uintptr
	n := runtime.Callers(3, pc[:])
	return pc[:n]
}

// run executes prog; see EvalSource for what an interrupt does.
func (s *Session) run(ctx context.Context, prog *interp.Program) (reflect.Value, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.at.Store(0)
	s.reviveAfterStop(ctx)
	s.trace.begin()
	stops := s.st.stops.Load()
	e := start(ctx, s.in, &s.st, prog, runctx.Set, &s.trace.main)
	defer func() {
		// An interrupt stops the goroutines the program started also when
		// the program ended first: a stop that came before the program's
		// first step (while compiling) does not stop frames made since.
		if ctx.Err() != nil && e.stop != nil {
			select {
			case <-e.fin:
				e.stop()
			default:
			}
		}
	}()
	select {
	case <-e.fin:
		if s.st.stops.Load() != stops {
			// Stopped while it ran (the interrupt's AfterFunc came
			// before this select saw ctx): it did not complete.
			s.trace.end()
			s.rec.reclaim(s.in, prog)
			return reflect.Value{}, interrupted(ctx)
		}
	case <-ctx.Done():
		select {
		case <-e.fin:
			if s.st.stops.Load() == stops {
				// The program had run to its end, unstopped, when the
				// interrupt came: nothing was cut short, so its result
				// stands (a next unit of the cell sees the cancelled
				// context and is not run).
				return s.finished(ctx, e, prog)
			}
		default:
		}
		s.gmu.Lock()
		c := s.cur
		s.gmu.Unlock()
		s.cellInterrupted(c)
		if e.stop != nil {
			e.stop()
		} else {
			s.zombie.Store(e)
			return reflect.Value{}, &InterruptedError{Cause: ctx.Err(), StillRunning: true}
		}
		t := time.NewTimer(s.opts.InterruptGrace)
		defer t.Stop()
		// Stop again while waiting: frames made after the first stop (the
		// interrupt can arrive before the program's first step) only see
		// a later one.
		again := time.NewTicker(20 * time.Millisecond)
		defer again.Stop()
		for {
			select {
			case <-e.fin:
				// (The deferred stop, now that the program has ended,
				// stops the goroutines it started after the last stop:
				// they carry that stop's run id.)
				s.trace.end()
				s.rec.reclaim(s.in, prog)
				return reflect.Value{}, interrupted(ctx)
			case <-again.C:
				e.stop()
				continue
			case <-t.C:
				s.zombie.Store(e)
				return reflect.Value{}, &InterruptedError{Cause: ctx.Err(), StillRunning: true}
			}
		}
	}
	return s.finished(ctx, e, prog)
}

// finished returns the result of the program e ran to its end.
func (s *Session) finished(ctx context.Context, e *execution, prog *interp.Program) (reflect.Value, error) {
	frames := s.trace.end()
	s.rec.reclaim(s.in, prog)
	if e.err == nil {
		return e.res, nil
	}
	var p interp.Panic
	if errors.As(e.err, &p) {
		if ctx.Err() != nil {
			return reflect.Value{}, interrupted(ctx)
		}
		val := p.Value
		if rv, ok := val.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
			val = rv.Interface() // interpreted panics carry a reflect.Value
		}
		return reflect.Value{}, &PanicError{Value: goRuntimeError(val, p.Stack), Stack: fixFrames(frames, s.at.Load()), GoStack: p.Stack, Hint: nilHint(val, p.Stack)}
	}
	return reflect.Value{}, compileError(e.err)
}
