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
// PanicError.Stack) instead of printed. Everything else goes through, and
// is also kept while recording (the prelude's notices).
type traceWriter struct {
	w      io.Writer
	mu     sync.Mutex
	on     bool
	frames []string
	rec    *strings.Builder // non-nil while recording
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
	if t.rec != nil {
		t.rec.Write(p)
	}
	t.mu.Unlock()
	return t.w.Write(p)
}

// record starts keeping what goes through.
func (t *traceWriter) record() {
	t.mu.Lock()
	t.rec = &strings.Builder{}
	t.mu.Unlock()
}

// recorded stops recording and returns what went through since record.
func (t *traceWriter) recorded() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rec == nil {
		return ""
	}
	s := t.rec.String()
	t.rec = nil
	return s
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
