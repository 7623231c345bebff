package display

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BarChart draws a grouped bar chart and returns it as PNG data: one group
// per category along the x axis (labelled with categories, slanted) and,
// in each group, one bar per series, in the order of names, colored and
// listed in the legend as matplotlib's tab10 does. values[s][c] is series
// s's value for category c; a NaN or infinite value is drawn as no bar (a
// value that was not measured), and the axis starts at 0.
//
// It panics with an error wrapping ErrArgument when len(values) differs
// from len(names) or a series has not len(categories) values, and returns
// a wrapped error when the plot cannot be rendered.
func BarChart(title, ylabel string, categories, names []string, values [][]float64) ([]byte, error) {
	if len(values) != len(names) {
		panic(fmt.Errorf("%w: display.BarChart: %d series of values for %d names", ErrArgument, len(values), len(names)))
	}
	for s, v := range values {
		if len(v) != len(categories) {
			panic(fmt.Errorf("%w: display.BarChart: series %q has %d values for %d categories", ErrArgument, names[s], len(v), len(categories)))
		}
	}
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	top := 0.0
	width := vg.Points(min(40, 300/float64(max(1, len(names)*len(categories)))))
	for s, name := range names {
		vals := make(plotter.Values, len(categories))
		for c, v := range values[s] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals[c] = v
				top = max(top, v)
			}
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, fmt.Errorf("display: bar chart %q, series %q: %w", title, name, err)
		}
		bars.Color = palette[s%len(palette)]
		bars.LineStyle.Width = 0
		bars.Offset = width * vg.Length(float64(s)-float64(len(names)-1)/2)
		p.Add(bars)
		p.Legend.Add(name, bars)
	}
	if len(categories) > 0 {
		// Room for the outer bars and, above the tallest, for the legend.
		p.X.Min, p.X.Max = -0.6, float64(len(categories))-0.4
		if top > 0 {
			p.Y.Max = top * (1.1 + 0.08*float64(len(names)))
		}
		p.NominalX(categories...)
		p.X.Tick.Label.Rotation = math.Pi / 9
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	return renderPNG(p, "bar chart "+title)
}
