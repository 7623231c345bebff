package repl

import (
	"io"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// traceWriter is the interpreter's stderr. yaegi prints one line
// "file:line:col: panic: func(...)" per interpreted frame a panic unwinds
// through; while a run is in progress those lines are collected (they become
// PanicError.Stack) instead of printed. Everything else goes through, and
// is also kept while recording (the prelude's notices).
//
// Lines written by another goroutine than the run's (main, set by start)
// are the frames of a panic in a goroutine the cell started: they are kept
// per goroutine, whether a run is in progress or not, until the session's
// recover in that goroutine takes them (goPanic).
type traceWriter struct {
	w      io.Writer
	mu     sync.Mutex
	on     bool
	frames []string
	rec    *strings.Builder // non-nil while recording
	main   atomic.Uint64    // the goroutine running the program
	byG    map[uint64][]string
}

// maxGoTraces bounds the goroutines whose panic frames are kept: frames of
// a goroutine that recovered its panic itself are never taken.
const maxGoTraces = 64

var traceLine = regexp.MustCompile(`^(\S.*:\d+:\d+): panic: (.*)\n?$`)

func (t *traceWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	if m := traceLine.FindSubmatch(p); m != nil {
		frame := cleanNames(string(m[1]) + ": " + strings.TrimSpace(string(m[2])))
		if g := goid(); g != t.main.Load() {
			if t.byG == nil || len(t.byG) >= maxGoTraces {
				t.byG = map[uint64][]string{}
			}
			t.byG[g] = append(t.byG[g], frame)
			t.mu.Unlock()
			return len(p), nil
		}
		if t.on {
			t.frames = append(t.frames, frame)
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

// take returns and forgets the panic frames written by goroutine g.
func (t *traceWriter) take(g uint64) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.byG[g]
	delete(t.byG, g)
	return f
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
