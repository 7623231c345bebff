package repl

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// smallCell is the i'th of the cells the heap test runs: a declaration, an
// expression, a call, a loop, a composite literal, a function literal.
func smallCell(i int) string {
	switch i % 6 {
	case 0:
		return fmt.Sprintf("x := %d", i)
	case 1:
		return "x + 1"
	case 2:
		return `fmt.Sprint(x, "a")`
	case 3:
		return "for j := 0; j < 3; j++ {\n\tx += j\n}"
	case 5:
		return "f := func() int { return x }"
	}
	return fmt.Sprintf("y := []int{%d, 2}\n_ = y", i)
}

// TestHeapPerCell: the live heap grows by less than 1 KB per small cell.
// yaegi keeps the root of every program it compiled (for its debugger)
// and every block scope under its package scope, so a session grew by
// 0.6 KB per expression cell and 12-14 KB per cell with a loop or a
// composite literal; reclaim drops both lists (about 0.4-0.6 KB per cell
// remain: frame slots and the cell's file in the FileSet). A function
// literal redefined by every cell kept every earlier one and its copy of
// the frame (56 KB a cell after 1000 cells) until reclaim made the old
// variable's cell hold the new value.
func TestHeapPerCell(t *testing.T) {
	s, _, _ := newSession(t)
	ctx := context.Background()
	for i := 0; i < 200; i++ { // warm up: caches, the frame's first growth
		if _, err := s.Eval(ctx, smallCell(i)); err != nil {
			t.Fatal(err)
		}
	}
	before := liveHeap()
	const n = 2000
	for i := 0; i < n; i++ {
		if _, err := s.Eval(ctx, smallCell(i)); err != nil {
			t.Fatal(err)
		}
	}
	after := liveHeap()
	runtime.KeepAlive(s)
	perCell := float64(int64(after)-int64(before)) / n
	t.Logf("live heap: %+.0f bytes per cell over %d cells", perCell, n)
	if perCell >= 1024 {
		t.Errorf("live heap grows by %.0f bytes per cell, want < 1024", perCell)
	}
}

// BenchmarkSmallCell is the time of one small cell (smallCell's mix).
func BenchmarkSmallCell(b *testing.B) {
	opts := DefaultOptions()
	s, err := New(Options{Symbols: opts.Symbols, Stdout: discard{}, Stderr: discard{}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s.Eval(ctx, `import "fmt"`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Eval(ctx, smallCell(i)); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
