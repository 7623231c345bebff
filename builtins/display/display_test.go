package display

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// call is one message a fakePublisher received.
type call struct {
	bundle map[string]any
	id     string
	update bool
	clear  bool
	wait   bool
}

type fakePublisher struct {
	mu    sync.Mutex
	calls []call
	err   error
}

func (f *fakePublisher) Display(b map[string]any, id string, update bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{bundle: b, id: id, update: update})
	return f.err
}

func (f *fakePublisher) ClearOutput(wait bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{clear: true, wait: wait})
}

// notebook returns an Output publishing to a fake publisher.
func notebook() (*Output, *fakePublisher) {
	f := &fakePublisher{}
	return NewOutput(f, nil, nil), f
}

// term returns a terminal-mode Output writing to two buffers.
func term() (o *Output, stdout, stderr *bytes.Buffer) {
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	return NewOutput(nil, stdout, stderr), stdout, stderr
}

func tinyGraph(t *testing.T) *graph.Graph {
	t.Helper()
	g, err := graph.New(4, []int64{0, 1, 2, 3, 0}, []int64{1, 2, 3, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetNData("feat", tensor.Zeros(4, 3)); err != nil {
		t.Fatal(err)
	}
	if err := g.SetNData("label", tensor.FromInt64([]int64{0, 1, 0, 1})); err != nil {
		t.Fatal(err)
	}
	return g
}

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.Black)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestNotebookBundles(t *testing.T) {
	o, f := notebook()
	o.HTML("<b>bold</b> &amp; more")
	o.Markdown("# title")
	o.SVG("<svg></svg>")
	p := pngBytes(t, 3, 2)
	o.PNG(p)
	o.JSON(map[string]int{"a": 1})
	o.Clear()
	o.ClearWait()
	if len(f.calls) != 7 {
		t.Fatalf("got %d calls, want 7", len(f.calls))
	}
	c := f.calls
	if c[0].bundle["text/html"] != "<b>bold</b> &amp; more" || c[0].bundle["text/plain"] != "bold & more" {
		t.Errorf("HTML bundle %v", c[0].bundle)
	}
	if c[1].bundle["text/markdown"] != "# title" {
		t.Errorf("Markdown bundle %v", c[1].bundle)
	}
	if c[2].bundle["image/svg+xml"] != "<svg></svg>" {
		t.Errorf("SVG bundle %v", c[2].bundle)
	}
	if c[3].bundle["image/png"] != base64.StdEncoding.EncodeToString(p) || c[3].bundle["text/plain"] != "[PNG image 3x2, "+itoa(len(p))+" bytes]" {
		t.Errorf("PNG bundle %v", c[3].bundle)
	}
	if m, ok := c[4].bundle["application/json"].(map[string]any); !ok || m["a"] != 1.0 {
		t.Errorf("JSON bundle %v", c[4].bundle)
	}
	if !strings.Contains(c[4].bundle["text/plain"].(string), `"a": 1`) {
		t.Errorf("JSON text %q", c[4].bundle["text/plain"])
	}
	for i := 0; i < 5; i++ {
		if c[i].id != "" || c[i].update {
			t.Errorf("call %d has id %q update %v", i, c[i].id, c[i].update)
		}
	}
	if !c[5].clear || c[5].wait || !c[6].clear || !c[6].wait {
		t.Errorf("clear calls %+v %+v", c[5], c[6])
	}
}

func itoa(n int) string { return commas(n) }

type htmlThing struct{}

func (htmlThing) HTML() string         { return "<i>x</i>" }
func (htmlThing) Markdown() string     { return "*x*" }
func (htmlThing) String() string       { return "thing" }
func (htmlThing) PNG() ([]byte, error) { return []byte{1, 2}, nil }

type panicky struct{}

func (panicky) HTML() string { panic("boom") }

func TestShow(t *testing.T) {
	o, f := notebook()
	o.Show(htmlThing{})
	o.Show(42)
	o.Show(nil)
	o.Show(panicky{})
	o.Show(tinyGraph(t))
	o.Show(tensor.Arange(3))
	b := f.calls[0].bundle
	if b["text/html"] != "<i>x</i>" || b["text/markdown"] != "*x*" || b["text/plain"] != "thing" || b["image/png"] != "AQI=" {
		t.Errorf("self-rendering value: %v", b)
	}
	if b := f.calls[1].bundle; len(b) != 1 || b["text/plain"] != "42" {
		t.Errorf("int: %v", b)
	}
	if b := f.calls[2].bundle; b["text/plain"] != "<nil>" {
		t.Errorf("nil: %v", b)
	}
	if b := f.calls[3].bundle; b["text/html"] != nil {
		t.Errorf("panicking HTML method kept: %v", b)
	}
	if b := f.calls[4].bundle; !strings.Contains(b["text/html"].(string), "ndata_schemes") || !strings.HasPrefix(b["text/plain"].(string), "Graph(") {
		t.Errorf("graph: %v", b)
	}
	if b := f.calls[5].bundle; !strings.Contains(b["text/html"].(string), "<table") || !strings.HasPrefix(b["text/plain"].(string), "tensor(") {
		t.Errorf("tensor: %v", b)
	}
}

func TestHandleUpdates(t *testing.T) {
	o, f := notebook()
	h := o.NewHandle()
	h.HTML("a")
	h.Markdown("b")
	o.Update(h.ID(), 3)
	if len(f.calls) != 3 {
		t.Fatalf("%d calls", len(f.calls))
	}
	if f.calls[0].id != h.ID() || f.calls[0].update {
		t.Errorf("first show %+v", f.calls[0])
	}
	for _, c := range f.calls[1:] {
		if c.id != h.ID() || !c.update {
			t.Errorf("update %+v", c)
		}
	}
	if o.NewHandle().ID() == h.ID() || NewHandle().ID() == h.ID() {
		t.Error("display ids repeat")
	}
	// A handle keeps the destination its publisher had when it first
	// showed (Pinner).
	sw := &switching{cur: f}
	o = NewOutput(sw, nil, nil)
	h = o.NewHandle()
	h.HTML("a")
	g := &fakePublisher{}
	sw.cur = g
	h.SVG("<svg/>")
	if len(g.calls) != 0 || len(f.calls) != 5 || !f.calls[4].update {
		t.Errorf("update went to the new destination: %d %d calls", len(f.calls), len(g.calls))
	}
	o.HTML("b")
	if len(g.calls) != 1 {
		t.Errorf("output after the switch did not go to the new destination")
	}
}

func TestUpdateEmptyIDPanics(t *testing.T) {
	defer func() {
		if err, _ := recover().(error); !errors.Is(err, ErrArgument) {
			t.Errorf("recovered %v, want ErrArgument", err)
		}
	}()
	NewOutput(&fakePublisher{}, nil, nil).Update("", 1)
}

func TestTerminalMode(t *testing.T) {
	o, out, errw := term()
	o.HTML("<table><tr><td>a</td><td>b</td></tr></table>")
	o.PNG(pngBytes(t, 5, 4))
	o.Show(7)
	o.Clear()
	h := o.NewHandle()
	h.Show("first")
	h.Show("second")
	want := "a\tb\n[PNG image 5x4, "
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("terminal output %q, want prefix %q", out.String(), want)
	}
	if !strings.HasSuffix(out.String(), " bytes]\n7\nfirst\nsecond\n") {
		t.Errorf("terminal output %q", out.String())
	}
	if errw.Len() != 0 {
		t.Errorf("stderr %q", errw.String())
	}
}

