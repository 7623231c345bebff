package graph

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// section is one titled block of the report: rows of (key, value).
type section struct {
	title string
	rows  [][2]string
}

func (a *Analysis) sections() []section {
	i := func(n int) string { return commas(int64(n)) }
	pct := func(n int) string {
		if a.NumNodes == 0 {
			return i(n)
		}
		return fmt.Sprintf("%s (%.2f%%)", i(n), 100*float64(n)/float64(a.NumNodes))
	}
	s := []section{{title: "Structure"}}
	st := &s[0]
	st.rows = append(st.rows, [2]string{"nodes", i(a.NumNodes)}, [2]string{"edges", i(a.NumEdges)})
	if len(a.NTypes) > 1 || len(a.ETypes) > 1 {
		for k, nt := range a.NTypes {
			st.rows = append(st.rows, [2]string{"  nodes " + nt, i(a.NumNodesPerType[k])})
		}
		for k, ce := range a.ETypes {
			st.rows = append(st.rows, [2]string{"  edges " + ce.String(), i(a.NumEdgesPerType[k])})
		}
	}
	st.rows = append(st.rows,
		[2]string{"isolated nodes", pct(a.IsolatedNodes)},
		[2]string{"self loops", i(a.SelfLoops)},
		[2]string{"duplicate edges", i(a.DuplicateEdges)},
		[2]string{"reciprocity", fmt.Sprintf("%.4f", a.Reciprocity)},
		[2]string{"weakly connected components", i(a.NumComponents)},
		[2]string{"largest component", pct(a.LargestComponent)},
	)
	if len(a.ComponentSizes) > 1 {
		sz := make([]string, len(a.ComponentSizes))
		for k, c := range a.ComponentSizes {
			sz[k] = i(c)
		}
		st.rows = append(st.rows, [2]string{"largest component sizes", strings.Join(sz, ", ")})
	}
	for _, d := range []struct {
		name string
		s    DegreeStats
	}{{"in-degree", a.InDegree}, {"out-degree", a.OutDegree}} {
		ds := section{title: "Degrees: " + d.name}
		ds.rows = append(ds.rows,
			[2]string{"min / median / mean / max", fmt.Sprintf("%d / %g / %.2f / %d", d.s.Min, d.s.Median, d.s.Mean, d.s.Max)},
			[2]string{"std", fmt.Sprintf("%.2f", d.s.Std)},
			[2]string{"p90 / p99", fmt.Sprintf("%g / %g", d.s.P90, d.s.P99)},
			[2]string{"degree 0", pct(d.s.Zero)},
			[2]string{"Gini", fmt.Sprintf("%.3f", d.s.Gini)},
		)
		if d.s.PowerLawTail > 0 {
			ds.rows = append(ds.rows, [2]string{"power-law alpha", fmt.Sprintf("%.2f (xmin %d, %s nodes in tail, KS %.3f)",
				d.s.PowerLawAlpha, d.s.PowerLawXmin, i(d.s.PowerLawTail), d.s.PowerLawKS)})
		}
		s = append(s, ds)
	}
	hs := section{title: "Degree histogram (log2 bins: in / out)"}
	for _, b := range a.DegreeHistogram {
		hs.rows = append(hs.rows, [2]string{fmt.Sprintf("%d-%d", b.Lo, b.Hi), fmt.Sprintf("%s / %s", i(b.In), i(b.Out))})
	}
	s = append(s, hs)
	if a.HasLabels {
		s = append(s, section{title: "Labels (" + a.LabelKey + ")", rows: [][2]string{
			{"classes", i(a.NumClasses)},
			{"edge homophily", fmt.Sprintf("%.4f", a.EdgeHomophily)},
			{"node homophily", fmt.Sprintf("%.4f", a.NodeHomophily)},
		}})
	}
	ms := section{title: "Memory"}
	b := tensor.FormatBytes
	ms.rows = append(ms.rows, [2]string{"COO (src, dst)", b(a.Memory.COO)}, [2]string{"CSR (out-edges)", b(a.Memory.CSR)},
		[2]string{"CSC (in-edges)", b(a.Memory.CSC)})
	for _, d := range a.Memory.NData {
		ms.rows = append(ms.rows, [2]string{fmt.Sprintf("ndata %q %v %s", d.Name, d.Shape, d.DType), b(d.Bytes)})
	}
	for _, d := range a.Memory.EData {
		ms.rows = append(ms.rows, [2]string{fmt.Sprintf("edata %q %v %s", d.Name, d.Shape, d.DType), b(d.Bytes)})
	}
	ms.rows = append(ms.rows, [2]string{"total", b(a.Memory.Total)})
	s = append(s, ms)
	ad := a.Advice
	if ad.NumLayers > 0 {
		as := section{title: fmt.Sprintf("Training advice (in %d, hidden %d, %d layers, batch %d, budget %s)",
			ad.InFeats, ad.HiddenSize, ad.NumLayers, ad.BatchSize, b(ad.MemoryBudget))}
		verdict := func(ok bool) string {
			if ad.MemoryBudget <= 0 {
				return ""
			}
			if ok {
				return "  fits"
			}
			return "  does not fit"
		}
		as.rows = append(as.rows, [2]string{"resident (graph + parameters)", b(ad.ResidentBytes)},
			[2]string{"full-graph training", b(ad.FullGraphBytes) + verdict(ad.FullGraphFits)})
		if ad.FullGraphFits && len(ad.Fanouts) > 0 {
			as.rows = append(as.rows, [2]string{"mini-batch estimates", fmt.Sprintf("%d fanout lists in Advice.Fanouts", len(ad.Fanouts))})
		}
		for _, e := range ad.Fanouts {
			if ad.FullGraphFits {
				break
			}
			as.rows = append(as.rows, [2]string{fmt.Sprintf("fanouts %v", e.Fanouts),
				fmt.Sprintf("%s (%s input nodes, %s edges)%s", b(e.Bytes), commas(int64(math.Round(e.Nodes[len(e.Nodes)-1]))),
					commas(int64(math.Round(e.Edges))), verdict(e.Fits))})
		}
		for _, n := range ad.Notes {
			as.rows = append(as.rows, [2]string{"note", n})
		}
		s = append(s, as)
	}
	return s
}

