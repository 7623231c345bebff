package featstore

import (
	"fmt"
	"io"
	"strings"

	"github.com/gnnrepl/gnnrepl/tensor"
)

// Concat is a Store whose rows are the rows of several stores side by side:
// row v is [parts[0] row v, parts[1] row v, ...], (N, F_0 + F_1 + ...). It
// holds SIGN's hop features [X, ÂX, ..., Â^K X] (PropagateStore), each hop
// quantised with its own per-row scales, and any other mix of stores over
// the same nodes.
type Concat struct {
	parts []Store
	n, f  int
}

var _ Store = (*Concat)(nil)

// NewConcat returns the column-wise concatenation of parts (at least one,
// all with the same NumNodes). It returns an error wrapping ErrArgument
// naming the part that is nil or has a different number of nodes.
func NewConcat(parts ...Store) (*Concat, error) {
	const op = "NewConcat"
	if len(parts) == 0 {
		return nil, newError(ErrArgument, op, "no stores to concatenate")
	}
	c := &Concat{parts: append([]Store(nil), parts...)}
	for i, p := range parts {
		if p == nil {
			return nil, newError(ErrArgument, op, "part %d is nil", i)
		}
		if i == 0 {
			c.n = p.NumNodes()
		} else if p.NumNodes() != c.n {
			return nil, newError(ErrArgument, op, "part %d has %d nodes, part 0 has %d", i, p.NumNodes(), c.n)
		}
		c.f += p.Dim()
	}
	return c, nil
}

// Parts returns the concatenated stores (a copy of the list).
func (c *Concat) Parts() []Store { return append([]Store(nil), c.parts...) }

// NumNodes returns N.
func (c *Concat) NumNodes() int { return c.n }

// Dim returns the sum of the parts' widths.
func (c *Concat) Dim() int { return c.f }

// DType returns the first part's dtype.
func (c *Concat) DType() tensor.DType { return c.parts[0].DType() }

// Bytes returns the sum of the parts' bytes.
func (c *Concat) Bytes() int64 {
	var b int64
	for _, p := range c.parts {
		b += p.Bytes()
	}
	return b
}

// Gather returns rows ids as a new (len(ids), F) float32 tensor, each part
// filling its column range; see Store.Gather. It panics as the parts do
// (ErrIndex naming an id outside [0, N)).
func (c *Concat) Gather(ids []int64) *tensor.Tensor { return gather(c, ids) }

// GatherInto writes rows ids into dst with the given stride, each part
// gathering into its column range; see Store.GatherInto.
func (c *Concat) GatherInto(dst []float32, stride int, ids []int64) {
	checkGather("Concat.GatherInto", c.n, c.f, dst, stride, ids)
	off := 0
	for _, p := range c.parts {
		if len(ids) > 0 {
			p.GatherInto(dst[off:], stride, ids)
		}
		off += p.Dim()
	}
}

// Close closes every part that has a Close method (io.Closer) and returns
// the first error.
func (c *Concat) Close() error {
	var first error
	for _, p := range c.parts {
		if cl, ok := p.(io.Closer); ok {
			if err := cl.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// String describes the store and its parts.
func (c *Concat) String() string {
	s := make([]string, len(c.parts))
	for i, p := range c.parts {
		s[i] = p.String()
	}
	return fmt.Sprintf("Concat(num_nodes=%d, dim=%d, %s, %.2fx float32: %s)", c.n, c.f,
		tensor.FormatBytes(c.Bytes()), ratio(c.Bytes(), c.n, c.f), strings.Join(s, ", "))
}
