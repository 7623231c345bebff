package display

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// Limits of TensorHTML: at most TensorMaxRows rows and TensorMaxCols
// columns are shown, the first and last halves with an ellipsis between.
const (
	TensorMaxRows = 10
	TensorMaxCols = 10
)

const tableStyle = `style="border-collapse:collapse;font-family:monospace;font-size:12px"`

// GraphHTML renders a summary of g as an HTML table, the notebook form of
// DGL's Graph repr: the number of nodes and edges and, for a homogeneous
// graph, the node and edge data schemes (name, feature shape without the
// leading N or E, dtype, device). A heterogeneous graph lists its node types
// and canonical edge types with their counts.
func GraphHTML(g *graph.Graph) string {
	var b strings.Builder
	b.WriteString(`<div class="gnnrepl-graph">`)
	if !g.IsHomogeneous() {
		b.WriteString(`<b>Graph</b> (heterogeneous)<table ` + tableStyle + `><tr><th>node type</th><th>nodes</th></tr>`)
		for _, nt := range g.NTypes() {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td></tr>", html.EscapeString(nt), commas(g.NumNodesOf(nt)))
		}
		b.WriteString(`</table><table ` + tableStyle + `><tr><th>edge type (src, etype, dst)</th><th>edges</th></tr>`)
		for _, ce := range g.CanonicalETypes() {
			fmt.Fprintf(&b, "<tr><td>(%s, %s, %s)</td><td>%s</td></tr>", html.EscapeString(ce.Src), html.EscapeString(ce.EType), html.EscapeString(ce.Dst), commas(g.NumEdgesOf(ce.EType)))
		}
		b.WriteString("</table></div>")
		return b.String()
	}
	fmt.Fprintf(&b, `<b>Graph</b><table %s><tr><td>num_nodes</td><td align="right">%s</td></tr><tr><td>num_edges</td><td align="right">%s</td></tr></table>`,
		tableStyle, commas(g.NumNodes()), commas(g.NumEdges()))
	scheme := func(title string, names []string, get func(string) *tensor.Tensor) {
		if len(names) == 0 {
			fmt.Fprintf(&b, "<div><i>%s: none</i></div>", title)
			return
		}
		fmt.Fprintf(&b, `<table %s><caption style="text-align:left"><i>%s</i></caption><tr><th>name</th><th>shape</th><th>dtype</th><th>device</th></tr>`, tableStyle, title)
		for _, n := range names {
			t := get(n)
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>",
				html.EscapeString(n), shapeTuple(t.Shape()[1:]), t.DType(), html.EscapeString(t.Device()))
		}
		b.WriteString("</table>")
	}
	scheme("ndata_schemes", g.NDataNames(), g.NData)
	scheme("edata_schemes", g.EDataNames(), g.EData)
	b.WriteString("</div>")
	return b.String()
}

// shapeTuple writes a feature shape as DGL does: (), (1433,), (2, 3).
func shapeTuple(s []int) string {
	if len(s) == 1 {
		return fmt.Sprintf("(%d,)", s[0])
	}
	p := make([]string, len(s))
	for i, d := range s {
		p[i] = strconv.Itoa(d)
	}
	return "(" + strings.Join(p, ", ") + ")"
}

func commas(n int) string {
	s := strconv.Itoa(n)
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

// TensorHTML renders t as an HTML table under a caption with its shape,
// dtype, device and autograd state. A scalar shows its value, a vector one
// row, a matrix its rows; a tensor of higher rank is shown as a matrix of
// its first two dimensions at index 0 of the others. At most TensorMaxRows
// rows and TensorMaxCols columns are drawn: the first and last halves with
// ⋮ and … marking what was left out. Floats use %.4g. Elements of a device
// tensor are read one by one (a synchronization each), at most
// TensorMaxRows*TensorMaxCols of them.
func TensorHTML(t *tensor.Tensor) string {
	shape := t.Shape()
	var b strings.Builder
	caption := fmt.Sprintf("tensor shape=%v dtype=%s", shape, t.DType())
	if d := t.Device(); d != "cpu" {
		caption += " device=" + d
	}
	if t.RequiresGrad() {
		caption += " requires_grad"
	}
	fmt.Fprintf(&b, `<table class="gnnrepl-tensor" %s><caption style="text-align:left"><i>%s</i></caption>`, tableStyle, html.EscapeString(caption))
	if t.Numel() == 0 {
		b.WriteString("<tr><td><i>empty</i></td></tr></table>")
		return b.String()
	}
	rows, cols := 1, 1
	switch len(shape) {
	case 0:
	case 1:
		cols = shape[0]
	default:
		rows, cols = shape[0], shape[1]
	}
	idx := make([]int, len(shape))
	at := func(r, c int) string {
		switch len(idx) {
		case 0:
		case 1:
			idx[0] = c
		default:
			idx[0], idx[1] = r, c
		}
		x := t.At(idx...)
		switch t.DType() {
		case tensor.Int64:
			return strconv.FormatInt(int64(x), 10)
		case tensor.Bool:
			return strconv.FormatBool(x != 0)
		}
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	for _, r := range picks(rows, TensorMaxRows) {
		b.WriteString("<tr>")
		for _, c := range picks(cols, TensorMaxCols) {
			switch {
			case r < 0 && c < 0:
				b.WriteString(`<td align="center">⋱</td>`)
			case r < 0:
				b.WriteString(`<td align="center">⋮</td>`)
			case c < 0:
				b.WriteString(`<td align="center">…</td>`)
			default:
				fmt.Fprintf(&b, `<td align="right" style="padding:0 6px">%s</td>`, at(r, c))
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// picks lists the indices of n to show with at most max shown: all of them,
// or the first and last halves with -1 for the gap.
func picks(n, max int) []int {
	var out []int
	if n <= max {
		for i := 0; i < n; i++ {
			out = append(out, i)
		}
		return out
	}
	head := (max + 1) / 2
	tail := max - head
	for i := 0; i < head; i++ {
		out = append(out, i)
	}
	out = append(out, -1)
	for i := n - tail; i < n; i++ {
		out = append(out, i)
	}
	return out
}
