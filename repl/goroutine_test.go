package repl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/runctx"
)

// TestGoroutinePanicFailsCell: a goroutine's panic while its cell runs
// stops the cell, which fails with the panic, the go statement's position
// and the goroutine's frames; the session goes on.
func TestGoroutinePanicFailsCell(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, "x := 1")
	cell := "func boom(n int) {\n\tpanic(fmt.Sprint(\"boom \", n))\n}\nch := make(chan int)\ngo boom(3)\n<-ch\nx = 2"
	_, err := s.Eval(context.Background(), cell)
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want a *PanicError", err, err)
	}
	if pe.Goroutine != "input:5:1" || pe.After || pe.Value != "boom 3" {
		t.Errorf("PanicError = %+v", pe)
	}
	if len(pe.Stack) == 0 || !strings.Contains(pe.Stack[0], "input:2:8") || !strings.Contains(pe.Stack[0], "boom") {
		t.Errorf("stack = %q, want the goroutine's frame in boom first", pe.Stack)
	}
	if !strings.HasPrefix(err.Error(), "panic in the goroutine started at input:5:1: boom 3\n\tinput:2:8") {
		t.Errorf("message = %q", err.Error())
	}
	if got := eval(t, s, "x"); got != "1" {
		t.Errorf("x = %s after the failed cell, want 1", got)
	}
}

// TestGoroutinePanicAfterCell: a goroutine that panics after its cell
// ended fails the next cell, which does not run, and is noted on Stderr at
// once.
func TestGoroutinePanicAfterCell(t *testing.T) {
	s, _, errOut := newSession(t)
	eval(t, s, `import "example.com/testpkg"`)
	eval(t, s, "y := 1")
	eval(t, s, "go func() {\n\ttestpkg.Gate()\n\tpanic(\"late\")\n}()")
	close(gateRelease)
	defer func() { gateRelease = make(chan struct{}) }()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(errOut.String(), "panic in the goroutine started at input:1:1: late"); {
		if time.Now().After(deadline) {
			t.Fatalf("stderr = %q", errOut.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, err := s.Eval(context.Background(), "y = 2")
	var pe *PanicError
	if !errors.As(err, &pe) || !pe.After || pe.Goroutine != "input:1:1" || !strings.Contains(err.Error(), "this cell did not run") {
		t.Fatalf("err = %v", err)
	}
	if got := eval(t, s, "y"); got != "1" {
		t.Errorf("y = %s: the cell that reported the panic ran", got)
	}
}

// stopped waits up to a second for the interpreted goroutines to stop
// calling testpkg.Mark: two readings 50 ms apart must agree.
func stopped(t *testing.T) {
	t.Helper()
	prev := marks.Load()
	for deadline := time.Now().Add(time.Second); ; {
		time.Sleep(50 * time.Millisecond)
		m := marks.Load()
		if m == prev {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines still running a second after the interrupt (%d marks)", m)
		}
		prev = m
	}
}

// TestInterruptIdleStopsGoroutines: Interrupt while no cell runs stops
// the goroutines earlier cells left running, busy ones and ones blocked on
// a channel (their deferred calls run), and cancels runctx.Session.
func TestInterruptIdleStopsGoroutines(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `import "example.com/testpkg"`)
	eval(t, s, "go func() {\n\tfor {\n\t\ttestpkg.Mark()\n\t}\n}()")
	eval(t, s, "ch := make(chan int)\nfor i := 0; i < 3; i++ {\n\tgo func() {\n\t\tdefer testpkg.Mark()\n\t\t<-ch\n\t}()\n}")
	waiting := sessionWaiting.Load()
	eval(t, s, "go testpkg.WaitSession()")
	for m := marks.Load(); marks.Load() < m+1000 || sessionWaiting.Load() == waiting; {
		time.Sleep(time.Millisecond)
	}
	before := sessionDone.Load()
	s.Interrupt()
	stopped(t)
	if sessionDone.Load() != before+1 {
		t.Errorf("the compiled goroutine waiting on runctx.Session was not released")
	}
	// The session goes on, and goroutines started later run.
	if got := eval(t, s, "done := make(chan int)\ngo func() { done <- 5 }()\n<-done"); got != "5" {
		t.Errorf("after the interrupt: %s", got)
	}
}

// TestInterruptCellStopsGoroutines: interrupting a cell stops the
// goroutines it and earlier cells started.
func TestInterruptCellStopsGoroutines(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `import "example.com/testpkg"`)
	eval(t, s, "go func() {\n\tfor {\n\t\ttestpkg.Mark()\n\t}\n}()")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.Eval(ctx, "go func() {\n\tfor {\n\t\ttestpkg.Mark()\n\t}\n}()\nfor {\n}")
		errc <- err
	}()
	for m := marks.Load(); marks.Load() < m+1000; {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	stopped(t)
}

// TestInterruptStopsGoroutinesNotYetRunning: goroutines a cell started
// are stopped by an interrupt that arrives as the cell starts (before its
// program's first step: yaegi gives the frames made after an interrupt its
// new run id, which only a later interrupt stops) or while the goroutines
// have not begun running. Many goroutines are started and the interrupt
// comes at once, at a different moment in each of 50 rounds.
func TestInterruptStopsGoroutinesNotYetRunning(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `import "example.com/testpkg"`)
	eval(t, s, "func work() {\n\tfor {\n\t\ttestpkg.Mark()\n\t}\n}")
	cells := []string{
		"for i := 0; i < 20; i++ {\n\tgo func() {\n\t\tfor {\n\t\t\ttestpkg.Mark()\n\t\t}\n\t}()\n}",
		"for i := 0; i < 20; i++ {\n\tgo work()\n}",
	}
	for round := range 50 {
		cell := cells[round%2]
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		switch round % 5 {
		case 0: // cancelled before the cell starts
			cancel()
			go func() { _, err := s.Eval(ctx, cell); errc <- err }()
		case 1: // Interrupt as the cell starts
			go func() { _, err := s.Eval(ctx, cell); errc <- err }()
			s.Interrupt()
		case 2: // cancelled as the cell starts
			go func() { _, err := s.Eval(ctx, cell); errc <- err }()
			cancel()
		case 3: // Interrupt after a delay growing with the round
			go func() { _, err := s.Eval(ctx, cell); errc <- err }()
			time.Sleep(time.Duration(round) * 20 * time.Microsecond)
			s.Interrupt()
		case 4: // idle: right after the cell returned
			go func() { _, err := s.Eval(ctx, cell); errc <- err }()
			<-errc
			s.Interrupt()
			errc <- nil
		}
		err := <-errc
		cancel()
		if err == nil && round%5 != 4 {
			// The interrupt came before the cell began (an interrupt of
			// the idle session): the cell ran, and so do its goroutines,
			// until the next interrupt.
			s.Interrupt()
		} else if err != nil && !errors.Is(err, ErrInterrupted) {
			t.Fatalf("round %d: err = %v", round, err)
		}
		t.Logf("round %d: %v", round, err)
		stopped(t)
	}
}

