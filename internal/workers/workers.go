// Package workers runs the engine's compiled worker goroutines so that a
// panic in one of them reaches the goroutine that started the work, where
// the session's front end can recover it. Go cannot recover a panic on
// another goroutine: without this, a bad index hit inside a parallel loop
// would end the whole process (and the user's session with it).
package workers

import (
	"runtime"
	"sync"
)

// Group is a sync.WaitGroup whose goroutines' panics are re-raised by
// Wait. The zero value is ready to use; a Group must not be copied.
type Group struct {
	wg sync.WaitGroup
	mu sync.Mutex
	p  any
	ok bool // p holds a panic value (which may be nil)
}

// Go runs f on a new goroutine. A panic in f is caught and kept (the
// first one wins) for Wait to re-raise.
func (g *Group) Go(f func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.catch()
		f()
	}()
}

// Run runs f on the calling goroutine with the same panic capture as Go,
// so the caller's own share of the work is treated like the others'.
func (g *Group) Run(f func()) {
	defer g.catch()
	f()
}

func (g *Group) catch() {
	if r := recover(); r != nil {
		g.mu.Lock()
		if !g.ok {
			g.p, g.ok = r, true
		}
		g.mu.Unlock()
	}
}

// Wait waits for every goroutine started by Go, then panics with the
// first panic value caught in Go or Run (unchanged, so typed errors keep
// their type for errors.As in the recovering front end).
func (g *Group) Wait() {
	g.wg.Wait()
	g.mu.Lock()
	p, ok := g.p, g.ok
	g.mu.Unlock()
	if ok {
		panic(p)
	}
}

// For splits [0, n) into at most GOMAXPROCS contiguous chunks of at least
// grain items and runs body on them concurrently (the last chunk on the
// calling goroutine); a panic in any chunk is re-raised on the caller
// after all chunks have returned.
func For(n, grain int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := runtime.GOMAXPROCS(0)
	grain = max(grain, 1)
	workers = min(workers, (n+grain-1)/grain)
	if workers <= 1 {
		body(0, n)
		return
	}
	var g Group
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		if hi == n {
			g.Run(func() { body(lo, hi) })
			break
		}
		g.Go(func() { body(lo, hi) })
	}
	g.Wait()
}
