package repl

import (
	"image"
	"image/color"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gnnrepl/gnnrepl/builtins"
)

type htmlTable struct{}

func (htmlTable) String() string { return "table" }
func (htmlTable) HTML() string   { return "<table></table>" }

type panicky struct{}

func (panicky) HTML() string { panic("render failed") }

func TestMIMEBundle(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 2, 2))
	img.Set(1, 1, color.White)
	b := Result{Text: "img", Values: []reflect.Value{reflect.ValueOf(img)}}.MIMEBundle()
	if s, _ := b["image/png"].(string); !strings.HasPrefix(s, "iVBOR") || b["text/plain"] != "img" {
		t.Errorf("image bundle %v", b)
	}
	b = Result{Text: "table", Values: []reflect.Value{reflect.ValueOf(htmlTable{})}}.MIMEBundle()
	if b["text/html"] != "<table></table>" || b["text/plain"] != "table" {
		t.Errorf("html bundle %v", b)
	}
	b = Result{Text: "p", Values: []reflect.Value{reflect.ValueOf(panicky{})}}.MIMEBundle()
	if b["text/plain"] != "p" || b["text/html"] != nil {
		t.Errorf("panicking renderer %v", b)
	}
	var nilPtr *image.Gray
	if b := (Result{Text: "<nil>", Values: []reflect.Value{reflect.ValueOf(nilPtr)}}).MIMEBundle(); b["text/plain"] != "<nil>" {
		t.Errorf("nil pointer bundle %v", b)
	}
	if b := (Result{}).MIMEBundle(); b != nil {
		t.Errorf("empty result bundle %v", b)
	}
}

// bundles is a Publisher that records the bundles' text/plain.
type bundles struct {
	mu   sync.Mutex
	text []string
}

func (b *bundles) Display(bundle map[string]any, id string, update bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, _ := bundle["text/plain"].(string)
	b.text = append(b.text, s)
	return nil
}

func (b *bundles) ClearOutput(bool) {}

// TestDisplayPerSession: each session's display calls go to its own
// Options.Display, or in terminal mode to its own Stdout and Stderr.
func TestDisplayPerSession(t *testing.T) {
	pub := &bundles{}
	opts := DefaultOptions()
	opts.Prelude = builtins.PreludeImports
	opts.Display = pub
	var nbOut syncBuffer
	opts.Stdout, opts.Stderr, opts.Stdin = &nbOut, &nbOut, strings.NewReader("")
	nb, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	term, out, errOut := newSession(t)

	const cell = `display.HTML("<b>x</b>")
bar := display.NewProgress(2, "epoch")
bar.Add(2)
bar.Finish()
display.InNotebook()`
	if got := eval(t, nb, cell); got != "true" {
		t.Errorf("notebook session: InNotebook() = %s", got)
	}
	if got := eval(t, term, cell); got != "false" {
		t.Errorf("terminal session: InNotebook() = %s", got)
	}
	pub.mu.Lock()
	got := pub.text
	pub.mu.Unlock()
	if len(got) != 4 || got[0] != "x" || !strings.Contains(got[3], "2/2") {
		t.Errorf("notebook session published %q", got)
	}
	if nbOut.String() != "" {
		t.Errorf("notebook session wrote %q on its streams", nbOut.String())
	}
	if out.String() != "x\n" || !strings.Contains(errOut.String(), "epoch") {
		t.Errorf("terminal session: stdout %q, stderr %q", out.String(), errOut.String())
	}
	// Reset keeps the session's destination.
	if err := nb.Reset(); err != nil {
		t.Fatal(err)
	}
	eval(t, nb, `display.Markdown("after reset")`)
	pub.mu.Lock()
	defer pub.mu.Unlock()
	if last := pub.text[len(pub.text)-1]; last != "after reset" {
		t.Errorf("after Reset the session published %q", last)
	}
}

// TestPreludeNotices: what the prelude writes on the session's stderr
// (log.Writer() in the interpreter) is written as it comes and kept for
// PreludeNotices, again after Reset.
func TestPreludeNotices(t *testing.T) {
	opts := DefaultOptions()
	opts.Prelude = builtins.PreludeImports + `fmt.Fprintln(log.Writer(), "gnnrepl: a notice")
fmt.Println("not a notice")
`
	var out, errOut syncBuffer
	opts.Stdout, opts.Stderr, opts.Stdin = &out, &errOut, strings.NewReader("")
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.PreludeNotices(); n != "gnnrepl: a notice\n" || errOut.String() != n {
		t.Errorf("PreludeNotices() = %q, stderr %q", n, errOut.String())
	}
	eval(t, s, `fmt.Fprintln(log.Writer(), "from a cell")`)
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if n := s.PreludeNotices(); n != "gnnrepl: a notice\n" {
		t.Errorf("after Reset: PreludeNotices() = %q", n)
	}
	quiet, _, _ := newSession(t)
	if n := quiet.PreludeNotices(); n != "" {
		t.Errorf("a quiet prelude's notices %q", n)
	}
}
