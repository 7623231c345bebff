package datasets

import (
	"fmt"
	"math/rand/v2"

	"github.com/gnnrepl/gnnrepl/graph"
)

// RMATOptions describes a deterministic R-MAT graph (Chakrabarti, Zhan &
// Faloutsos, "R-MAT: A Recursive Model for Graph Mining", SDM 2004; the
// Graph500 benchmark's generator) with planted communities, for node
// classification at any scale. The model:
//
//   - There are NumNodes = 2^Scale nodes and NumEdges = EdgeFactor *
//     NumNodes directed edges. Each edge picks its (source, destination)
//     ranks bit by bit, from the top: at every level it descends into the
//     quadrant (0, 0), (0, 1), (1, 0) or (1, 1) of the adjacency matrix with
//     probability A, B, C or D = 1 - A - B - C. With A > D this gives
//     power-law degrees and nested dense blocks.
//   - Rank r belongs to community (class) r*NumClasses/NumNodes. With
//     probability Homophily an edge's source is moved into its
//     destination's class (the source rank modulo the class size, offset
//     to the class's first rank, which keeps R-MAT's skew inside the
//     class).
//   - Node ids are a fixed random permutation of the ranks, so hubs and
//     classes are spread over the id range. Duplicate edges and self loops
//     are kept, as Graph500's generator keeps them.
//   - Features are the class centroid (a fixed N(0, 1) vector per class)
//     plus N(0, Noise^2) noise per entry, float32 (NumNodes, NumFeatures);
//     each node is in train, validation or test by a hash of (Seed, node):
//     TrainFrac, ValFrac, and the rest (as PowerLawOptions).
//
// Every edge's draws come from a random stream keyed by (Seed, edge) and
// every node's from one keyed by (Seed, node), so the graph is the same on
// every machine and for any GOMAXPROCS.
type RMATOptions struct {
	Scale       int     // log2 of the number of nodes, 1..31
	EdgeFactor  int     // edges per node; Graph500 uses 16
	A, B, C     float64 // quadrant probabilities, D = 1-A-B-C; Graph500: 0.57, 0.19, 0.19
	NumFeatures int
	NumClasses  int
	Homophily   float64 // probability an edge's source is in its destination's class, e.g. 0.8
	Noise       float64 // feature noise standard deviation, e.g. 2
	TrainFrac   float64
	ValFrac     float64
	Seed        uint64
}

// Graph500Like returns R-MAT options with Graph500's parameters (A = 0.57,
// B = C = 0.19, 16 edges per node; Murphy et al., "Introducing the Graph
// 500", 2010) and ogbn-products' node data: 100 features, 47 classes,
// homophily 0.8, noise 2, 8% training and 1.6% validation nodes. Scale 21
// with EdgeFactor 30 is about ogbn-products' size (2.1M nodes, 63M edges).
func Graph500Like(scale int, seed uint64) RMATOptions {
	return RMATOptions{Scale: scale, EdgeFactor: 16, A: 0.57, B: 0.19, C: 0.19,
		NumFeatures: 100, NumClasses: 47, Homophily: 0.8, Noise: 2,
		TrainFrac: 196_615.0 / 2_449_029, ValFrac: 39_323.0 / 2_449_029, Seed: seed}
}

