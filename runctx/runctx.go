// Package runctx carries the context of the evaluation that is running now,
// so that long compiled calls (a DataLoader epoch, a fit loop, a sampler pass)
// stop at the next batch when the user presses Ctrl-C in the shell or sends
// interrupt_request from Jupyter.
//
// A session sets the context before it evaluates a cell and clears it after;
// engine code calls Err (cheap: one atomic load) between batches and returns
// the error it gives, leaving model and optimizer state as it was after the
// last completed batch.
//
// Error policy: nothing here panics; Err returns context.Canceled or
// context.DeadlineExceeded once the current evaluation is cancelled.
package runctx

import (
	"context"
	"sync/atomic"
)

type holder struct{ ctx context.Context }

var current atomic.Pointer[holder]

// Set makes ctx the context of the running evaluation and returns a function
// that restores the previous one. Passing nil clears it.
func Set(ctx context.Context) (restore func()) {
	prev := current.Load()
	if ctx == nil {
		current.Store(nil)
	} else {
		current.Store(&holder{ctx})
	}
	return func() { current.Store(prev) }
}

// Context returns the running evaluation's context, or context.Background()
// when none is set.
func Context() context.Context {
	if h := current.Load(); h != nil {
		return h.ctx
	}
	return context.Background()
}

// Err reports whether the running evaluation has been cancelled: it returns
// the context's error (context.Canceled on an interrupt), or nil.
func Err() error {
	if h := current.Load(); h != nil {
		return h.ctx.Err()
	}
	return nil
}

// session is the context Session returns: cancelled by CancelSession.
type session struct {
	ctx    context.Context
	cancel context.CancelFunc
}

var (
	sess       atomic.Pointer[session]
	interrupts atomic.Uint64
)

func newSession() *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{ctx, cancel}
}

// Session returns the context of work that outlives a cell: it is
// cancelled at the session's next interrupt (Ctrl-C in the shell,
// interrupt_request in Jupyter), whether a cell is running then or the
// session is idle, and a fresh one is made for code that asks afterwards.
// A goroutine a cell starts takes it once, when it starts, and stops when
// its Done channel closes:
//
//	ctx := runctx.Session()
//	go func() {
//		for {
//			select {
//			case <-ctx.Done():
//				return
//			case x := <-work:
//				...
//			}
//		}
//	}()
//
// (An interpreted goroutine is stopped at its next step by the interrupt in
// any case; the context is what a compiled call it makes, such as an HTTP
// request or a sleep in a select, can observe.)
func Session() context.Context {
	for {
		if s := sess.Load(); s != nil {
			return s.ctx
		}
		sess.CompareAndSwap(nil, newSession())
	}
}

// CancelSession cancels the context Session returned and replaces it with
// a fresh one, and counts an interrupt (Interrupts). Sessions call it once
// per interrupt, of a cell or of an idle session (repl.Session.Interrupt
// counts each call, and a cell cut short by its context once, not again
// for the Interrupt that stopped it); engine code does not.
func CancelSession() {
	interrupts.Add(1)
	if s := sess.Swap(newSession()); s != nil {
		s.cancel()
	}
}

// Interrupts returns the number of interrupts so far (CancelSession calls):
// one per user interrupt (a Ctrl-C in the shell, an interrupt_request or
// SIGINT to the Jupyter kernel), whether a cell was running or the session
// was idle, and one per cell cut short by its context or a goroutine's
// panic without an interrupt. Engine state that spans calls compares it
// between two calls to learn that the code using it was interrupted in
// between: the DataLoader's next Next after a cell stopped mid-epoch
// (LoaderOptions.OnInterrupt).
func Interrupts() uint64 { return interrupts.Load() }
