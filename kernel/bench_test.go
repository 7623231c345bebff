package kernel

import (
	"testing"

	"github.com/gnnrepl/gnnrepl/repl"
)

// BenchmarkExecuteRoundTrip measures execute_request("1+1") to status idle
// as a Go client sees it, with the real interpreter.
func BenchmarkExecuteRoundTrip(b *testing.B) {
	rs, err := NewReplSession(repl.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	_, c, _ := startKernel(b, rs, testKey)
	b.ResetTimer()
	for range b.N {
		id := c.send(c.shell, "execute_request", map[string]any{"code": "1+1", "store_history": false})
		c.reply(c.shellCh, id)
		c.iopubUntilIdle(id)
		c.mu.Lock()
		c.pub = c.pub[:0]
		c.mu.Unlock()
	}
}

// BenchmarkKernelInfoRoundTrip measures a request that does not touch the
// session.
func BenchmarkKernelInfoRoundTrip(b *testing.B) {
	_, c, _ := startKernel(b, newFake(), testKey)
	b.ResetTimer()
	for range b.N {
		id := c.send(c.shell, "kernel_info_request", map[string]any{})
		c.reply(c.shellCh, id)
		c.iopubUntilIdle(id)
		c.mu.Lock()
		c.pub = c.pub[:0]
		c.mu.Unlock()
	}
}
