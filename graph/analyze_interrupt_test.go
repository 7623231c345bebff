package graph

import (
	"context"
	"errors"
	"testing"

	"github.com/gnnrepl/gnnrepl/runctx"
)

// TestAnalyzeInterrupted: a cancelled evaluation stops Analyze with a
// panic of an *Error wrapping the context's error; without one it runs.
func TestAnalyzeInterrupted(t *testing.T) {
	g, err := New(4, []int64{0, 1, 2}, []int64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if a := Analyze(g, AnalyzeOptions{}); a.NumEdges != 3 {
		t.Fatalf("NumEdges %d", a.NumEdges)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	restore := runctx.Set(ctx)
	defer restore()
	defer func() {
		r := recover()
		var e *Error
		if err, ok := r.(error); !ok || !errors.As(err, &e) || !errors.Is(err, context.Canceled) {
			t.Errorf("recovered %v, want an *Error wrapping context.Canceled", r)
		}
	}()
	Analyze(g, AnalyzeOptions{})
	t.Error("Analyze returned under a cancelled context")
}
