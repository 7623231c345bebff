package nn

import (
	"fmt"
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

// dstRows returns the destination nodes' rows of source features x: all of
// x on a full graph, its first NumDst rows on a block.
func dstRows(g graph.MessageGraph, x *tensor.Tensor) *tensor.Tensor {
	nd := g.NumDstNodes()
	if nd == x.Size(0) {
		return x
	}
	return tensor.Narrow(x, 0, nd)
}
