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
	"io"
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
// implements it over a cell's display_data, update_display_data and
// clear_output messages.
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

// CellIO is the part of the kernel's per-cell connection (kernel.ExecIO)
// that FromCellIO adapts to a Publisher.
type CellIO interface {
	Display(data, metadata map[string]any, displayID string, update bool) error
	ClearOutput(wait bool)
}

// FromCellIO returns a Publisher that sends through c with no metadata, so
// that a kernel can call display.SetPublisher(display.FromCellIO(cio)) at
// the start of each cell. A nil c gives nil (terminal mode).
func FromCellIO(c CellIO) Publisher {
	if c == nil {
		return nil
	}
	return cellPublisher{c}
}

type cellPublisher struct{ c CellIO }

func (p cellPublisher) Display(b map[string]any, id string, update bool) error {
	return p.c.Display(b, nil, id, update)
}
func (p cellPublisher) ClearOutput(wait bool) { p.c.ClearOutput(wait) }

var (
	pubMu     sync.RWMutex
	publisher Publisher
	termOut   io.Writer // nil means os.Stdout
	termErr   io.Writer // nil means os.Stderr
)

// SetPublisher makes p the destination of all display output from now on;
// nil selects terminal mode. It is safe for concurrent use.
func SetPublisher(p Publisher) {
	pubMu.Lock()
	publisher = p
	pubMu.Unlock()
}

// CurrentPublisher returns the publisher set by SetPublisher, or nil in
// terminal mode.
func CurrentPublisher() Publisher {
	pubMu.RLock()
	defer pubMu.RUnlock()
	return publisher
}

// InNotebook reports whether a publisher is set (output goes to a notebook
// front end rather than the terminal).
func InNotebook() bool { return CurrentPublisher() != nil }

// SetTerminalOutput chooses where terminal mode writes: bundles' text/plain
// to stdout, progress bars and publisher errors to stderr. nil means
// os.Stdout and os.Stderr (the default).
func SetTerminalOutput(stdout, stderr io.Writer) {
	pubMu.Lock()
	termOut, termErr = stdout, stderr
	pubMu.Unlock()
}

func terminal() (stdout, stderr io.Writer) {
	pubMu.RLock()
	defer pubMu.RUnlock()
	stdout, stderr = termOut, termErr
	if stdout == nil {
		stdout = os.Stdout
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	return stdout, stderr
}

// send publishes bundle through p, or prints its text/plain in terminal
// mode. Publisher errors are reported on the terminal's stderr.
func send(p Publisher, bundle map[string]any, id string, update bool) {
	if p == nil {
		out, _ := terminal()
		if s, ok := bundle["text/plain"].(string); ok && s != "" {
			if !strings.HasSuffix(s, "\n") {
				s += "\n"
			}
			io.WriteString(out, s)
		}
		return
	}
	if err := p.Display(bundle, id, update); err != nil {
		_, e := terminal()
		fmt.Fprintf(e, "display: %v\n", err)
	}
}

// Publish shows a MIME bundle as is (IPython's publish_display_data). Add a
// "text/plain" entry for the terminal and for front ends that cannot render
// the others.
func Publish(bundle map[string]any) { send(CurrentPublisher(), bundle, "", false) }

// HTML shows s as text/html, with s stripped of tags as the text/plain
// fallback.
func HTML(s string) { Publish(HTMLBundle(s)) }

// Markdown shows s as text/markdown (the source is the text/plain fallback).
func Markdown(s string) { Publish(map[string]any{"text/markdown": s, "text/plain": s}) }

// SVG shows an SVG document as image/svg+xml.
func SVG(s string) { Publish(SVGBundle(s)) }

// PNG shows PNG-encoded image data as image/png (base64 in the bundle). In
// the terminal only a one-line note with the image size is printed.
func PNG(b []byte) { Publish(PNGBundle(b)) }

// JSON shows v, marshalled with encoding/json, as application/json (an
// interactive tree in JupyterLab), with the indented JSON as text/plain. A
// value that cannot be marshalled is shown as the marshalling error.
func JSON(v any) { Publish(JSONBundle(v)) }

// Show shows v with its richest representation (see Bundle).
func Show(v any) { Publish(Bundle(v)) }

// Clear clears the cell's output now (clear_output with wait=false). In the
// terminal it does nothing.
func Clear() { clear(false) }

// ClearWait clears the cell's output when the next output arrives
// (clear_output with wait=true), for flicker-free redraws.
func ClearWait() { clear(true) }

func clear(wait bool) {
	if p := CurrentPublisher(); p != nil {
		p.ClearOutput(wait)
	}
}

// Update replaces the output displayed with displayID (see Handle.ID) by
// v's bundle (update_display_data). In the terminal v's text is printed
// again. It panics with ErrArgument for an empty id.
func Update(displayID string, v any) {
	if displayID == "" {
		panic(fmt.Errorf("%w: display.Update: empty display id", ErrArgument))
	}
	send(CurrentPublisher(), Bundle(v), displayID, true)
}

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
// keeps the publisher that was current when it first showed, so a
// goroutine updating it after its cell ended still updates the right
// output. It is safe for concurrent use.
type Handle struct {
	id    string
	mu    sync.Mutex
	pub   Publisher
	shown bool
}

var handleSeq atomic.Int64

// processTag makes display ids unique across kernel restarts within one
// notebook page.
var processTag = fmt.Sprintf("%d-%x", os.Getpid(), time.Now().UnixNano()&0xffffffff)

// NewHandle returns a Handle with a fresh display id; nothing is shown yet.
func NewHandle() *Handle {
	return &Handle{id: fmt.Sprintf("gnnrepl-%s-%d", processTag, handleSeq.Add(1))}
}

// ID returns the handle's display id.
func (h *Handle) ID() string { return h.id }

// Publish displays bundle, or replaces the handle's earlier output by it.
func (h *Handle) Publish(bundle map[string]any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.shown {
		h.pub = CurrentPublisher()
		h.shown = true
		send(h.pub, bundle, h.id, false)
		return
	}
	send(h.pub, bundle, h.id, true)
}

// target is the publisher the handle sends to: the one it first showed
// with, or the current one before that.
func (h *Handle) target() Publisher {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.shown {
		return h.pub
	}
	return CurrentPublisher()
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
