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
