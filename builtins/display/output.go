package display

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Output is where one session's display output goes: the Publisher of a
// notebook front end, or, in terminal mode (no Publisher), the session's
// standard output, which gets each bundle's text/plain, and standard error,
// which gets progress bars and publisher errors.
//
// A repl session makes one Output from its options and binds the
// package-level functions that show output (Publish, HTML, Show, Update,
// NewHandle, NewProgress, NewLossCurve, ...: the methods of Output) to it
// in its interpreter, as yaegi binds os.Stdout to the interpreter's own
// Options.Stdout; so display.HTML in a cell shows in that session, and two
// sessions in one process do not share a destination. Compiled code that
// calls the package-level functions outside a session uses the terminal
// Output, on os.Stdout and os.Stderr.
//
// An Output is safe for concurrent use; it is only as safe as its
// Publisher and writers.
type Output struct {
	pub            Publisher
	stdout, stderr io.Writer // nil: os.Stdout, os.Stderr
}

// terminal is the Output of the package-level functions.
var terminal = &Output{}

// NewOutput returns an Output that publishes through pub or, when pub is
// nil, writes in terminal mode to stdout and stderr (nil writers mean
// os.Stdout and os.Stderr).
func NewOutput(pub Publisher, stdout, stderr io.Writer) *Output {
	return &Output{pub: pub, stdout: stdout, stderr: stderr}
}

// InNotebook reports whether o publishes to a front end (it has a
// Publisher) rather than writing to a terminal.
func (o *Output) InNotebook() bool { return o.pub != nil }

// writers returns o's terminal-mode writers.
func (o *Output) writers() (stdout, stderr io.Writer) {
	stdout, stderr = o.stdout, o.stderr
	if stdout == nil {
		stdout = os.Stdout
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	return stdout, stderr
}

// pin is the publisher a Handle keeps when it first shows: o's, pinned to
// its destination now when it is a Pinner.
func (o *Output) pin() Publisher {
	if p, ok := o.pub.(Pinner); ok {
		return p.Pin()
	}
	return o.pub
}

// send publishes bundle through p, or prints its text/plain on o's stdout
// when p is nil (terminal mode). Publisher errors are reported on o's
// stderr.
func (o *Output) send(p Publisher, bundle map[string]any, id string, update bool) {
	if p == nil {
		out, _ := o.writers()
		if s, ok := bundle["text/plain"].(string); ok && s != "" {
			if !strings.HasSuffix(s, "\n") {
				s += "\n"
			}
			io.WriteString(out, s)
		}
		return
	}
	if err := p.Display(bundle, id, update); err != nil {
		_, e := o.writers()
		fmt.Fprintf(e, "display: %v\n", err)
	}
}

// Publish shows a MIME bundle in o as is (see the package-level Publish).
func (o *Output) Publish(bundle map[string]any) { o.send(o.pub, bundle, "", false) }

// HTML shows s in o as text/html, with s stripped of tags as the
// text/plain fallback.
func (o *Output) HTML(s string) { o.Publish(HTMLBundle(s)) }

// Markdown shows s in o as text/markdown (the source is the text/plain
// fallback).
func (o *Output) Markdown(s string) { o.Publish(map[string]any{"text/markdown": s, "text/plain": s}) }

// SVG shows an SVG document in o as image/svg+xml.
func (o *Output) SVG(s string) { o.Publish(SVGBundle(s)) }

// PNG shows PNG-encoded image data in o as image/png (a one-line note in
// the terminal).
func (o *Output) PNG(b []byte) { o.Publish(PNGBundle(b)) }

// JSON shows v in o as application/json (see the package-level JSON).
func (o *Output) JSON(v any) { o.Publish(JSONBundle(v)) }

// Show shows v in o with its richest representation (see Bundle).
func (o *Output) Show(v any) { o.Publish(Bundle(v)) }

// Clear clears the cell's output now (clear_output with wait=false). In the
// terminal it does nothing.
func (o *Output) Clear() { o.clear(false) }

// ClearWait clears the cell's output when the next output arrives
// (clear_output with wait=true).
func (o *Output) ClearWait() { o.clear(true) }

func (o *Output) clear(wait bool) {
	if o.pub != nil {
		o.pub.ClearOutput(wait)
	}
}

// Update replaces the output displayed with displayID by v's bundle
// (update_display_data); in the terminal v's text is printed again. It
// panics with ErrArgument for an empty id.
func (o *Output) Update(displayID string, v any) {
	if displayID == "" {
		panic(fmt.Errorf("%w: display.Update: empty display id", ErrArgument))
	}
	o.send(o.pub, Bundle(v), displayID, true)
}

// NewHandle returns a Handle that shows in o, with a fresh display id;
// nothing is shown yet.
func (o *Output) NewHandle() *Handle {
	return &Handle{id: fmt.Sprintf("gnnrepl-%s-%d", processTag, handleSeq.Add(1)), out: o}
}
