package graph_test

import (
	"github.com/gnnrepl/gnnrepl/internal/shareddata"
	"math"
	"testing"

	"github.com/gnnrepl/gnnrepl/datasets"
	"github.com/gnnrepl/gnnrepl/graph"
)

// sharedData returns the shared data folder (internal/shareddata).
func sharedData(t testing.TB) string { return shareddata.Dir(t) }

// The expected values were computed with networkx 3.6.1 from the same edge
// lists (weakly_connected_components, isolates, number_of_selfloops, the
// in-degree sequence) and plain Python for homophily and percentiles.
func TestAnalyzePlanetoid(t *testing.T) {
	dir := sharedData(t)
	for _, c := range []struct {
		name                     string
		nodes, edges, comps      int
		largest, loops           int
		edgeH, nodeH             float64
		inMax                    int64
		inMean, median, p90, p99 float64
	}{
		{"cora", 2708, 10556, 78, 2485, 0, 0.8099658961727927, 0.8251578275927919, 168, 3.8980797636632203, 3, 7, 19},
		{"citeseer", 3327, 9228, 438, 2120, 124, 0.7390550498482878, 0.722161601279684, 99, 2.7736699729486025, 2, 6, 15},
	} {
		d, err := datasets.LoadPlanetoid(c.name, dir)
		if err != nil {
			t.Fatal(err)
		}
		a := graph.Analyze(d.Graph, graph.AnalyzeOptions{MemoryBudget: 1 << 30, HiddenSize: 16})
		if a.NumNodes != c.nodes || a.NumEdges != c.edges || a.NumComponents != c.comps || a.LargestComponent != c.largest {
			t.Errorf("%s: %d nodes %d edges %d components (largest %d)", c.name, a.NumNodes, a.NumEdges, a.NumComponents, a.LargestComponent)
		}
		if a.SelfLoops != c.loops || a.IsolatedNodes != 0 || a.DuplicateEdges != 0 || a.Reciprocity != 1 {
			t.Errorf("%s: loops %d isolated %d dups %d reciprocity %g", c.name, a.SelfLoops, a.IsolatedNodes, a.DuplicateEdges, a.Reciprocity)
		}
		if math.Abs(a.EdgeHomophily-c.edgeH) > 1e-12 || math.Abs(a.NodeHomophily-c.nodeH) > 1e-12 {
			t.Errorf("%s: homophily edge %g node %g", c.name, a.EdgeHomophily, a.NodeHomophily)
		}
		in := a.InDegree
		if in.Min != 1 || in.Max != c.inMax || math.Abs(in.Mean-c.inMean) > 1e-12 || in.Median != c.median || in.P90 != c.p90 || in.P99 != c.p99 {
			t.Errorf("%s: in-degree %+v", c.name, in)
		}
		if a.InDegree != a.OutDegree {
			t.Errorf("%s: symmetric graph with different in and out degree stats", c.name)
		}
		if !a.Advice.FullGraphFits {
			t.Errorf("%s: full-graph training of a 16-wide model does not fit 1 GiB: %+v", c.name, a.Advice)
		}
		if in.PowerLawAlpha < 2 || in.PowerLawAlpha > 4 {
			t.Errorf("%s: power-law alpha %g", c.name, in.PowerLawAlpha)
		}
		if testing.Verbose() && c.name == "cora" {
			t.Log("\n" + a.String())
		}
	}
}
