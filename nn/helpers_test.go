package nn

import (
	"os"
	"sort"
	"testing"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"github.com/gnnrepl/gnnrepl/tensor"
)

func TestMain(m *testing.M) {
	if os.Getenv("GNNREPL_BLAS") != "gonum" {
		_ = tensor.LoadOpenBLAS() // gonum when OpenBLAS is absent
	}
	os.Exit(m.Run())
}

// edgeGraph is a test graph given by edge lists: a full graph when
// numSrc == numDst, a block otherwise (graph.NewBlock with the destinations
// first among the sources).
func edgeGraph(t testing.TB, numSrc, numDst int, src, dst []int64) graph.MessageGraph {
	t.Helper()
	if numSrc == numDst {
		g, err := graph.New(numSrc, src, dst)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	// CSC with edge ids, stable by destination.
	order := make([]int, len(src))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return dst[order[a]] < dst[order[b]] })
	indptr := make([]int64, numDst+1)
	indices := make([]int64, len(src))
	eids := make([]int64, len(src))
	for _, d := range dst {
		indptr[d+1]++
	}
	for i := 0; i < numDst; i++ {
		indptr[i+1] += indptr[i]
	}
	for p, e := range order {
		indices[p] = src[e]
		eids[p] = int64(e)
	}
	nodes := make([]int64, numSrc)
	for i := range nodes {
		nodes[i] = int64(100 + i)
	}
	b, err := graph.NewBlock(nodes, numDst, indptr, indices, eids)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sharedData returns ../shared/data relative to the module root (or
// $GNNREPL_SHARED_DATA) and skips the test only when it is absent.
func sharedData(t testing.TB) string {
	return shareddata.Dir(t)
}

func randT(seed int64, lo, hi float32, shape ...int) *tensor.Tensor {
	return tensor.Rand(tensor.NewGenerator(seed), lo, hi, shape...)
}
