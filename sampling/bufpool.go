package sampling

import (
	"sync"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// bufPool recycles the float32 buffers of gathered node features between
// batches (LoaderOptions.ReuseBuffers): a batch's buffers go back to the
// pool when Next takes the following batch, and the workers gather later
// batches into them. Reused memory is already mapped and faulted in: a
// fresh 200 MB buffer costs about 50,000 page faults when it is first
// written, which on a 2-core VM took longer than the copy itself
// (nn.BenchmarkRGCNMinibatchSyntheticMAG). It is safe for concurrent use.
type bufPool struct {
	mu   sync.Mutex
	free [][]float32
	max  int // the most idle buffers kept; more are left to the collector
}

// minPooledFloats is the size from which a gather uses the pool: below
// it the allocator is as fast.
var minPooledFloats = 1 << 16

// get returns a buffer of length n: the smallest idle one that holds n
// values, or a new one with an eighth more capacity, so that the slightly
// larger batches that follow fit too. Its contents are arbitrary.
func (p *bufPool) get(n int) []float32 {
	p.mu.Lock()
	best := -1
	for i, b := range p.free {
		if cap(b) >= n && (best < 0 || cap(b) < cap(p.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := p.free[best]
		last := len(p.free) - 1
		p.free[best], p.free[last] = p.free[last], nil
		p.free = p.free[:last]
		p.mu.Unlock()
		return b[:n]
	}
	p.mu.Unlock()
	return make([]float32, n, n+n/8)
}

// put returns buffers to the pool; beyond max idle buffers the smallest
// are dropped.
func (p *bufPool) put(bufs [][]float32) {
	if len(bufs) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, bufs...)
	for len(p.free) > p.max {
		small := 0
		for i, b := range p.free {
			if cap(b) < cap(p.free[small]) {
				small = i
			}
		}
		last := len(p.free) - 1
		p.free[small], p.free[last] = p.free[last], nil
		p.free = p.free[:last]
	}
}

// reset drops every idle buffer (Close).
func (p *bufPool) reset() {
	p.mu.Lock()
	p.free = nil
	p.mu.Unlock()
}

// gatherPooled is gatherOn for the CPU drawing the result's memory from
// pool when it is set, t is a float32 matrix on the CPU and the result is
// large; it returns the result and the pooled buffer (nil when none was
// used), which the batch hands back to the pool when it is done with.
func gatherPooled(pool *bufPool, device string, t *tensor.Tensor, ids []int64) (*tensor.Tensor, []float32) {
	if pool == nil || device != "cpu" || t.DType() != tensor.Float32 || t.Device() != "cpu" || t.Dim() != 2 || len(ids)*t.Size(1) < minPooledFloats {
		return gatherOn(device, t, ids), nil
	}
	f := t.Size(1)
	buf := pool.get(len(ids) * f)
	gatherF32Into(buf, t.Float32s(), f, ids)
	return tensor.FromFloat32(buf, len(ids), f), buf
}