func TestPublisherErrorGoesToStderr(t *testing.T) {
	f := &fakePublisher{err: errors.New("connection closed")}
	var errw bytes.Buffer
	NewOutput(f, nil, &errw).HTML("x")
	if !strings.Contains(errw.String(), "display: connection closed") {
		t.Errorf("stderr %q", errw.String())
	}
}

// switching is a Publisher that sends to cur, which the test changes (a
// kernel's follows the running cell).
type switching struct{ cur *fakePublisher }

func (s *switching) Display(b map[string]any, id string, update bool) error {
	return s.cur.Display(b, id, update)
}
func (s *switching) ClearOutput(wait bool) { s.cur.ClearOutput(wait) }
func (s *switching) Pin() Publisher        { return s.cur }

// TestPackageFunctionsAreTerminal: the package-level functions write to the
// process's terminal (a session binds their names to its own Output).
func TestPackageFunctionsAreTerminal(t *testing.T) {
	if InNotebook() {
		t.Error("InNotebook() outside a session")
	}
	if h := NewHandle(); h.output() != terminal || h.target() != nil {
		t.Error("a package-level handle has a publisher")
	}
}

func TestGraphHTML(t *testing.T) {
	g := tinyGraph(t)
	s := GraphHTML(g)
	for _, want := range []string{"num_nodes", ">4<", "num_edges", ">5<", "<td>feat</td><td>(3,)</td><td>float32</td>", "<td>label</td><td>()</td><td>int64</td>", "edata_schemes: none"} {
		if !strings.Contains(s, want) {
			t.Errorf("GraphHTML lacks %q:\n%s", want, s)
		}
	}
	h, err := graph.NewHetero(map[string]int{"user": 2, "item": 3},
		map[graph.CanonicalEType]graph.EdgeList{{Src: "user", EType: "buys", Dst: "item"}: {Src: []int64{0, 1}, Dst: []int64{2, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	s = GraphHTML(h)
	for _, want := range []string{"heterogeneous", "<td>user</td><td>2</td>", "(user, buys, item)</td><td>2</td>"} {
		if !strings.Contains(s, want) {
			t.Errorf("hetero GraphHTML lacks %q:\n%s", want, s)
		}
	}
}

func TestTensorHTML(t *testing.T) {
	small := tensor.FromFloat32([]float32{1, 2.5, -3, 4}, 2, 2)
	s := TensorHTML(small)
	for _, want := range []string{"shape=[2 2]", "float32", ">2.5<", ">-3<"} {
		if !strings.Contains(s, want) {
			t.Errorf("TensorHTML lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "⋮") || strings.Contains(s, "…") {
		t.Errorf("small tensor truncated:\n%s", s)
	}
	big := tensor.Zeros(100, 50)
	s = TensorHTML(big)
	if got := strings.Count(s, "<tr>"); got != TensorMaxRows+1 {
		t.Errorf("%d rows drawn, want %d", got, TensorMaxRows+1)
	}
	if got := strings.Count(s, "⋮"); got != TensorMaxCols {
		t.Errorf("%d ⋮ cells, want %d", got, TensorMaxCols)
	}
	if strings.Count(s, "⋱") != 1 || strings.Count(s, "…") != TensorMaxRows {
		t.Errorf("ellipses wrong:\n%s", s)
	}
	if s := TensorHTML(tensor.FromBool([]bool{true, false}, 2)); !strings.Contains(s, ">true<") || !strings.Contains(s, ">false<") {
		t.Errorf("bool tensor:\n%s", s)
	}
	if s := TensorHTML(tensor.FromInt64([]int64{7}, 1, 1, 1)); !strings.Contains(s, ">7<") {
		t.Errorf("rank-3 tensor:\n%s", s)
	}
	if s := TensorHTML(tensor.Zeros(0, 3)); !strings.Contains(s, "empty") {
		t.Errorf("empty tensor:\n%s", s)
	}
}

func decodePNG(t *testing.T, b []byte) image.Config {
	t.Helper()
	c, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	return c
}

func TestLinePlot(t *testing.T) {
	b, err := LinePlot("loss", "epoch", "value", map[string][]float64{"train": {1, 0.5, 0.25}, "val": {1.2, 0.9, 0.8}})
	if err != nil {
		t.Fatal(err)
	}
	if c := decodePNG(t, b); c.Width < 300 || c.Height < 200 {
		t.Errorf("plot is %dx%d", c.Width, c.Height)
	}
	if _, err := LinePlot("empty", "", "", nil); err != nil {
		t.Errorf("empty plot: %v", err)
	}
}

func TestDegreeHistogram(t *testing.T) {
	b, err := DegreeHistogram(tinyGraph(t))
	if err != nil {
		t.Fatal(err)
	}
	decodePNG(t, b)
}

func TestLossCurve(t *testing.T) {
	o, f := notebook()
	c := o.NewLossCurve("GraphSAGE")
	for i := 0; i < 3; i++ {
		c.Add("loss", 1/float64(i+1))
		c.Add("val_acc", 0.5+0.1*float64(i))
		c.Show()
	}
	if len(f.calls) != 3 || f.calls[0].update || !f.calls[1].update || !f.calls[2].update {
		t.Fatalf("calls %+v", f.calls)
	}
	last := f.calls[2].bundle
	if last["text/plain"] != "epoch 3: loss 0.3333, val_acc 0.7000" {
		t.Errorf("text %q", last["text/plain"])
	}
	raw, err := base64.StdEncoding.DecodeString(last["image/png"].(string))
	if err != nil {
		t.Fatal(err)
	}
	decodePNG(t, raw)
	if b := Bundle(c); b["image/png"] == nil || b["text/plain"] != last["text/plain"] {
		t.Errorf("Bundle(curve) = %v", b["text/plain"])
	}
	if c.Len() != 3 || len(c.Series("loss")) != 3 {
		t.Errorf("Len %d", c.Len())
	}

	o, out, _ := term()
	c = o.NewLossCurve("x")
	c.Add("loss", 2)
	c.Show()
	c.Add("loss", 1)
	c.Show()
	if out.String() != "epoch 1: loss 2.0000\nepoch 2: loss 1.0000\n" {
		t.Errorf("terminal curve %q", out.String())
	}
}

// fakeClock advances only when told to.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestProgressNotebookThrottles(t *testing.T) {
	o, f := notebook()
	clk := &fakeClock{t: time.Unix(1000, 0)}
	p := o.NewProgress(100, "epoch 1")
	p.now = clk.now
	p.start = clk.t
	p.last = clk.t
	for i := 0; i < 50; i++ {
		p.Add(1) // no time passes: throttled
	}
	if len(f.calls) != 1 {
		t.Fatalf("%d redraws without time passing, want 1 (the initial one)", len(f.calls))
	}
	clk.t = clk.t.Add(ProgressInterval)
	p.Add(1)
	if len(f.calls) != 2 || !f.calls[1].update || f.calls[1].id != f.calls[0].id {
		t.Fatalf("calls %+v", f.calls)
	}
	if s := f.calls[1].bundle["text/plain"].(string); !strings.Contains(s, "51/100") || !strings.Contains(s, "epoch 1  51%") {
		t.Errorf("text %q", s)
	}
	if s := f.calls[1].bundle["text/html"].(string); !strings.Contains(s, "width:51.0%") {
		t.Errorf("html %q", s)
	}
	p.SetPostfix("loss 0.5") // throttled
	p.Set(100)               // the end is always drawn
	if len(f.calls) != 3 || !strings.Contains(f.calls[2].bundle["text/plain"].(string), "100/100") ||
		!strings.Contains(f.calls[2].bundle["text/plain"].(string), "loss 0.5") {
		t.Fatalf("final calls %+v", f.calls)
	}
	p.Finish()
	p.Add(5)
	if p.Value() != 100 || len(f.calls) != 4 {
		t.Errorf("after Finish: value %d, %d calls", p.Value(), len(f.calls))
	}
	if !strings.Contains(f.calls[3].bundle["text/html"].(string), "#2ca02c") {
		t.Errorf("finished bar not green")
	}
}

func TestProgressTerminal(t *testing.T) {
	o, out, errw := term()
	p := o.NewProgress(10, "train")
	for i := 0; i < 10; i++ {
		p.Add(1)
	}
	p.Finish()
	if out.Len() != 0 {
		t.Errorf("stdout %q", out.String())
	}
	if s := errw.String(); !strings.Contains(s, "train") || !strings.Contains(s, "10/10") {
		t.Errorf("stderr %q", s)
	}
	// Stopped early: Finish keeps the position.
	errw.Reset()
	p = o.NewProgress(10, "stopped")
	p.Set(4)
	p.Finish()
	if !strings.Contains(errw.String(), "stopped") {
		t.Errorf("stderr %q", errw.String())
	}
}

func TestProgressNegativeTotalPanics(t *testing.T) {
	defer func() {
		if err, _ := recover().(error); !errors.Is(err, ErrArgument) {
			t.Errorf("recovered %v", err)
		}
	}()
	NewProgress(-1, "")
}

func TestBarChart(t *testing.T) {
	nan := math.NaN()
	b, err := BarChart("peak memory", "MiB", []string{"full graph", "sampling", "bf16"},
		[]string{"predicted", "measured"}, [][]float64{{400, 200, 120}, {nan, 201, 119}})
	if err != nil {
		t.Fatal(err)
	}
	if c := decodePNG(t, b); c.Width < 300 || c.Height < 200 {
		t.Errorf("chart is %dx%d", c.Width, c.Height)
	}
	if _, err := BarChart("empty", "", nil, nil, nil); err != nil {
		t.Errorf("empty chart: %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !errors.Is(r.(error), ErrArgument) {
				t.Errorf("ragged values: recovered %v", r)
			}
		}()
		_, _ = BarChart("bad", "", []string{"a", "b"}, []string{"x"}, [][]float64{{1}})
	}()
}
