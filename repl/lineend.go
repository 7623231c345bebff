package repl

import (
	"io"
	"sync/atomic"
)

// LineEndWriter passes writes through to W and remembers whether the last
// byte written ended a line, so that a shell can end a line that a cell's
// output left open (fmt.Print("x")) before it draws the next prompt, which
// would otherwise overwrite it. Safe for concurrent use.
type LineEndWriter struct {
	W    io.Writer
	open atomic.Bool // the last byte written was not '\n'
}

// NewLineEndWriter returns a LineEndWriter writing to w.
func NewLineEndWriter(w io.Writer) *LineEndWriter { return &LineEndWriter{W: w} }

func (l *LineEndWriter) Write(p []byte) (int, error) {
	n, err := l.W.Write(p)
	if n > 0 {
		l.open.Store(p[n-1] != '\n')
	}
	return n, err
}

// AtLineStart reports whether nothing was written yet or the last byte
// written was a newline.
func (l *LineEndWriter) AtLineStart() bool { return !l.open.Load() }

// EndLine writes a newline when the last byte written did not end a line.
func (l *LineEndWriter) EndLine() {
	if l.open.Load() {
		l.Write([]byte{'\n'})
	}
}

// endLines ends the line a cell's output left open on any of ws that is a
// LineEndWriter.
func endLines(ws ...io.Writer) {
	for _, w := range ws {
		if l, ok := w.(*LineEndWriter); ok {
			l.EndLine()
		}
	}
}
