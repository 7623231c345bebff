package display

import (
	"bytes"
	"fmt"
	"image/color"
	"sort"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gnnrepl/gnnrepl/graph"
)

// Plot size in inches; at gonum/plot's 96 dpi PNG output a plot is
// 576x336 pixels.
const (
	PlotWidth  = 6.0
	PlotHeight = 3.5
)

// palette is matplotlib's tab10, which notebook users know.
var palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255},
}

// LinePlot draws each series as a line against its index 1, 2, ... (an
// epoch or step count) and returns the plot as PNG data. Series are drawn
// and listed in the legend in name order; non-finite values are left out
// of a line. It returns an error when the plot cannot be rendered.
func LinePlot(title, xlabel, ylabel string, series map[string][]float64) ([]byte, error) {
	names := make([]string, 0, len(series))
	for n := range series {
		names = append(names, n)
	}
	sort.Strings(names)
	return linePlot(title, xlabel, ylabel, names, series)
}

func linePlot(title, xlabel, ylabel string, names []string, series map[string][]float64) ([]byte, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	drawn := 0
	for i, n := range names {
		var xys plotter.XYs
		for k, y := range series[n] {
			if y == y && y < 1e308 && y > -1e308 {
				xys = append(xys, plotter.XY{X: float64(k + 1), Y: y})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("display: line plot %q, series %q: %w", title, n, err)
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		if i >= len(palette) {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		if len(xys) == 1 {
			s, err := plotter.NewScatter(xys)
			if err == nil {
				s.Color = l.Color
				s.Shape = draw.CircleGlyph{}
				p.Add(s)
			}
		}
		p.Legend.Add(n, l)
		drawn++
	}
	if drawn == 0 {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	}
	return renderPNG(p, "line plot "+title)
}

func renderPNG(p *plot.Plot, what string) ([]byte, error) {
	wt, err := p.WriterTo(vg.Length(PlotWidth)*vg.Inch, vg.Length(PlotHeight)*vg.Inch, "png")
	if err != nil {
		return nil, fmt.Errorf("display: %s: %w", what, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("display: %s: %w", what, err)
	}
	return buf.Bytes(), nil
}

// DegreeHistogram plots g's in- and out-degree distributions on log-log
// axes (nodes per degree in logarithmic bins; a power law is a straight
// line) and returns PNG data. It is graph.Analyze(g).DegreePlotPNG without
// the training advice; heterogeneous graphs are analysed as one node set.
func DegreeHistogram(g *graph.Graph) ([]byte, error) {
	if g == nil {
		panic(fmt.Errorf("%w: display.DegreeHistogram: nil graph", ErrArgument))
	}
	return graph.Analyze(g, graph.AnalyzeOptions{MemoryBudget: -1}).DegreePlotPNG()
}

// LossCurve is a live plot of training metrics: Add appends values to named
// series (one value per epoch or step), Show draws them and replaces the
// previous drawing in place (update_display_data), so calling Show once per
// epoch animates the curve under the cell. In the terminal Show prints one
// line with the latest value of every series instead. It is safe for
// concurrent use.
type LossCurve struct {
	// Title, XLabel and YLabel label the plot; NewLossCurve sets XLabel
	// "epoch" and YLabel "value".
	Title, XLabel, YLabel string

	mu     sync.Mutex
	names  []string // in order of first Add
	series map[string][]float64
	h      *Handle
}

// NewLossCurve returns an empty LossCurve with the given title.
func NewLossCurve(title string) *LossCurve { return terminal.NewLossCurve(title) }

// NewLossCurve returns an empty LossCurve that shows in o (see the
// package-level NewLossCurve).
func (o *Output) NewLossCurve(title string) *LossCurve {
	return &LossCurve{Title: title, XLabel: "epoch", YLabel: "value", series: map[string][]float64{}, h: o.NewHandle()}
}

// Add appends v to the series called name, creating it on first use.
func (c *LossCurve) Add(name string, v float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.series[name]; !ok {
		c.names = append(c.names, name)
	}
	c.series[name] = append(c.series[name], v)
}

// Series returns a copy of the values of the series called name.
func (c *LossCurve) Series(name string) []float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]float64(nil), c.series[name]...)
}

// Len is the length of the longest series.
func (c *LossCurve) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, s := range c.series {
		n = max(n, len(s))
	}
	return n
}

// PNG renders the curve, series in order of first Add.
func (c *LossCurve) PNG() ([]byte, error) {
	c.mu.Lock()
	names := append([]string(nil), c.names...)
	series := make(map[string][]float64, len(c.series))
	for k, v := range c.series {
		series[k] = append([]float64(nil), v...)
	}
	title, xl, yl := c.Title, c.XLabel, c.YLabel
	c.mu.Unlock()
	return linePlot(title, xl, yl, names, series)
}

// String is the latest value of every series: "epoch 3: loss 0.4123, val_acc 0.7700".
func (c *LossCurve) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	var parts []string
	for _, name := range c.names {
		s := c.series[name]
		n = max(n, len(s))
		parts = append(parts, fmt.Sprintf("%s %.4f", name, s[len(s)-1]))
	}
	prefix := c.XLabel
	if prefix == "" {
		prefix = "step"
	}
	return fmt.Sprintf("%s %d: %s", prefix, n, strings.Join(parts, ", "))
}

// MIMEBundle is the curve as image/png with its String as text/plain, so
// that a cell ending in the curve's name shows the plot.
func (c *LossCurve) MIMEBundle() map[string]any {
	data, err := c.PNG()
	if err != nil {
		return map[string]any{"text/plain": err.Error()}
	}
	b := PNGBundle(data)
	b["text/plain"] = c.String()
	return b
}

// Show draws the curve in its output (the first call displays it, later
// calls replace it). A rendering error is shown as text.
func (c *LossCurve) Show() {
	if c.h.target() == nil {
		c.h.Publish(map[string]any{"text/plain": c.String()})
		return
	}
	c.h.Publish(c.MIMEBundle())
}
