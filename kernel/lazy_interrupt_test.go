package kernel

import (
	"sync/atomic"
	"testing"
)

// interruptCounter is a fake session that counts Interrupt calls.
type interruptCounter struct {
	*fakeSession
	n atomic.Int64
}

func (c *interruptCounter) Interrupt() { c.n.Add(1) }

// TestLazySessionInterrupt: the kernel's lazily created session (Run)
// passes interrupts on to the real one once it exists.
func TestLazySessionInterrupt(t *testing.T) {
	c := &interruptCounter{fakeSession: newFake()}
	release := make(chan struct{})
	l := newLazySession(func() (Session, error) { <-release; return c, nil })
	var _ Interrupter = l
	l.Interrupt() // not ready yet: nothing to stop
	close(release)
	<-l.ready
	l.Interrupt()
	if c.n.Load() != 1 {
		t.Errorf("Interrupt reached the session %d times, want 1", c.n.Load())
	}
}