// TestInterruptsCountOnce: runctx.Interrupts counts one per interrupt:
// Interrupt of an idle session, Interrupt of a running cell followed by
// the cancellation of its context (as the kernel and the shell do), and a
// cancelled context alone each count one.
func TestInterruptsCountOnce(t *testing.T) {
	s, _, _ := newSession(t)
	eval(t, s, `import "example.com/testpkg"`)
	running := func(ctx context.Context) chan error {
		errc := make(chan error, 1)
		go func() {
			_, err := s.Eval(ctx, "for {\n\ttestpkg.Mark()\n}")
			errc <- err
		}()
		for m := marks.Load(); marks.Load() < m+100; {
			time.Sleep(100 * time.Microsecond)
		}
		return errc
	}
	for round := range 10 {
		n := runctx.Interrupts()
		s.Interrupt()
		if got := runctx.Interrupts() - n; got != 1 {
			t.Fatalf("round %d: idle Interrupt counted %d", round, got)
		}

		n = runctx.Interrupts()
		ctx, cancel := context.WithCancel(context.Background())
		errc := running(ctx)
		s.Interrupt()
		cancel()
		if err := <-errc; !errors.Is(err, ErrInterrupted) {
			t.Fatalf("round %d: err = %v", round, err)
		}
		if got := runctx.Interrupts() - n; got != 1 {
			t.Fatalf("round %d: Interrupt and cancel of a running cell counted %d", round, got)
		}

		n = runctx.Interrupts()
		ctx, cancel = context.WithCancel(context.Background())
		errc = running(ctx)
		cancel()
		if err := <-errc; !errors.Is(err, ErrInterrupted) {
			t.Fatalf("round %d: err = %v", round, err)
		}
		if got := runctx.Interrupts() - n; got != 1 {
			t.Fatalf("round %d: a cancelled cell counted %d", round, got)
		}
	}
}
