package nn

import (
	"fmt"
	"math"
	"strings"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
)

// CheckZeroInDegree returns nil when every destination node of g has at
// least one in-edge, and otherwise an *Error of kind ErrZeroInDegree that
// gives the number of such nodes and the first few ids. GraphConv and
// GATConv run this check (unless AllowZeroInDegree) and panic with the
// error, as DGL raises DGLError.
func CheckZeroInDegree(g graph.MessageGraph) error {
	if err := zeroInDegree("CheckZeroInDegree", g); err != nil {
		return err
	}
	return nil
}

func zeroInDegree(op string, g graph.MessageGraph) *Error {
	adj := g.Adj()
	const show = 10
	var ids []string
	count := 0
	for d := 0; d < adj.NumDst; d++ {
		if adj.Indptr[d+1] == adj.Indptr[d] {
			if count < show {
				ids = append(ids, fmt.Sprint(d))
			}
			count++
		}
	}
	if count == 0 {
		return nil
	}
	if count > show {
		ids = append(ids, "...")
	}
	return newError(ErrZeroInDegree, op,
		"%d of %d destination nodes have in-degree 0 (node ids %s); their output would be invalid. "+
			"Add self loops (g.AddSelfLoop()) or set AllowZeroInDegree: true to suppress this check",
		count, adj.NumDst, strings.Join(ids, ", "))
}

// degreeNorm returns deg clamped to at least 1 and raised to the power p,
// as a column (len(deg), 1) float32, for row scaling by broadcasting.
func degreeNorm(deg []int64, p float64) *tensor.Tensor {
	out := make([]float32, len(deg))
	for i, d := range deg {
		v := float64(max(d, 1))
		switch p {
		case -1:
			out[i] = float32(1 / v)
		case -0.5:
			out[i] = float32(1 / math.Sqrt(v))
		default:
			out[i] = float32(math.Pow(v, p))
		}
	}
	return tensor.FromFloat32(out, len(deg), 1)
}

// outDegrees counts the out-edges of each source node of adj.
func outDegrees(adj *tensor.Adj) []int64 {
	d := make([]int64, adj.NumSrc)
	for _, s := range adj.Indices {
		d[s]++
	}
	return d
}

// dstRows returns the destination nodes' rows of source features x: all of
// x on a full graph, its first NumDst rows on a block.
func dstRows(g graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	nd := g.NumDstNodes()
	if nd == x.Size(0) {
		return x
	}
	return tensor.Narrow(x, 0, nd)
}
