package tensor

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Printing follows PyTorch's repr (torch/_tensor_str.py): one row per
// line, columns aligned, floats in fixed point with 4 decimals (or
// scientific notation when the shown values span more than 1000x, or
// reach 1e8 or fall below 1e-4; integral values as "3."), tensors of more
// than printThreshold elements summarized to their first and last
// printEdge entries along each dimension, then the shape, the dtype, the
// device when it is not the CPU, and requires_grad or grad_fn.
const (
	printThreshold = 1000
	printEdge      = 3
	printWidth     = 80
)

// String renders t as PyTorch's repr does, e.g.
//
//	tensor([[ 1.0000, -2.5000],
//	        [ 0.1250,  3.0000]], shape=[2 2], dtype=float32, grad_fn=<MulBackward>)
//
// A tensor on a GPU is copied to the host to print; one with no values
// (meta) shows <no data>.
func (t *Tensor) String() string {
	var b strings.Builder
	b.WriteString("tensor(")
	h := t
	if t.st.device != "cpu" {
		if err := Catch(func() { h = download(t) }); err != nil {
			if !errors.Is(err, ErrDevice) {
				panic(err)
			}
			h = nil
		}
	}
	if h == nil {
		b.WriteString("<no data>")
	} else {
		f := newFormatter(h)
		f.write(&b, 0, 0, len("tensor("))
	}
	fmt.Fprintf(&b, ", shape=%v, dtype=%s", t.shape, t.dtype)
	if t.st.device != "cpu" {
		fmt.Fprintf(&b, ", device=%s", t.st.device)
	}
	if t.node != nil {
		fmt.Fprintf(&b, ", grad_fn=<%sBackward>", t.node.op)
	} else if t.requiresGrad {
		b.WriteString(", requires_grad=true")
	}
	b.WriteString(")")
	return b.String()
}

// formatter prints the elements of a host tensor with one width.
type formatter struct {
	t         *Tensor
	summarize bool
	width     int
	float     byte // 0 (not a float), 'i' integral, 'f' fixed, 'e' scientific
}

func newFormatter(t *Tensor) *formatter {
	f := &formatter{t: t, summarize: t.n > printThreshold}
	isFloat := t.dtype == Float32 || t.dtype == Float16 || t.dtype == BFloat16
	var shown []int
	f.each(0, 0, func(i int) { shown = append(shown, i) })
	if isFloat {
		f.float = 'i'
		lo, hi := math.Inf(1), 0.0
		for _, i := range shown {
			v := elem(t, i)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			if v != math.Trunc(v) {
				f.float = 'f'
			}
			if a := math.Abs(v); a != 0 {
				lo, hi = min(lo, a), max(hi, a)
			}
		}
		if hi > 0 && (hi/lo > 1000 || hi >= 1e8 || (f.float == 'f' && lo < 1e-4)) {
			f.float = 'e'
		}
	}
	for _, i := range shown {
		f.width = max(f.width, len(f.elem(i)))
	}
	return f
}

// each calls fn for every shown element's index, in order.
func (f *formatter) each(dim, off int, fn func(int)) {
	t := f.t
	if len(t.shape) == 0 {
		fn(0)
		return
	}
	stride := 1
	for _, d := range t.shape[dim+1:] {
		stride *= d
	}
	for _, i := range f.rows(t.shape[dim]) {
		if i < 0 {
			continue
		}
		if dim == len(t.shape)-1 {
			fn(off + i)
		} else {
			f.each(dim+1, off+i*stride, fn)
		}
	}
}

// rows returns the indices shown along a dimension of size n: all, or the
// first and last printEdge with -1 standing for the elided middle.
func (f *formatter) rows(n int) []int {
	var out []int
	if f.summarize && n > 2*printEdge {
		for i := 0; i < printEdge; i++ {
			out = append(out, i)
		}
		out = append(out, -1)
		for i := n - printEdge; i < n; i++ {
			out = append(out, i)
		}
		return out
	}
	for i := 0; i < n; i++ {
		out = append(out, i)
	}
	return out
}

// elem formats element i without padding.
func (f *formatter) elem(i int) string {
	t := f.t
	switch t.dtype {
	case Int64:
		return strconv.FormatInt(t.Int64s()[i], 10)
	case Int8:
		return strconv.Itoa(int(t.Int8s()[i]))
	case Bool:
		return strconv.FormatBool(t.Bools()[i])
	}
	v := elem(t, i)
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	switch f.float {
	case 'i':
		return strconv.FormatFloat(v, 'f', 0, 64) + "."
	case 'e':
		return strconv.FormatFloat(v, 'e', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// write prints dimension dim starting at element off; indent is the
// column the dimension's "[" is at.
func (f *formatter) write(b *strings.Builder, dim, off, indent int) {
	t := f.t
	if len(t.shape) == 0 {
		b.WriteString(f.elem(0))
		return
	}
	stride := 1
	for _, d := range t.shape[dim+1:] {
		stride *= d
	}
	b.WriteString("[")
	last := dim == len(t.shape)-1
	col := indent + 1
	for k, i := range f.rows(t.shape[dim]) {
		if k > 0 {
			if last {
				b.WriteString(",")
				col++
			} else {
				b.WriteString(",")
				b.WriteString(strings.Repeat("\n", len(t.shape)-1-dim))
				b.WriteString(strings.Repeat(" ", indent+1))
			}
		}
		if last {
			s := "..."
			if i >= 0 {
				s = fmt.Sprintf("%*s", f.width, f.elem(off+i))
			}
			if k > 0 {
				if col+1+len(s) > printWidth {
					b.WriteString("\n" + strings.Repeat(" ", indent+1))
					col = indent + 1
				} else {
					b.WriteString(" ")
					col++
				}
			}
			b.WriteString(s)
			col += len(s)
			continue
		}
		if i < 0 {
			b.WriteString("...")
			continue
		}
		f.write(b, dim+1, off+i*stride, indent+1)
	}
	b.WriteString("]")
}
