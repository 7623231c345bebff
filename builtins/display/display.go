package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"image"
	"image/png"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// ErrArgument is wrapped by the panics of misused functions.
var ErrArgument = errors.New("display: invalid argument")

// Publisher sends MIME bundles to a front end. The Jupyter kernel
// implements it over the running cell's display_data, update_display_data
// and clear_output messages.
type Publisher interface {
	// Display publishes bundle (MIME type -> data; binary data such as
	// image/png is base64-encoded text, application/json is a JSON value).
	// With a non-empty displayID the output can be replaced later by a
	// call with update=true and the same id (update_display_data).
	Display(bundle map[string]any, displayID string, update bool) error
	// ClearOutput clears the cell's output; with wait the front end clears
	// only when the next output arrives.
	ClearOutput(wait bool)
}

// Pinner is implemented by a Publisher whose destination changes, such as
// the Jupyter kernel's, which sends to the running cell: Pin returns a
// Publisher that keeps sending where this one sends now. A Handle pins its
// Output's publisher when it first shows, so that its updates replace its
// own output even after another cell has started.
type Pinner interface {
	Pin() Publisher
}

// The package-level functions below that show output (Publish, HTML, Show,
// Update, NewHandle, NewProgress, ...) are those of the terminal Output.
// A session binds the same names to its own Output (see Output), so in a
// cell they show in that session's front end.

// Publish shows a MIME bundle as is (IPython's publish_display_data). Add a
// "text/plain" entry for the terminal and for front ends that cannot render
// the others.
func Publish(bundle map[string]any) { terminal.Publish(bundle) }

// HTML shows s as text/html, with s stripped of tags as the text/plain
// fallback.
func HTML(s string) { terminal.HTML(s) }

// Markdown shows s as text/markdown (the source is the text/plain fallback).
func Markdown(s string) { terminal.Markdown(s) }

// SVG shows an SVG document as image/svg+xml.
func SVG(s string) { terminal.SVG(s) }

// PNG shows PNG-encoded image data as image/png (base64 in the bundle). In
// the terminal only a one-line note with the image size is printed.
func PNG(b []byte) { terminal.PNG(b) }

// JSON shows v, marshalled with encoding/json, as application/json (an
// interactive tree in JupyterLab), with the indented JSON as text/plain. A
// value that cannot be marshalled is shown as the marshalling error.
func JSON(v any) { terminal.JSON(v) }

// Show shows v with its richest representation (see Bundle).
func Show(v any) { terminal.Show(v) }

// Clear clears the cell's output now (clear_output with wait=false). In the
// terminal it does nothing.
func Clear() { terminal.Clear() }

// ClearWait clears the cell's output when the next output arrives
// (clear_output with wait=true), for flicker-free redraws.
func ClearWait() { terminal.ClearWait() }

// Update replaces the output displayed with displayID (see Handle.ID) by
// v's bundle (update_display_data). In the terminal v's text is printed
// again. It panics with ErrArgument for an empty id.
func Update(displayID string, v any) { terminal.Update(displayID, v) }

// InNotebook reports whether output goes to a notebook front end rather
// than the terminal.
func InNotebook() bool { return terminal.InNotebook() }

// HTMLBundle is the bundle HTML shows.
func HTMLBundle(s string) map[string]any {
	return map[string]any{"text/html": s, "text/plain": htmlText(s)}
}

// SVGBundle is the bundle SVG shows.
func SVGBundle(s string) map[string]any {
	return map[string]any{"image/svg+xml": s, "text/plain": fmt.Sprintf("[SVG image, %d bytes]", len(s))}
}

// PNGBundle is the bundle PNG shows.
func PNGBundle(b []byte) map[string]any {
	note := fmt.Sprintf("[PNG image, %d bytes]", len(b))
	if c, err := png.DecodeConfig(bytes.NewReader(b)); err == nil {
		note = fmt.Sprintf("[PNG image %dx%d, %d bytes]", c.Width, c.Height, len(b))
	}
	return map[string]any{"image/png": base64.StdEncoding.EncodeToString(b), "text/plain": note}
}

// JSONBundle is the bundle JSON shows.
func JSONBundle(v any) map[string]any {
	raw, err := json.Marshal(v)
	if err != nil {
		return map[string]any{"text/plain": fmt.Sprintf("display.JSON: %v", err)}
	}
	var tree any
	_ = json.Unmarshal(raw, &tree)
	var ind bytes.Buffer
	_ = json.Indent(&ind, raw, "", "  ")
	return map[string]any{"application/json": tree, "text/plain": ind.String()}
}

