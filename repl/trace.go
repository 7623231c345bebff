package repl

import (
	"io"
	"regexp"
	"strings"
	"sync"
)

// traceWriter is the interpreter's stderr. yaegi prints one line
// "file:line:col: panic: func(...)" per interpreted frame a panic unwinds
// through; while a run is in progress those lines are collected (they become
// PanicError.Stack) instead of printed. Everything else goes through.
type traceWriter struct {
	w      io.Writer
	mu     sync.Mutex
	on     bool
	frames []string
}

var traceLine = regexp.MustCompile(`^(\S.*:\d+:\d+): panic: (.*)\n?$`)

func (t *traceWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	if t.on {
		if m := traceLine.FindSubmatch(p); m != nil {
			t.frames = append(t.frames, cleanNames(string(m[1])+": ")+strings.TrimSpace(string(m[2])))
			t.mu.Unlock()
			return len(p), nil
		}
	}
	t.mu.Unlock()
	return t.w.Write(p)
}

func (t *traceWriter) begin() {
	t.mu.Lock()
	t.on, t.frames = true, nil
	t.mu.Unlock()
}

func (t *traceWriter) end() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.frames
	t.on, t.frames = false, nil
	return f
}