// RMAT builds the dataset described by o (see RMATOptions): the graph from
// its edge lists without copies (graph.NewOwned), ndata "feat" (N, F)
// float32, "label" (N) int64 and "train_mask" / "val_mask" / "test_mask"
// (N) bool. Memory: 16 bytes per edge for the edge lists (the in-edge
// adjacency, built on first use, adds as much) plus 4*F+20 bytes per node;
// products size (Graph500Like(21, seed), EdgeFactor 30) peaks at 2.8 GiB
// resident and takes about 1.5 minutes with its adjacency on two shared
// cores (BenchmarkRMATProducts).
//
// It returns an error wrapping ErrArgument naming the first invalid option.
func RMAT(o RMATOptions) (*Dataset, error) {
	const op = "datasets.RMAT"
	d := 1 - o.A - o.B - o.C
	switch {
	case o.Scale < 1 || o.Scale > 31:
		return nil, fmt.Errorf("%s: Scale %d outside [1, 31]: %w", op, o.Scale, ErrArgument)
	case o.EdgeFactor < 0:
		return nil, fmt.Errorf("%s: EdgeFactor %d is negative: %w", op, o.EdgeFactor, ErrArgument)
	case o.A < 0 || o.B < 0 || o.C < 0 || d < -1e-12:
		return nil, fmt.Errorf("%s: A %g, B %g, C %g must be >= 0 with A+B+C <= 1: %w", op, o.A, o.B, o.C, ErrArgument)
	case o.NumFeatures <= 0 || o.NumClasses <= 0 || o.NumClasses > 1<<o.Scale:
		return nil, fmt.Errorf("%s: NumFeatures %d and NumClasses %d must be positive, with at most 2^Scale classes: %w",
			op, o.NumFeatures, o.NumClasses, ErrArgument)
	case o.Homophily < 0 || o.Homophily > 1:
		return nil, fmt.Errorf("%s: Homophily %g outside [0, 1]: %w", op, o.Homophily, ErrArgument)
	case o.TrainFrac < 0 || o.ValFrac < 0 || o.TrainFrac+o.ValFrac > 1:
		return nil, fmt.Errorf("%s: TrainFrac %g and ValFrac %g must be >= 0 and sum to at most 1: %w", op, o.TrainFrac, o.ValFrac, ErrArgument)
	}
	n, c, f := 1<<o.Scale, o.NumClasses, o.NumFeatures
	ne := o.EdgeFactor * n
	perm := rand.New(rand.NewPCG(o.Seed, 0x2545f4914f6cdd1d)).Perm(n)
	idOf := make([]int64, n) // rank -> node id
	for r, v := range perm {
		idOf[r] = int64(v)
	}
	perm = nil
	class := func(rank int64) int64 { return rank * int64(c) / int64(n) }
	classStart := func(k int64) int64 { return (k*int64(n) + int64(c) - 1) / int64(c) }

	// Edges: the ranks' bits, top first, then the community move.
	ab, abc := o.A+o.B, o.A+o.B+o.C
	src, dst := make([]int64, ne), make([]int64, ne)
	forNodes(ne, func(lo, hi int, st *nodeRand) {
		for e := lo; e < hi; e++ {
			st.seed(o.Seed^0x6a09e667f3bcc909, e)
			var u, v int64
			for bit := 0; bit < o.Scale; bit++ {
				u, v = u<<1, v<<1
				switch x := st.Float64(); {
				case x < o.A:
				case x < ab:
					v |= 1
				case x < abc:
					u |= 1
				default:
					u, v = u|1, v|1
				}
			}
			if st.Float64() < o.Homophily {
				k := class(v)
				k0 := classStart(k)
				u = k0 + u%(classStart(k+1)-k0)
			}
			src[e], dst[e] = idOf[u], idOf[v]
		}
	})

	// Node data, node by node.
	feat := make([]float32, n*f)
	labels := make([]int64, n)
	split := make([]uint8, n) // 0 train, 1 val, 2 test
	centroids := make([]float64, c*f)
	cr := rand.New(rand.NewPCG(o.Seed, 0xbb67ae8584caa73b))
	for i := range centroids {
		centroids[i] = cr.NormFloat64()
	}
	forNodes(n, func(lo, hi int, st *nodeRand) {
		for r := lo; r < hi; r++ {
			v := idOf[r]
			st.seed(o.Seed, int(v))
			k := class(int64(r))
			labels[v] = k
			row, cen := feat[v*int64(f):(v+1)*int64(f)], centroids[k*int64(f):(k+1)*int64(f)]
			for j := range row {
				row[j] = float32(cen[j] + o.Noise*st.NormFloat64())
			}
			switch u := st.Float64(); {
			case u < o.TrainFrac:
				split[v] = 0
			case u < o.TrainFrac+o.ValFrac:
				split[v] = 1
			default:
				split[v] = 2
			}
		}
	})
	idOf = nil
	g, err := graph.NewOwned(n, src, dst)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err) // a bug: ids are in range by construction
	}
	return syntheticDataset(op, "rmat", g, feat, labels, split, f, c)
}