// Bundle returns v's MIME bundle: text/plain from fmt.Sprint (a String
// method), plus
//
//	*graph.Graph, graph.Graph      text/html from GraphHTML
//	*tensor.Tensor                 text/html from TensorHTML
//	MIMEBundle() map[string]any    the entries given
//	HTML() string                  text/html
//	Markdown() string              text/markdown
//	SVG() string                   image/svg+xml
//	PNG() ([]byte, error), PNG() []byte, image.Image   image/png
//
// Methods of types declared in the interpreter are not seen (yaegi does not
// expose them to compiled code); a panicking method is left out. A nil v
// gives "<nil>".
func Bundle(v any) map[string]any {
	b := map[string]any{"text/plain": plainText(v)}
	switch x := v.(type) {
	case nil:
		return b
	case *graph.Graph:
		if x != nil {
			b["text/html"] = GraphHTML(x)
		}
		return b
	case *tensor.Tensor:
		if x != nil {
			b["text/html"] = TensorHTML(x)
		}
		return b
	}
	rich(v, b)
	return b
}

func plainText(v any) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("%T (String panicked: %v)", v, r)
		}
	}()
	if v == nil {
		return "<nil>"
	}
	return fmt.Sprint(v)
}

// rich adds v's self-rendered MIME types to b, each guarded against panics.
func rich(v any, b map[string]any) {
	try := func(f func()) {
		defer func() { _ = recover() }()
		f()
	}
	if m, ok := v.(interface{ MIMEBundle() map[string]any }); ok {
		try(func() {
			for k, val := range m.MIMEBundle() {
				b[k] = val
			}
		})
	}
	if h, ok := v.(interface{ HTML() string }); ok {
		try(func() { b["text/html"] = h.HTML() })
	}
	if m, ok := v.(interface{ Markdown() string }); ok {
		try(func() { b["text/markdown"] = m.Markdown() })
	}
	if s, ok := v.(interface{ SVG() string }); ok {
		try(func() { b["image/svg+xml"] = s.SVG() })
	}
	switch p := v.(type) {
	case interface{ PNG() ([]byte, error) }:
		try(func() {
			if data, err := p.PNG(); err == nil {
				b["image/png"] = base64.StdEncoding.EncodeToString(data)
			}
		})
	case interface{ PNG() []byte }:
		try(func() { b["image/png"] = base64.StdEncoding.EncodeToString(p.PNG()) })
	case image.Image:
		try(func() {
			var buf bytes.Buffer
			if png.Encode(&buf, p) == nil {
				b["image/png"] = base64.StdEncoding.EncodeToString(buf.Bytes())
			}
		})
	}
}

var (
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
	blankRE = regexp.MustCompile(`\n[ \t]*\n(\s*\n)+`)
)

// htmlText is a crude text rendering of an HTML fragment: tags removed,
// entities decoded, runs of blank lines collapsed.
func htmlText(s string) string {
	s = strings.NewReplacer("</tr>", "</tr>\n", "<br>", "\n", "<br/>", "\n", "</p>", "</p>\n", "</td>", "</td>\t", "</th>", "</th>\t").Replace(s)
	s = html.UnescapeString(tagRE.ReplaceAllString(s, ""))
	s = blankRE.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

// Handle is one output that can be replaced in place: the first call of
// any of its showing methods displays with a transient display_id, later
// calls send update_display_data for it (IPython's DisplayHandle). A Handle
// shows in the Output that made it, and pins that Output's publisher when
// it first shows (see Pinner), so a goroutine updating it after its cell
// ended still updates the right output. It is safe for concurrent use.
type Handle struct {
	id    string
	out   *Output // nil: the terminal Output
	mu    sync.Mutex
	pub   Publisher
	shown bool
}

var handleSeq atomic.Int64

// processTag makes display ids unique across kernel restarts within one
// notebook page.
var processTag = fmt.Sprintf("%d-%x", os.Getpid(), time.Now().UnixNano()&0xffffffff)

// NewHandle returns a Handle with a fresh display id; nothing is shown yet.
func NewHandle() *Handle { return terminal.NewHandle() }

// ID returns the handle's display id.
func (h *Handle) ID() string { return h.id }

func (h *Handle) output() *Output {
	if h.out == nil {
		return terminal
	}
	return h.out
}

// Publish displays bundle, or replaces the handle's earlier output by it.
func (h *Handle) Publish(bundle map[string]any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.shown {
		h.pub = h.output().pin()
		h.shown = true
		h.output().send(h.pub, bundle, h.id, false)
		return
	}
	h.output().send(h.pub, bundle, h.id, true)
}

// target is the publisher the handle sends to: the one it pinned when it
// first showed, or its Output's before that.
func (h *Handle) target() Publisher {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.shown {
		return h.pub
	}
	return h.output().pub
}

// Show displays v (see Bundle) in the handle's output.
func (h *Handle) Show(v any) { h.Publish(Bundle(v)) }

// HTML displays s as text/html in the handle's output.
func (h *Handle) HTML(s string) { h.Publish(HTMLBundle(s)) }

// Markdown displays s as text/markdown in the handle's output.
func (h *Handle) Markdown(s string) {
	h.Publish(map[string]any{"text/markdown": s, "text/plain": s})
}

// PNG displays PNG data in the handle's output.
func (h *Handle) PNG(b []byte) { h.Publish(PNGBundle(b)) }

// SVG displays an SVG document in the handle's output.
func (h *Handle) SVG(s string) { h.Publish(SVGBundle(s)) }

// String is the handle's display id.
func (h *Handle) String() string { return "display.Handle(" + h.id + ")" }