// String renders the analysis as a plain-text report, one titled section
// per topic (structure, degrees, histogram, labels, memory, advice).
func (a *Analysis) String() string {
	var sb strings.Builder
	for k, s := range a.sections() {
		if k > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(s.title + "\n")
		w := 0
		for _, r := range s.rows {
			if r[0] != "note" {
				w = max(w, len([]rune(r[0])))
			}
		}
		for _, r := range s.rows {
			if r[0] == "note" {
				sb.WriteString("  * " + r[1] + "\n")
				continue
			}
			fmt.Fprintf(&sb, "  %-*s  %s\n", w, r[0], r[1])
		}
	}
	return sb.String()
}

// HTML renders the same report as an HTML table with one header row per
// section, for notebooks.
func (a *Analysis) HTML() string {
	var sb strings.Builder
	sb.WriteString("<table>\n")
	for _, s := range a.sections() {
		sb.WriteString(`<tr><th colspan="2" style="text-align:left">` + html.EscapeString(s.title) + "</th></tr>\n")
		for _, r := range s.rows {
			sb.WriteString(`<tr><td style="text-align:left">` + html.EscapeString(r[0]) + `</td><td style="text-align:left">` +
				html.EscapeString(r[1]) + "</td></tr>\n")
		}
	}
	sb.WriteString("</table>\n")
	return sb.String()
}

// DegreePlotPNG draws the degree distribution on log-log axes as a PNG
// (600x400 points): for every histogram bin with nodes, the number of nodes
// per unit of degree (bin count / bin width) at the bin's geometric centre,
// in- and out-degrees as two lines. A power law shows as a straight line of
// slope -alpha. Nodes of degree 0 cannot be drawn on a log axis and are
// left out (DegreeStats.Zero counts them). It returns an error when the
// plot cannot be rendered.
func (a *Analysis) DegreePlotPNG() ([]byte, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Degree distribution (%s nodes, %s edges)", commas(int64(a.NumNodes)), commas(int64(a.NumEdges)))
	p.X.Label.Text = "degree"
	p.Y.Label.Text = "nodes per degree"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	drawn := 0
	for k, series := range []struct {
		name string
		get  func(DegreeBin) int
		col  color.RGBA
	}{
		{"in-degree", func(b DegreeBin) int { return b.In }, color.RGBA{R: 31, G: 119, B: 180, A: 255}},
		{"out-degree", func(b DegreeBin) int { return b.Out }, color.RGBA{R: 255, G: 127, B: 14, A: 255}},
	} {
		var xys plotter.XYs
		for _, b := range a.DegreeHistogram {
			if c := series.get(b); c > 0 {
				width := float64(b.Hi - b.Lo + 1)
				xys = append(xys, plotter.XY{X: math.Sqrt(float64(b.Lo) * float64(b.Hi)), Y: float64(c) / width})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("graph: degree plot: %w", err)
		}
		l.Color, pts.Color = series.col, series.col
		if k == 1 {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			pts.Shape = draw.TriangleGlyph{}
		}
		drawn++
		p.Add(l, pts)
		p.Legend.Add(series.name, l, pts)
	}
	if drawn == 0 {
		// No edges: an empty plot with a sensible range.
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 1, 10, 1, 10
	}
	wt, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
	if err != nil {
		return nil, fmt.Errorf("graph: degree plot: %w", err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("graph: degree plot: %w", err)
	}
	return buf.Bytes(), nil
}

// commas renders n with thousands separators: 1234567 -> "1,234,567".
func commas(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
